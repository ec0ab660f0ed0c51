"""Embedding chunks in timed batches, so progress can say how the embedder goes.

:class:`EmbedRun` sizes each call to the embedder to take about :data:`BATCH_SECONDS` (from
:data:`FIRST_BATCH` inputs, within :data:`MIN_BATCH` and ``EMBED_BATCH``), counts what is embedded and the time
it took, and reports after each batch. A call runs in its own thread while the caller watches it: once it has
taken :data:`WAIT_SHOWN` seconds and twice what the last one took (a remote embedder's retries and back-offs, a
model loading) the caller hears of the wait about once a second, and Ctrl+C or a cancelled run does not wait
for the call to end.
:func:`document_parts` embeds the chunks of consecutive documents and hands them back whole documents at a
time, every :data:`WRITE_SECONDS` or so, so an ingest writes as it embeds and an interruption keeps them.
"""

from __future__ import annotations

import bisect
import itertools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .embedding import EMBED_BATCH, embed_documents
from .errors import StoreError
from .records import IngestProgress
from .tables import one_line

FIRST_BATCH = 16  # inputs in the first call: the first report comes soon even from a slow embedder
MIN_BATCH = 32  # fewer inputs a call cost MiniLM throughput (its windows sorted by length among fewer): 8 -9%, 16 -5%
BATCH_SECONDS = 2.0  # what a call should take: the count moves every couple of seconds
WAIT_SHOWN = 3.0  # a call taking longer than this (and than twice the last one) is reported as a wait
TICK = 1.0  # how often a wait is reported
WRITE_SECONDS = 5.0  # embedding time between writes (at least ten times what a write takes)

Vectors = list[list[float]]


class EmbedderFault(StoreError):
    """The embedder failed (one line; the embedder's error is the cause)."""


class EmbedRun:
    """Embeds texts in timed batches; ``on_change()`` is called after each batch and while a long call waits."""

    def __init__(self, embedder: Any, on_change: Callable[[], None]) -> None:
        self.embedder = embedder
        self.on_change = on_change
        self.embedded = 0  # texts embedded so far
        self.seconds = 0.0  # time spent in the embedder so far
        self.waiting = 0.0  # how long the call in flight has taken, once it counts as a wait
        self.size = FIRST_BATCH
        self.last = 0.0  # what the last call took

    def batches(self, texts: Sequence[str]) -> Iterator[Vectors]:
        """The vectors of ``texts``, one batch at a time, in order."""
        start = 0
        while start < len(texts):
            part = list(texts[start : start + self.size])
            began = time.perf_counter()
            vectors = self._call(part, began)
            took = time.perf_counter() - began
            self.seconds += took
            self.embedded += len(part)
            self.waiting = 0.0
            self.size, self.last = next_size(self.size, took), took
            start += len(part)
            self.on_change()
            yield vectors

    def embed(self, texts: Sequence[str]) -> Vectors:
        return [v for batch in self.batches(texts) for v in batch]

    def _call(self, texts: list[str], began: float) -> Vectors:
        done = threading.Event()
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["vectors"] = embed_documents(self.embedder, texts)
            except BaseException as exc:  # handed to the caller, whatever it is
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="haiku-tui-embed", daemon=True).start()
        while not done.wait(TICK):
            waited = time.perf_counter() - began
            if waited >= max(WAIT_SHOWN, 2 * self.last):
                self.waiting = waited
                self.on_change()
        if "error" in outcome:
            error = outcome["error"]
            raise EmbedderFault(f"embedding failed: {one_line(error)[:200]}") from error
        return outcome["vectors"]


def next_size(size: int, took: float) -> int:
    """The next batch's size: toward :data:`BATCH_SECONDS` a call, at most doubling or halving, within
    :data:`MIN_BATCH` and ``EMBED_BATCH``."""
    wanted = size * BATCH_SECONDS / max(took, 1e-6)
    return int(max(MIN_BATCH, min(EMBED_BATCH, size * 2, max(wanted, size / 2))))


def document_parts(run: EmbedRun, texts: Sequence[str], sizes: Sequence[int]) -> Iterator[tuple[int, Vectors]]:
    """Embed the chunks of consecutive documents (``sizes``: each one's number of chunks; ``texts``: all the
    chunks in order), yielding ``(number of documents, their chunks' vectors)`` for whole documents: when
    :data:`WRITE_SECONDS` (or ten times what the consumer took with the last part) have gone by, and at the end."""
    ends = list(itertools.accumulate(sizes))
    vectors: Vectors = []
    docs_out = chunks_out = 0
    every = WRITE_SECONDS
    since = time.perf_counter()
    for batch in run.batches(texts):
        vectors.extend(batch)
        whole = bisect.bisect_right(ends, len(vectors))  # documents whose every chunk is embedded
        if whole > docs_out and (whole == len(ends) or time.perf_counter() - since >= every):
            upto = ends[whole - 1]
            handed = time.perf_counter()
            yield whole - docs_out, vectors[chunks_out:upto]
            every = max(WRITE_SECONDS, 10 * (time.perf_counter() - handed))
            docs_out, chunks_out = whole, upto
            since = time.perf_counter()


def vectors_progress(run: EmbedRun, chunks: int, started: float, phase: str) -> IngestProgress:
    """The progress of embedding a knowledge base's ``chunks`` (``haiku-tui embed``): no files, one phase's counts."""
    return IngestProgress(
        files_total=0, files_done=0, chunks_done=chunks, path=None, elapsed=time.perf_counter() - started,
        phase=phase, chunks_embedded=run.embedded, embed_seconds=run.seconds, waiting=run.waiting,
    )
