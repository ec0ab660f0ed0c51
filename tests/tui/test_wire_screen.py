"""The wire inspector on a reopened session shows the requests the model received, and copies them."""

from __future__ import annotations

from tests.capabilities.scripts import Script, cite_top, load, search, text
from tests.capabilities.test_wire import _dump
from tests.tui.conftest import SIZE, ask, f1_help, make_app, settle
from textual.widgets import Static

from haiku_tui.capabilities.compaction import DROPPED_HEADER
from haiku_tui.sessions import SessionStore

SOLAR = "how do solar panels work in winter"
TEA = "how long should green tea steep"


async def two_questions(small_kb, store) -> tuple[Script, int, str]:
    """Ask two questions with a scripted model; returns it, the requests of Q1, and the session id."""
    script = Script(load(), search("solar panels winter"), cite_top(), text("Panels need light [1]."))
    app = make_app(small_kb, model=script.model, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, SOLAR)
        first = len(script.sent)
        script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))
        await ask(pilot, TEA)
        return script, first, app.session.id


async def test_w_on_a_reopened_answer_shows_what_the_model_received(small_kb, tmp_path):
    from haiku_tui.tui.screens.wire import WireScreen

    store = SessionStore(tmp_path / "sessions.db")
    script, first, session_id = await two_questions(small_kb, store)
    received = script.sent[first:]

    app = make_app(small_kb, store=store, session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.turn_log.focus_selected()
        app.main.turn_log.selected_index = 1
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WireScreen) and screen.number == 2
        assert len(screen.requests) == len(received) == 3
        for request, sent in zip(screen.requests, received):
            assert _dump(request.messages) == _dump(sent)
        shown = "\n".join(str(w.render()) for w in screen.query(".wire-request").results(Static))
        assert TEA in shown and "evidence retained" in shown and "evidence current" in shown and "tool call" in shown
        assert "repeat the request before" in shown  # what a prompt cache can serve
        assert "Request 3" in shown and "without compaction" in shown and "tokens" in shown
        sizes = str(screen.query_one("#wire-sizes", Static).render())
        assert "Q1" in sizes and "Q2" in sizes and "█" in sizes and "░" in sizes

        text = await f1_help(pilot, "Next request", "Copy as JSON")
        assert text.startswith("Wire inspector") and "Previous request" in text
        await pilot.press("c")
        assert '"tool_name": "rag_search"' in app.clipboard and TEA in app.clipboard
        await pilot.press("p", "c")
        assert app.clipboard == screen.requests[1].as_json()
        await pilot.press("escape")
        assert not isinstance(app.screen, WireScreen)


async def test_w_without_an_answer_says_what_to_do(small_kb, tmp_path):
    app = make_app(small_kb, store=SessionStore(tmp_path / "s.db"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await app.main.run_action("wire")
        await settle(pilot)
        assert app.screen is app.main
        assert any("Select a completed answer" in str(n.message) for n in app._notifications)


async def test_w_shows_what_a_windowed_run_sent(small_kb, tmp_path):
    """With a history window of one question, Q3's requests carry only Q2 and Q3 (Q1's citation in the capsule);
    the inspector rebuilds exactly those requests, not the whole history."""

    store, script, app = _scripted_app(small_kb, tmp_path, history_window=1)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, SOLAR)
        script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))
        await ask(pilot, TEA)
        first = len(script.sent)
        # Q1's load_capability call is outside the window: the tools are loaded again
        script.extend(load(), search("snow on panels"), cite_top(), text("Snow slides off [1]."))
        await ask(pilot, "what about snow on the panels")
        received, session_id = script.sent[first:], app.session.id
    assert all(SOLAR not in str(getattr(part, "content", "")) for m in received[0][:1] for part in m.parts)

    await _reopen_and_compare(small_kb, store, session_id, received, number=3, history_window=1)


def _scripted_app(small_kb, tmp_path, **settings):
    """A store, a script whose first question cites the solar chunk, and an app over both with the workbench
    ``settings``."""
    store = SessionStore(tmp_path / "sessions.db")
    script = Script(load(), search("solar panels winter"), cite_top(), text("Panels need light [1]."))
    app = make_app(small_kb, model=script.model, store=store)
    for name, value in settings.items():
        setattr(app.workbench, name, value)
    return store, script, app


