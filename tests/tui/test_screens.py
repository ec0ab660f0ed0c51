"""Pilot tests of the secondary screens (sessions, knowledge base) and their dialogs.

Each screen is hosted in a tiny App that pushes it and records the value it dismisses with.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Conversation
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.text import Text
from tests.tui.conftest import f1_help
from textual.app import App
from textual.widgets import DataTable, Input, OptionList, ProgressBar, Static

from haiku_tui.sessions import Session, SessionStore
from haiku_tui.tui.screens import ConfirmDialog, KnowledgeScreen, SessionsScreen, TextInputDialog
from haiku_tui.tui.screens.dialogs import display_path, local_time

FIXED = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
UNSET = object()

MARKUP_TITLE = "[bold]x[/bold] [@click=app.quit]"


# -- fixtures ---------------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """Times are shown in local time: pin the zone so rows read the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def frozen_kb_clock(monkeypatch):
    """Documents get a fixed created/updated time."""
    import haiku_tui.store.ingest as ingest_module

    monkeypatch.setattr(ingest_module, "_now", lambda: FIXED)
    return FIXED


class Host(App):
    """Pushes one screen on mount and keeps what it dismissed with in ``result``."""

    def __init__(self, screen) -> None:
        super().__init__()
        self.screen_under_test = screen
        self.result: Any = UNSET

    def on_mount(self) -> None:
        self.push_screen(self.screen_under_test, self._done)

    def _done(self, value: Any) -> None:
        self.result = value


def _state(cited: list[tuple[str, str]]) -> dict[str, Any]:
    """An evidence state where question 0 cited ``cited`` (chunk id, title)."""
    index = {
        chunk: {"index": n, "chunk_id": chunk, "document_id": "d" * 16, "title": title, "path": f"docs/{chunk}.md",
                "headings": ["Overview"], "pages": [], "text": f"About {title}.", "capability": "rag"}
        for n, (chunk, title) in enumerate(cited, start=1)
    }
    return {
        "rag": {
            "citation_index": index,
            "document_filter": None,
            "question": 0,
            "in_progress": False,
            "questions": [
                {"question": 0, "prompt": "", "searches": [], "evidence_epoch": 1,
                 "declaration": {"epoch": 2, "chunk_ids": [c for c, _ in cited]}, "requests": 2}
            ],
        }
    }


def add_session(
    store: SessionStore,
    session_id: str,
    title: str,
    *,
    updated: str,
    model: str = "extractive",
    turns: list[tuple[str, str]] = (),
    cited: list[tuple[str, str]] = (),
) -> None:
    """Write a session with a fixed created/updated time (no clock involved)."""
    messages = []
    for i, (question, answer) in enumerate(turns):
        messages.append(ModelRequest(parts=[UserPromptPart(question, timestamp=FIXED)], run_id=f"run-{session_id}-{i}"))
        messages.append(ModelResponse(parts=[TextPart(answer)], timestamp=FIXED, run_id=f"run-{session_id}-{i}"))
    state = _state(list(cited)) if cited else {}
    if cited and turns:
        state["rag"]["questions"][0]["prompt"] = turns[0][0]
    session = Session(
        id=session_id,
        conversation=Conversation(messages=messages, conversation_id=f"conv-{session_id}"),
        state=state,
        title=title,
        title_manual=True,
        model=model,
        db="kb.lancedb",
        created_at=updated,
        updated_at=updated,
    )
    store.write_payload(session.to_payload(), expected_revision=0, touch=False)


def populate_sessions(store: SessionStore) -> SessionStore:
    add_session(
        store, "aaaa00000001", "Solar panels in winter", updated="2026-03-14T09:30:00.000000Z",
        turns=[("Do solar panels work in winter?", "Yes, they need light, not heat [1].")],
        cited=[("c1", "Solar panels")],
    )
    add_session(
        store, "bbbb00000002", "Sourdough starter feeding", updated="2026-03-12T18:05:00.000000Z",
        model="openai:gpt-5",
        turns=[("How often do I feed a starter?", "Once a day on the counter [1]."),
               ("And in the fridge?", "Once a week [2].")],
        cited=[("c2", "Sourdough bread"), ("c3", "Sourdough bread")],
    )
    add_session(
        store, "cccc00000003", "Bike chain oil", updated="2026-03-10T07:00:00.000000Z",
        model="ollama:llama3.2",
        turns=[("When should I oil my chain?", "Every 300 kilometres.")],
    )
    return store


@pytest.fixture
def store(tmp_path) -> SessionStore:
    s = populate_sessions(SessionStore(tmp_path / "sessions.db"))
    yield s
    s.close()


