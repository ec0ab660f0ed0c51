"""With no knowledge base, the app tells the user the command that makes one, not a Python API."""

from __future__ import annotations

from tests.tui.conftest import SIZE, settle

from haiku_tui.sessions import SessionStore


async def test_with_no_knowledge_base_the_app_names_the_command_that_adds_documents(tmp_path):
    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp

    app = HaikuApp(AgentConfig(db=str(tmp_path / "none.lancedb")), store=SessionStore(tmp_path / "sessions.db"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.main.prompt.text = "what is tea"
        await pilot.press("enter")
        await settle(pilot)
        notices = [n.message for n in app._notifications]
        rows = [row.text for row in app.main.turn_log.turns[-1].rows]
    said = [line for line in notices + rows if "no knowledge base" in line]
    assert said and all("haiku-tui add PATH" in line and "KnowledgeBase" not in line for line in said), said
