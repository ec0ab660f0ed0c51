"""Plain records returned by the store (stdlib only, cheap to import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

LABEL_SEPARATOR = " › "


def chunk_label(title: str, headings: tuple[str, ...] | list[str]) -> str:
    """``"Title › H1 › H2"``: the one label rule (a first heading repeating the title is dropped)."""
    parts = [title] if title else []
    heads = list(headings)
    if heads and title and str(heads[0]).strip().lower() == title.strip().lower():
        heads = heads[1:]  # the H1 usually repeats the title
    parts.extend(h for h in heads if h)
    return LABEL_SEPARATOR.join(parts)


def page_range(pages: tuple[int, ...] | list[int]) -> str:
    """``"p. 3"``, ``"p. 3–5"`` or ``""`` (no pages)."""
    if not pages:
        return ""
    first, last = min(pages), max(pages)
    return f"p. {first}" if first == last else f"p. {first}–{last}"


@dataclass(frozen=True)
class ChunkRecord:
    """One stored chunk, with its document's title and path."""

    chunk_id: str
    document_id: str
    title: str
    path: str
    headings: tuple[str, ...]
    pages: tuple[int, ...]
    order: int
    text: str

    def label(self) -> str:
        """``"Title › H1 › H2"`` (a leading heading equal to the title is not repeated)."""
        return chunk_label(self.title, self.headings)


@dataclass(frozen=True)
class SearchHit(ChunkRecord):
    """A search result: a chunk plus its score and 1-based rank."""

    score: float
    rank: int


@dataclass(frozen=True)
class DocumentRecord:
    """One ingested document."""

    id: str
    path: str
    title: str
    content_hash: str
    metadata: dict[str, Any]
    chunks: int
    created_at: datetime
    updated_at: datetime
    index_version: int = 1  # the indexing that wrote it (``store.tables.INDEX_VERSION``)


@dataclass(frozen=True)
class IngestFailure:
    """A file that was not ingested, and why (one line)."""

    path: str
    reason: str


PARSING = "parsing"  # files read, parsed and chunked
EMBEDDING = "embedding"  # chunks embedded (and written, whole documents at a time)
INDEXING = "indexing"  # the full-text and vector indexes brought up to date
DONE = "done"  # the last report of a run: the command is finished


@dataclass(frozen=True)
class IngestProgress:
    """Passed to ``on_progress`` after each file, each embedded batch and each write, while a long embedder call
    waits (about once a second), and as a phase starts; the last one of a run is in phase :data:`DONE`."""

    files_total: int
    files_done: int
    chunks_done: int  # chunks made from the files so far (written or queued)
    path: str | None
    elapsed: float
    added: int = 0
    replaced: int = 0
    skipped: int = 0
    failed: int = 0
    phase: str = PARSING
    chunks_embedded: int = 0
    embed_seconds: float = 0.0  # time spent in the embedder so far
    waiting: float = 0.0  # how long the embedder's current call has taken, once that is long (else 0)


@dataclass
class IngestReport:
    """What an ``add`` call did."""

    added: list[DocumentRecord] = field(default_factory=list)
    replaced: list[DocumentRecord] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # paths whose content was unchanged
    failed: list[IngestFailure] = field(default_factory=list)
    passed_over: list[IngestFailure] = field(default_factory=list)  # folder entries not ingested, and why
    removed: list[DocumentRecord] = field(default_factory=list)  # sync: files gone from disk
    moved: list[tuple[str, str]] = field(default_factory=list)  # sync: (old path, new path), same content
    dry_run: bool = False
    chunks: int = 0  # chunks written
    files: int = 0  # files considered
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    def passed_over_summary(self) -> list[str]:
        """One line per reason, e.g. ``"3 skipped: unsupported type (.psd, .zip)"``."""
        groups: dict[str, list[str]] = {}
        for item in self.passed_over:
            groups.setdefault(item.reason, []).append(item.path)
        lines = []
        for reason, paths in groups.items():
            detail = ""
            if reason == UNSUPPORTED:
                suffixes = sorted({PurePath(p).suffix.lower() or "(none)" for p in paths})
                detail = " (" + ", ".join(suffixes[:8]) + (", …" if len(suffixes) > 8 else "") + ")"
            lines.append(f"{len(paths)} skipped: {reason}{detail}")
        return lines


UNSUPPORTED = "unsupported type"
