"""The app on a long session: it opens with its newest turns mounted, keys slide the window,
old questions can be reached from the other panes, and a cancelled turn never vanishes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.tui.conftest import SIZE, make_app, searching_model, settle, stalling_model, wait_for

QUESTIONS = 200


@pytest.fixture(scope="module")
def long_db(tmp_path_factory) -> tuple[Path, str]:
    """A sessions database holding one session of 200 questions, saved through the store (no model runs)."""
    from bench.bench_keys import saved_session

    from haiku_tui.sessions import SessionStore

    path = tmp_path_factory.mktemp("long") / "sessions.db"
    store = SessionStore(path)
    session_id = saved_session(store, QUESTIONS)
    store.close()
    return path, session_id


def open_long(small_kb, long_db, **kwargs):
    from haiku_tui.sessions import SessionStore

    path, session_id = long_db
    return make_app(small_kb, session_id=session_id, store=SessionStore(path), **kwargs)


async def test_long_session_opens_with_its_last_answer_and_keys_slide_the_window(small_kb, long_db):
    from haiku_tui.tui.main import turn_log as conversation

    app = open_long(small_kb, long_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = app.main.turn_log
        assert app.session is not None and len(app.workbench.view.questions) == QUESTIONS  # loaded whole
        assert [t.number for t in log.turns] == list(range(QUESTIONS - conversation.OPENING + 1, QUESTIONS + 1))
        assert log.total == QUESTIONS and log.turns[-1].has_answer and "Question 199" in log.turns[-1].prompt
        log.focus_selected()
        for _ in range(conversation.OPENING + 2):  # past the window's top: older turns mount
            await pilot.press("up")
        number = QUESTIONS - conversation.OPENING - 2
        assert log.selected_turn.number == number and log.selected_turn.has_answer
        assert f"answer {number} of {QUESTIONS}" in str(log.cursor.render())
        await pilot.press("pageup")
        assert log.selected_turn.number < number
        await pilot.press("pagedown")
        assert log.selected_turn.number == number
        await pilot.press("home")
        assert log.selected_turn.number == 1 and "Question 0:" in log.selected_turn.prompt
        for _ in range(60):  # walking down from the top never mounts more than the window
            await pilot.press("down")
        assert log.selected_turn.number == 61 and len(log.turns) <= conversation.WINDOW
        await pilot.press("end")
        assert log.selected_turn.number == QUESTIONS and len(log.turns) <= conversation.WINDOW


async def test_the_reserve_beyond_the_window_is_mounted_and_laid_out_when_idle(small_kb, long_db):
    """Turns beyond the window's edges are mounted hidden while nothing happens, and shown (laid out) one at a
    time ahead of the selection without moving what is on screen; ↑ then only scrolls (no key shows or
    mounts a turn), and walking far keeps the mounted turns bounded."""
    from haiku_tui.tui.main import turn_log as conversation
    from haiku_tui.tui.main.turn import QuestionTurn

    app = open_long(small_kb, long_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = app.main.turn_log
        opening, reserve, ahead, pin = conversation.OPENING, conversation.RESERVE, conversation.AHEAD, conversation.PIN

        def mounted() -> list[QuestionTurn]:
            return list(log.query_children(QuestionTurn))

        await wait_for(pilot, lambda: len(mounted()) == pin + opening + reserve)
        first_shown = QUESTIONS - opening + 1
        assert [t.number for t in mounted() if not t.display] == [
            *range(1, pin + 1),
            *range(first_shown - reserve, first_shown),
        ]
        hidden = [t for t in mounted() if not t.display][pin:]  # the reserve above the window (then the first turns)
        assert [t.number for t in log.turns] == list(range(first_shown, QUESTIONS + 1))
        log.focus_selected()
        keys_showing = []
        shown_by_key = log.extend
        log.extend = lambda step: keys_showing.append(step) or shown_by_key(step)  # the key path that shows turns
        for _ in range(opening - ahead):  # to the ahead-th turn from the window's top
            await pilot.press("up")
        selected = log.selected_turn
        await wait_for(pilot, lambda: hidden[-1].display)  # the idle step lays out the turn above
        await pilot.pause(0.2)
        assert log.turns[0] is hidden[-1] and hidden[-1].has_answer and log.selected_turn is selected
        # the screen did not move: the selected answer is still at the top of the log, the new turn above it
        assert selected.region.y == log.content_region.y and hidden[-1].region.bottom <= log.content_region.y
        for _ in range(2 * reserve):  # a walk at a reading pace: every key is a scroll
            await pilot.press("up")
            await pilot.pause(0.15)
        assert keys_showing == [] and log.selected_turn.number == first_shown - 1 - 2 * reserve + ahead
        log.extend = shown_by_key
        for _ in range(60):  # faster than the idle steps: keys show what they need themselves
            await pilot.press("up")
        await settle(pilot)
        await pilot.pause(0.3)
        assert log.selected_turn.number == first_shown - 1 - 60 - 2 * reserve + ahead and log.selected_turn.has_answer
        numbers = [t.number for t in mounted()]
        assert numbers[:pin] == list(range(1, pin + 1)) and numbers[-pin:] == list(
            range(QUESTIONS - pin + 1, QUESTIONS + 1)
        )
        numbers = numbers[pin:-pin]  # the window and its reserve: in order, no gap
        assert len(log.turns) <= conversation.WINDOW and len(numbers) <= conversation.WINDOW + 2 * reserve
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert [t.number for t in log.turns] == list(range(log.turns[0].number, log.turns[-1].number + 1))


async def test_home_and_end_show_the_session_s_first_and_last_turns_mounted_when_idle(small_kb, long_db):
    """Once idle, the session's first and last turns are mounted (hidden): Home and End show them instead of
    building them — the first question at the top, selected; the newest answer at the bottom, selected — and
    the screen stays put while the idle steps then lay out the turns around them."""
    from haiku_tui.tui.main import turn_log as conversation
    from haiku_tui.tui.main.turn import QuestionTurn

    app = open_long(small_kb, long_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = app.main.turn_log
        pin, jump = conversation.PIN, conversation.JUMP
        bound = conversation.WINDOW + 2 * conversation.RESERVE + 2 * pin

        def numbers() -> list[int]:
            return [t.number for t in log.query_children(QuestionTurn)]

        def pinned() -> bool:  # the first and the last turns are mounted
            mounted = numbers()
            return mounted[:pin] == list(range(1, pin + 1)) and mounted[-pin:] == list(
                range(QUESTIONS - pin + 1, QUESTIONS + 1)
            )

        log.focus_selected()
        for _ in range(conversation.OPENING + 4):  # from somewhere in the window, past its opening top
            await pilot.press("up")
        for key in ("home", "end", "home", "end"):
            await wait_for(pilot, pinned)
            mounted = list(log.query_children(QuestionTurn))
            await pilot.press(key)
            await pilot.pause()
            if key == "home":  # shown, not built
                assert log.turns[:jump] == mounted[:jump]
            else:
                assert log.turns[-jump:] == mounted[-jump:]
            turn = log.selected_turn
            top, bottom = log.content_region.y, log.content_region.bottom
            if key == "home":
                assert turn is log.turns[0] and turn.number == 1 and turn.selected
                assert (
                    log.scroll_y == 0 and turn.region.y == top and log.turns[-1].region.bottom >= bottom
                )  # a full screen
            else:
                assert turn is log.turns[-1] and turn.number == QUESTIONS and turn.selected
                assert (
                    log.scroll_y == log.max_scroll_y > 0
                    and top < turn.region.y
                    and bottom - 1 <= turn.region.bottom <= bottom
                )
            where = turn.region
            await pilot.pause(0.6)  # the idle steps lay out the turns beyond the selection, off screen
            await settle(pilot)
            assert log.selected_turn is turn and turn.region == where and len(numbers()) <= bound


async def test_old_question_is_reached_from_the_policy_log_and_reviewed(small_kb, long_db):
    from haiku_tui.tui.main.evidence import PolicyLog
    from haiku_tui.tui.main.modals import ReviewScreen

    app = open_long(small_kb, long_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        old = app.workbench.view.questions[4]  # Q5: far outside the mounted window
        assert all(t.question != old.question for t in app.main.turn_log.turns)
        app.main.post_message(PolicyLog.ShowQuestion(old.question))
        await settle(pilot)
        turn = app.main.turn_log.selected_turn
        assert turn.number == 5 and turn.question == old.question and turn.has_answer
        app.main.action_review()
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and app.screen.question_number == 5
        await pilot.press("escape")
        await settle(pilot)
        recent = app.workbench.view.questions[-30]  # outside the mounted window, inside the evidence pane
        turn = await app.main.turn_log.reveal(recent.question)
        assert turn is not None and turn.number == QUESTIONS - 29
        app.main.turn_log.select_turn(turn)
        app.main.turn_log.focus_selected()
        number = turn.citations[0]  # its citation [n] jumps into the evidence pane
        assert app.main.jump_to_citation(number, turn) is True
        await pilot.pause()
        assert app.focused is app.main.evidence


async def test_cancelled_turn_stays_when_the_window_slides(small_kb, long_db):
    app = open_long(small_kb, long_db, model=stalling_model())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        await pilot.press("escape")
        await settle(pilot)
        log = app.main.turn_log
        cancelled = log.turns[-1]
        assert cancelled.state == "cancelled" and cancelled.number is None
        log.focus_selected()
        await pilot.press("home")
        assert "a question that stalls" not in [t.prompt for t in log.turns] and log.selected_turn.number == 1
        await pilot.press("end")
        assert log.turns[-1] is cancelled  # shown again in its place (it stayed mounted, hidden)
        assert cancelled.prompt == "a question that stalls" and cancelled.state == "cancelled"
        assert log.turns[-2].number == QUESTIONS and log.selected_turn is cancelled
        for _ in range(30):  # sliding up past it and back keeps it after the last committed turn
            await pilot.press("up")
        for _ in range(30):
            await pilot.press("down")
        assert log.turns[-1].prompt == "a question that stalls" and log.turns[-1].state == "cancelled"
        assert log.turns[-2].number == QUESTIONS


async def test_an_answer_committed_while_the_window_is_at_home_is_shown_by_end(small_kb, long_db):
    """The answer finishes while Home shows the first turns: it is not drawn among them, and End shows it last,
    answered and selected."""
    release = asyncio.Event()
    app = open_long(small_kb, long_db, model=searching_model(release))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = app.main.turn_log
        app.main.prompt.text = "a question answered while away"
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.turns[-1].rows)  # it is searching
        log.focus_selected()
        await pilot.press("home")
        assert log.selected_turn.number == 1
        release.set()
        await settle(pilot)
        assert app.workbench.view.questions[-1].prompt == "a question answered while away"
        assert "a question answered while away" not in [t.prompt for t in log.turns]
        assert log.selected_turn.number == 1 and log.turns[0].number == 1
        await pilot.press("end")
        turn = log.turns[-1]
        assert turn.prompt == "a question answered while away" and turn.number == QUESTIONS + 1
        assert log.selected_turn is turn and "done" in turn.answer.source and log.turns[-2].number == QUESTIONS
