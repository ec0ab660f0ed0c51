"""Everyday question actions: a cancelled or failed question comes back, history recall, regenerate,
edit and resend, model switch, copy."""

from __future__ import annotations

from tests.tui.conftest import SIZE, ask, make_app, send, settle, stalling_model, wait_for


def footer(turn) -> str:
    return turn.query_one(".turn-footer").render().plain


# ---- cancel and failure ---------------------------------------------------------------------------------------------


async def test_cancelled_question_goes_back_into_the_box_and_badge_says_it_once(small_kb):
    app = make_app(small_kb, model=stalling_model())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "a question that stalls")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        assert app.main.prompt.text == ""
        await pilot.press("escape")
        await settle(pilot)
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "cancelled"
        text = footer(turn)
        assert text.count("cancelled") == 1, text
        assert "nothing was saved" in text and "back in the box" in text
        assert app.main.prompt.text == "a question that stalls"


async def test_failed_question_goes_back_into_the_box(small_kb):
    from pydantic_ai.models.function import FunctionModel

    async def broken(messages, info):
        raise RuntimeError("the model server went away")
        yield ""  # pragma: no cover

    app = make_app(small_kb, model=FunctionModel(stream_function=broken))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "why is the sky blue")
        turn = app.main.turn_log.turns[0]
        assert turn.state == "failed"
        assert app.main.prompt.text == "why is the sky blue"
        assert footer(turn).count("nothing was saved") == 1


async def test_a_draft_typed_meanwhile_is_not_replaced(small_kb):
    app = make_app(small_kb, model=stalling_model())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first question")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        app.main.prompt.text = "my next draft"
        app.main.action_cancel()
        await settle(pilot)
        assert app.main.prompt.text == "my next draft"
        assert "back in the box" not in footer(app.main.turn_log.turns[-1])


# ---- history, regenerate, edit and resend ------------------------------------------------------------------------


async def test_up_in_an_empty_box_recalls_questions_and_down_returns_to_the_draft(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        prompt = app.main.prompt
        prompt.focus()
        assert prompt.text == ""
        await pilot.press("up")
        assert prompt.text == "how long should green tea steep"
        await pilot.press("up")
        assert prompt.text == "how do solar panels work in winter"
        await pilot.press("up")  # the oldest stays
        assert prompt.text == "how do solar panels work in winter"
        await pilot.press("down", "down")
        assert prompt.text == ""  # back to the (empty) draft
        prompt.text = "a draft"
        await pilot.press("up")  # a box with text keeps ↑ for moving the cursor
        assert prompt.text == "a draft"


async def test_up_recalls_other_sessions_after_this_ones(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.session.messages == []
        await ask(pilot, "how long should green tea steep")
        prompt = app.main.prompt
        await pilot.press("up")
        assert prompt.text == "how long should green tea steep"
        await pilot.press("up")
        assert prompt.text == "how do solar panels work in winter"  # from the other, saved session


async def test_regenerate_asks_again_and_keeps_the_earlier_answer(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        first = app.main.views[0]
        await pilot.press("ctrl+r")
        await settle(pilot)
        turns = app.main.turn_log.turns
        assert [t.prompt for t in turns] == ["how do solar panels work in winter"] * 2
        assert len(app.workbench.view.questions) == 2
        assert app.workbench.view.questions[0].answer == first.answer  # the earlier answer stays
        saved = app.workbench.store.load(app.session.id)
        assert len(saved.turns()) == 2


async def test_edit_puts_the_selected_question_into_the_box(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        await pilot.press("shift+tab", "up")  # the answers: select the first
        await pilot.press("f5")
        await pilot.pause()
        assert app.main.prompt.text == "how do solar panels work in winter"
        assert app.main.prompt.has_focus


# ---- model -----------------------------------------------------------------------------------------------------------


async def test_switch_model_is_checked_kept_with_the_session_and_shown(small_kb, monkeypatch):
    from textual.widgets import Input

    from haiku_tui.tui.screens.dialogs import TextInputDialog

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("f8")
        await pilot.pause()
        assert isinstance(app.screen, TextInputDialog)
        app.screen.query_one("#dialog-input", Input).value = "nosuchprovider:whatever"
        await pilot.press("enter")
        await settle(pilot)
        assert app.workbench.config.model == "extractive"  # refused: nothing changed
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "\n" not in errors[-1].message and "Traceback" not in errors[-1].message
        await pilot.press("f8")
        await pilot.pause()
        app.screen.query_one("#dialog-input", Input).value = "openai:gpt-5"
        await pilot.press("enter")
        await settle(pilot)
        assert app.workbench.config.model == "openai:gpt-5"
        assert app.workbench.agent is not None
        assert app.session.model == "openai:gpt-5"
        assert app.workbench.store.load(app.session.id).model == "openai:gpt-5"
        assert "openai:gpt-5" in app.main.query_one("#status").render().plain


# ---- copy ------------------------------------------------------------------------------------------------------------


async def test_y_copies_the_selected_answer_with_its_sources_and_says_so(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("shift+tab", "y")
        await pilot.pause()
        view = app.main.views[0]
        assert view.citations
        copied = app.clipboard
        assert copied.startswith("**Q1: how do solar panels work in winter**")
        assert view.answer.strip() in copied
        assert "Sources:" in copied and f"[{view.citations[0]}] " in copied
        assert any(n.message.startswith("Copied answer 1") for n in app._notifications)


async def test_y_in_the_evidence_pane_copies_the_citation(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("shift+tab", "1")  # the answers; jump to citation [1] in the evidence pane
        await pilot.pause()
        assert app.main.focused is app.main.evidence
        await pilot.press("y")
        await pilot.pause()
        copied = app.clipboard
        assert copied.startswith("[1] ") and "\n> " in copied
        assert any(n.message.startswith("Copied citation [1]") for n in app._notifications)


# ---- chunk viewer: place, copy, open the source -------------------------------------------------------------------


async def test_chunk_viewer_shows_the_place_copies_and_opens_the_source(small_kb, tmp_path, monkeypatch):
    import asyncio
    from pathlib import Path

    from haiku_tui.tui.main.modals import ChunkScreen

    record = tmp_path / "args.txt"
    editor = tmp_path / "subl"  # an editor that takes path:line and does not take over the terminal
    editor.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {record}\n")
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await pilot.press("f3", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChunkScreen)
        place = str(screen.query_one("#chunk-location").render())
        path, _, line = place.rpartition(":")
        assert Path(path).is_file() and int(line) >= 1
        await pilot.press("y")
        await pilot.pause()
        target = next(c for c in screen.chunks if c.chunk_id == screen.chunk_id)
        assert target.text.strip() in app.clipboard
        assert any(n.message.startswith("Copied the chunk") for n in app._notifications)
        await pilot.press("o")
        for _ in range(100):
            await settle(pilot)
            if record.exists() and record.read_text():
                break
            await asyncio.sleep(0.05)
        assert record.read_text().split() == [place]
