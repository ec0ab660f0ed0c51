"""Ingest throughput on the pydoc corpus (full text only, or with ``--embedder``).

    python -m bench.bench_ingest [--copies N] [--runs R] [--embedder none|auto|minilm]

Prints one table row per run: files, chunks, seconds, files/s, chunks/s, and the seconds of each phase the
progress reported (parsing, embedding, indexing); then the time of a re-add where every file is unchanged
(hash check only).
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
    parser.add_argument("--embedder", default="none", help="none (full text, the default), auto (wordllama), minilm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        files = write_corpus(corpus, args.copies)
        mb = sum(f.stat().st_size for f in files) / 1e6
        print(f"corpus: {len(files)} files, {mb:.1f} MB")
        print(f"{'run':>4s} {'files':>7s} {'chunks':>8s} {'seconds':>8s} {'files/s':>9s} {'chunks/s':>9s}  phases (s)")
        times = []
        for run in range(1, args.runs + 1):
            kb = KnowledgeBase.open(Path(tmp) / f"kb{run}.lancedb", embedder=args.embedder)
            t0 = time.perf_counter()
            phases = {"parsing": t0}  # when each phase was first reported
            report = kb.add([corpus], on_progress=lambda p, seen=phases: seen.setdefault(_phase(p), _now()))
            dt = time.perf_counter() - t0
            times.append(dt)
            assert not report.failed, report.failed[:3]
            n = len(report.added)
            print(
                f"{run:4d} {n:7d} {report.chunks:8d} {dt:8.2f} {n / dt:9.0f} {report.chunks / dt:9.0f}  "
                + _phase_seconds(phases, t0 + dt)
            )
        t0 = time.perf_counter()
        again = kb.add([corpus])
        redo = time.perf_counter() - t0
        print(
            f"median ingest {statistics.median(times):.2f} s; re-add of {len(again.skipped)} unchanged files "
            f"{redo:.2f} s"
        )
        print(f"size on disk {kb.info()['size_bytes'] / 1e6:.1f} MB")


def _now() -> float:
    return time.perf_counter()


def _phase(progress: object) -> str:
    return getattr(progress, "phase", "parsing")  # a tree from before the phases were reported


def _phase_seconds(started: dict[str, float], end: float) -> str:
    """``"parsing 0.31, embedding 0.12, indexing 0.05"``: each phase from its first report to the next phase's."""
    names = [name for name in started if name != "done"]
    ends = [started[name] for name in names[1:]] + [started.get("done", end)]
    return ", ".join(f"{name} {stop - started[name]:.2f}" for name, stop in zip(names, ends))


if __name__ == "__main__":
    main()