@pytest.fixture
def empty_store(tmp_path) -> SessionStore:
    s = SessionStore(tmp_path / "empty-sessions.db")
    yield s
    s.close()


KB_DOCS = {
    "solar.md": "# Solar panels\n\n## Winter\n\nSolar panels still work in winter because they need light, not heat.\n"
                "Snow usually slides off tilted panels within a day or two.\n",
    "tea.md": "# Tea brewing\n\n## Green tea\n\nGreen tea should be brewed with water at about 80 degrees Celsius.\n",
    "markup.md": f"# {MARKUP_TITLE}\n\nThis document has a title that looks like markup [red]and text too[/red].\n",
}


def write_docs(folder: Path, docs: dict[str, str] = KB_DOCS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in docs.items():
        (folder / name).write_text(body, encoding="utf-8")
    return folder


@pytest.fixture
def kb_dir(tmp_path, monkeypatch, frozen_kb_clock) -> Path:
    """A knowledge base with the three KB_DOCS, and the working directory set to its folder."""
    from haiku_tui.store import KnowledgeBase

    monkeypatch.chdir(tmp_path)
    write_docs(tmp_path / "docs")
    kb = KnowledgeBase.open(str(tmp_path / "kb.lancedb"))
    kb.add([tmp_path / "docs"])
    kb.close()
    return tmp_path


async def settle(app: App, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def cell_texts(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


# -- helpers ------------------------------------------------------------------------------------------------------


def test_display_path_is_relative_inside_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert display_path(str(tmp_path / "docs" / "a.md")) == "docs/a.md"
    assert display_path("s3://bucket/kb") == "s3://bucket/kb"
    assert display_path(None) == ""


def test_sync_offers_the_documents_folder_never_one_as_broad_as_the_root():
    from haiku_tui.tui.screens.knowledge_views import sync_folder

    assert sync_folder(["/srv/notes/a.md", "/srv/notes/sub/b.md"]) == "/srv/notes"
    assert sync_folder(["/srv/notes/a.md", "/srv/docs/b.md"]) == "/srv/notes"  # /srv: too broad
    # documents from unrelated folders: the folder holding most of them, not "/"
    assert sync_folder(["/tmp/docs/a.md", "/usr/share/doc/x/b.txt", "/usr/share/doc/x/c.txt"]) == "/usr/share/doc/x"
    home = Path.home()
    assert sync_folder([str(home / "a" / "x.md"), str(home / "b" / "y.md")]) == str(home / "a")
    assert sync_folder(["s3://bucket/a.md"]) == sync_folder([]) == ""


def test_a_long_path_keeps_its_file_name(tmp_path, monkeypatch):
    from haiku_tui.tui.screens.dialogs import path_cell

    monkeypatch.chdir(tmp_path)
    long = "/usr/share/doc/dpkg/spec/frontend-api.txt"
    assert path_cell(long, 30) == "…oc/dpkg/spec/frontend-api.txt"  # 30 characters: the start goes
    assert path_cell(long, 41) == long
    assert path_cell(str(tmp_path / "docs" / "a.md"), 40) == "docs/a.md"


def test_local_time_formats_iso_and_datetimes():
    assert local_time("2026-03-14T09:30:00.123456Z") == "2026-03-14 09:30"
    assert local_time(FIXED) == "2026-03-14 09:30"
    assert local_time("") == ""


# -- dialogs ------------------------------------------------------------------------------------------------------


async def test_text_input_dialog_returns_stripped_text():
    app = Host(TextInputDialog("Name?", value=""))
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        await pilot.press(*"  hello  ", "enter")
        await pilot.pause()
        assert app.result == "hello"


async def test_text_input_dialog_refuses_empty_and_escape_cancels():
    app = Host(TextInputDialog("Name?"))
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.result is UNSET
        assert "Type something" in str(app.screen.query_one("#dialog-hint", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_confirm_dialog_yes_no_and_markup_literal():
    app = Host(ConfirmDialog(f"Delete {MARKUP_TITLE}?"))
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert MARKUP_TITLE in str(app.screen.query_one("#dialog-title", Static).render())
        await pilot.press("y")
        await pilot.pause()
        assert app.result is True
    app = Host(ConfirmDialog("Delete?"))
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the focused button is Cancel: Enter never deletes by accident
        await pilot.pause()
        assert app.result is False


# -- sessions screen ----------------------------------------------------------------------------------------------


async def test_sessions_listed_newest_first_with_counts(store):
    app = Host(SessionsScreen(store, current_id="bbbb00000002"))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#sessions-table", DataTable)
        rows = cell_texts(table)
        assert [r[1] for r in rows] == ["Solar panels in winter", "Sourdough starter feeding", "Bike chain oil"]
        assert rows[1] == ["●", "Sourdough starter feeding", "openai:gpt-5", "kb.lancedb", "2026-03-12 18:05", "2", "2"]
        assert rows[0][5:] == ["1", "1"]
        assert rows[0][0].strip() == ""


async def test_enter_opens_highlighted_session(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.result == "bbbb00000002"


async def test_ctrl_n_dismisses_with_new_and_escape_with_none(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.result == "new"
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_typing_filters_with_full_text_search(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        # "f" is not a binding: it starts the search; the rest goes to the search box
        await pilot.press(*"fridge")
        await pilot.pause()
        assert screen.query_one("#sessions-search", Input).value == "fridge"
        rows = cell_texts(screen.query_one("#sessions-table", DataTable))
        assert [r[1] for r in rows] == ["Sourdough starter feeding"]
        match = str(screen.query_one("#sessions-match", Static).render())
        assert match.startswith("Match: ") and "fridge" in match  # the snippet of the highlighted match
        await pilot.press("enter")  # Enter in the search box opens the top match
        await pilot.pause()
        assert app.result == "bbbb00000002"


@pytest.mark.parametrize("word", ["rennet", "espresso", "dandelion", "jam", "nettle"])
async def test_typing_a_word_searches_and_fires_no_action(store, word):
    """Every letter is a search: `rennet` used to open Rename (r), `espresso` Export (e)."""
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*word)
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen), app.screen
        assert app.result is UNSET
        assert app.screen.query_one("#sessions-search", Input).value == word
        assert {s.id for s in store.list()} == {"aaaa00000001", "bbbb00000002", "cccc00000003"}


async def test_search_with_no_match_shows_empty_state_and_escape_clears(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("slash", *"zebra")
        await pilot.pause()
        empty = screen.query_one("#sessions-empty", Static)
        assert not empty.has_class("hidden")
        assert "No sessions match" in str(empty.render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is UNSET  # the first Esc clears the search
        assert screen.query_one("#sessions-table", DataTable).row_count == 3
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_rename_through_modal(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, TextInputDialog)
        dialog_input = app.screen.query_one("#dialog-input", Input)
        assert dialog_input.value == "Solar panels in winter"
        dialog_input.value = ""
        await pilot.press(*"Winter solar notes", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert store.load("aaaa00000001").title == "Winter solar notes"
        assert cell_texts(screen.query_one("#sessions-table", DataTable))[0][1] == "Winter solar notes"
        assert screen.renamed == {"aaaa00000001": "Winter solar notes"}


async def test_delete_asks_then_deletes(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "delete")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # no: nothing happens
        await pilot.pause()
        assert store.exists("bbbb00000002")
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        screen = app.screen
        assert not store.exists("bbbb00000002")
        assert [r[1] for r in cell_texts(screen.query_one("#sessions-table", DataTable))] == [
            "Solar panels in winter", "Bike chain oil"]
        assert screen.deleted == {"bbbb00000002"}


async def test_export_markdown_writes_file_with_citations(store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        dialog_input = app.screen.query_one("#dialog-input", Input)
        assert dialog_input.value == "solar-panels-in-winter-aaaa0000.md"
        await pilot.press("enter")
        await pilot.pause()
    text = (tmp_path / "solar-panels-in-winter-aaaa0000.md").read_text()
    assert text.startswith("# Solar panels in winter")
    assert "Do solar panels work in winter?" in text
    assert "[1] Solar panels" in text


async def test_export_json_to_typed_path_is_reimportable(store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "f6")
        await pilot.pause()
        app.screen.query_one("#dialog-input", Input).value = "out/bread.json"
        await pilot.press("enter")
        await pilot.pause()
    data = json.loads((tmp_path / "out" / "bread.json").read_text())
    assert data["id"] == "bbbb00000002"
    assert data["metadata"]["title"] == "Sourdough starter feeding"
    imported = store.import_json((tmp_path / "out" / "bread.json").read_text())
    assert imported.title == "Sourdough starter feeding" and imported.id != "bbbb00000002"


async def test_export_to_existing_file_asks_before_replacing(store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.md").write_text("keep me")
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        app.screen.query_one("#dialog-input", Input).value = "x.md"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert (tmp_path / "x.md").read_text() == "keep me"


async def test_corrupt_session_is_a_one_line_error_not_a_crash(store):
    with store._lock:
        store._conn.execute("UPDATE sessions SET payload='{broken' WHERE id='aaaa00000001'")
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.result is UNSET
        assert isinstance(app.screen, SessionsScreen)
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("Cannot open “Solar panels in winter”") and "\n" not in m for m in messages)


async def test_markup_in_session_title_is_literal(tmp_path):
    s = SessionStore(tmp_path / "m.db")
    add_session(s, "dddd00000004", MARKUP_TITLE, updated="2026-03-14T09:30:00.000000Z")
    app = Host(SessionsScreen(s))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        cell = app.screen.query_one("#sessions-table", DataTable).get_row_at(0)[1]
        assert isinstance(cell, Text) and cell.plain == MARKUP_TITLE
    s.close()


async def test_empty_store_shows_hint(empty_store):
    app = Host(SessionsScreen(empty_store))
    async with app.run_test(size=(110, 24)) as pilot:
        await pilot.pause()
        empty = app.screen.query_one("#sessions-empty", Static)
        assert not empty.has_class("hidden")
        assert "No saved sessions yet" in str(empty.render())
        await pilot.press("enter", "f2", "f8")  # nothing to act on: warnings, no crash
        await pilot.pause()
        assert app.result is UNSET


def test_every_binding_has_an_id_and_description():
    from haiku_tui.tui.screens.wire import WireScreen

    for screen in (SessionsScreen, KnowledgeScreen, WireScreen, TextInputDialog, ConfirmDialog):
        for binding in screen.BINDINGS:
            assert binding.id and binding.description, (screen.__name__, binding)


async def test_f1_on_sessions_lists_its_keys_and_esc_returns(store):
    app = Host(SessionsScreen(store))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        text = await f1_help(pilot, "Rename the highlighted session", "Export the highlighted session as Markdown")
        assert text.startswith("Sessions")
        assert "  /  " in text and "Slash" not in text  # the key as it is typed
        await pilot.press("/")  # from the search box too
        await pilot.pause()
        await f1_help(pilot, "Full-text search")
        assert app.result is UNSET and app.screen.search_input.value == ""


# -- knowledge-base screen ----------------------------------------------------------------------------------------


async def test_kb_opens_in_worker_and_lists_documents(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        rows = cell_texts(app.screen.query_one("#kb-documents", DataTable))
        assert rows == [
            ["[bold]x[/bold] [@click=app.quit]", "docs/markup.md", "1", "2026-03-14 09:30"],
            ["Solar panels", "docs/solar.md", "1", "2026-03-14 09:30"],
            ["Tea brewing", "docs/tea.md", "1", "2026-03-14 09:30"],
        ]
        assert "3 documents, 3 chunks" in str(app.screen.query_one("#kb-status", Static).render())


async def test_kb_markup_title_cells_are_text(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        cell = app.screen.query_one("#kb-documents", DataTable).get_row_at(0)[0]
        assert isinstance(cell, Text) and cell.plain == MARKUP_TITLE
        assert app.is_running  # [@click=app.quit] did nothing


async def test_kb_add_folder_with_progress_updates_table(tmp_path, monkeypatch, frozen_kb_clock):
    monkeypatch.chdir(tmp_path)
    write_docs(tmp_path / "docs")
    app = Host(KnowledgeScreen(str(tmp_path / "new.lancedb")))
    seen: list[tuple[float | None, float]] = []
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.query_one("#kb-documents", DataTable).row_count == 0
        original = screen._progress

        def spy(progress):
            original(progress)
            bar = screen.query_one("#kb-progress-bar", ProgressBar)
            seen.append((bar.total, bar.progress))

        monkeypatch.setattr(screen, "_progress", spy)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, TextInputDialog)
        await pilot.press(*"docs", "enter")
        await settle(app, pilot)
        assert screen.ingesting is False
        assert screen.query_one("#kb-documents", DataTable).row_count == 3
        assert seen and seen[-1] == (3, 3)  # progress arrived through call_from_thread
        label = str(screen.query_one("#kb-progress-label", Static).render())
        assert label == "Done: 3 added, 0 replaced, 0 unchanged, 0 failed"
        assert any("3 added" in n.message for n in app._notifications)
        # adding again: everything is unchanged
        screen.start_ingest(tmp_path / "docs")
        await settle(app, pilot)
        assert screen.last_report is not None and len(screen.last_report.skipped) == 3


async def test_kb_add_missing_path_is_one_line_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = Host(KnowledgeScreen(str(tmp_path / "kb.lancedb")))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"nowhere", "enter")
        await settle(app, pilot)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert [n.message for n in errors] == ["Cannot add nowhere: no such file or folder."]
        assert app.screen.ingesting is False


async def test_kb_add_reports_failed_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_docs(tmp_path / "docs", {"ok.md": "# Fine\n\nSome text here.\n", "empty.md": ""})
    app = Host(KnowledgeScreen(str(tmp_path / "kb.lancedb")))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        app.screen.start_ingest(tmp_path / "docs")
        await settle(app, pilot)
        assert app.screen.query_one("#kb-documents", DataTable).row_count == 1
        assert any(n.title == "Not ingested" and "empty.md" in n.message for n in app._notifications)


async def test_kb_an_ingest_that_raises_says_what_failed_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_docs(tmp_path / "docs", {"ok.md": "# Fine\n\nSome text here.\n"})
    app = Host(KnowledgeScreen(str(tmp_path / "kb.lancedb")))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen

        def disk_full(paths, on_progress=None):
            raise OSError("No space left on device\n\x1b[31m")

        monkeypatch.setattr(screen.kb, "add", disk_full)
        screen.start_ingest(tmp_path / "docs")
        await settle(app, pilot)
        status = screen.query_one("#kb-status", Static)
        line = "Ingesting docs failed: No space left on device ␛[31m"
        assert status.has_class("error") and str(status.render()) == line
        assert [n.message for n in app._notifications if n.severity == "error"] == [line]
        assert screen.ingesting is False and screen.query_one("#kb-progress").has_class("hidden")
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_kb_delete_document_after_confirm(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        rows = cell_texts(app.screen.query_one("#kb-documents", DataTable))
        assert [r[0] for r in rows] == [MARKUP_TITLE, "Tea brewing"]


async def test_kb_playground_search_shows_rank_score_label_snippet(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"winter light", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert screen.hits and screen.hits[0].title == "Solar panels"
        results = screen.query_one("#kb-results", OptionList)
        first = results.get_option_at_index(0).prompt
        assert isinstance(first, Text)
        assert first.plain.startswith(f" 1. {screen.hits[0].score:.3f}  Solar panels › Winter")
        assert "need light, not heat" in first.plain


async def test_kb_playground_filter_and_invalid_filter(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen
        screen.query_one("#kb-filter", Input).value = "path LIKE '%tea%'"
        screen.query_one("#kb-query", Input).value = "water"
        screen.query_one("#kb-query", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert {h.title for h in screen.hits} == {"Tea brewing"}
        screen.query_one("#kb-filter", Input).value = "nonsense column = 1"
        await pilot.press("enter")
        await settle(app, pilot)
        assert any(n.message.startswith("Search failed") for n in app._notifications)


async def test_kb_result_opens_full_chunk(kb_dir):
    from haiku_tui.tui.screens import TextViewDialog

    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"markup", "enter")
        await settle(app, pilot)
        app.screen.query_one("#kb-results", OptionList).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextViewDialog)
        assert "[red]and text too[/red]" in str(app.screen.query_one("#dialog-text", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, KnowledgeScreen)


async def test_kb_open_failure_is_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a database")
    app = Host(KnowledgeScreen(str(tmp_path / "afile")))
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await settle(app, pilot)
        status = app.screen.query_one("#kb-status", Static)
        assert status.has_class("error")
        assert "Cannot open the knowledge base" in str(status.render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_tables_fit_the_terminal_after_a_resize(store, kb_dir):
    """Shrinking the terminal to 80 columns refits both tables' columns (nothing scrolls sideways), rows kept."""

    def fits(table: DataTable) -> bool:
        return table.virtual_size.width <= table.scrollable_content_region.width

    for screen, table_id in (
        (SessionsScreen(store), "#sessions-table"),
        (KnowledgeScreen(str(kb_dir / "kb.lancedb")), "#kb-documents"),
    ):
        app = Host(screen)
        async with app.run_test(size=(200, 40)) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one(table_id, DataTable)
            wide = table.virtual_size.width
            await pilot.resize_terminal(80, 24)
            await settle(app, pilot)
            assert table.row_count == 3 and fits(table) and table.virtual_size.width < wide, table_id


async def test_f1_on_kb_lists_its_keys_and_esc_returns(kb_dir):
    app = Host(KnowledgeScreen(str(kb_dir / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(app, pilot)
        text = await f1_help(pilot, "Re-index the documents an older haiku-tui indexed", "Ingest a file or a folder")
        assert text.startswith("Knowledge base")
        assert text.index("Re-index") < text.index("Everywhere")
        assert app.result is UNSET and isinstance(app.screen, KnowledgeScreen)
