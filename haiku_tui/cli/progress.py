"""The progress bar of ``add``, ``sync``, ``reindex`` and ``embed``, and the one line an interruption prints.

The bar shows the phase that takes the time (``store/progress.py``): files parsed, then chunks embedded with
their rate and time left (or how long the embedder has kept a call waiting), then a pulse while the indexes
are brought up to date; it is gone when the command's summary prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from haiku_tui.store.progress import DONE, EMBEDDING, INDEXING, bar, detail, files_kept


def with_progress(run: Callable[[Any], Any], *, show: bool, command: str) -> Any:
    """``run(on_progress)``, with the bar on a terminal's stderr when ``show``. Ctrl+C raises
    ``KeyboardInterrupt`` whose message says what the knowledge base kept (:func:`interrupted_line`)."""
    from rich.console import Console

    err = Console(stderr=True)
    seen: list[Any] = [None]  # the latest progress

    def remember(p: Any) -> None:
        seen[0] = p

    try:
        if not (show and err.is_terminal):
            return run(remember)
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(
            TextColumn("[bold]{task.fields[phase]:<9}"),
            BarColumn(),
            TextColumn("{task.fields[detail]}", markup=False),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        )
        task = progress.add_task("ingest", total=None, phase="starting", detail="")

        def on_progress(p: Any) -> None:
            seen[0] = p
            completed, total = bar(p)
            progress.update(task, completed=completed, total=total, phase=p.phase, detail=detail(p))

        with progress:
            return run(on_progress)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(interrupted_line(seen[0], command)) from None


def interrupted_line(p: Any, command: str) -> str:
    """What Ctrl+C leaves, e.g. ``"interrupted: 31 of 79 files are in the knowledge base; run the same add again
    to finish the rest"`` (``p``: the last progress heard, if any)."""
    again = f"run the same {command} again"
    if command == "embed":
        if p is not None and p.phase != EMBEDDING:
            return f"interrupted while writing the vectors: its search may be full text only until you {again}"
        done = f" ({p.chunks_embedded} of {p.chunks_done} chunks were embedded)" if p is not None else ""
        return f"interrupted: the knowledge base is as it was{done}; {again} to embed it"
    if p is None or not p.files_total:
        return f"interrupted before any file was ingested; {again}"
    kept = files_kept(p)
    if p.phase in (INDEXING, DONE) and kept + p.failed >= p.files_total:
        return f"interrupted while indexing: all {kept} files are in the knowledge base and searchable"
    return f"interrupted: {kept} of {p.files_total} files are in the knowledge base; {again} to finish the rest"
