"""Typing always types: keys sent together (a fast burst, a paste) while the answers or a pane have the focus
go to the question box whole and in order; a one-letter key acts only when pressed alone."""

from __future__ import annotations

from textual import events
from textual.keys import _character_to_key

from tests.tui.conftest import SIZE, ask, make_app, settle, wait_for

BURST = "Mode long: what is a decorator? copy, review, open, wire (jk 123)"


def _send_together(app, text: str) -> None:
    """Post the keys of ``text`` at once, as the terminal driver does with what one read returned."""
    for char in text:
        app.post_message(events.Key(_character_to_key(char), char))


async def _two_answers(pilot) -> None:
    await ask(pilot, "how do solar panels work in winter")
    await ask(pilot, "how do I brew green tea")


async def test_a_burst_and_a_paste_on_the_answers_and_panes_type_whole(small_kb):
    from haiku_tui.tui.main.modals import ReviewScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await _two_answers(pilot)
        main = app.main
        notified = len(app._notifications)
        for pane in (main.turn_log.cursor, main.evidence, main.policy_log):
            main.prompt.text = ""
            if pane is main.turn_log.cursor:
                main.turn_log.focus_selected()
            else:
                pane.focus()
            await pilot.pause()
            cited_only = main.evidence.cited_only
            _send_together(app, BURST)
            await wait_for(pilot, lambda: app.focused is main.prompt)
            await settle(pilot)
            assert main.prompt.text == BURST, pane
            assert app.screen is main and not isinstance(app.screen, ReviewScreen)
            assert main.evidence.cited_only == cited_only and len(app._notifications) == notified

            main.prompt.text = ""
            pane.focus()
            await pilot.pause()
            app.post_message(events.Paste("what is __init__ for?\nand *args"))  # a bracketed paste: one event
            await wait_for(pilot, lambda: app.focused is main.prompt)
            assert main.prompt.text == "what is __init__ for?\nand *args"


async def test_a_letter_pressed_alone_still_acts(small_kb):
    from haiku_tui.tui.main.modals import ReviewScreen

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await _two_answers(pilot)
        app.main.turn_log.focus_selected()
        await pilot.press("k")
        await settle(pilot)
        assert app.main.turn_log.selected_turn.number == 1 and app.main.prompt.text == ""
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.question_number == 1
