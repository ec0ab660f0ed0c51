"""A real model's faults in the app, against the loopback model server: a cut stream or an answer caught in a loop
fails the question (the question back in the box), and each failed tool call is one row."""

from __future__ import annotations

import pytest

from tests.tui.conftest import SIZE, ask
from tests.tui.test_long_answers_app import served_app


@pytest.mark.parametrize(
    ("mode", "said"), [("cut", "cut off"), ("no-finish", "cut off"), ("loop", "over and over")]
)
async def test_a_cut_or_looping_answer_fails_with_the_question_back_in_the_box(model_server, small_kb, mode, said):
    """A stream cut short, or a small model repeating two characters with no end (the app stops reading it): the
    question fails with the question back in the box, one line says what happened, the session keeps nothing."""
    model_server.mode = mode
    app = served_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "How long should I steep green tea?")
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "failed" and turn.number is None
        assert app.main.prompt.text == "How long should I steep green tea?"
        assert any(said in n.message for n in app._notifications), [n.message for n in app._notifications]
        assert app.session.messages == []
    assert model_server.loops == (mode == "loop")


@pytest.mark.parametrize("mode", ["unknown-tool", "bad-args"])
async def test_each_failed_tool_call_is_one_row(model_server, small_kb, mode):
    model_server.mode = mode
    app = served_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "How long should I steep green tea?")
        rows = [(row.kind, row.text, row.failed) for row in app.main.turn_log.turns[-1].rows]
    calls = len(model_server.requests) - (mode == "bad-args")  # the first request loads the capability
    failed = [row for row in rows if row[2]]
    assert len(failed) == calls, (calls, rows)
    assert all(text.strip() and "“”" not in text for _, text, _ in rows), rows
