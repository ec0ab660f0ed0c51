"""Ingest progress when the embedder is the slow part: the phases, their counts and rate, waits, and what is kept.

The embedder is the built-in model wrapped to sleep per batch (``tests/slow_embedder.py``), so the progress
reported is what a real ingest reports while a real embedder works."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import groupby

import pydantic_ai.models
import pytest

from haiku_tui.store import KnowledgeBase, StoreError
from haiku_tui.store import embed_batches
from haiku_tui.store.progress import (
    DONE, EMBEDDING, INDEXING, PARSING, bar, detail, embed_rate, expected_chunks, seconds_left,
)
from haiku_tui.store.records import IngestProgress
from tests.slow_embedder import slow_builtin, write_many

DELAY = 0.25


def timed(seen: list[tuple[float, IngestProgress]]):
    def record(p: IngestProgress) -> None:
        seen.append((time.perf_counter(), p))

    return record


def test_a_slow_embedder_is_reported_batch_by_batch_until_the_add_returns(tmp_path, monkeypatch):
    monkeypatch.setattr(embed_batches, "FIRST_BATCH", 4)
    monkeypatch.setattr(embed_batches, "MIN_BATCH", 4)
    monkeypatch.setattr(embed_batches, "WRITE_SECONDS", 0.0)  # write whole documents after every batch
    docs = write_many(tmp_path / "docs", 12)
    embedder = slow_builtin(DELAY)
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=embedder)
    seen: list[tuple[float, IngestProgress]] = []
    report = kb.add([docs], on_progress=timed(seen))
    returned = time.perf_counter()

    batches = embedder.model.batches
    assert len(batches) >= 3 and sum(size for size, _ in batches) == report.chunks == 36
    phases = [phase for phase, _ in groupby(p.phase for _, p in seen)]
    assert phases == [PARSING, EMBEDDING, INDEXING, DONE]
    embedding = [(t, p) for t, p in seen if p.phase == EMBEDDING]
    assert embedding[0][1].files_done == embedding[0][1].files_total == 12  # every file parsed: not the end
    assert embedding[0][1].chunks_embedded == 0 and embedding[-1][1].chunks_embedded == 36
    counts = [p.chunks_embedded for _, p in embedding]
    assert counts == sorted(counts) and len(set(counts)) >= 4  # the count moves with each batch
    # documents are written as their chunks are embedded, not all at the end
    assert any(0 < p.added < 12 for _, p in embedding)
    middle = next(p for _, p in embedding if 0 < p.chunks_embedded < 36)
    assert embed_rate(middle) > 0 and seconds_left(middle) > 0
    assert f"{middle.chunks_embedded}/36 chunks" in detail(middle) and "chunks/s" in detail(middle)
    assert "left" in detail(middle)
    # a full bar never sits there while the embedder works: the next phase follows it, and the end is when the
    # add returns
    starts = [began for _, began in batches]
    for i, (t, p) in enumerate(seen[:-1]):
        completed, total = bar(p)
        if total is not None and completed >= total:
            ends = next(t2 for t2, q in seen[i + 1 :] if q.phase != p.phase)
            assert not [began for began in starts if t <= began <= ends], (p, i)
    assert [p.phase for _, p in seen].count(DONE) == 1
    done_at, last = seen[-1]
    assert last.phase == DONE and last.added == 12 and last.files_done == 12
    assert done_at - embedding[0][0] >= len(batches) * DELAY * 0.9  # the embedding took its time under the bar
    assert returned - done_at < 0.5
    assert kb.search("teapot 7 glaze")[0].title == "Teapot 7"


def test_a_long_embedder_call_is_reported_as_a_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(embed_batches, "WAIT_SHOWN", 0.3)
    monkeypatch.setattr(embed_batches, "TICK", 0.1)
    docs = write_many(tmp_path / "docs", 3)
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=slow_builtin(0.0, first_delay=0.9))
    seen: list[tuple[float, IngestProgress]] = []
    kb.add([docs], on_progress=timed(seen))
    waits = [p for _, p in seen if p.waiting]
    assert len(waits) >= 4 and all(p.phase == EMBEDDING and p.chunks_embedded == 0 for p in waits)
    assert [p.waiting for p in waits] == sorted(p.waiting for p in waits) and waits[-1].waiting >= 0.6
    assert "waiting for the embedder (1 s)" in {detail(p).split(" · ")[1] for p in waits}
    assert not seen[-1][1].waiting  # the wait ends with the batch


class _EmbeddingServer(BaseHTTPRequestHandler):
    """OpenAI's ``/v1/embeddings``: the first request is refused with 429 and ``retry-after: 1``."""

    requests = 0

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests += 1
        if type(self).requests == 1:
            payload, status = {"error": {"message": "rate limited", "type": "rate_limit"}}, 429
        else:
            data = [{"object": "embedding", "index": i, "embedding": [1.0, float(i % 3), 0.5]}
                    for i, _ in enumerate(body["input"])]
            payload = {"object": "list", "data": data, "model": body["model"],
                       "usage": {"prompt_tokens": 1, "total_tokens": 1}}
            status = 200
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        if status == 429:
            self.send_header("retry-after", "1")
        self.end_headers()
        self.wfile.write(raw)


