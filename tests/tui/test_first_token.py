"""Enter → the answer's first words: one frame, nothing drawn or collected in between, the words in view."""

from __future__ import annotations

import asyncio
import gc

from tests.tui.conftest import make_app, searching_model, settle, wait_for
from textual import events

from haiku_tui.tui.main import pacing


def frames(app) -> list[tuple[bool, bool]]:
    """Record each displayed frame: (the newest turn holds answer text, its first answer block is on screen)."""
    seen: list[tuple[bool, bool]] = []
    display = app._display

    def record(screen, renderable) -> None:
        display(screen, renderable)
        turns = app.main.turn_log.turns if renderable is not None else []
        if turns:
            visible = screen._compositor.visible_widgets
            turn = turns[-1]
            seen.append((turn.has_answer, any(b in visible and b.size.height for b in turn.answer.children)))

    app._display = record
    return seen


async def send(pilot, question: str) -> None:
    """Type ``question`` and press Enter without waiting for the app to go idle (as a terminal would)."""
    app = pilot.app
    app.main.prompt.focus()
    app.main.prompt.text = question
    app._driver.send_message(events.Key("enter", "\r"))


async def test_the_first_frame_after_enter_shows_the_first_words(small_kb, monkeypatch):
    monkeypatch.setattr(pacing, "HOLD", 30.0)  # only the first text releases the frame (a loaded box is slow)
    app = make_app(small_kb)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        seen = frames(app)
        for question in ("how do solar panels work in winter", "how long should green tea steep",
                         "how do solar panels work in winter", "what is the best tea storage"):
            seen.clear()
            await send(pilot, question)
            await wait_for(pilot, lambda: bool(seen))
            assert seen[0] == (True, True), "the first frame after Enter shows the answer's first words"
            assert not gc.isenabled() or app.main._hold.painted
            await settle(pilot)
            assert gc.isenabled(), "the collector runs again once that frame is painted"
        assert len(app.main.turn_log.turns) == 4 and app.main.turn_log.max_scroll_y > 0


async def test_a_slow_model_still_shows_its_steps_and_panes(small_kb, monkeypatch):
    """Nothing waits for an answer that does not come: the question, its tool rows and the evidence are drawn
    after HOLD, and the collector runs again meanwhile."""
    release = asyncio.Event()

    monkeypatch.setattr(pacing, "HOLD", 0.05)
    app = make_app(small_kb, model=searching_model(release))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        seen = frames(app)
        await send(pilot, "green tea")
        await wait_for(pilot, lambda: len(app.main.evidence.items) > 0)
        assert seen and not seen[-1][0], "frames were drawn before any answer text"
        assert [row.kind for row in app.main.turn_log.turns[-1].rows] == ["load", "search"]
        assert gc.isenabled()
        release.set()
        await settle(pilot)
        assert app.main.turn_log.turns[-1].has_answer and gc.isenabled()


async def test_quitting_mid_question_gives_the_collector_back(small_kb):
    """The first frame's hold switches the garbage collector off; an app closed before that frame is
    painted must not leave it off for the rest of the process."""
    assert gc.isenabled()
    app = make_app(small_kb, model=searching_model(asyncio.Event()))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await send(pilot, "green tea")
        await pilot.pause()
    assert gc.isenabled()


async def test_the_first_frame_repaints_the_conversation_column_and_the_status_bar_follows(small_kb, monkeypatch):
    """The first words' frame is the conversation's column only (the status bar's "answering…" comes a frame
    later, so the full-width rows down to it are not repainted); the status bar then says it until the end."""
    from pydantic_ai.models.function import FunctionModel
    from textual.geometry import Region

    release = asyncio.Event()

    async def stream(messages, info):
        yield "First words"
        await release.wait()
        yield " and the rest."

    monkeypatch.setattr(pacing, "HOLD", 30.0)
    app = make_app(small_kb, model=FunctionModel(stream_function=stream))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        seen = frames(app)
        compositor = app.main._compositor
        render_update, repainted = compositor.render_update, []

        def record(*args, **kwargs):  # what each frame repaints, and whether the newest turn has its words by then
            dirty = list(compositor._dirty_regions)
            turns = app.main.turn_log.turns
            repainted.append((Region.from_union(dirty) if dirty else None, bool(turns) and turns[-1].has_answer))
            return render_update(*args, **kwargs)

        compositor.render_update = record
        await send(pilot, "how do solar panels work in winter")
        await wait_for(pilot, lambda: bool(seen))
        assert seen[0] == (True, True)
        first = next(region for region, words in repainted if words and region is not None)
        column = app.main.conversation.region
        assert column.contains_region(first), (first, column)
        status = lambda: str(app.main.query_one("#status").render())  # noqa: E731
        await wait_for(pilot, lambda: "answering" in status())
        release.set()
        await settle(pilot)
        assert "answering" not in status() and app.main.turn_log.turns[-1].has_answer
