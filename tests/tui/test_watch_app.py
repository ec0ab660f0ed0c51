"""``--watch`` keeps the knowledge base in step while the app runs (real files,
real watchfiles), and quitting ends the watch promptly."""

from __future__ import annotations

import time

from haiku_tui.agent import AgentConfig
from haiku_tui.sessions import SessionStore
from haiku_tui.store import KnowledgeBase
from haiku_tui.tui.app import HaikuApp
from haiku_tui.tui.main.screen import StatusBar
from tests.tui.conftest import SIZE, wait_for


async def test_a_watched_folder_picks_up_a_new_file_without_a_restart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tea.md").write_text("# Tea\n\nGreen tea is brewed at 80 degrees.\n", encoding="utf-8")
    kb = KnowledgeBase.open(str(tmp_path / "kb.lancedb"))
    kb.add([docs])
    store = SessionStore(tmp_path / "sessions.db")
    app = HaikuApp(
        AgentConfig(model="extractive", db=str(tmp_path / "kb.lancedb")), kb=kb, store=store, watch=[str(docs)]
    )
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.folder_watch is not None and "unchanged" in app.folder_watch.status, 30)
        assert "1 unchanged" in app.folder_watch.status
        (docs / "zebra.md").write_text("# Zebras\n\nZebra crossings were painted in 1951.\n", encoding="utf-8")
        def synced() -> list[str]:
            return [n.message for n in app._notifications if n.title == "Knowledge base synced"]

        await wait_for(pilot, lambda: "1 added" in app.folder_watch.status and synced()[-1].startswith("1 added"), 30)
        assert {d.title for d in app.workbench.kb.documents()} == {"Tea", "Zebras"}
        assert app.workbench.kb.search("zebra crossings", limit=1)[0].title == "Zebras"
        await pilot.pause()
        status = str(app.main.query_one(StatusBar).render())
        assert "│ watching docs: 1 added │" in status

        (docs / "zebra.md").unlink()  # a deleted file is removed while the app runs
        await wait_for(pilot, lambda: "1 removed" in app.folder_watch.status, 30)
        assert {d.title for d in app.workbench.kb.documents()} == {"Tea"}
        watch = app.folder_watch
        started = time.monotonic()
    quit_seconds = time.monotonic() - started
    assert watch.stop_event.is_set() and watch.worker is not None and watch.worker.is_finished
    assert quit_seconds < 5
    store.close()


async def test_watching_a_missing_folder_is_one_line_and_empty_stops(tmp_path):
    kb = KnowledgeBase.open(str(tmp_path / "kb.lancedb"))
    store = SessionStore(tmp_path / "sessions.db")
    app = HaikuApp(AgentConfig(model="extractive", db=str(tmp_path / "kb.lancedb")), kb=kb, store=store)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.watch_folders([str(tmp_path / "nowhere")])
        await pilot.pause()
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert errors and errors[-1].startswith("Cannot watch") and "\n" not in errors[-1]
        assert app.folder_watch is None
        (tmp_path / "docs").mkdir()
        app.watch_folders([str(tmp_path / "docs")])
        running = app.folder_watch
        assert running is not None
        app.watch_folders([])  # empty stops watching
        assert app.folder_watch is None and running.stop_event.is_set()
    store.close()


async def test_kb_screen_sync_lists_the_changes_then_removes_a_deleted_file(tmp_path, monkeypatch):
    from textual.widgets import DataTable, Static

    from haiku_tui.tui.screens import ConfirmDialog, KnowledgeScreen
    from tests.tui.test_screens import Host, settle, write_docs

    monkeypatch.chdir(tmp_path)
    write_docs(
        tmp_path / "docs", {"a.md": "# Apples\n\nApples are red.\n", "b.md": "# Bananas\n\nBananas are yellow.\n"}
    )
    (tmp_path / "docs" / "c.psd").write_bytes(b"8BPS")
    kb = KnowledgeBase.open(str(tmp_path / "kb.lancedb"))
    kb.add([tmp_path / "docs"])
    (tmp_path / "docs" / "b.md").unlink()
    (tmp_path / "docs" / "d.md").write_text("# Dates\n\nDates are sweet.\n", encoding="utf-8")
    app = Host(KnowledgeScreen(str(tmp_path / "kb.lancedb"), kb=kb))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")  # the folder of the documents is offered
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        detail = str(app.screen.query_one("#dialog-detail", Static).render())
        assert detail.splitlines()[:3] == [
            "would be: 1 added, 0 replaced, 1 unchanged, 0 failed, 1 removed, 0 moved",
            "+ docs/d.md",
            "- docs/b.md",
        ]
        assert "1 skipped: unsupported type (.psd)" in detail
        assert {d.title for d in kb.documents()} == {"Apples", "Bananas"}  # the dry run changed nothing
        await pilot.press("y")
        await settle(app, pilot)
        rows = app.screen.query_one("#kb-documents", DataTable)
        assert sorted(str(rows.get_row_at(i)[0]) for i in range(rows.row_count)) == ["Apples", "Dates"]
        done = [n.message for n in app._notifications if n.title == "Ingest finished"]
        assert done and done[-1].startswith("1 added, 0 replaced, 1 unchanged, 0 failed, 1 removed, 0 moved")
        assert "1 skipped: unsupported type (.psd)" in done[-1]
