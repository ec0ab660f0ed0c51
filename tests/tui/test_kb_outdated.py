"""The knowledge-base screen says when documents were indexed by an older haiku-tui, and stops once re-indexed."""

from __future__ import annotations

from textual.widgets import Static

from haiku_tui.store import KnowledgeBase
from haiku_tui.tui.screens import KnowledgeScreen
from tests.kb_fixture import build_small_kb, make_old
from tests.tui.test_screens import Host, settle


async def test_the_status_line_counts_outdated_documents_and_names_the_command(tmp_path):
    uri = tmp_path / "kb.lancedb"
    build_small_kb(uri).close()
    make_old(uri)
    app = Host(KnowledgeScreen(str(uri)))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        status = str(app.screen.query_one("#kb-status", Static).render())
        assert "4 documents indexed by an older haiku-tui: `haiku-tui reindex` updates them" in status
    with KnowledgeBase.open(str(uri)) as kb:
        kb.reindex()
    app = Host(KnowledgeScreen(str(uri)))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        status = str(app.screen.query_one("#kb-status", Static).render())
        assert status.startswith("4 documents") and "older" not in status
