"""Pilot tests of the main screen: asking, streaming, evidence, policy log, review, sessions, keys.

All offline: the extractive model (or a FunctionModel script) over a small real knowledge base.
"""

from __future__ import annotations

import asyncio
import copy
import os
import subprocess
import sys

import pytest
from tests.tui.conftest import SIZE, ask, make_app, policy_model, searching_model, settle, stalling_model, wait_for
from textual.binding import Binding
from textual.widgets import Markdown

from haiku_tui.tui.text import CitationStream, clean, link_citations, clean_line, parse_cite_href

# ---- pure helpers ------------------------------------------------------------------------------------------


def test_clean_makes_control_characters_visible():
    assert clean("a\x1b[31mred\x1b[0m") == "a␛[31mred␛[0m"
    assert clean("bell\x07 nul\x00 del\x7f") == "bell␇ nul␀ del␡"
    assert clean("line\r\nnext\ttab") == "line\nnext\ttab"
    assert clean("csi\x9b") == "csi\\x9b"
    assert clean(None) == ""


def test_one_line_collapses_and_cuts():
    assert clean_line("a\n  b\tc") == "a b c"
    assert clean_line("abcdefghij", 5) == "abcd…"


def test_link_citations_only_valid_numbers_outside_code():
    text = "Light [1][2], not heat [9]. `code [1]` and [1](x)\n```\n[2]\n```"
    out = link_citations(text, lambda n: n in (1, 2))
    assert "[\\[1\\]](cite:1)[\\[2\\]](cite:2)" in out
    assert "heat [9]" in out
    assert "`code [1]`" in out
    assert "[1](x)" in out
    assert "\n[2]\n" in out


def test_citation_stream_joins_markers_split_across_chunks():
    stream = CitationStream(lambda n: True)
    out = "".join(stream.feed(piece) for piece in ["light [", "1", "]. more [2", "]"]) + stream.flush()
    assert out == "light [\\[1\\]](cite:1). more [\\[2\\]](cite:2)"


def test_a_follow_up_searched_with_the_question_before_shows_as_asked():
    from haiku_tui.capabilities.views import query_shown

    asked = "and at  night?"
    assert query_shown("and at night? how do solar panels work in winter", asked) == ("and at night?", True)
    question = "how do solar panels work in winter"
    assert query_shown(question, question) == (question, False)
    # a model's own query is shown as it searched it, even when it shares the question's first words
    assert query_shown("solar panels winter output", "and at night?") == ("solar panels winter output", False)
    assert query_shown("and at nightfall", "and at night") == ("and at nightfall", False)


def test_parse_cite_href():
    assert parse_cite_href("cite:12") == 12
    assert parse_cite_href("https://example.com") is None
    assert parse_cite_href("cite:x") is None


# ---- start-up ------------------------------------------------------------------------------------------------