def test_a_remote_embedders_retry_shows_as_a_wait(tmp_path, monkeypatch):
    from pydantic_ai.embeddings import Embedder
    from pydantic_ai.embeddings.openai import OpenAIEmbeddingModel
    from pydantic_ai.providers.openai import OpenAIProvider

    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setattr(embed_batches, "WAIT_SHOWN", 0.5)
    monkeypatch.setattr(embed_batches, "TICK", 0.1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        provider = OpenAIProvider(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="test")
        embedder = Embedder(OpenAIEmbeddingModel("tiny-embed", provider=provider))
        kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=embedder)
        seen: list[tuple[float, IngestProgress]] = []
        report = kb.add([write_many(tmp_path / "docs", 2)], on_progress=timed(seen))
    finally:
        server.shutdown()
    assert _EmbeddingServer.requests >= 2 and len(report.added) == 2 and not report.failed
    assert any("waiting for the embedder" in detail(p) for _, p in seen)  # the client's back-off, shown as such


def test_an_embedder_failure_keeps_the_documents_written_before_it(tmp_path, monkeypatch):
    monkeypatch.setattr(embed_batches, "FIRST_BATCH", 6)  # two documents a batch
    monkeypatch.setattr(embed_batches, "MIN_BATCH", 6)
    monkeypatch.setattr(embed_batches, "EMBED_BATCH", 6)
    monkeypatch.setattr(embed_batches, "WRITE_SECONDS", 0.0)
    docs = write_many(tmp_path / "docs", 6)
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=slow_builtin(0.0, fail_on=2))
    report = kb.add([docs])
    assert len(report.added) == 2 and len(report.failed) == 4
    assert {f.reason for f in report.failed} == {"embedding failed: the embedding server went away"}
    assert {d.title for d in kb.documents()} == {"Teapot 0", "Teapot 1"}
    again = KnowledgeBase.open(tmp_path / "kb.lancedb").add([docs])  # the next add picks up the rest
    assert len(again.added) == 4 and len(again.skipped) == 2


def test_embedding_a_base_reports_its_phases(tmp_path, monkeypatch):
    monkeypatch.setattr(embed_batches, "FIRST_BATCH", 8)
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder="none")
    kb.add([write_many(tmp_path / "docs", 6)])
    seen: list[tuple[float, IngestProgress]] = []
    assert kb.add_vectors(slow_builtin(0.05), on_progress=timed(seen)) == 18
    phases = [phase for phase, _ in groupby(p.phase for _, p in seen)]
    assert phases == [EMBEDDING, INDEXING, DONE]
    assert [p.chunks_embedded for _, p in seen if p.phase == EMBEDDING][-1] == 18
    assert all(p.chunks_done == 18 and p.files_total == 0 for _, p in seen)


def test_an_embedder_failure_while_embedding_a_base_is_one_line(tmp_path):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder="none")
    kb.add([write_many(tmp_path / "docs", 2)])
    with pytest.raises(StoreError, match="^embedding failed: the embedding server went away$"):
        kb.add_vectors(slow_builtin(0.0, fail_on=1))
    assert kb.info()["embedder"] is None


def test_progress_text_for_each_phase():
    base = dict(files_total=79, path=None, elapsed=4.0)
    parsing = IngestProgress(files_done=32, chunks_done=146, **base)
    assert detail(parsing) == "32/79 files · 146 chunks · 8.0 files/s" and bar(parsing) == (32, 79)
    embedding = IngestProgress(
        files_done=79, chunks_done=440, phase=EMBEDDING, chunks_embedded=120, embed_seconds=12.0, **base
    )
    assert detail(embedding) == "120/440 chunks · 10 chunks/s · 0:32 left" and bar(embedding) == (120, 440)
    early = IngestProgress(
        files_done=40, chunks_done=200, phase=EMBEDDING, chunks_embedded=100, embed_seconds=2, **base
    )
    assert expected_chunks(early) == 395 and detail(early).endswith("40/79 files parsed")
    waiting = IngestProgress(files_done=79, chunks_done=440, phase=EMBEDDING, chunks_embedded=120, embed_seconds=12.0,
                             waiting=12.4, **base)
    assert detail(waiting) == "120/440 chunks · waiting for the embedder (12 s)"
    indexing = IngestProgress(files_done=79, chunks_done=440, phase=INDEXING, **base)
    assert detail(indexing) == "440 chunks" and bar(indexing) == (0, None)
    hours = IngestProgress(files_done=79, chunks_done=100000, phase=EMBEDDING, chunks_embedded=100, embed_seconds=10,
                           **base)
    assert detail(hours).endswith("2:46:30 left")


def test_batches_are_sized_toward_two_seconds_a_call():
    from haiku_tui.store.embed_batches import BATCH_SECONDS, MIN_BATCH, next_size

    assert BATCH_SECONDS == 2.0 and MIN_BATCH == 32
    assert next_size(16, 0.01) == 32 and next_size(128, 0.01) == 256 and next_size(256, 0.01) == 256  # fast: grow
    assert next_size(128, 4.0) == 64 and next_size(128, 40.0) == 64  # slow: at most halved
    assert next_size(64, 3.0) == 42 and next_size(40, 10.0) == MIN_BATCH  # never below the floor
