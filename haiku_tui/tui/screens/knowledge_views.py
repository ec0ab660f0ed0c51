"""What the knowledge-base screen shows, as pure functions: ingest progress and receipts, sync changes, search
results, document names and column widths, and the folder a sync offers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from haiku_tui.store.progress import PARSING, detail
from haiku_tui.tui.text import clean_line

from .dialogs import display_path

if TYPE_CHECKING:
    from haiku_tui.store import DocumentRecord, IngestProgress, IngestReport, SearchHit

SNIPPET_CHARS = 220


def progress_label(progress: IngestProgress) -> str:
    """Beside the bar: the phase that takes the time and its counts (``store/progress.py``), e.g.
    ``"Parsing 2/4 files · 7 chunks · 4.0 files/s · tea.md"``, ``"Embedding 120/440 chunks · 10 chunks/s ·
    0:31 left"``, ``"Embedding 120/440 chunks · waiting for the embedder (12 s)"``, ``"Indexing 440 chunks"``."""
    current = f" · {display_path(progress.path)}" if progress.path and progress.phase == PARSING else ""
    return f"{progress.phase.capitalize()} {detail(progress)}{current}"


def ingest_summary(report: IngestReport) -> str:
    """``"2 added, 1 replaced, 3 unchanged, 1 failed"`` (parts that are zero are kept: it is a receipt),
    with ``", 1 removed, 1 moved"`` after a sync that removed or moved documents; a dry run says
    ``"would be: …"``."""
    text = (
        f"{len(report.added)} added, {len(report.replaced)} replaced, "
        f"{len(report.skipped)} unchanged, {len(report.failed)} failed"
    )
    if report.removed or report.moved:
        text += f", {len(report.removed)} removed, {len(report.moved)} moved"
    return f"would be: {text}" if report.dry_run else text


def change_list(report: IngestReport, limit: int = 12) -> str:
    """What a (dry-run) sync changes, one file a line (at most ``limit``), then what it passed over."""
    lines = [f"+ {display_path(d.path)}" for d in report.added]
    lines += [f"~ {display_path(d.path)}" for d in report.replaced]
    lines += [f"- {display_path(d.path)}" for d in report.removed]
    lines += [f"→ {display_path(a)} → {display_path(b)}" for a, b in report.moved]
    more = [f"… and {len(lines) - limit} more"] if len(lines) > limit else []
    return "\n".join(lines[:limit] + more + report.passed_over_summary())


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = clean_line(text)
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def result_prompt(hit: SearchHit) -> Text:
    """One playground result: rank, score, ``title › heading`` and a snippet, as plain text."""
    text = Text()
    text.append(f"{hit.rank:>2}. ", style="bold")
    text.append(f"{hit.score:.3f}", style="cyan")
    text.append("  ")
    text.append(clean_line(hit.label()) or display_path(hit.path), style="bold")
    if hit.pages:
        pages = ", ".join(str(p) for p in hit.pages)
        text.append(f"  p. {pages}", style="dim")
    text.append("\n    ")
    text.append(_snippet(hit.text), style="dim")
    return text


def doc_name(doc: DocumentRecord) -> str:
    """A document's title (else its file name) on one line, controls made visible."""
    return clean_line(doc.title or Path(doc.path).name)


DOC_COLUMNS = (("Title", "title"), ("Path", "path"), ("Chunks", "chunks"), ("Updated", "updated"))


def doc_column_widths(screen_width: int) -> tuple[int, ...]:
    """Widths of the documents table's :data:`DOC_COLUMNS` that fill ``screen_width`` (80 and up): title
    and path share what the chunk count and the date leave, the path getting the larger part."""
    room = max(30, screen_width - 2 * len(DOC_COLUMNS) - 6 - 6 - 16)
    title = min(50, room * 2 // 5)
    return (title, min(90, room - title), 6, 16)


def sync_folder(paths: list[str]) -> str:
    """The folder a sync offers: the one the documents share, unless that is as broad as the root, a folder
    just under it (``/tmp``) or the home directory (a sync would walk all of it); then the one holding most."""
    folders = [str(Path(p).parent) for p in paths if "://" not in p]
    if not folders:
        return ""
    try:
        common = Path(os.path.commonpath(folders))
    except ValueError:  # on different drives
        common = Path(folders[0]).anchor
    if len(common.parts) > 2 and common != Path.home():
        return str(common)
    return max(folders, key=folders.count)