async def test_empty_session_has_three_panes_and_prompt_focus(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is app.main.prompt
        assert app.main.conversation.display and app.main.evidence.display and app.main.policy_log.display
        status = str(app.main.query_one("#status").render())
        assert "extractive (retrieval-only)" in status
        assert "small.lancedb" in status
        assert "filter" not in status  # shown only when set
        assert app.session is not None and app.session.messages == []
        assert app.workbench.agent is not None


async def test_prompt_enter_sends_and_shift_enter_adds_a_line(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "shift+enter", "b")
        assert app.main.prompt.text == "a\nb"
        await pilot.press("ctrl+j", "c")
        assert app.main.prompt.text == "a\nb\nc"
        app.main.prompt.clear()
        await pilot.press("enter")  # blank input: nothing is asked
        await settle(pilot)
        assert app.main.turn_log.turns == []


# ---- asking ---------------------------------------------------------------------------------------------------


async def test_answer_streams_with_tool_rows_badge_and_is_saved(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        turn = app.main.turn_log.turns[0]
        assert turn.state == "grounded"
        rows = [(row.kind, row.text) for row in turn.rows]
        assert rows[0] == ("load", "loaded the knowledge-base tools")
        assert rows[1][0] == "search" and rows[1][1].startswith("searched “") and "result(s)" in rows[1][1]
        assert rows[2] == ("cite", "cited [1]")
        assert "[\\[1\\]](cite:1)" in turn.answer.source
        assert "need light, not heat" in turn.answer.source
        assert turn.citations == (1,)
        # committed and saved: conversation and state together
        saved = app.workbench.store.load(app.session.id)
        assert len(saved.messages) == len(app.session.messages) > 0
        assert saved.state == app.session.state
        assert app.sub_title == app.session.title
        # evidence and policy panes drawn from the views
        statuses = {item.status for _, item in app.main.evidence.items.values()}
        assert "cited" in statuses and "current" in statuses
        assert app.main.policy_log.option_count == 1
        status = str(app.main.query_one("#status").render())
        assert "last request " in status and "chars" in status and "session tokens ≈ " in status


async def test_evidence_updates_while_tools_run(small_kb):
    release = asyncio.Event()

    app = make_app(small_kb, model=searching_model(release))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "green tea"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.main.evidence.items) > 0)
        assert app.main.running
        assert app.session.messages == []  # nothing committed mid-run
        assert "answering" in str(app.main.query_one("#status").render())
        release.set()
        await settle(pilot)
        assert not app.main.running


async def test_citation_link_click_focuses_evidence_item(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        turn = app.main.turn_log.turns[0]
        turn.answer.post_message(Markdown.LinkClicked(turn.answer, "cite:1"))
        await settle(pilot)
        assert app.focused is app.main.evidence
        question, item = app.main.evidence.highlighted_item
        assert item.citation == 1 and question == turn.question


async def test_number_key_on_selected_answer_jumps_to_citation(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        app.main.turn_log.focus_selected()
        await pilot.press("1")
        await settle(pilot)
        assert app.focused is app.main.evidence
        assert app.main.evidence.highlighted_item[1].citation == 1
        app.main.turn_log.focus_selected()
        await pilot.press("7")  # no such citation: a warning, focus stays
        await settle(pilot)
        assert app.focused is app.main.turn_log.cursor
        assert app.main.turn_log.selected_turn.styles.background.a > 0  # marked active: the tinted background


async def test_toggle_cited_only(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        everything = len(app.main.evidence.items)
        app.main.evidence.focus()
        await pilot.press("c")
        await settle(pilot)
        assert app.main.evidence.cited_only
        assert 0 < len(app.main.evidence.items) < everything
        assert all(item.citation is not None for _, item in app.main.evidence.items.values())
        assert "cited only" in str(app.main.evidence.border_title)
        await pilot.press("c")
        assert len(app.main.evidence.items) == everything


async def test_enter_opens_chunk_with_neighbours(small_kb):
    from haiku_tui.tui.main.modals import ChunkScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        app.main.evidence.focus()
        _, item = app.main.evidence.highlighted_item
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChunkScreen) and screen.chunk_id == item.chunk_id
        texts = screen.query(".chunk-text")
        assert len(texts) >= 2  # the chunk and at least one neighbour
        assert len(screen.query(".chunk-text.-target")) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ChunkScreen)


async def test_a_chunk_only_retrieved_opens_as_retrieved_not_cited(small_kb):
    from haiku_tui.tui.main.modals import ChunkScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        pane = app.main.evidence
        pane.focus()
        heads = {}
        for status in ("cited", "current"):
            pane.highlighted = pane.get_option_index(
                next(oid for oid, (_, i) in pane.items.items() if i.status == status)
            )
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ChunkScreen)
            heads[status] = [
                str(h.render()) for h in app.screen.query(".chunk-head") if str(h.render()).startswith("▶")
            ]
            await pilot.press("escape")
            await settle(pilot)
        assert heads["cited"][0].startswith("▶ cited chunk  ")
        assert heads["current"][0].startswith("▶ retrieved chunk  ")


