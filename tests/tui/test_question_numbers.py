"""One question number everywhere: a cancelled or failed question takes none, so the conversation, the panes,
the answers' keys, a reopened session and an export count the same questions."""

from __future__ import annotations

from tests.tui.conftest import SIZE, ask, make_app, settle, stalling_model, wait_for

from haiku_tui.sessions import SessionStore


def _failing_model():
    from pydantic_ai.models.function import FunctionModel

    async def broken(messages, info):
        raise RuntimeError("the model server went away")
        yield ""  # pragma: no cover

    return FunctionModel(stream_function=broken)


async def _use(app, model) -> None:
    app.workbench.model_override = model
    app.workbench.build_agent()


async def test_a_cancelled_or_failed_question_takes_no_number(small_kb, tmp_path):
    from haiku_tui.sessions.export import to_markdown
    from haiku_tui.tui.main.modals import ReviewScreen
    from haiku_tui.tui.screens.wire import WireScreen

    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        extractive = app.workbench.model_override
        await _use(app, stalling_model())
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        await pilot.press("escape")
        await settle(pilot)
        await _use(app, _failing_model())
        await ask(pilot, "a question that fails")
        await _use(app, extractive)
        app.main.prompt.text = ""
        await ask(pilot, "how do I brew green tea")

        log = app.main.turn_log
        shown = [(t.number, t.prompt, t.state) for t in log.turns]
        assert [s[0] for s in shown] == [1, None, None, 2]
        assert "Q" not in str(log.turns[1].query_one(".question").render())  # no number on the cancelled turn
        committed = [(t.number, t.prompt) for t in log.turns if t.number is not None]
        assert committed == [(v.number, v.prompt) for v in app.workbench.view.questions]
        assert "Q2 " in str(log.turns[-1].query_one(".question").render())

        log.focus_selected()
        await pilot.pause()
        assert "answer 2 of 2" in str(log.cursor.render())
        app.main.action_copy()
        assert app.clipboard.startswith("**Q2: how do I brew green tea**")
        app.main.action_wire()
        await settle(pilot)
        assert isinstance(app.screen, WireScreen) and app.screen.number == 2
        await pilot.press("escape")
        await settle(pilot)
        app.main.action_review()
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.question_number == 2
        assert app.screen.prompt == "how do I brew green tea"
        session_id = app.session.id

    reopened = make_app(small_kb, store=store, session_id=session_id)
    async with reopened.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [(t.number, t.prompt) for t in reopened.main.turn_log.turns] == committed
    session = store.load(session_id)
    markdown = to_markdown(session)
    assert "## Question 2\n\n> how do I brew green tea" in markdown and "## Question 3" not in markdown
