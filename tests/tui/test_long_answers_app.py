"""A very long answer from a real model reaches the screen at the terminal's pace, and Esc still acts at once."""

from __future__ import annotations

import time

from tests.model_server import LONG_ANSWER_CHARS
from tests.tui.conftest import SIZE, settle, wait_for


def served_app(kb, server):
    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp

    return HaikuApp(AgentConfig(model="fake", base_url=server.base_url, db="small.lancedb"), kb=kb)


async def timed_ask(pilot, question: str) -> float:
    pilot.app.main.prompt.text = question
    started = time.perf_counter()
    await pilot.press("enter")
    await settle(pilot)
    return time.perf_counter() - started


async def test_a_200kb_answer_appears_in_about_the_time_of_a_short_one(model_server, small_kb):
    """The server sends the long answer in 2 KB pieces in well under a second; appending each piece as it came
    laid out the whole growing paragraph again every time (20× a short answer's time, 85 s in a terminal)."""
    app = served_app(small_kb, model_server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        short = await timed_ask(pilot, "How long should I steep green tea?")
        model_server.mode = "long"
        long = await timed_ask(pilot, "How long should I steep green tea, at length?")
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "grounded" and len(turn._answer_text) == LONG_ANSWER_CHARS + 4
        model_server.mode = "ok"
        short = min(short, await timed_ask(pilot, "How do I feed a sourdough starter?"))
    assert long < 6 * short + 1.0, (long, short)


async def test_esc_cancels_a_long_answer_while_it_streams(model_server, small_kb):
    model_server.mode = "long"
    app = served_app(small_kb, model_server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model_server.delay = 0.02  # the pieces come over two seconds: the answer is still streaming
        app.main.prompt.text = "How long should I steep green tea, at length?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.main.turn_log.turns[-1]._answer_text) > 40_000)
        started = time.perf_counter()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].state == "cancelled")
        took = time.perf_counter() - started
        await settle(pilot)
    assert took < 0.5, took


async def test_the_first_answer_of_a_session_follows_its_stream_to_the_end(model_server, small_kb):
    """An answer that grows past the bottom of a log that was short when it was asked (the session's first
    question) stays in view as it streams, as later questions' answers do: the log was anchored only when it
    already overflowed, so the first long answer showed its top until it ended (in a terminal, its last words and
    an Esc's "cancelled" badge came only with the scroll to the end, frames later). Esc leaves the badge in view:
    the anchor was let go before the stopped stream's last text and the badge were laid out, below the screen."""
    model_server.mode = "long"
    app = served_app(small_kb, model_server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = app.main.turn_log
        assert log.max_scroll_y == 0
        model_server.delay = 0.02  # the pieces come over two seconds: the answer is still streaming
        app.main.prompt.text = "How long should I steep green tea, at length?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(log.turns[-1]._answer_text) > 40_000)
        await wait_for(pilot, lambda: log.max_scroll_y > 0)
        await pilot.pause(0.1)
        assert log.turns[-1].state == "running"
        assert log.scroll_y == log.max_scroll_y, (log.scroll_y, log.max_scroll_y)
        for again in (False, True):  # the first question, then one in a log that overflows already
            if again:
                await pilot.press("enter")  # the question is back in the box
                await wait_for(pilot, lambda: log.turns[-1].state == "running")
                await wait_for(pilot, lambda: len(log.turns[-1]._answer_text) > 40_000)
            await pilot.press("escape")
            await wait_for(pilot, lambda: log.turns[-1].state == "cancelled")
            await pilot.pause()
            # the badge is in view in the frame that draws it, under the text the stopped stream appended last
            assert log.scroll_y == log.max_scroll_y, (log.scroll_y, log.max_scroll_y)
            await settle(pilot)
            assert log.scroll_y == log.max_scroll_y, (log.scroll_y, log.max_scroll_y)
