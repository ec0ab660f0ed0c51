"""SVG snapshots of the sessions and knowledge-base screens and their dialogs.

Deterministic: fixed terminal sizes, sessions written with fixed times, the store's clock frozen for
documents, TZ=UTC, paths shown relative to a working directory set to the test's folder, no cursor blink.
Regenerate with ``pytest --snapshot-update tests/tui/test_screens_snapshots.py`` and look at the SVGs.
"""

from __future__ import annotations

from textual.widgets import Input, OptionList

from haiku_tui.store import IngestProgress
from haiku_tui.tui.screens import KnowledgeScreen, SessionsScreen
from tests.tui.test_screens import (  # noqa: F401 - fixtures are used by name
    MARKUP_TITLE,
    Host,
    _utc,
    add_session,
    empty_store,
    frozen_kb_clock,
    kb_dir,
    store,
    write_docs,
)

SESSIONS_SIZE = (100, 24)
KB_SIZE = (110, 34)


def no_blink(app) -> None:
    """Stop every input's cursor from blinking (it would make snapshots flaky)."""
    for screen in app.screen_stack:
        for widget in screen.query(Input):
            widget.cursor_blink = False


async def settle(pilot) -> None:
    """Wait for workers, then let the tables measure their new rows (DataTable sizes columns on idle:
    a modal pushed before that would cover a table still drawn with header-wide columns)."""
    from textual.widgets import DataTable

    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    for _ in range(200):  # up to ~4 s on a loaded machine
        await pilot.pause(0.02)
        tables = pilot.app.screen.query(DataTable)
        if not any(t._require_update_dimensions or t._new_rows for t in tables):  # sized on idle
            break
    no_blink(pilot.app)
    await pilot.pause()


# -- sessions -----------------------------------------------------------------------------------------------------


def test_sessions_list(snap_compare, store, tmp_path, monkeypatch):
    """Three sessions newest first (Solar, Sourdough, Bike) with model, updated time, question and citation
    counts; the open session (Sourdough) is marked with a green dot; the search box is empty."""
    monkeypatch.chdir(tmp_path)
    assert snap_compare(
        Host(SessionsScreen(store, current_id="bbbb00000002")), run_before=settle, terminal_size=SESSIONS_SIZE
    )


def test_sessions_filtered_by_search(snap_compare, store, tmp_path, monkeypatch):
    """Typing "fridge" on the list starts a full-text search: one row (Sourdough starter feeding), "1 matching
    session", and under the table "Match: …" with the snippet, the matched word bold and underlined."""
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press(*"fridge")
        await settle(pilot)

    assert snap_compare(Host(SessionsScreen(store)), run_before=run_before, terminal_size=SESSIONS_SIZE)


def test_sessions_rename_modal(snap_compare, store, tmp_path, monkeypatch):
    """The rename dialog over the list, prefilled with "Solar panels in winter", Cancel and Rename buttons."""
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("f2")
        await settle(pilot)

    assert snap_compare(Host(SessionsScreen(store)), run_before=run_before, terminal_size=SESSIONS_SIZE)


def test_sessions_delete_confirm(snap_compare, store, tmp_path, monkeypatch):
    """The delete confirmation for the open session "Sourdough starter feeding": it says this is the open
    session, 2 questions and 2 citations, cannot be undone; Cancel (n) is focused, Delete (y) in red."""
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("down", "delete")
        await settle(pilot)

    assert snap_compare(
        Host(SessionsScreen(store, current_id="bbbb00000002")), run_before=run_before, terminal_size=SESSIONS_SIZE
    )


def test_sessions_empty_state(snap_compare, empty_store, tmp_path, monkeypatch):
    """No sessions: "0 sessions", and a centred hint that n starts a new session (no empty table)."""
    monkeypatch.chdir(tmp_path)
    assert snap_compare(Host(SessionsScreen(empty_store)), run_before=settle, terminal_size=SESSIONS_SIZE)


def test_sessions_export_json_dialog(snap_compare, store, tmp_path, monkeypatch):
    """The JSON export dialog for "Bike chain oil", prefilled with bike-chain-oil-cccc0000.json and saying
    the path is relative to the working directory (shown as ".")."""
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("end", "f6")
        await settle(pilot)

    assert snap_compare(Host(SessionsScreen(store)), run_before=run_before, terminal_size=SESSIONS_SIZE)


def test_sessions_markup_title_literal(snap_compare, tmp_path, monkeypatch):
    """A session titled "[bold]x[/bold] [@click=app.quit]" shows those characters literally (not bold)."""
    from haiku_tui.sessions import SessionStore

    monkeypatch.chdir(tmp_path)
    s = SessionStore(tmp_path / "sessions.db")
    add_session(s, "dddd00000004", MARKUP_TITLE, updated="2026-03-14T09:30:00.000000Z")
    try:
        assert snap_compare(Host(SessionsScreen(s)), run_before=settle, terminal_size=SESSIONS_SIZE)
    finally:
        s.close()


