"""A session reopened shows exactly what the user saw live: the same tool rows, badges and citation numbers."""

from __future__ import annotations

import pytest
from tests.tui.conftest import SIZE, ask, make_app, policy_model, settle

from haiku_tui.sessions import SessionStore


def rendering(app) -> list[tuple]:
    """What each turn shows: question, tool rows (kind, text, failed), badge and citation numbers."""
    return [
        (turn.prompt, [(row.kind, row.text, row.failed) for row in turn.rows], turn.state, turn.citations)
        for turn in app.main.turn_log.turns
    ]


@pytest.mark.parametrize(
    "model",
    [None, policy_model(obey_redirect=True), policy_model(obey_redirect=False)],
    ids=["extractive", "redirect-obeyed", "violation"],
)
async def test_reopened_session_looks_as_it_did_live(small_kb, tmp_path, model):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, model=model, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        await ask(pilot, "how long should green tea steep")
        live = rendering(app)
        session_id = app.session.id
    assert [rows for _, rows, _, _ in live][0], "the live run drew tool rows"

    reopened = make_app(small_kb, store=store, session_id=session_id)
    async with reopened.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert rendering(reopened) == live
