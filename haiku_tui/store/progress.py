"""What an ingest's progress says, as pure functions over :class:`IngestProgress`: the phase that takes the time
(files parsed, chunks embedded, indexes brought up to date), its counts, rate and time left. The CLI's bar and
the app's knowledge-base screen both show these."""

from __future__ import annotations

from .records import DONE, EMBEDDING, INDEXING, PARSING, IngestProgress

__all__ = ["DONE", "EMBEDDING", "INDEXING", "PARSING", "bar", "detail", "embed_rate", "files_kept", "seconds_left"]


def expected_chunks(p: IngestProgress) -> int:
    """The chunks the run will embed: those made so far, scaled to every file while files are still to parse."""
    if 0 < p.files_done < p.files_total:
        return max(p.chunks_embedded, round(p.chunks_done * p.files_total / p.files_done))
    return max(p.chunks_embedded, p.chunks_done)


def embed_rate(p: IngestProgress) -> float | None:
    """Chunks embedded per second of embedding (``None`` before the first batch is back)."""
    return p.chunks_embedded / p.embed_seconds if p.chunks_embedded and p.embed_seconds > 0 else None


def seconds_left(p: IngestProgress) -> float | None:
    """The embedding's time left at its rate so far (``None`` while there is no rate)."""
    rate = embed_rate(p)
    return None if rate is None else (expected_chunks(p) - p.chunks_embedded) / rate


def bar(p: IngestProgress) -> tuple[int, int | None]:
    """``(completed, total)`` for the phase's bar: files parsed, then chunks embedded; a total of ``None`` (no
    measure: a pulse) while indexing, so the bar never looks finished before the run is."""
    if p.phase == EMBEDDING:
        return p.chunks_embedded, max(expected_chunks(p), 1)
    if p.phase == INDEXING:
        return 0, None
    return p.files_done, max(p.files_total, 1) if p.phase == DONE else p.files_total


def detail(p: IngestProgress) -> str:
    """The phase's counts on one line, e.g. ``"120/440 chunks · 10.5 chunks/s · 0:31 left"``."""
    files = f"{p.files_done}/{p.files_total} files"
    if p.phase == EMBEDDING:
        parts = [f"{p.chunks_embedded}/{expected_chunks(p)} chunks"]
        rate, left = embed_rate(p), seconds_left(p)
        if p.waiting:
            parts.append(f"waiting for the embedder ({p.waiting:.0f} s)")
        elif rate is not None and left is not None:
            parts += [f"{_number(rate)} chunks/s", f"{clock(left)} left"]
        if p.files_done < p.files_total:
            parts.append(f"{files} parsed")
        return " · ".join(parts)
    if p.phase == INDEXING:
        return f"{p.chunks_done} chunks"
    parts = [files, f"{p.chunks_done} chunks"]
    parsing = p.elapsed - p.embed_seconds
    if p.phase == PARSING and p.files_done and parsing > 0:
        parts.append(f"{_number(p.files_done / parsing)} files/s")
    return " · ".join(parts)


def files_kept(p: IngestProgress) -> int:
    """The run's files that are in the knowledge base (added, replaced or unchanged) as of this report."""
    return p.added + p.replaced + p.skipped


def clock(seconds: float) -> str:
    """``"0:07"``, ``"12:30"``, ``"1:02:03"``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def _number(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"
