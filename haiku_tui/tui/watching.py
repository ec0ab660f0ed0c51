"""Keeping the knowledge base in step with folders while the app runs (``haiku-tui --watch PATH…``,
the palette's "Watch folders…").

:class:`FolderWatch` runs :func:`haiku_tui.store.watch.watch` in a thread worker of the app: the first
sync, then one sync per debounced burst of changes. Each change is a toast and a line in the main
screen's status bar, and an open knowledge-base screen re-reads its documents. :meth:`FolderWatch.stop`
(the app calls it when quitting or when another watch starts) sets the stop event, which also ends a
sync in progress at its next file, so the app exits promptly.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from haiku_tui.tui.screens.dialogs import display_path, error_line
from haiku_tui.tui.screens.knowledge import KnowledgeScreen
from haiku_tui.tui.screens.knowledge_views import ingest_summary

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from haiku_tui.store import IngestProgress, IngestReport, KnowledgeBase


class _Stopped(Exception):
    """Raised from the progress callback to end a sync when the watch is stopped."""


class FolderWatch:
    """Watches ``paths`` and syncs each change into ``kb`` (or, when it is ``None``, into the knowledge
    base at ``db``, created if needed)."""

    def __init__(self, app: App[Any], paths: list[Path], *, kb: KnowledgeBase | None, db: str) -> None:
        self.app = app
        self.paths = paths
        self.kb = kb
        self.db = db
        self.stop_event = threading.Event()
        self.status = f"watching {self.where}: first sync…"
        self.worker: Worker[None] | None = None

    @property
    def where(self) -> str:
        return ", ".join(display_path(str(p)) for p in self.paths)

    def start(self) -> None:
        self.worker = self.app.run_worker(
            self._run, thread=True, group="watch", name="watch folders", exit_on_error=False
        )

    def stop(self) -> None:
        """End the watch (and a sync in progress, at its next file)."""
        self.stop_event.set()
        if self.worker is not None:
            self.worker.cancel()

    def _run(self) -> None:
        from haiku_tui.store import KnowledgeBase
        from haiku_tui.store.watch import watch

        def progress(_: IngestProgress) -> None:
            if self.stop_event.is_set():
                raise _Stopped

        try:
            kb = self.kb if self.kb is not None else KnowledgeBase.open(self.db, create=True)
            for report in watch(kb, self.paths, stop_event=self.stop_event, on_progress=progress):
                if self.stop_event.is_set():
                    return
                self._call(self._changed, report)
        except _Stopped:
            return
        except Exception as exc:  # one line, the app goes on without the watch
            self._call(self._failed, error_line(exc))

    def _call(self, callback: Any, *args: Any) -> None:
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:  # the app is shutting down
            pass

    def _changed(self, report: IngestReport) -> None:
        summary = ingest_summary(report)
        lines = [summary, *report.passed_over_summary()]
        lines += [f"{display_path(f.path)}: {error_line(f.reason)}" for f in report.failed[:3]]
        changes = ", ".join(part for part in summary.split(", ") if not part.startswith("0 "))
        self.status = f"watching {self.where}: {changes or 'no changes'}"
        self.app.notify(
            "\n".join(lines), title="Knowledge base synced", severity="warning" if report.failed else "information"
        )
        self._redraw()
        if isinstance(self.app.screen, KnowledgeScreen):
            self.app.screen.action_reload()

    def _failed(self, message: str) -> None:
        self.status = f"not watching {self.where}: {message}"
        self.app.notify(f"Watching {self.where} stopped: {message}", title="Watch", severity="error", timeout=10)
        self._redraw()

    def _redraw(self) -> None:
        main = getattr(self.app, "main", None)
        if main is not None and main.is_mounted:
            main.update_status()