async def _reopen_and_compare(small_kb, store, session_id, received, *, number, **settings) -> str:
    """Reopen the session with the workbench ``settings``, press w on its newest answer: the inspector's requests
    are the ``received`` ones part by part; returns what its request headers say."""
    from haiku_tui.tui.screens.wire import WireScreen

    again = make_app(small_kb, store=store, session_id=session_id)
    for name, value in settings.items():
        setattr(again.workbench, name, value)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        again.main.turn_log.focus_selected()
        await pilot.press("w")
        await settle(pilot)
        screen = again.screen
        assert isinstance(screen, WireScreen) and screen.number == number
        for request, sent in zip(screen.requests, received, strict=True):
            assert _dump(request.messages) == _dump(sent)
        return "\n".join(str(w.render()) for w in screen.query(".wire-request").results(Static))


async def test_w_shows_a_bounded_capsule_as_sent_and_says_what_it_left_out(small_kb, tmp_path):
    """With ``retained_chars`` too small for any chunk, Q2's requests leave Q1 out and name its cited chunk by a
    receipt line only; the inspector rebuilds them exactly and its capsule line says how many chunks it names."""

    store, script, app = _scripted_app(small_kb, tmp_path, retained_chars=1)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, SOLAR)
        first = len(script.sent)
        script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))
        await ask(pilot, TEA)
        received, session_id = script.sent[first:], app.session.id
        cited = next(iter(app.session.state["rag"]["citation_index"].values()))
    contents = [str(getattr(p, "content", "")) for m in received[0] for p in m.parts]
    capsule = next(c for c in contents if c.startswith(DROPPED_HEADER))
    assert f"[{cited['chunk_id']}] Source: " in capsule and cited["text"] not in capsule

    shown = await _reopen_and_compare(small_kb, store, session_id, received, number=2, retained_chars=1)
    assert "1 chunk(s) cited for questions this request no longer carries" in shown


def fold_text(screen, number: int) -> str:
    from textual.widgets import Collapsible

    fold = screen.query_one(f"#wire-fold{number}", Collapsible)
    return str(fold.query_one(".wire-history", Static).render())


async def test_enter_opens_the_earlier_history_with_every_part_labelled(small_kb, tmp_path):
    """Q3's fold opens on Enter (→ too, ← folds it): the earlier questions' prompts, calls and answers in order, and
    in each earlier question's place the search result it cited, kept as it was sent, each labelled."""
    from textual.widgets import Collapsible

    from haiku_tui.tui.screens.wire import WireScreen

    _, script, app = _scripted_app(small_kb, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, SOLAR)
        script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))
        await ask(pilot, TEA)
        script.extend(search("snow on panels"), cite_top(), text("Snow slides off [1]."))
        await ask(pilot, "what about snow on the panels")
        cited = app.session.state["rag"]["citation_index"]
        app.main.turn_log.focus_selected()
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WireScreen) and screen.number == 3
        last = len(screen.requests)
        fold = screen.query_one(f"#wire-fold{last}", Collapsible)
        assert fold.collapsed
        await f1_help(pilot, "Open earlier history", "Fold earlier history")
        await pilot.press("enter")
        await settle(pilot)
        assert not fold.collapsed
        rows = fold_text(screen, last).splitlines()
        labels = [
            row.split()[0] + (" " + row.split()[1] if row.split()[0] in ("tool", "evidence") else "") for row in rows
        ]
        assert labels.index("prompt") < labels.index("evidence retained") < labels.index("answer")
        assert SOLAR in rows[labels.index("prompt")] and TEA in "\n".join(rows)
        slots = [row for row in rows if row.strip().startswith("evidence retained")]
        assert len(slots) == 2  # each earlier question's search kept its cited result, as it was sent
        assert sorted(row.split("[")[1][:16] for row in slots) == sorted(cited)
        await pilot.press("left")
        assert fold.collapsed
        await pilot.press("right")
        assert not fold.collapsed
        await pilot.press("p", "enter")  # the previous request's fold opens too
        assert not screen.query_one(f"#wire-fold{last - 1}", Collapsible).collapsed


async def test_a_windowed_request_s_fold_names_the_chunks_cited_before_it(small_kb, tmp_path):
    from haiku_tui.tui.screens.wire import WireScreen

    _, script, app = _scripted_app(small_kb, tmp_path, history_window=1)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, SOLAR)
        script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))
        await ask(pilot, TEA)
        script.extend(search("snow on panels"), cite_top(), text("Snow slides off [1]."))
        await ask(pilot, "what about snow on the panels")
        (chunk_id,) = [
            c for c in app.session.state["rag"]["citation_index"] if c in str(app.session.state["rag"]["questions"][0])
        ]
        app.main.turn_log.focus_selected()
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WireScreen)
        await pilot.press("enter")
        rows = fold_text(screen, len(screen.requests)).splitlines()
        receipts = [row for row in rows if row.strip().startswith("receipt ")]
        assert len(receipts) == 1 and f"[{chunk_id}] Source: " in receipts[0]
        assert SOLAR not in "\n".join(rows)
