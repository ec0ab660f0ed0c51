"""Faults the app must survive: quitting mid-answer, malformed saved data."""

from __future__ import annotations

import asyncio
import time

from tests.tui.conftest import SIZE, make_app, settle, stalling_model, wait_for

from haiku_tui.sessions import SessionStore


async def test_ctrl_q_while_an_answer_is_running_exits_cleanly(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, model=stalling_model(), store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        started = time.monotonic()
        await pilot.press("ctrl+q")
        await asyncio.sleep(0.2)
    assert time.monotonic() - started < 5
    assert app.return_code in (0, None)
    assert store.list() == []  # the cancelled answer was not saved


async def test_a_session_with_malformed_review_marks_opens_with_a_notice(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "how do solar panels work in winter"
        await pilot.press("enter")
        await settle(pilot)
        session = app.session
    session.app_data["reviews"] = {"0": "zz"}
    store.save(session)
    again = make_app(small_kb, store=store, session_id=session.id)
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert again.session.id == session.id
        assert len(again.main.turn_log.turns) == 1 and again.main.turn_log.turns[0].state == "grounded"
        assert any("malformed review mark" in n.message for n in again._notifications)
