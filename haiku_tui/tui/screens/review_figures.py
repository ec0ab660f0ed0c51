"""The knowledge-base screen's line of review figures: how well the search still finds the sources of the
citations the user marked as supported, and the worker that reruns them (``haiku-tui eval --from-reviews``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from .dialogs import error_line, local_time

if TYPE_CHECKING:
    from haiku_tui.sessions.store import SessionStore
    from haiku_tui.store import KnowledgeBase

RERUN_KEY = "e"


def figures_text(figures: dict[str, Any] | None) -> str:
    """One line from saved figures (``sessions.cases.latest_figures``), or what to do when there are none."""
    if figures is None:
        return f"Reviewed citations: not measured yet — {RERUN_KEY} measures them"
    return f"{figures_summary(figures)} · {local_time(figures.get('when'))} — {RERUN_KEY} reruns"


def figures_summary(figures: dict[str, Any]) -> str:
    """``"Reviewed citations: 12 · recall@5 0.917 · MRR@10 0.850"`` (a case per question and cited document) and how
    many no longer find their source."""
    k = figures.get("k", 5)
    missed = sum(1 for r in figures.get("results", []) if r.get("rank") is None or r["rank"] > k)
    text = (f"Reviewed citations: {figures.get('questions', 0)} · recall@{k} {figures['recall']:.3f} · "
            f"MRR@10 {figures.get('mrr', 0.0):.3f}")
    if missed:
        text += f" · {missed} no longer find their source in the top {k}"
    return text


class ReviewFigures(Static):
    """The latest review figures of one knowledge base; :meth:`rerun` measures them again in a thread worker."""

    DEFAULT_CSS = "ReviewFigures { height: auto; color: $text-muted; padding: 0 1; }"

    def __init__(self, store: SessionStore | None = None, *, id: str | None = None) -> None:
        super().__init__(Text(""), id=id)
        self.store = store
        self.running = False
        self.figures: dict[str, Any] | None = None

    def _store(self) -> SessionStore:
        if self.store is None:
            from haiku_tui.sessions.store import SessionStore

            self.store = SessionStore()
        return self.store

    def _call(self, callback: Any, *args: Any) -> None:
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:  # the app is shutting down
            pass

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One path for the workers' failures, in one line: an unreadable sessions store costs that line only."""
        report = {"kb-review-figures": self._load_failed, "kb-review-rerun": self._failed}
        if event.state is WorkerState.ERROR and event.worker.group in report:
            report[event.worker.group](error_line(event.worker.error))

    @work(thread=True, exclusive=True, group="kb-review-figures", exit_on_error=False)
    def load(self, kb_uri: str) -> None:
        """Show the figures last saved for ``kb_uri`` (unless a rerun is measuring them)."""
        from haiku_tui.sessions.cases import latest_figures

        self._call(self._loaded, latest_figures(self._store(), kb_uri))

    def _load_failed(self, message: str) -> None:
        self.update(Text(f"Reviewed citations: {message}"))

    def _loaded(self, figures: dict[str, Any] | None) -> None:
        if not self.running:
            self._show(figures)

    def _show(self, figures: dict[str, Any] | None) -> None:
        self.figures = figures
        self.update(Text(figures_text(figures)))

    def rerun(self, kb: KnowledgeBase) -> None:
        """Rerun the reviewed citations' questions on ``kb`` (one run at a time)."""
        if self.running:
            self.notify(
                "The reviewed citations are being measured; wait for it to finish.", severity="warning", markup=False
            )
            return
        self.running = True
        self.update(Text("Reviewed citations: measuring…"))
        self._rerun(kb)

    @work(thread=True, group="kb-review-rerun", exit_on_error=False)
    def _rerun(self, kb: KnowledgeBase) -> None:
        from haiku_tui.sessions.cases import evaluate_reviews, latest_figures

        found, evaluation = evaluate_reviews(self._store(), kb)
        figures = latest_figures(self._store(), kb.uri) if evaluation is not None else None
        self._call(self._measured, figures, len(found.cases))

    def _measured(self, figures: dict[str, Any] | None, cases: int) -> None:
        self.running = False
        if figures is None:
            self.update(Text(figures_text(self.figures)))
            self.notify(
                "No citation on this knowledge base is marked as supported yet: review an answer's citations "
                "(r on an answer, s on each source that supports it).",
                title="Reviewed citations",
                markup=False,
            )
            return
        self._show(figures)
        self.notify(figures_summary(figures), title=f"{cases} reviewed citation(s) measured", markup=False)

    def _failed(self, message: str) -> None:
        self.running = False
        self.update(Text(figures_text(self.figures)))
        self.notify(f"Cannot measure the reviewed citations: {message}", severity="error", markup=False)
