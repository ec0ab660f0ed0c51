"""``haiku-tui add`` with a slow embedder, as a whole process: the bar shows the embedding (count, rate, time
left), and Ctrl+C during it stops cleanly, saying what the knowledge base kept; the next add finishes the rest."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from itertools import groupby
from pathlib import Path

import pytest

from haiku_tui.cli.progress import interrupted_line
from haiku_tui.store import KnowledgeBase
from haiku_tui.store.records import DONE, EMBEDDING, INDEXING, PARSING, IngestProgress
from tests.slow_embedder import write_many

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FILES = 12  # of three chunks each, embedded three chunks a batch

CHILD = textwrap.dedent(
    """
    import asyncio
    import signal
    import sys
    HOLD = int(sys.argv[2])
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, whatever the test process ignores
    if HOLD < 10**6:  # still running 30 s after it started: every thread's stack goes to stderr, for the failure
        import faulthandler
        faulthandler.dump_traceback_later(30)
    from pydantic_ai.embeddings import Embedder
    from haiku_tui.store import embed_batches, embedding
    from haiku_tui.store.offline_embedder import WordLlamaEmbeddingModel
    from tests.slow_embedder import SlowEmbeddingModel

    class Announced(SlowEmbeddingModel):
        async def embed(self, inputs, **kwargs):
            if len(self.batches) >= HOLD:  # held until the test's Ctrl+C lands, however busy the box
                await asyncio.sleep(120)
            result = await super().embed(inputs, **kwargs)
            print("BATCH", len(self.batches), file=sys.__stdout__, flush=True)  # past the bar's redirection
            return result

    embed_batches.FIRST_BATCH = embed_batches.MIN_BATCH = embed_batches.EMBED_BATCH = 3
    embed_batches.WRITE_SECONDS = 0.0
    embedding.builtin_embedder = lambda: Embedder(Announced(WordLlamaEmbeddingModel(), float(sys.argv[1])))
    from haiku_tui.cli import main
    sys.exit(main(sys.argv[3:]))
    """
)


def plain(text: str) -> str:
    """``text`` without the terminal's control sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def start(delay: float, *args: str, hold: int = 0) -> subprocess.Popen:
    """The CLI with a slow built-in embedder (``delay`` seconds a batch; from batch ``hold`` on, it waits 120 s)."""
    env = {**os.environ, "TTY_COMPATIBLE": "1", "COLUMNS": "150"}  # the bar draws as on a terminal
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(delay), str(hold or 10**6), *args], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_the_bar_shows_the_embedding_and_leaves_with_the_summary(tmp_path):
    docs = write_many(tmp_path / "docs", FILES)
    proc = start(0.3, "add", str(docs), "--db", str(tmp_path / "kb.lancedb"))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.splitlines()[-2].startswith(f"added {FILES}, replaced 0")
    shown = plain(err)
    frames = re.findall(r"embedding +\S+ (\d+)/36 chunks · ([\d.]+) chunks/s · (\d+:\d\d) left", shown)
    assert len({done for done, _, _ in frames}) >= 3  # the count moved while the embedder worked
    assert all(float(rate) > 0 for _, rate, _ in frames)
    phases = [phase for phase, _ in groupby(re.findall(r"^(\w+) +\S+ ", shown, re.MULTILINE))]
    order = ["starting", "parsing", "embedding", "indexing", "done"]
    assert phases == sorted(phases, key=order.index) and EMBEDDING in phases and phases[-1] == DONE


def test_ctrl_c_while_embedding_keeps_what_was_written_and_the_next_add_finishes(tmp_path):
    docs = write_many(tmp_path / "docs", FILES)
    db = tmp_path / "kb.lancedb"
    proc = start(0.2, "add", str(docs), "--db", str(db), hold=3)  # the fourth batch waits for the signal
    try:
        for line in proc.stdout:
            if line.strip() == "BATCH 3":
                proc.send_signal(signal.SIGINT)
                break
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # the stacks the child dumped say where it was stuck
        proc.kill()
        raise AssertionError(f"Ctrl+C did not end the add: {proc.communicate()[1][-6000:]}") from None
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    last = plain(err).strip().splitlines()[-1]
    found = re.fullmatch(
        rf"haiku-tui: interrupted: (\d+) of {FILES} files are in the knowledge base; "
        "run the same add again to finish the rest",
        last,
    )
    assert found, last
    kept = int(found.group(1))
    assert 1 <= kept < FILES
    kb = KnowledgeBase.open(db)
    titles = {d.title for d in kb.documents()}
    assert len(titles) == kept  # what it said is what is there, and it is searchable
    assert kb.search("teapot 0 glaze kiln")[0].title == "Teapot 0"
    again = kb.add([docs])
    assert len(again.added) == FILES - kept and len(again.skipped) == kept
    assert kb.info()["documents"] == FILES and kb.info()["orphan_chunks"] == 0


def test_the_interrupted_line_for_each_phase():
    def at(phase: str, **counts) -> IngestProgress:
        return IngestProgress(**{"files_total": 79, "files_done": 79, "chunks_done": 440, "path": None,
                                 "elapsed": 9, "phase": phase, **counts})

    assert interrupted_line(None, "add") == "interrupted before any file was ingested; run the same add again"
    assert interrupted_line(at(PARSING, files_done=10, added=10), "sync") == (
        "interrupted: 10 of 79 files are in the knowledge base; run the same sync again to finish the rest"
    )
    assert interrupted_line(at(EMBEDDING, added=25, skipped=6), "add").startswith("interrupted: 31 of 79 files")
    assert interrupted_line(at(INDEXING, added=70, skipped=6, failed=3), "reindex") == (
        "interrupted while indexing: all 76 files are in the knowledge base and searchable"
    )
    embed = IngestProgress(files_total=0, files_done=0, chunks_done=440, path=None, elapsed=9, phase=EMBEDDING,
                           chunks_embedded=120)
    assert interrupted_line(embed, "embed") == (
        "interrupted: the knowledge base is as it was (120 of 440 chunks were embedded); run the same embed again "
        "to embed it"
    )
    assert interrupted_line(at(INDEXING), "embed") == (
        "interrupted while writing the vectors: its search may be full text only until you run the same embed again"
    )
    assert interrupted_line(at(DONE, added=79), "add").startswith("interrupted while indexing")