async def test_second_question_marks_earlier_evidence_retained_or_receipted(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        first, second = app.main.views
        assert {i.status for i in first.items} <= {"retained", "receipted"}
        assert "retained" in {i.status for i in first.items}
        assert "receipted" in {i.status for i in first.items}
        assert {i.status for i in second.items} <= {"cited", "current"}
        assert second.citations == (2,)
        # newest question first in the evidence pane
        first_option = app.main.evidence.get_option_at_index(0)
        assert first_option.id == f"q{second.question}"
        assert [t.number for t in app.main.turn_log.turns] == [1, 2]


async def test_evidence_pane_shows_a_follow_up_as_the_user_asked_it(small_kb, tmp_path):
    from haiku_tui.sessions import SessionStore

    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "and at night?")
        follow_up = app.main.views[-1]
        assert {i.query for i in follow_up.items} == {"and at night? how do solar panels work in winter"}
        rows = [str(app.main.evidence.get_option_at_index(i).prompt) for i in range(2)]
        assert rows[0].startswith("Q2 ❯ and at night?")
        assert rows[1] == "⌕ “and at night?”  · searched with the question before"
        # the conversation's search row says the same, live and when the session is reopened
        searched = "searched “and at night?” with the question before → "
        live = [row.text for row in app.main.turn_log.turns[-1].rows if row.kind == "search"]
        assert live and all(text.startswith(searched) for text in live)
        await pilot.press("ctrl+q")
    app = make_app(small_kb, store=store, session_id=app.session.id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [row.text for row in app.main.turn_log.turns[-1].rows if row.kind == "search"] == live


# ---- cancel and failure ------------------------------------------------------------------------------------------


async def cancel_a_stalled_question(app, pilot) -> None:
    """Ask "a question that stalls" with a model that stalls after its first text, then Esc."""
    app.workbench.model_override = stalling_model()
    app.workbench.build_agent()
    app.main.prompt.text = "a question that stalls"
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
    await pilot.press("escape")
    await settle(pilot)


async def test_escape_cancels_and_leaves_the_session_unchanged(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        before_messages = len(app.session.messages)
        before_state = copy.deepcopy(app.session.state)
        revision = app.session.revision
        await cancel_a_stalled_question(app, pilot)
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "cancelled"
        assert "starts streaming" in turn.answer.source
        assert not app.main.running
        assert len(app.session.messages) == before_messages
        assert app.session.state == before_state
        saved = app.workbench.store.load(app.session.id)
        assert saved.revision == revision and len(saved.messages) == before_messages
        assert len(app.main.views) == 1


async def test_failed_run_is_shown_and_not_committed(small_kb):
    from pydantic_ai.models.function import FunctionModel

    async def broken(messages, info):
        raise RuntimeError("the model server went away")
        yield ""  # pragma: no cover

    app = make_app(small_kb, model=FunctionModel(stream_function=broken))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "anything")
        turn = app.main.turn_log.turns[0]
        assert turn.state == "failed"
        assert app.session.messages == []
        assert "went away" in turn.query_one(".turn-footer").render().plain


# ---- policy ---------------------------------------------------------------------------------------------------------


async def test_redirect_is_shown_as_such(small_kb):
    app = make_app(small_kb, model=policy_model(obey_redirect=True))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "do solar panels work in winter")
        view = app.main.views[0]
        assert view.policy.redirect_asked and view.policy.outcome == "redirected"
        turn = app.main.turn_log.turns[0]
        assert "redirect" in [row.kind for row in turn.rows]
        assert turn.state == "grounded"
        line = str(app.main.policy_log.get_option_at_index(0).prompt)
        assert "redirect: asked" in line and "outcome: redirected" in line


async def test_violation_is_shown_as_such(small_kb):
    app = make_app(small_kb, model=policy_model(obey_redirect=False))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "do solar panels work in winter")
        view = app.main.views[0]
        assert view.policy.violation and view.badge == "violation"
        assert app.main.turn_log.turns[0].state == "violation"
        line = str(app.main.policy_log.get_option_at_index(0).prompt)
        assert "VIOLATION" in line and "outcome: violation" in line


# ---- review --------------------------------------------------------------------------------------------------------


