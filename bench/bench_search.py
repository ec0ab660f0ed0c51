"""Search latency by corpus size (default: hybrid with the built-in embedder; --embedder none for full text).

    python -m bench.bench_search [--copies 0 19 190] [--reps 5] [--embedder auto] [--cold] [--keep DIR]

For each size: build the knowledge base from the pydoc corpus plus replicas, then run every
question of ``bench/sets/pydoc_questions.py`` ``--reps`` times (warm) and print p50/p95/max in ms, plus
the latency of a filtered search and of a search restricted to one document by filter.
``--cold`` empties the ranking's per-chunk caches (sentence terms, 5-word runs) before every search,
as for a question whose chunks no earlier search has read. ``--keep DIR`` builds each size's knowledge
base under DIR and keeps it; a later run with the same ``--keep`` measures it without building again
(build at any time, measure when the box is quiet).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from bench.sets.pydoc_questions import DEV, HELD_OUT

from haiku_tui.store.kb import KnowledgeBase


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def timed(fn, reps: int, queries: list[str], cold: bool = False) -> list[float]:
    from haiku_tui.store import search

    out = []
    for _ in range(reps):
        for q in queries:
            if cold:
                search.clear_chunk_caches()
            t0 = time.perf_counter()
            fn(q)
            out.append((time.perf_counter() - t0) * 1000)
    return out


def ann_recall(kb, queries: list[str]) -> tuple[float, float, float] | None:
    """Vector top-10 with the IVF index against exact search: recall@10 (a hit is within the exact
    10th distance, so replicas' equal distances count), exact p50 ms, indexed p50 ms. None without an index."""
    from haiku_tui.store.embedding import embed_query
    from haiku_tui.store.search import ANN_NPROBES

    chunks = kb.storage.table("chunks")
    if kb.embedder is None or not any("vector" in i.columns for i in chunks.list_indices()):
        return None
    recalls, exact_ms, ann_ms = [], [], []
    for q in queries:
        vector = embed_query(kb.embedder, q)

        def top(exact: bool, vector=vector) -> list[float]:
            b = chunks.search(vector, query_type="vector").distance_type("cosine").select(["id", "_distance"]).limit(10)
            b = b.bypass_vector_index() if exact else b.nprobes(ANN_NPROBES)
            t0 = time.perf_counter()
            rows = b.to_list()
            (exact_ms if exact else ann_ms).append((time.perf_counter() - t0) * 1000)
            return [r["_distance"] for r in rows]

        exact, ann = top(True), top(False)
        recalls.append(sum(d <= exact[-1] + 1e-6 for d in ann) / len(exact))
    return statistics.mean(recalls), statistics.median(exact_ms), statistics.median(ann_ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, nargs="+", default=[0, 19, 190])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--embedder", default="auto")
    parser.add_argument("--cold", action="store_true", help="empty the per-chunk ranking caches before every search")
    parser.add_argument("--keep", type=Path, help="build under this folder and keep it; measure what is already there")
    args = parser.parse_args()
    queries = [q for q, _ in DEV + HELD_OUT]
    rows = []
    for copies in args.copies:
        with contextlib.ExitStack() as stack:
            tmp = (
                args.keep / f"copies-{copies}"
                if args.keep
                else Path(stack.enter_context(tempfile.TemporaryDirectory()))
            )
            corpus = Path(tmp) / "corpus"
            built = (Path(tmp) / "kb.lancedb").exists()
            if not built:
                write_corpus(corpus, copies)
            kb = KnowledgeBase.open(Path(tmp) / "kb.lancedb", embedder=args.embedder)
            t0 = time.perf_counter()
            report = kb.add([corpus])
            ingest = time.perf_counter() - t0
            if args.keep and not built:
                print(f"built {tmp}: chunks={report.chunks} ingest={ingest:.1f}s", flush=True)
                continue
            for q in queries[:3]:
                kb.search(q)  # warm up
            plain = timed(lambda q, kb=kb: kb.search(q, limit=5), args.reps, queries, args.cold)
            filtered = timed(
                lambda q, kb=kb: kb.search(q, limit=5, filter="path LIKE '%/pydoc/%'"), args.reps, queries, args.cold
            )
            single = timed(
                lambda q, kb=kb: kb.search(q, limit=5, filter="path LIKE '%/pydoc/with.md'"),
                args.reps,
                queries,
                args.cold,
            )
            ann = ann_recall(kb, queries)
            if ann:
                print(
                    f"vector index: recall@10 vs exact {ann[0]:.3f}, exact p50 {ann[1]:.1f} ms, indexed p50 "
                    f"{ann[2]:.1f} ms",
                    flush=True,
                )
            t1 = time.perf_counter()
            kb.add([corpus])
            t2 = time.perf_counter()
            kb.add([corpus / "pydoc" / "with.md"])
            rows.append(
                (
                    kb.storage.table("chunks").count_rows(),
                    len(report.added),
                    ingest,
                    statistics.median(plain),
                    pct(plain, 0.95),
                    statistics.median(filtered),
                    statistics.median(single),
                    t2 - t1,
                )
            )
            print(
                f"chunks={rows[-1][0]} docs={len(report.added)} ingest={ingest:.1f}s "
                f"fts p50={rows[-1][3]:.1f}ms p95={rows[-1][4]:.1f}ms filtered p50={rows[-1][5]:.1f}ms "
                f"one-doc filter p50={rows[-1][6]:.1f}ms re-add(all unchanged)={rows[-1][7]:.1f}s",
                flush=True,
            )
    print()
    print(
        f"{'chunks':>8s} {'docs':>6s} {'ingest s':>9s} {'p50 ms':>7s} {'p95 ms':>7s} {'filt p50':>9s} "
        f"{'1doc p50':>9s} {'re-add s':>9s}"
    )
    for r in rows:
        print(f"{r[0]:8d} {r[1]:6d} {r[2]:9.1f} {r[3]:7.1f} {r[4]:7.1f} {r[5]:9.1f} {r[6]:9.1f} {r[7]:9.1f}")


if __name__ == "__main__":
    main()
