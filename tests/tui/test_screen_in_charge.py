"""Nothing runs on a session that is not on screen, and a crash exits non-zero with one line and a crash log."""

from __future__ import annotations

import pytest

from tests.tui.conftest import SIZE, ask, make_app, settle, stalling_model, wait_for
from tests.tui.test_app_faults import saved_session

from haiku_tui.sessions import SessionStore


async def test_the_palette_over_another_screen_offers_only_the_apps_commands(small_kb, tmp_path):
    from haiku_tui.tui.main.commands import HaikuCommands
    from haiku_tui.tui.screens.sessions import SessionsScreen

    app = make_app(small_kb, store=SessionStore(tmp_path / "sessions.db"))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        on_main = {title for title, _, _ in HaikuCommands(app.main)._commands()}
        assert "Regenerate the selected answer" in on_main
        app.main.action_sessions()
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        listed = {title for title, _, _ in HaikuCommands(app.screen)._commands()}
        assert "Regenerate the selected answer" not in listed and "Quit" in listed
        assert all(action.startswith("app.") for _, _, action in HaikuCommands(app.screen)._commands())


async def test_opening_another_session_during_a_run_cancels_it(small_kb, tmp_path):
    """A run started while the sessions screen was up (as the palette once allowed), then another session
    opened: the run is cancelled and nothing is written into either session (it crashed with NoMatches and
    wrote the answer into the first session)."""
    from haiku_tui.tui.screens.sessions import SessionsScreen

    store = SessionStore(tmp_path / "sessions.db")
    other = await saved_session(small_kb, store)
    app = make_app(small_kb, store=store, model=stalling_model())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.action_sessions()
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        await app.main.ask("a question asked behind the sessions screen")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        app.screen.dismiss(other)
        await wait_for(pilot, lambda: app.session is not None and app.session.id == other)
        await settle(pilot)
        assert not app.main.running and app.is_running
        assert [t.prompt for t in app.main.turn_log.turns] == ["how do solar panels work in winter"]
    assert len(store.load(other).turns()) == 1


async def test_an_uncaught_exception_exits_non_zero_with_one_line_and_a_crash_log(small_kb):
    from haiku_tui import locations

    app = make_app(small_kb)

    def broken() -> None:
        raise RuntimeError("something \x1b[31mbroke[/]")

    with pytest.raises(RuntimeError):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.call_later(broken)  # raised while the app handles a message, as a bug in a handler is
            await pilot.pause()
    assert app.return_code == 1
    logs = sorted(locations.data_dir().glob("crash-*.log"))
    assert logs and "RuntimeError" in logs[-1].read_text()
    from haiku_tui.tui.crash import crash_line

    line = crash_line(RuntimeError("something \x1b[31mbroke[/]"), logs[-1])
    assert "unexpected error (RuntimeError: something ␛[31mbroke[/])" in line and str(logs[-1]) in line
