"""Ingest throughput on the pydoc corpus (no embedder).

    python -m bench.bench_ingest [--copies N] [--runs R]

Prints one table row per run: files, chunks, seconds, files/s, chunks/s; then the time of a
re-add where every file is unchanged (hash check only).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import write_corpus

from haiku_tui.store.kb import KnowledgeBase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=0, help="replicas of the corpus (0 = the 79 files)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        files = write_corpus(corpus, args.copies)
        mb = sum(f.stat().st_size for f in files) / 1e6
        print(f"corpus: {len(files)} files, {mb:.1f} MB")
        print(f"{'run':>4s} {'files':>7s} {'chunks':>8s} {'seconds':>8s} {'files/s':>9s} {'chunks/s':>9s}")
        times = []
        for run in range(1, args.runs + 1):
            kb = KnowledgeBase.open(Path(tmp) / f"kb{run}.lancedb")
            t0 = time.perf_counter()
            report = kb.add([corpus])
            dt = time.perf_counter() - t0
            times.append(dt)
            assert not report.failed, report.failed[:3]
            n = len(report.added)
            print(f"{run:4d} {n:7d} {report.chunks:8d} {dt:8.2f} {n / dt:9.0f} {report.chunks / dt:9.0f}")
        t0 = time.perf_counter()
        again = kb.add([corpus])
        redo = time.perf_counter() - t0
        print(
            f"median ingest {statistics.median(times):.2f} s; re-add of {len(again.skipped)} unchanged files "
            f"{redo:.2f} s"
        )
        print(f"size on disk {kb.info()['size_bytes'] / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
