"""Where a chunk sits in its source file: the line a text format starts it on, or a PDF's page."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from haiku_tui.store.records import ChunkRecord

_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".csv"})


@dataclass(frozen=True)
class SourceLocation:
    """A chunk's file and the place to open it at (line for text formats, page for PDFs)."""

    path: str
    line: int | None = None
    page: int | None = None
    exists: bool = True


def find_line(source: str, text: str) -> int | None:
    """The 1-based line of ``source`` where ``text`` starts, matching its first words whitespace-blind."""
    words = text.split()
    starts: list[int] = []  # offset in the joined words where each line begins
    joined: list[str] = []
    length = 0
    for line in source.splitlines():
        starts.append(length)
        for word in line.split():
            joined.append(word)
            length += len(word) + 1
    flat = " ".join(joined)
    for count in (12, 6, 3):
        if len(words) < count and count != 3:
            continue
        at = flat.find(" ".join(words[:count]))
        if at >= 0:
            return bisect.bisect_right(starts, at)
    return None


def chunk_location(chunk: ChunkRecord, *, max_bytes: int = 20_000_000) -> SourceLocation:
    """The place ``chunk`` starts in its source file (line or page; neither when it cannot tell)."""
    path = Path(chunk.path)
    if not path.is_file():
        return SourceLocation(chunk.path, exists=False)
    if chunk.pages:
        return SourceLocation(chunk.path, page=chunk.pages[0])
    if path.suffix.lower() not in _TEXT_SUFFIXES or path.stat().st_size > max_bytes:
        return SourceLocation(chunk.path)
    source = path.read_text(encoding="utf-8", errors="replace")
    return SourceLocation(chunk.path, line=find_line(source, chunk.text))
