"""The sessions screen: every saved session, newest first, with full-text search and the usual chores.

``SessionsScreen(store, current_id=None)`` dismisses with

* the id of the session to open (Enter),
* the string ``"new"`` to start a new session (Ctrl+N),
* ``None`` to go back (Esc).

Rename, delete and export happen in place; the host reloads its open session when the screen is dismissed
(it may have been renamed or deleted here). The list and the search are read from the store in a worker.

Titles, models and snippets are stored text; they are rendered as ``rich.text.Text``, never as markup.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from haiku_tui.tui.help import ScreenHelp, help_binding
from haiku_tui.tui.text import clean_line

from .dialogs import ConfirmDialog, TextInputDialog, display_path, error_line, local_time, path_cell

if TYPE_CHECKING:
    from haiku_tui.sessions import SessionStore, SessionSummary

NEW = "new"
"""Dismiss value asking the host to start a new session."""

_MARK = ("\ue000", "\ue001")  # private-use marks around search matches in snippets
_SEARCH_LIMIT = 200


COLUMNS = (
    (" ", "mark"), ("Title", "title"), ("Model", "model"), ("Knowledge base", "kb"),
    ("Updated", "updated"), ("Qs", "questions"), ("Cites", "citations"),
)


def column_widths(screen_width: int) -> tuple[int, ...]:
    """Widths of :data:`COLUMNS` that fill ``screen_width`` without scrolling sideways (80 columns and up):
    the title takes what the others leave; model and knowledge base narrow on small terminals."""
    model, kb = (14, 16) if screen_width >= 110 else (10, 11)
    fixed = 1 + model + kb + 16 + 3 + 5
    room = screen_width - 2 * len(COLUMNS) - 6  # cell padding, scrollbar, margins
    return (1, max(12, min(60, room - fixed)), model, kb, 16, 3, 5)


def _slug(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "session"


def _clip(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _marked(snippet: str, lead: int = 14) -> Text:
    """A search snippet with its private-use match marks turned into highlighting."""
    text = Text(no_wrap=True, overflow="ellipsis")
    flat = clean_line(snippet)
    first = flat.find(_MARK[0])
    if first > lead:  # keep the first match in view in a narrow column
        flat = "…" + flat[first - lead :].lstrip("…")
    pieces = re.split(f"({_MARK[0]}.*?{_MARK[1]})", flat)
    for piece in pieces:
        if piece.startswith(_MARK[0]) and piece.endswith(_MARK[1]):
            text.append(piece[1:-1], style="bold underline")
        else:
            text.append(piece.replace(_MARK[0], "").replace(_MARK[1], ""))
    return text


class SessionsScreen(ScreenHelp, Screen[str | None]):
    """Saved sessions: search, open, new, rename, delete, export to Markdown or JSON."""

    TITLE = "Sessions"
    AUTO_FOCUS = "#sessions-table"

    DEFAULT_CSS = """
    SessionsScreen #sessions-body { height: 1fr; padding: 0 1; }
    SessionsScreen #sessions-search { margin: 1 0 0 0; }
    SessionsScreen #sessions-count { color: $text-muted; height: 1; padding: 0 1; }
    SessionsScreen #sessions-table { height: 1fr; }
    SessionsScreen #sessions-empty { height: 1fr; content-align: center middle; color: $text-muted; }
    SessionsScreen #sessions-match { height: auto; max-height: 3; padding: 0 1; border-top: solid $primary 40%; }
    SessionsScreen .hidden { display: none; }
    """

    HELP_TITLE = "Sessions"
    BINDINGS = [
        Binding(
            "enter", "open", "Open", id="sessions.open", priority=True, tooltip="Open (resume) the highlighted session"
        ),
        Binding("ctrl+n", "new", "New", id="sessions.new", tooltip="Start a new session"),
        Binding("f2", "rename", "Rename", id="sessions.rename", tooltip="Rename the highlighted session"),
        Binding(
            "delete,f8",
            "delete",
            "Delete",
            id="sessions.delete",
            tooltip="Delete the highlighted session (asks first; Delete on the list, F8 anywhere)",
        ),
        Binding(
            "f5",
            "export_markdown",
            "Export .md",
            id="sessions.export_markdown",
            tooltip="Export the highlighted session as Markdown",
        ),
        Binding(
            "f6",
            "export_json",
            "Export .json",
            id="sessions.export_json",
            tooltip="Export the highlighted session as re-importable JSON",
        ),
        Binding(
            "slash",
            "focus_search",
            "Search",
            id="sessions.search",
            tooltip="Full-text search over titles, questions and answers (or just type)",
        ),
        Binding(
            "escape", "back", "Back", id="sessions.back", tooltip="Clear the search, or go back to the conversation"
        ),
        help_binding("sessions"),
    ]
    """Actions sit on keys that cannot be part of a word: every letter typed here is a search."""
    _OWN_KEYS = frozenset({"enter", "slash", "escape"})

    def __init__(self, store: SessionStore, current_id: str | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.current_id = current_id
        self._rows: dict[str, SessionSummary] = {}
        self._widths: tuple[int, ...] = ()  # the table's column widths once it is filled
        self._snippets: dict[str, str] = {}
        self._query = ""
        self.renamed: dict[str, str] = {}
        """Sessions renamed here: id → new title."""
        self.deleted: set[str] = set()
        """Sessions deleted here."""

    # -- layout ---------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        with Vertical(id="sessions-body"):
            yield Input(
                placeholder="Search sessions (type to filter: titles, questions, answers)…",
                id="sessions-search",
                select_on_focus=False,
            )
            yield Static("", id="sessions-count")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="sessions-empty", classes="hidden")
            yield Static("", id="sessions-match", classes="hidden")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = display_path(str(self.store.path))
        self.refresh_rows()

    # -- data -----------------------------------------------------------------------------------------------

    @property
    def table(self) -> DataTable:
        return self.query_one("#sessions-table", DataTable)

    @property
    def search_input(self) -> Input:
        return self.query_one("#sessions-search", Input)

    def refresh_rows(self, *, keep: str | None = None, first: bool = False) -> None:
        """Reload the list (or the search results) in a worker, keeping the cursor on ``keep`` (or the first row)."""
        self._load_rows(self._query, self.highlighted_id if keep is None else keep, first)

    @work(thread=True, exclusive=True, group="sessions-rows", name="read sessions")
    def _load_rows(self, query: str, keep: str | None, first: bool) -> None:
        snippets: dict[str, str] = {}
        try:
            if not query.strip():
                summaries = self.store.list()
            else:
                hits = self.store.search(query, limit=_SEARCH_LIMIT, mark=_MARK)
                snippets = {hit.session.id: hit.snippet for hit in hits}
                summaries = [hit.session for hit in hits]
        except Exception as exc:  # a damaged database must not crash the app
            self.app.call_from_thread(
                self.notify, f"Cannot read sessions: {error_line(exc)}", severity="error", markup=False
            )
            summaries = []
        if query == self._query:  # a newer search replaces this one
            self.app.call_from_thread(self._show_rows, summaries, snippets, keep, first)

    def _show_rows(
        self, summaries: list[SessionSummary], snippets: dict[str, str], keep: str | None, first: bool
    ) -> None:
        self._snippets = snippets
        self._rows = {s.id: s for s in summaries}
        searching = bool(self._query.strip())
        table = self.table
        table.clear(columns=True)
        # fixed widths (long values end in "…", a long path starts with it): the table never draws at header
        # width before it is measured
        self._widths = column_widths(self.size.width)
        for (label, key), width in zip(COLUMNS, self._widths, strict=True):
            table.add_column("KB" if key == "kb" and width < len(label) else label, key=key, width=width)
        for s in summaries:
            title = Text(_clip(clean_line(s.title)), no_wrap=True, overflow="ellipsis")
            if not s.supported:
                title.append("  (newer format)", style="italic")
            mark = Text("●", style="bold green") if s.id == self.current_id else Text(" ")
            cells: list[Any] = [
                mark,
                title,
                Text(clean_line(s.model) or "—", no_wrap=True, overflow="ellipsis"),
                Text(path_cell(s.db, self._widths[3]) if s.db else "—", no_wrap=True),
                Text(local_time(s.updated_at)),
                Text(str(s.questions), justify="right"),
                Text(str(s.citations), justify="right"),
            ]
            table.add_row(*cells, key=s.id)
        self._update_count(len(summaries), searching)
        empty = self.query_one("#sessions-empty", Static)
        if not summaries:
            if searching:
                empty.update(Text(f"No sessions match “{self._query.strip()}”. Esc clears the search."))
            else:
                empty.update(
                    Text(
                        "No saved sessions yet.\nPress Ctrl+N to start a new session; it is saved after its first "
                        "answer."
                    )
                )
        empty.set_class(bool(summaries), "hidden")
        if not summaries and self.focused is table:
            self.set_focus(None)  # the screen's keys (Ctrl+N: new session) keep working; typing does not search
        table.set_class(not summaries, "hidden")
        if first and table.row_count:
            table.move_cursor(row=0, animate=False)
        elif keep and keep in self._rows:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        self._show_match()

    def on_resize(self) -> None:
        if self._widths and column_widths(self.size.width) != self._widths:
            self._show_rows(list(self._rows.values()), self._snippets, self.highlighted_id, False)

    def _show_match(self) -> None:
        """While searching, the snippet of the highlighted session, its matches underlined."""
        match = self.query_one("#sessions-match", Static)
        snippet = self._snippets.get(self.highlighted_id or "", "") if self._query.strip() else ""
        if snippet:
            line = Text("Match: ", style="bold")
            line.append_text(_marked(snippet, lead=10_000))
            line.no_wrap = False
            match.update(line)
        match.set_class(not snippet, "hidden")

    @on(DataTable.RowHighlighted, "#sessions-table")
    def _on_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_match()

    def _update_count(self, count: int, searching: bool) -> None:
        if searching:
            text = f"{count} matching session{'s' if count != 1 else ''}"
        else:
            text = f"{count} session{'s' if count != 1 else ''}, newest first"
        self.query_one("#sessions-count", Static).update(Text(text))

    @property
    def highlighted_id(self) -> str | None:
        """The id of the session under the cursor, if any."""
        try:
            table = self.table
        except Exception:
            return None
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return key.value if key is not None else None

    def _selected(self) -> SessionSummary | None:
        session_id = self.highlighted_id
        if session_id is None:
            self.notify("No session selected.", severity="warning", markup=False)
            return None
        return self._rows.get(session_id)

    # -- search ---------------------------------------------------------------------------------------------

    @on(Input.Changed, "#sessions-search")
    def _on_search_changed(self, event: Input.Changed) -> None:
        self._query = event.value
        self.refresh_rows(first=True)

    def on_key(self, event: Any) -> None:
        """Type-to-search: a printable key on the list starts a search (actions are on F-keys and Ctrl);
        Down in the search box moves to the list."""
        if self.focused is self.search_input and event.key == "down" and self.table.row_count:
            event.stop()
            event.prevent_default()
            self.table.focus()
            return
        if self.focused is not self.table:
            return
        if event.key in self._OWN_KEYS or not event.is_printable or not event.character:
            return
        if event.character.isspace():
            return
        event.stop()
        event.prevent_default()
        search = self.search_input
        search.focus()
        search.insert_text_at_cursor(event.character)

    def action_focus_search(self) -> None:
        self.search_input.focus()

    # -- actions --------------------------------------------------------------------------------------------

    def action_open(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        if not summary.supported:
            self.notify(
                f"“{summary.title}” was saved by a newer haiku-tui (schema {summary.schema_version}); "
                "upgrade to open it.",
                severity="error",
                markup=False,
            )
            return
        try:
            self.store.load(summary.id)  # refuse a damaged row here, with one line, rather than in the app
        except Exception as exc:
            self.notify(f"Cannot open “{summary.title}”: {error_line(exc)}", severity="error", markup=False)
            return
        self.dismiss(summary.id)

    @on(DataTable.RowSelected, "#sessions-table")
    def _on_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_new(self) -> None:
        self.dismiss(NEW)

    def action_back(self) -> None:
        if self._query or self.focused is self.search_input:
            had_query = bool(self._query)
            self.search_input.value = ""
            self._query = ""
            self.refresh_rows()
            self.table.focus()
            if had_query:
                return
        self.dismiss(None)

    def action_rename(self) -> None:
        summary = self._selected()
        if summary is None:
            return

        def done(title: str | None) -> None:
            if not title or title == summary.title:
                return
            try:
                stored = self.store.rename(summary.id, title)
            except Exception as exc:
                self.notify(f"Cannot rename “{summary.title}”: {error_line(exc)}", severity="error", markup=False)
                return
            self.renamed[summary.id] = stored
            self.refresh_rows(keep=summary.id)
            self.notify(f"Renamed to “{stored}”.", markup=False)

        self.app.push_screen(
            TextInputDialog(
                "Rename session", value=summary.title, placeholder="A title for this session", submit_label="Rename"
            ),
            done,
        )

    def action_delete(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        detail = f"{summary.questions} question(s), {summary.citations} citation(s). This cannot be undone."
        if summary.id == self.current_id:
            detail = "This is the session you have open. " + detail

        def done(confirmed: bool | None) -> None:
            if not confirmed:
                return
            index = self.table.cursor_row
            try:
                existed = self.store.delete(summary.id)
            except Exception as exc:
                self.notify(f"Cannot delete “{summary.title}”: {error_line(exc)}", severity="error", markup=False)
                return
            self.deleted.add(summary.id)
            self.refresh_rows()
            if self.table.row_count:
                self.table.move_cursor(row=min(index, self.table.row_count - 1), animate=False)
            self.notify(
                f"Deleted “{summary.title}”." if existed else f"“{summary.title}” was already gone.",
                markup=False,
            )

        self.app.push_screen(ConfirmDialog(f"Delete “{summary.title}”?", detail=detail), done)

    def action_export_markdown(self) -> None:
        self._export("md")

    def action_export_json(self) -> None:
        self._export("json")

    def _export(self, kind: str) -> None:
        summary = self._selected()
        if summary is None:
            return
        label = "Markdown" if kind == "md" else "JSON"
        default = f"{_slug(summary.title)}-{summary.id[:8]}.{kind}"

        def chosen(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()
            if target.is_dir():
                target = target / default
            if not target.is_absolute():
                target = Path.cwd() / target
            if target.exists():
                self.app.push_screen(
                    ConfirmDialog(
                        "Replace the existing file?", detail=display_path(str(target)), confirm_label="Replace"
                    ),
                    lambda ok: self._write_export(summary, kind, target) if ok else None,
                )
            else:
                self._write_export(summary, kind, target)

        self.app.push_screen(
            TextInputDialog(
                f"Export “{summary.title}” as {label}",
                value=default,
                detail=f"File name or folder (relative to {display_path(str(Path.cwd())) or '.'}):",
                submit_label="Export",
            ),
            chosen,
        )

    def _write_export(self, summary: SessionSummary, kind: str, target: Path) -> None:
        try:
            text = self.store.export_markdown(summary.id) if kind == "md" else self.store.export_json(summary.id)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except Exception as exc:
            self.notify(f"Export failed: {error_line(exc)}", severity="error", markup=False)
            return
        self.notify(f"Exported to {target}", title="Export", markup=False)
