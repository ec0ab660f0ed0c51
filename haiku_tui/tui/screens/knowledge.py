"""The knowledge-base screen: documents, ingest and re-index with progress, delete, and a search playground.

``KnowledgeScreen(kb_uri)`` dismisses with ``None`` (Esc). Opening the knowledge base, ingesting (add,
sync, re-index), deleting and searching all run in thread workers; progress reaches the UI through
``App.call_from_thread``, so the screen stays responsive while a large folder is ingested.

Document titles, paths and chunk text are untrusted: every cell and result is a ``rich.text.Text``
of :func:`~haiku_tui.tui.text.clean` text, so ``[bold]x[/bold]`` or ``[@click=app.quit]`` in a title is
shown literally and an escape sequence as inert ``␛[2J``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from haiku_tui.store.progress import bar as bar_position
from haiku_tui.store.tables import INDEX_VERSION, outdated_note
from haiku_tui.tui.help import ScreenHelp, help_binding
from haiku_tui.tui.text import clean, clean_line

from .dialogs import ConfirmDialog, TextInputDialog, TextViewDialog, display_path, error_line, local_time, path_cell
from .knowledge_views import (
    DOC_COLUMNS,
    change_list,
    doc_column_widths,
    doc_name,
    ingest_summary,
    progress_label,
    result_prompt,
    sync_folder,
)
from .review_figures import RERUN_KEY, ReviewFigures

if TYPE_CHECKING:
    from haiku_tui.sessions.store import SessionStore
    from haiku_tui.store import DocumentRecord, IngestProgress, IngestReport, KnowledgeBase, SearchHit

SEARCH_LIMIT = 10
Job = Callable[
    [Callable[["IngestProgress"], None]], "IngestReport"
]  # an add, sync or re-index, given its progress callback


class _IngestStopped(Exception):
    """Raised from the progress callback to stop an ingest when its worker was cancelled (the app quits)."""


class KnowledgeScreen(ScreenHelp, Screen[None]):
    """Documents of a knowledge base, ingest with progress, delete, and a search playground."""

    TITLE = "Knowledge base"
    AUTO_FOCUS = "#kb-documents"

    DEFAULT_CSS = """
    KnowledgeScreen #kb-body { height: 1fr; padding: 0 1; }
    KnowledgeScreen #kb-status { height: auto; color: $text-muted; padding: 0 1; margin-top: 1; }
    KnowledgeScreen #kb-status.error { color: $error; }
    KnowledgeScreen #kb-progress { height: 1; padding: 0 1; }
    KnowledgeScreen #kb-progress-label { width: 1fr; height: 1; }
    KnowledgeScreen #kb-progress-bar { width: auto; }
    KnowledgeScreen #kb-progress-bar Bar { width: 28; }
    KnowledgeScreen #kb-documents { height: 1fr; min-height: 5; }
    KnowledgeScreen .section { text-style: bold; color: $text-accent; height: 1; padding: 0 1; margin-top: 1; }
    KnowledgeScreen #kb-search-row { height: auto; }
    KnowledgeScreen #kb-query { width: 2fr; }
    KnowledgeScreen #kb-filter { width: 1fr; }
    KnowledgeScreen #kb-results { height: 1fr; min-height: 5; }
    KnowledgeScreen .hidden { display: none; }
    """

    HELP_TITLE = "Knowledge base"
    BINDINGS = [
        Binding("a", "add", "Add path", id="kb.add", tooltip="Ingest a file or a folder (recursively)"),
        Binding(
            "s",
            "sync",
            "Sync folder",
            id="kb.sync",
            tooltip="Make the documents under a folder match the disk (lists the changes first)",
        ),
        Binding("d", "delete", "Delete doc", id="kb.delete", tooltip="Delete the highlighted document (asks first)"),
        Binding(
            "slash", "focus_search", "Search", id="kb.search", tooltip="Try a search: rank, score, source, snippet"
        ),
        Binding("f5", "reload", "Reload", id="kb.reload", tooltip="Re-read the documents list"),
        Binding("escape", "back", "Back", id="kb.back", tooltip="Go back to the conversation"),
        # last: at 80 columns the footer cuts it rather than Reload and Back; the status line names it when it matters
        Binding(
            "R",
            "reindex",
            "Re-index",
            id="kb.reindex",
            tooltip="Re-index the documents an older haiku-tui indexed (what `haiku-tui reindex` does)",
        ),
        Binding(
            RERUN_KEY,
            "evaluate",
            "Rerun reviews",
            id="kb.evaluate",
            tooltip="Rerun the questions whose citations you marked as supported: does the search still find their "
            "sources? (what `haiku-tui eval --from-reviews` does)",
        ),
        help_binding("kb"),
    ]

    def __init__(
        self, kb_uri: str, *, kb: KnowledgeBase | None = None, store: SessionStore | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.kb_uri = str(kb_uri)
        self.kb: KnowledgeBase | None = kb
        self.store = store
        self.documents: list[DocumentRecord] = []
        self._widths: tuple[int, ...] = ()  # the documents table's column widths once it has columns
        self.hits: list[SearchHit] = []
        self.last_report: IngestReport | None = None
        self.ingesting = False
        self._doing = ""
        """What the running ingest does ("Syncing docs"), for its failure's line."""
        self.error: str | None = None

    # -- layout ---------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        with Vertical(id="kb-body"):
            yield Static(Text("Opening the knowledge base…"), id="kb-status")
            yield ReviewFigures(self.store, id="kb-reviews")
            with Horizontal(id="kb-progress", classes="hidden"):
                yield Static("", id="kb-progress-label")
                yield ProgressBar(id="kb-progress-bar", show_eta=False)
            yield Static("Documents", classes="section")
            yield DataTable(id="kb-documents", cursor_type="row", zebra_stripes=True)
            yield Static("Search playground", classes="section")
            with Horizontal(id="kb-search-row"):
                yield Input(placeholder="Search the knowledge base, then Enter…", id="kb-query")
                yield Input(placeholder="filter, e.g. path LIKE '%guide%'", id="kb-filter")
            yield OptionList(id="kb-results", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = display_path(self.kb_uri)
        table = self.query_one("#kb-documents", DataTable)
        self._add_columns(table)
        self._open()

    def _add_columns(self, table: DataTable) -> None:
        """Fixed widths (long titles end in "…", long paths start with it) from the terminal's width: nothing
        scrolls sideways."""
        self._widths = doc_column_widths(self.size.width)
        for (label, key), width in zip(DOC_COLUMNS, self._widths, strict=True):
            table.add_column(label, key=key, width=width)

    def on_resize(self) -> None:
        if self._widths and doc_column_widths(self.size.width) != self._widths:
            table = self.query_one("#kb-documents", DataTable)
            table.clear(columns=True)
            self._add_columns(table)
            self._show_documents(self.documents)

    # -- status helpers -------------------------------------------------------------------------------------

    def _set_status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#kb-status", Static)
        status.update(Text(message))
        status.set_class(error, "error")

    def _call(self, callback: Any, *args: Any) -> None:
        """Run ``callback`` on the UI thread from a worker thread (ignored once the app is shutting down)."""
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:
            pass

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One path for the workers' failures: an open, ingest or search that raised says so in one line."""
        report = {"kb-open": self._open_failed, "kb-ingest": self._ingest_failed, "kb-search": self._search_failed}
        if event.state is WorkerState.ERROR and event.worker.group in report:
            report[event.worker.group](error_line(event.worker.error))

    def _describe(self) -> str:
        docs = len(self.documents)
        chunks = sum(d.chunks for d in self.documents)
        text = f"{docs} document{'s' if docs != 1 else ''}, {chunks} chunk{'s' if chunks != 1 else ''}"
        if not docs:
            text += " — press a to add a file or folder (.md .txt .rst .html .pdf)"
        elif self.kb is not None and self.kb.embedder is None:
            text += " — full-text search only; `haiku-tui embed` adds vectors"
        outdated = self._outdated()
        if outdated:
            text += f" — {outdated_note(outdated, 'press R to re-index them')}"
        return text

    def _outdated(self) -> int:
        """How many listed documents an older ``INDEX_VERSION`` indexed."""
        return sum(d.index_version < INDEX_VERSION for d in self.documents)

    # -- opening --------------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="kb-open", exit_on_error=False)
    def _open(self) -> None:
        from haiku_tui.store import KnowledgeBase

        kb = self.kb if self.kb is not None else KnowledgeBase.open(self.kb_uri, embedder="auto", create=True)
        self._call(self._opened, kb, kb.documents())

    def _opened(self, kb: KnowledgeBase, docs: list[DocumentRecord]) -> None:
        self.query_one(ReviewFigures).load(kb.uri)
        self.kb = kb
        self.error = None
        self._show_documents(docs)
        if self.last_report is None:
            self._set_status(self._describe())

    def _open_failed(self, message: str) -> None:
        self.error = message
        self._set_status(f"Cannot open the knowledge base: {message}", error=True)
        self.notify(f"Cannot open the knowledge base: {message}", severity="error", markup=False)

    def _show_documents(self, docs: list[DocumentRecord]) -> None:
        self.documents = list(docs)
        table = self.query_one("#kb-documents", DataTable)
        keep = None
        if table.row_count:
            try:
                keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            except Exception:
                keep = None
        table.clear()
        for doc in self.documents:
            table.add_row(
                Text(doc_name(doc), no_wrap=True, overflow="ellipsis"),
                Text(path_cell(doc.path, self._widths[1]), no_wrap=True, style="dim"),
                Text(str(doc.chunks), justify="right"),
                Text(local_time(doc.updated_at)),
                key=doc.id,
            )
        if keep is not None and any(d.id == keep for d in self.documents):
            table.move_cursor(row=table.get_row_index(keep), animate=False)

    def action_reload(self) -> None:
        self._open()

    # -- adding ---------------------------------------------------------------------------------------------

    def action_add(self) -> None:
        if not self._can_ingest():
            return
        self.app.push_screen(
            TextInputDialog(
                "Add files or a folder",
                placeholder="path/to/docs",
                detail="Folders are read recursively. Formats: .md .txt .rst .html .pdf .docx .pptx .xlsx .epub .csv. "
                "Unchanged files are skipped, changed ones replaced.",
                submit_label="Add",
            ),
            self._add_chosen,
        )

    def _can_ingest(self) -> bool:
        """True when an ingest or sync may start now; otherwise a toast says why."""
        if self.kb is None:
            self.notify("The knowledge base is not open yet.", severity="warning", markup=False)
        elif self.ingesting:
            self.notify("An ingest is already running; wait for it to finish.", severity="warning", markup=False)
        return self.kb is not None and not self.ingesting

    def _add_chosen(self, value: str | None) -> None:
        if not value:
            return
        path = Path(value).expanduser()
        if not path.exists():
            self.notify(f"Cannot add {value}: no such file or folder.", severity="error", markup=False)
            return
        self.start_ingest(path)

    def start_ingest(self, path: str | Path, *, sync: bool = False) -> None:
        """Ingest ``path`` in a thread worker, with the progress bar (also callable by the host); ``sync``
        also removes documents whose file under ``path`` is gone and re-links moved ones."""
        kb = self.kb
        if kb is None or self.ingesting:
            return
        where = Path(path).expanduser()
        name = display_path(str(where.resolve()))
        if sync:
            self._start_job(f"Syncing {name}", "Ingest", lambda progress: kb.sync([where], on_progress=progress))
        else:
            self._start_job(f"Ingesting {name}", "Ingest", lambda progress: kb.add([where], on_progress=progress))

    def _start_job(self, doing: str, kind: str, job: Job) -> None:
        """Show the progress bar and run ``job(on_progress)`` (an add, sync or re-index) in the ingest worker:
        ``doing`` ("Syncing docs") labels the bar until the first file is done and says what failed, ``kind``
        titles the receipt ("Ingest finished")."""
        self.ingesting = True
        self._doing = doing
        self.last_report = None
        self.query_one("#kb-progress").remove_class("hidden")
        bar = self.query_one("#kb-progress-bar", ProgressBar)
        bar.update(total=None, progress=0)
        self.query_one("#kb-progress-label", Static).update(Text(f"{doing}…"))
        self._set_status(f"{doing}…")
        self._ingest(job, kind)

    # -- re-indexing ----------------------------------------------------------------------------------------

    def action_reindex(self) -> None:
        """Re-index the documents an older haiku-tui indexed, as `haiku-tui reindex` does; the search keeps
        answering from each document's old chunks until its new ones are in."""
        if not self._can_ingest():
            return
        kb, outdated = self.kb, self._outdated()
        assert kb is not None
        if not outdated:
            self.notify("Nothing to re-index: every document is indexed by this version.", markup=False)
            return
        many = f"{outdated} document{'s' if outdated != 1 else ''}"
        self._start_job(f"Re-indexing {many}", "Re-index", lambda progress: kb.reindex(on_progress=progress))

    # -- syncing a folder -----------------------------------------------------------------------------------

    def action_sync(self) -> None:
        if not self._can_ingest():
            return
        folder = sync_folder([d.path for d in self.documents])
        self.app.push_screen(
            TextInputDialog(
                "Sync a folder",
                value=display_path(folder) if folder else "",
                placeholder="path/to/docs",
                detail="New and changed files are ingested, documents whose file is gone are removed and moved "
                "files re-linked. The changes are listed first.",
                submit_label="Check",
            ),
            self._sync_chosen,
        )

    def _sync_chosen(self, value: str | None) -> None:
        if not value:
            return
        path = Path(value).expanduser()
        if not path.exists():
            self.notify(f"Cannot sync {value}: no such file or folder.", severity="error", markup=False)
            return
        self._set_status(f"Checking {display_path(str(path.resolve()))}…")
        self._preview(path)

    @work(thread=True, exclusive=True, group="kb-preview", exit_on_error=False)
    def _preview(self, path: Path) -> None:
        """The dry run: what a sync of ``path`` would change."""
        kb = self.kb
        assert kb is not None
        try:
            report = kb.sync([path], dry_run=True)
        except Exception as exc:
            self._call(self._notify_error, f"Cannot sync {display_path(str(path))}: {error_line(exc)}")
            return
        self._call(self._previewed, path, report)

    def _previewed(self, path: Path, report: IngestReport) -> None:
        self._set_status(self._describe())
        name = display_path(str(path.resolve()))
        if not (report.added or report.replaced or report.removed or report.moved):
            notes = "; ".join(report.passed_over_summary())
            self.notify(
                f"{name} is in step: nothing to change." + (f" {notes}." if notes else ""), title="Sync", markup=False
            )
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.start_ingest(path, sync=True)

        self.app.push_screen(
            ConfirmDialog(
                f"Sync {name}?",
                detail=f"{ingest_summary(report)}\n{change_list(report)}",
                confirm_label="Sync",
                danger=bool(report.removed),
            ),
            done,
        )

    @work(thread=True, group="kb-ingest", exit_on_error=False)
    def _ingest(self, job: Job, kind: str) -> None:
        kb = self.kb
        assert kb is not None
        worker = get_current_worker()

        def progress(p: IngestProgress) -> None:
            if worker.is_cancelled:  # quitting: stop after this file (a half-written one stays invisible)
                raise _IngestStopped
            self._call(self._progress, p)

        try:
            report = job(progress)
        except _IngestStopped:
            return
        self._call(self._ingested, kind, report, kb.documents())

    def _progress(self, progress: IngestProgress) -> None:
        completed, total = bar_position(progress)  # a pulse while indexing: never full before the run ends
        self.query_one("#kb-progress-bar", ProgressBar).update(total=total, progress=completed)
        self.query_one("#kb-progress-label", Static).update(Text(progress_label(progress)))

    def _ingested(self, kind: str, report: IngestReport, docs: list[DocumentRecord]) -> None:
        self.ingesting = False
        self.last_report = report
        self._show_documents(docs)
        summary = ingest_summary(report)
        bar = self.query_one("#kb-progress-bar", ProgressBar)
        bar.update(total=max(report.files, 1), progress=max(report.files, 1))
        self.query_one("#kb-progress-label", Static).update(Text(f"Done: {summary}"))
        self._set_status(self._describe())
        notes = "".join(f"\n{line}" for line in report.passed_over_summary())
        self.notify(
            summary + notes,
            title=f"{kind} finished",
            severity="warning" if report.failed else "information",
            markup=False,
        )
        for failure in report.failed[:3]:
            self.notify(
                f"{display_path(failure.path)}: {clean_line(failure.reason)}",
                title="Not ingested",
                severity="warning",
                markup=False,
            )
        if len(report.failed) > 3:
            self.notify(f"… and {len(report.failed) - 3} more files not ingested.", severity="warning", markup=False)

    def _ingest_failed(self, message: str) -> None:
        doing = self._doing
        self.ingesting = False
        self.query_one("#kb-progress").add_class("hidden")
        self._set_status(f"{doing} failed: {message}", error=True)
        self.notify(f"{doing} failed: {message}", severity="error", markup=False)

    # -- deleting -------------------------------------------------------------------------------------------

    def _highlighted_document(self) -> DocumentRecord | None:
        table = self.query_one("#kb-documents", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None
        return next((d for d in self.documents if d.id == key), None)

    def action_delete(self) -> None:
        doc = self._highlighted_document()
        if doc is None:
            self.notify("No document selected.", severity="warning", markup=False)
            return
        if self.ingesting:
            self.notify("An ingest is running; delete when it has finished.", severity="warning", markup=False)
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self._delete(doc)

        self.app.push_screen(
            ConfirmDialog(
                f"Delete “{doc_name(doc)}” from the knowledge base?",
                detail=f"{display_path(doc.path)} — {doc.chunks} chunk(s). The file on disk is not touched.",
            ),
            done,
        )

    @work(thread=True, group="kb-delete", exit_on_error=False)
    def _delete(self, doc: DocumentRecord) -> None:
        kb = self.kb
        assert kb is not None
        try:
            kb.delete(doc.id)
            docs = kb.documents()
        except Exception as exc:
            self._call(self._notify_error, f"Cannot delete {display_path(doc.path)}: {error_line(exc)}")
            return
        self._call(self._deleted, doc, docs)

    def _deleted(self, doc: DocumentRecord, docs: list[DocumentRecord]) -> None:
        self._show_documents(docs)
        self._set_status(self._describe())
        self.notify(f"Deleted “{doc_name(doc)}”.", markup=False)

    def _notify_error(self, message: str) -> None:
        self.notify(message, severity="error", markup=False)

    # -- search playground ----------------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one("#kb-query", Input).focus()

    @on(Input.Submitted, "#kb-query, #kb-filter")
    def _on_search(self, event: Input.Submitted) -> None:
        event.stop()
        query = self.query_one("#kb-query", Input).value.strip()
        if not query:
            self.query_one("#kb-query", Input).focus()
            return
        if self.kb is None:
            self.notify("The knowledge base is not open yet.", severity="warning", markup=False)
            return
        flt = self.query_one("#kb-filter", Input).value.strip() or None
        self._search(query, flt)

    @work(thread=True, exclusive=True, group="kb-search", exit_on_error=False)
    def _search(self, query: str, flt: str | None) -> None:
        kb = self.kb
        assert kb is not None
        self._call(self._show_hits, query, kb.search(query, limit=SEARCH_LIMIT, filter=flt))

    def _show_hits(self, query: str, hits: list[SearchHit]) -> None:
        self.hits = list(hits)
        results = self.query_one("#kb-results", OptionList)
        results.clear_options()
        if not hits:
            results.add_option(Option(Text(f"No results for “{query}”."), disabled=True))
            return
        results.add_options([Option(result_prompt(hit), id=hit.chunk_id) for hit in hits])
        results.highlighted = 0

    def _search_failed(self, message: str) -> None:
        results = self.query_one("#kb-results", OptionList)
        results.clear_options()
        results.add_option(Option(Text(f"Search failed: {message}"), disabled=True))
        self.notify(f"Search failed: {message}", severity="error", markup=False)

    @on(OptionList.OptionSelected, "#kb-results")
    def _on_result_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hit = next((h for h in self.hits if h.chunk_id == event.option_id), None)
        if hit is None:
            return
        where = display_path(hit.path)
        if hit.pages:
            where += f" (p. {', '.join(str(p) for p in hit.pages)})"
        self.app.push_screen(
            TextViewDialog(
                f"[{hit.rank}] {clean_line(hit.label()) or where}",
                f"{where} · score {hit.score:.3f}\n\n{clean(hit.text)}",
            )
        )

    # -- reviewed citations ---------------------------------------------------------------------------------

    def action_evaluate(self) -> None:
        if self.kb is None:
            self.notify("The knowledge base is not open yet.", severity="warning", markup=False)
            return
        self.query_one(ReviewFigures).rerun(self.kb)

    # -- leaving --------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.dismiss(None)