# -- knowledge base -----------------------------------------------------------------------------------------------


def test_kb_documents_table(snap_compare, kb_dir):
    """The knowledge-base screen on kb.lancedb: "3 documents, 3 chunks", the documents table (markup-looking
    title first, then Solar panels, Tea brewing) with relative paths, chunk counts and 2026-03-14 09:30; an
    empty search playground below; the footer lists a Add path, s Sync folder, d Delete doc, / Search, f5 Reload,
    esc Back."""
    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=settle, terminal_size=KB_SIZE)


def test_kb_empty(snap_compare, tmp_path, monkeypatch):
    """A new, empty knowledge base: "0 documents, 0 chunks — press a to add a file or folder …" and an
    empty table."""
    monkeypatch.chdir(tmp_path)
    assert snap_compare(Host(KnowledgeScreen(str(tmp_path / "new.lancedb"))), run_before=settle, terminal_size=KB_SIZE)


def test_kb_add_modal(snap_compare, kb_dir):
    """The "Add files or a folder" dialog with the formats hint and "docs" typed in."""

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"docs")
        await settle(pilot)

    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE)


def test_kb_ingest_progress(snap_compare, kb_dir):
    """Mid-ingest: the progress row visible with "Parsing 2/4 files · 7 chunks · 4.0 files/s · docs/tea.md" (the
    phase named) and the bar at 50%; the status line says "Ingesting …"."""

    async def run_before(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#kb-progress").remove_class("hidden")
        screen._set_status("Ingesting docs…")
        screen._progress(
            IngestProgress(
                files_total=4, files_done=2, chunks_done=7, path=str(kb_dir / "docs" / "tea.md"), elapsed=0.5
            )
        )
        await settle(pilot)

    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE)


def test_kb_ingest_summary(snap_compare, tmp_path, monkeypatch, frozen_kb_clock):
    """After adding a folder of three files plus an empty one: the bar at 100% with "Done: 3 added,
    0 replaced, 0 unchanged, 1 failed", three rows in the table, "3 documents, 3 chunks"."""
    from tests.tui.test_screens import KB_DOCS

    monkeypatch.chdir(tmp_path)
    write_docs(tmp_path / "docs", {**KB_DOCS, "zz-empty.md": ""})

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"docs", "enter")
        await settle(pilot)

    assert snap_compare(
        Host(KnowledgeScreen(str(tmp_path / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE
    )


def test_kb_playground_results(snap_compare, kb_dir):
    """Search playground for "winter light": result 1 is "Solar panels › Winter" with its score in cyan and
    a dim snippet on the next line; the query stays in the input."""

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("slash", *"winter light", "enter")
        await settle(pilot)

    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE)


def test_kb_markup_injection_title(snap_compare, kb_dir):
    """A document titled "[bold]x[/bold] [@click=app.quit]" (body "[red]and text too[/red]") is shown
    literally in the table and in the search result: brackets visible, nothing bold or red, no link."""

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("slash", *"markup", "enter")
        await settle(pilot)

    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE)


def test_kb_chunk_view(snap_compare, kb_dir):
    """Enter on a playground result opens the full chunk: title "[1] Tea brewing › Green tea", the path
    and score, then the chunk text."""

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("slash", *"green tea", "enter")
        await settle(pilot)
        pilot.app.screen.query_one("#kb-results", OptionList).focus()
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=run_before, terminal_size=KB_SIZE)


# -- small and large terminals ------------------------------------------------------------------------------------


def test_sessions_list_80x24(snap_compare, store, tmp_path, monkeypatch):
    """The sessions screen at 80×24: the search box, the three sessions with every column (long titles
    end in …) and the footer's keys all fit; nothing is cut off at the right edge."""
    monkeypatch.chdir(tmp_path)
    assert snap_compare(
        Host(SessionsScreen(store, current_id="bbbb00000002")), run_before=settle, terminal_size=(80, 24)
    )


def test_sessions_list_200x60(snap_compare, store, tmp_path, monkeypatch):
    """The sessions screen at 200×60: the same three sessions; the table keeps its column widths and the
    rest of the screen stays empty below them, the footer at the bottom."""
    monkeypatch.chdir(tmp_path)
    assert snap_compare(
        Host(SessionsScreen(store, current_id="bbbb00000002")), run_before=settle, terminal_size=(200, 60)
    )


def test_kb_documents_table_80x24(snap_compare, kb_dir):
    """The knowledge-base screen at 80×24: the summary line, the documents table (scrolling sideways for
    its last columns) and the search playground below it, with the footer's keys."""
    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=settle, terminal_size=(80, 24))


def test_kb_documents_table_200x60(snap_compare, kb_dir):
    """The knowledge-base screen at 200×60: every column of the documents table at full width and a tall
    search playground below it."""
    assert snap_compare(Host(KnowledgeScreen(str(kb_dir / "kb.lancedb"))), run_before=settle, terminal_size=(200, 60))
