"""Ingest and search on object storage (a local S3 server, moto) against the local disk.

    python -m bench.bench_s3 [--copies 0] [--runs 3] [--reps 3]

Starts moto on 127.0.0.1 (the tests' helper), then for each location ingests the pydoc corpus
``--runs`` times into a fresh knowledge base and times every question of ``bench/sets/pydoc_questions.py``
(warm, ``--reps`` times) plus a cold open-and-first-search. Prints medians; compare the ratios.
moto is an in-process Python server on loopback, so this measures the object-store access
pattern (requests per operation), not a real network's latency.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from bench.sets.pydoc_questions import DEV, HELD_OUT
from haiku_tui.store.kb import KnowledgeBase
from tests.store.s3 import moto_server


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def measure(label: str, uri_for_run, corpus: Path, runs: int, reps: int) -> dict[str, float]:
    ingest = []
    for run in range(1, runs + 1):
        kb = KnowledgeBase.open(uri_for_run(run))
        t0 = time.perf_counter()
        report = kb.add([corpus])
        ingest.append(time.perf_counter() - t0)
        assert not report.failed, report.failed[:3]
    queries = [q for q, _ in DEV + HELD_OUT]
    t0 = time.perf_counter()
    cold = KnowledgeBase.open(uri_for_run(runs), create=False)
    cold.search(queries[0])
    cold_ms = (time.perf_counter() - t0) * 1000
    warm = []
    for _ in range(reps):
        for q in queries:
            t0 = time.perf_counter()
            cold.search(q)
            warm.append((time.perf_counter() - t0) * 1000)
    row = {
        "ingest_s": statistics.median(ingest),
        "chunks": report.chunks,
        "cold_ms": cold_ms,
        "p50_ms": statistics.median(warm),
        "p95_ms": pct(warm, 0.95),
    }
    print(
        f"{label:6s} ingest {row['ingest_s']:6.2f} s ({row['chunks']} chunks)  cold open+search {cold_ms:7.1f} ms  "
        f"search p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  ({len(warm)} searches)"
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=0, help="replicas of the corpus (0 = the 79 files)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, moto_server() as s3:
        corpus = Path(tmp) / "corpus"
        files = write_corpus(corpus, args.copies)
        print(f"corpus: {len(files)} files, {sum(f.stat().st_size for f in files) / 1e6:.1f} MB")
        local = measure("local", lambda run: str(Path(tmp) / f"kb{run}.lancedb"), corpus, args.runs, args.reps)
        os.environ.update(s3.env())
        s3.create_bucket("bench")
        remote = measure("s3", lambda run: f"s3://bench/kb{run}", corpus, args.runs, args.reps)
        print(
            "s3/local: ingest {:.1f}x, cold {:.1f}x, search p50 {:.1f}x, p95 {:.1f}x".format(
                remote["ingest_s"] / local["ingest_s"], remote["cold_ms"] / local["cold_ms"],
                remote["p50_ms"] / local["p50_ms"], remote["p95_ms"] / local["p95_ms"],
            )
        )


if __name__ == "__main__":
    main()
