"""Issue 17, a daily driver: a cancelled or failed question comes back, history recall, regenerate,
edit and resend, model switch, copy."""

from __future__ import annotations

from tests.tui.conftest import SIZE, ask, make_app, settle, stalling_model, wait_for


def footer(turn) -> str:
    return turn.query_one(".turn-footer").render().plain


# ---- cancel and failure ---------------------------------------------------------------------------------------------


async def test_cancelled_question_goes_back_into_the_box_and_badge_says_it_once(small_kb):
    app = make_app(small_kb, model=stalling_model())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
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
        await settle(pilot)
        app.main.prompt.text = "first question"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        app.main.prompt.text = "my next draft"
        app.main.action_cancel()
        await settle(pilot)
        assert app.main.prompt.text == "my next draft"
        assert "back in the box" not in footer(app.main.turn_log.turns[-1])
