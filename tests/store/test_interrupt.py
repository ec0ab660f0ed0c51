"""Interrupted ingest: half-written documents are invisible and repaired by the next add."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from haiku_tui.store import KnowledgeBase
from haiku_tui.store.kb import CHUNKS
from haiku_tui.store.tables import INDEX_VERSION, INDEX_VERSION_COLUMN


def _orphan_rows(kb: KnowledgeBase, doc_id: str, content_hash: str, text: str) -> pa.Table:
    table = kb.storage.table(CHUNKS)
    row = {
        "id": "0" * 16,
        "document_id": doc_id,
        "content_hash": content_hash,
        "position": 0,
        "text": text,
        "headings": [],
        "pages": [],
        "fts": text,
        "fts_headings": "",
        INDEX_VERSION_COLUMN: INDEX_VERSION,
    }
    return pa.Table.from_pylist([row], schema=table.schema)


def test_chunks_without_a_documents_row_are_invisible_and_repaired(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    kb.add([docs_dir / "tea-brewing.md"])
    # what a crash between "chunks written" and "documents row written" leaves behind
    kb.storage.table(CHUNKS).add(_orphan_rows(kb, "a" * 16, "b" * 64, "Quokka orphan text about tea."))
    tea = kb.documents()[0]
    kb.storage.table(CHUNKS).add(_orphan_rows(kb, tea.id, "c" * 64, "Stale quokka version of tea."))
    assert kb.search("quokka") == []
    assert all("quokka" not in h.text.lower() for h in kb.search("tea", limit=20))
    assert kb.get_chunks(["0" * 16]) == {}
    assert kb.info()["orphan_chunks"] == 2
    report = kb.add([docs_dir])
    assert len(report.added) == 3 and kb.info()["orphan_chunks"] == 0


CHILD = textwrap.dedent(
    """
    import sys, time
    import haiku_tui.store.ingest as ingest
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.store.storage import Storage

    ingest.FLUSH_CHUNKS = 2  # one write batch per file or two
    kb = KnowledgeBase.open(sys.argv[1])
    real = Storage.docs_table
    calls = {"n": 0}

    class Docs:
        def __init__(self, table):
            self.table = table
        def merge_insert(self, on):
            calls["n"] += 1
            if calls["n"] == 2:  # second batch: its chunks are written, its documents row is not
                print("KILLME", flush=True)
                time.sleep(60)
            return self.table.merge_insert(on)

    Storage.docs_table = lambda storage: Docs(real(storage))
    kb.add([sys.argv[2]])
    print("FINISHED", flush=True)
    """
)


@pytest.mark.slow
def test_sigkill_mid_ingest_leaves_a_readable_database(tmp_path, docs_dir):
    db = tmp_path / "kb.lancedb"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(docs_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        line = proc.stdout.readline().strip()
        assert line == "KILLME"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    kb = KnowledgeBase.open(db)
    docs = kb.documents()
    assert 1 <= len(docs) < 4
    visible = {d.title for d in docs}
    info = kb.info()
    assert info["orphan_chunks"] > 0
    for title in ("Solar panels", "Sourdough bread", "Bicycle maintenance", "Tea brewing"):
        for hit in kb.search(title, limit=20):
            assert hit.title in visible  # nothing half-ingested shows up
    report = kb.add([docs_dir])
    assert len(report.added) == 4 - len(docs) and len(report.skipped) == len(docs)
    assert kb.info()["orphan_chunks"] == 0 and kb.info()["documents"] == 4
    assert kb.search("sourdough starter")[0].title == "Sourdough bread"
