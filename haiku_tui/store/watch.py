"""Keep a knowledge base in step with folders while running (watchfiles), without Textual.

:func:`watch` syncs the roots once, then after each debounced burst of file-system changes
syncs just the changed paths (a moved file is re-linked, a deleted one removed) and yields the
:class:`~haiku_tui.store.records.IngestReport` of each step. Set ``stop_event`` to end it.

It does not re-index unchanged documents an older index version indexed: that is a whole folder's
parsing and embedding, started by opening the app; `haiku-tui reindex` (or `add`, `sync`) does it when asked.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .parsing import SUPPORTED_SUFFIXES
from .records import IngestProgress, IngestReport

if TYPE_CHECKING:
    from .kb import KnowledgeBase

DEBOUNCE_MS = 400  # changes closer together than this are synced as one step
STARTED_MS = 50  # the watcher yields after this long without changes (the first time: it runs)


def watch(
    kb: KnowledgeBase,
    paths: Iterable[str | os.PathLike[str]],
    *,
    stop_event: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    initial_sync: bool = True,
    on_progress: Callable[[IngestProgress], None] | None = None,
) -> Iterator[IngestReport]:
    """Yield one report for the initial sync, then one per burst of changes under ``paths``
    (``on_progress`` is passed to each sync: raising from it stops a sync at the next file)."""
    from watchfiles import DefaultFilter
    from watchfiles import watch as watch_changes

    roots = [Path(p).expanduser().resolve() for p in paths]
    ignore = DefaultFilter()

    def relevant(change: object, path: str) -> bool:
        name = os.path.basename(path)
        if name.startswith(".") or not ignore(change, path):  # type: ignore[arg-type]
            return False
        suffix = os.path.splitext(name)[1].lower()
        return suffix in SUPPORTED_SUFFIXES or not suffix or os.path.isdir(path)

    # The first (empty) step comes once the watcher runs: the initial sync goes then, so that a change made
    # during it or just after it is seen (it once went unseen until the next change).
    for changes in watch_changes(
        *roots,
        watch_filter=relevant,
        debounce=debounce_ms,
        step=50,
        stop_event=stop_event,
        rust_timeout=STARTED_MS,
        yield_on_timeout=True,
    ):
        if initial_sync:
            initial_sync = False
            yield kb.sync(roots, on_progress=on_progress, reindex=False)
            continue
        changed = {Path(path) for _change, path in changes}
        changed = sorted(p for p in changed if p.suffix.lower() in SUPPORTED_SUFFIXES or p.is_dir() or not p.exists())
        if not changed:
            continue
        report = kb.sync(changed, on_progress=on_progress, reindex=False)
        if report.added or report.replaced or report.removed or report.moved or report.failed:
            yield report