async def test_review_marks_are_saved_with_the_session(small_kb):
    from haiku_tui.tui.main.modals import ReviewScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "what flour and starter make sourdough bread")
        view = app.main.views[0]
        assert len(view.citations) >= 2
        app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("s")
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("x")
        await pilot.press("escape")
        await settle(pilot)
        ids = app.workbench.view.citation_ids
        first, second = (ids[n] for n in view.citations[:2])
        saved = app.workbench.store.load(app.session.id)
        marks = saved.app_data["reviews"][str(view.question)]
        assert marks == {first: "supports", second: "does_not_support"}
        info = str(app.main.turn_log.turns[0].query_one(".turn-footer").render())
        assert "✓" in info and "✗" in info
        exported = app.workbench.store.export_markdown(app.session.id)
        assert "review: supports" in exported and "review: does not support" in exported
        # clearing a mark
        app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("0", "escape")
        await settle(pilot)
        assert first not in app.workbench.store.load(app.session.id).app_data["reviews"][str(view.question)]


async def test_review_of_an_answer_without_citations_warns(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "hello")
        app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


# ---- sessions ------------------------------------------------------------------------------------------------------


async def test_reopened_session_shows_its_whole_history(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        session_id = app.session.id
        answers = [t.answer.source for t in app.main.turn_log.turns]
        rows = [[r.text for r in t.rows] for t in app.main.turn_log.turns]
        evidence = list(app.main.evidence.items)
    again = make_app(small_kb, session_id=session_id)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        turns = again.main.turn_log.turns
        assert [t.answer.source for t in turns] == answers
        assert [t.state for t in turns] == ["grounded", "grounded"]
        reopened_rows = [[r.text for r in t.rows] for t in turns]
        assert [len(r) for r in reopened_rows] == [len(r) for r in rows]
        assert reopened_rows[0][1].startswith("searched “")
        assert list(again.main.evidence.items) == evidence
        assert again.main.policy_log.option_count == 2
        # and the conversation continues from there
        await ask(pilot, "how often should I oil a bicycle chain")
        assert len(again.main.turn_log.turns) == 3 and again.main.views[-1].citations == (3,)


async def test_new_session_action_starts_empty(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        old = app.session.id
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.session.id != old and app.main.turn_log.turns == []
        assert app.main.evidence.items == {}


async def test_sessions_screen_opens_a_session(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        first = app.session.id
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert type(app.screen).__name__ == "SessionsScreen"
        app.screen.dismiss(first)
        await settle(pilot)
        assert app.session.id == first and len(app.main.turn_log.turns) == 1


async def test_session_option_resolves_a_title(small_kb):

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        session = app.session
        assert app.workbench.store.resolve(session.id[:6]) == session.id
        assert app.workbench.store.resolve(session.title.upper()) == session.id


# ---- panes, keys, palette, help, themes ------------------------------------------------------------------------------


async def test_shrinking_the_terminal_keeps_the_newest_answer_in_view(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        log = app.main.turn_log
        assert log.max_scroll_y == 0  # everything fits
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert log.max_scroll_y > 0
        assert log.scroll_y == log.max_scroll_y
        await pilot.press("shift+tab", "home")  # reading the first answer: a resize leaves it there
        await settle(pilot)
        assert log.scroll_y == 0
        await pilot.resize_terminal(70, 24)
        await settle(pilot)
        assert log.scroll_y == 0 < log.max_scroll_y


async def test_panes_toggle_and_maximise(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        assert not app.main.evidence.display
        await pilot.press("ctrl+l")
        assert not app.main.query_one("#side").display
        await pilot.press("f3")  # focusing a hidden pane shows it
        assert app.main.evidence.display and app.focused is app.main.evidence
        await pilot.press("ctrl+f")
        assert app.screen.maximized is app.main.evidence
        await pilot.press("escape")
        assert app.screen.maximized is None
        await pilot.press("f2", "ctrl+f")
        assert app.screen.maximized is app.main.conversation
        await pilot.press("ctrl+f")
        assert app.screen.maximized is None
        await pilot.press("f4")
        assert app.focused is app.main.policy_log and app.main.policy_log.display


async def test_policy_log_enter_selects_that_answer(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        app.main.policy_log.focus()
        app.main.policy_log.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is app.main.turn_log.cursor and app.main.turn_log.selected_turn.number == 1


async def test_help_lists_the_focused_panes_keys(small_kb):
    from haiku_tui.tui.help import HelpScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one(".help-text").render())
        assert "Send" in text and "Jump to that citation" in text and "Show / hide the evidence pane" in text
        await pilot.press("escape")
        await pilot.press("f3", "f1")
        await settle(pilot)
        text = str(app.screen.query_one(".help-text").render())
        assert "All / cited only" in text and "receipt" in text and "Send" not in text


async def test_command_palette_runs_app_actions(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"hide the evidence")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert not app.main.evidence.display
        actions = {action for _, _, action in app.palette_commands()}
        for binding in [*app.main.BINDINGS, *app.BINDINGS]:
            assert binding.action in actions or binding.action in ("command_palette", "quit")


def test_every_binding_has_an_id_and_a_description():
    from haiku_tui.tui.app import HaikuApp
    from haiku_tui.tui.main.answer_cursor import AnswerCursor
    from haiku_tui.tui.main.evidence import EvidencePane, PolicyLog
    from haiku_tui.tui.help import HelpScreen
    from haiku_tui.tui.main.modals import ChunkScreen, ReviewScreen
    from haiku_tui.tui.main.prompt import PromptArea
    from haiku_tui.tui.main.screen import MainScreen

    ids = set()
    for cls in (
        HaikuApp,
        MainScreen,
        AnswerCursor,
        EvidencePane,
        PolicyLog,
        PromptArea,
        ChunkScreen,
        ReviewScreen,
        HelpScreen,
    ):
        for binding in cls.__dict__["BINDINGS"]:
            assert isinstance(binding, Binding), (cls, binding)
            assert binding.id and binding.description, (cls, binding)
            assert binding.id not in ids
            ids.add(binding.id)


async def test_theme_choice_is_remembered(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = "nord"
        await settle(pilot)
    import tomllib

    from haiku_tui.agent.models import config_path

    assert tomllib.loads(config_path().read_text())["theme"] == "nord"  # the one user config file
    again = make_app(small_kb)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "nord"


async def test_markup_and_escapes_in_documents_are_shown_literally(injection_kb):
    app = make_app(injection_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "what do hostile chunks write")
        assert app.is_running  # the [@click=app.quit] text did not act
        prompts = [str(app.main.evidence.get_option_at_index(i).prompt) for i in range(app.main.evidence.option_count)]
        joined = "\n".join(prompts)
        assert "[bold]loud[/bold]" in joined
        assert "[@click=app.quit]" in joined
        assert "\x1b" not in joined
        answer = app.main.turn_log.turns[0].answer.source
        assert "\x1b" not in answer and "[bold]loud[/bold]" in answer


async def test_many_turns_mount_incrementally(small_kb, monkeypatch):
    """A long session reopens with a window of its newest turns; keys slide the window, never mount it all."""
    from haiku_tui.tui.main import turn_log

    monkeypatch.setattr(turn_log, "OPENING", 5)
    monkeypatch.setattr(turn_log, "WINDOW", 8)
    monkeypatch.setattr(turn_log, "STEP", 3)
    monkeypatch.setattr(turn_log, "AHEAD", 2)
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(25):
            await ask(pilot, "hello")
        turns = app.main.turn_log.turns
        last = turns[-1]
        await ask(pilot, "how do solar panels work in winter")
        assert last.is_attached and last in app.main.turn_log.turns  # earlier turns were not rebuilt
        session_id = app.session.id
    again = make_app(small_kb, session_id=session_id)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = again.main.turn_log
        assert [t.number for t in log.turns] == [22, 23, 24, 25, 26] and log.total == 26
        assert "winter" in log.turns[-1].prompt and log.turns[-1].has_answer
        log.focus_selected()
        for _ in range(6):  # past the window's top: older turns mount, the newest unmount
            await pilot.press("up")
        assert log.selected_turn.number == 20 and log.selected_turn.has_answer
        assert len(log.turns) <= 8 and "answer 20 of 26" in str(log.cursor.render())
        await pilot.press("home")
        assert log.selected_turn.number == 1 and len(log.turns) <= 8
        for _ in range(7):
            await pilot.press("down")
        assert log.selected_turn.number == 8 and len(log.turns) <= 8
        await pilot.press("end")
        assert log.selected_turn.number == 26 and log.turns[-1].has_answer
        await again.main.turn_log.action_select_first()
        await ask(pilot, "hello again")  # a new question brings the newest turns back first
        assert [t.number for t in log.turns][-2:] == [26, 27]



async def test_a_cancelled_turn_and_old_questions_survive_the_window(small_kb, monkeypatch):
    """A cancelled turn that slides out of the window comes back in its place, with its badge and text; an
    evidence item of a question outside the window is reviewed as that question, not the selected one."""
    from haiku_tui.tui.main import turn_log
    from haiku_tui.tui.main.modals import ReviewScreen

    monkeypatch.setattr(turn_log, "OPENING", 3)
    monkeypatch.setattr(turn_log, "WINDOW", 4)
    monkeypatch.setattr(turn_log, "STEP", 2)
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        model = app.workbench.model_override
        await cancel_a_stalled_question(app, pilot)
        app.workbench.model_override = model
        app.workbench.build_agent()
        for n in range(6):
            await ask(pilot, f"tea brewing question {n}")
        log = app.main.turn_log
        assert "a question that stalls" not in [t.prompt for t in log.turns]  # slid out of the window
        assert log.total == 7  # the cancelled question is not numbered
        await log.action_select_first()
        await settle(pilot)
        prompts = [t.prompt for t in log.turns]
        assert prompts[:2] == ["how do solar panels work in winter", "a question that stalls"]
        ghost = log.turns[1]
        assert ghost.state == "cancelled" and "starts streaming" in ghost.answer.source and ghost.question is None
        await log.action_select_last()
        await settle(pilot)
        assert "a question that stalls" not in [t.prompt for t in log.turns]

        first = app.workbench.view.questions[0].question
        assert log.turn_for(first) is None  # out of the window
        assert app.main.evidence.focus_item(first, app.workbench.view.questions[0].items[0].chunk_id)
        app.main.evidence.focus()
        await pilot.pause()
        app.main.action_review()
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.question_number == 1
        await pilot.press("s")  # marked while its turn is mounted beyond the window (the session's first)
        await pilot.press("escape")
        await settle(pilot)
        await log.action_select_first()
        assert log.turns[0].question == first and "[1]✓" in log.turns[0].query_one(".turn-footer").render().plain


# ---- command line ----------------------------------------------------------------------------------------------------


def test_help_does_not_import_textual():
    code = "import sys; from haiku_tui.cli import main; main(['--help']); print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")
    assert "--session" in out.stdout and "demo" in out.stdout


def test_bare_command_needs_a_terminal(capsys):
    from haiku_tui.cli import main

    assert main([]) == 1
    assert "interactive terminal" in capsys.readouterr().err


def test_demo_ingests_the_guide_once(tmp_path):
    from haiku_tui.cli.app import GUIDE_DIR, prepare_demo

    if not list(GUIDE_DIR.glob("*.md")):
        pytest.skip("the bundled guide is not written yet")
    path = prepare_demo(tmp_path / "demo.lancedb", quiet=True)
    from haiku_tui.store import KnowledgeBase

    with KnowledgeBase.open(str(path), create=False) as kb:
        count = kb.info()["documents"]
    assert count == len(list(GUIDE_DIR.glob("*.md")))
    prepare_demo(path, quiet=True)  # unchanged files are skipped
    with KnowledgeBase.open(str(path), create=False) as kb:
        assert kb.info()["documents"] == count
    assert os.path.isdir(path)


async def test_document_filter_restricts_searches_and_is_saved(small_kb):
    """Ctrl+G sets an SQL filter: the next search only sees matching documents; the session keeps it."""
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert type(app.screen).__name__ == "TextInputDialog"
        app.screen.dismiss("path LIKE '%tea%'")
        await settle(pilot)
        assert app.session.document_filter == "path LIKE '%tea%'"
        assert "path LIKE '%tea%'" in str(app.main.query_one("StatusBar").render())
        await ask(pilot, "how do solar panels work in winter")
        latest = app.main.views[-1]
        assert latest.items and all("tea" in item.path for item in latest.items)
        assert app.workbench.store.load(app.session.id).document_filter == "path LIKE '%tea%'"
        await pilot.press("ctrl+g")
        await settle(pilot)
        app.screen.dismiss("no_such_column = 1")
        await settle(pilot)
        assert app.session.document_filter == "path LIKE '%tea%'"  # an invalid filter changes nothing


async def test_deleting_the_open_session_starts_a_new_one(small_kb):
    """Deleting the open session from the sessions screen leaves the app on a new, saveable session."""
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        doomed = app.session.id
        await pilot.press("ctrl+o")
        await settle(pilot)
        app.workbench.store.delete(doomed)
        app.screen.dismiss(None)
        await settle(pilot)
        assert app.session.id != doomed and not app.main.turn_log.turns
        await ask(pilot, "how do I brew green tea")
        assert app.workbench.store.load(app.session.id).question_count == 1


def analysis_model():
    """Loads the analysis capability, counts documents in the sandbox, cites what the code printed."""
    import json
    import re

    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    from haiku_tui.capabilities.analysis import ANALYSIS_ID

    program = (
        "docs = await list_documents()\n"
        "tea = await get_document(docs[-1]['id'])\n"
        "print(len(docs), 'documents')\n"
        "print(tea['chunks'][0]['chunk_id'])"
    )

    async def stream(messages, info):
        returns = {
            p.tool_name: str(p.content) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return"
        }
        if "analysis_cite" in returns:
            yield "There are 4 documents [1]."
        elif "analysis_execute_code" in returns:
            chunk = re.findall(r"\b[0-9a-f]{16}\b", returns["analysis_execute_code"])[0]
            yield {
                0: DeltaToolCall(name="analysis_cite", json_args=json.dumps({"chunk_ids": [chunk]}), tool_call_id="c3")
            }
        elif "load_capability" in returns:
            yield {
                0: DeltaToolCall(
                    name="analysis_execute_code", json_args=json.dumps({"code": program}), tool_call_id="c2"
                )
            }
        else:
            yield {
                0: DeltaToolCall(name="load_capability", json_args=json.dumps({"id": ANALYSIS_ID}), tool_call_id="c1")
            }

    return FunctionModel(stream_function=stream, model_name="analysis-script")


async def test_programs_the_analysis_capability_ran_show_in_the_evidence_pane(small_kb):
    """With --analysis, the program and its output appear under the question, and its citation counts."""
    app = make_app(small_kb, model=analysis_model(), analysis=True)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how many documents are there?")
        (view,) = app.main.views
        assert view.badge == "grounded" and view.citations == (1,)
        assert [p.success for p in view.programs] == [True] and "4 documents" in view.programs[0].stdout
        shown = "\n".join(
            str(app.main.evidence.get_option_at_index(i).prompt) for i in range(app.main.evidence.option_count)
        )
        assert "▶ program" in shown and "print(len(docs), 'documents')" in shown and "4 documents" in shown


async def test_typing_on_the_answers_starts_a_new_question(small_kb):
    """With the answers focused, their keys work and any other character goes to the question box."""
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how do I brew green tea")
        app.main.turn_log.focus_selected()
        await pilot.press("k")  # an answer key: selects the previous answer
        await settle(pilot)
        assert app.focused is app.main.turn_log.cursor and app.main.turn_log.selected_turn.number == 1
        await pilot.press(*"What about black tea")
        await wait_for(pilot, lambda: app.focused is app.main.prompt)  # once the burst is over
        assert app.main.prompt.text == "What about black tea"
