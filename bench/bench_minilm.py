"""The MiniLM embedder (``--embedder minilm``) against wordllama, as the dense half of hybrid search.

    python -m bench.bench_minilm [--embedders wordllama minilm] [--weights 0.25 0.5 0.75 1 1.5]
    python -m bench.bench_minilm --spin      # search p50 beside a loaded ONNX model: ORT defaults vs ours
    python -m bench.bench_minilm --ingest 24 # the pydoc corpus + 24 replicas (~10k chunks): ingest s, RSS

Each embedder runs in its own process (its peak RSS is its own). The process builds one knowledge base per
corpus of ``bench/sets/eval_questions.py`` (ingest seconds, to searchable), then for every ``VECTOR_WEIGHT`` in
``--weights`` (the embedder's ``fusion_weight``, else ``search.VECTOR_WEIGHT``) measures recall@5 and MRR@10 on
the tuning splits (dev + dev2 + dev3), on ``held-out``
(test + fresh + fresh2) and on ``fresh4``, and the p50 of ``KnowledgeBase.search`` (query embedding included).
The weight is chosen on the tuning splits alone (best MRR@10, ties to the one nearest 0.5); the table shows
the held-out sets at every weight measured, the chosen one marked.

``--spin`` builds the pydoc base with wordllama and times its searches, each right after the query was
embedded by the model (what a search of a minilm base does first) with ONNX Runtime's default session
options, with the product's (``minilm.THREADS`` intra-op threads, no spinning) and with those at one
thread, or with no model run before it: all four in one process, alternating per query, three processes.

``--ingest N`` adds the pydoc corpus and N replicas (``bench/corpora/pydoc.py``) with each embedder, in a process
of its own: seconds until the command returns (the base is searchable), chunks/s, the search p50 after,
peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.eval_retrieval import corpus_files
from bench.sets.eval_questions import QUESTIONS, TUNING

SPLITS = {"tuning": set(TUNING), "held-out": {"test", "fresh", "fresh2"}, "fresh4": {"fresh4"}}


def p50_ms(kb, queries: list[str], reps: int = 3) -> float:
    times = []
    for _ in range(reps):
        for q in queries:
            t0 = time.perf_counter()
            kb.search(q, limit=10)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def worker(embedder: str, weights: list[float]) -> dict:
    from haiku_tui.store import search
    from haiku_tui.store.kb import KnowledgeBase

    questions = [q for q in QUESTIONS if any(q.split in s for s in SPLITS.values())]
    out: dict = {"embedder": embedder, "ingest_s": {}, "chunks": 0, "by_weight": {}}
    ranks: dict[float, list[tuple[str, int | None]]] = {w: [] for w in weights}
    query_ms = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            files = corpus_files(corpus, Path(tmp))
            with KnowledgeBase.open(str(Path(tmp) / f"{corpus}.lancedb"), embedder=embedder) as kb:
                t0 = time.perf_counter()
                kb.add(files)
                out["ingest_s"][corpus] = round(time.perf_counter() - t0, 2)
                out["chunks"] += kb.info()["chunks"]
                mine = [q for q in questions if q.corpus == corpus]
                model = type(kb.embedder.model)
                shipped = (search.VECTOR_WEIGHT, getattr(model, "fusion_weight", None))
                for weight in weights:  # the embedder's own weight (minilm), else the global one
                    search.VECTOR_WEIGHT = weight
                    if shipped[1] is not None:
                        model.fusion_weight = weight
                    for q in mine:
                        stems = [Path(h.path).stem for h in kb.search(q.question, limit=10)]
                        ranks[weight].append((q.split, next((i for i, s in enumerate(stems, 1) if s in q.docs), None)))
                search.VECTOR_WEIGHT = shipped[0]
                if shipped[1] is not None:
                    model.fusion_weight = shipped[1]
                query_ms.append((len(mine), p50_ms(kb, [q.question for q in mine], reps=2)))
    for weight, rows in ranks.items():
        out["by_weight"][weight] = {}
        for name, splits in SPLITS.items():
            sel = [r for s, r in rows if s in splits]
            out["by_weight"][weight][name] = {
                "n": len(sel),
                "recall@5": sum(1 for r in sel if r and r <= 5) / len(sel),
                "mrr@10": sum(1 / r for r in sel if r) / len(sel),
            }
    out["query_p50_ms"] = round(sum(n * ms for n, ms in query_ms) / sum(n for n, _ in query_ms), 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def spin_worker() -> dict:
    import onnxruntime

    from haiku_tui.store import minilm
    from haiku_tui.store.kb import KnowledgeBase

    product, tokenizer = minilm._model()
    onnx_path, _ = minilm.model_files()
    minilm.THREADS = 1
    minilm._loaded = None
    sessions = {
        "no model": None,
        "ORT defaults": onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"]),
        "product": product,
        "product, 1 thread": minilm._model()[0],
    }
    queries = [q.question for q in QUESTIONS if q.corpus == "pydoc"][:40]
    search_ms: dict[str, list[float]] = {name: [] for name in sessions}
    embed_ms: dict[str, list[float]] = {name: [] for name in sessions}
    with (
        tempfile.TemporaryDirectory() as tmp,
        KnowledgeBase.open(str(Path(tmp) / "pydoc.lancedb"), embedder="wordllama") as kb,
    ):
        kb.add(corpus_files("pydoc", Path(tmp)))
        p50_ms(kb, queries, reps=1)  # warm
        names = list(sessions)
        for rep in range(3):
            for i, q in enumerate(queries):
                for name in names[(i + rep) % len(names) :] + names[: (i + rep) % len(names)]:
                    if sessions[name] is not None:  # what a search of a minilm base does first
                        minilm._loaded = (sessions[name], tokenizer)
                        t0 = time.perf_counter()
                        minilm.embed_texts([q])
                        embed_ms[name].append((time.perf_counter() - t0) * 1000)
                    t0 = time.perf_counter()
                    kb.search(q, limit=10)
                    search_ms[name].append((time.perf_counter() - t0) * 1000)
    return {
        name: [round(statistics.median(search_ms[name]), 2), round(statistics.median(embed_ms[name] or [0]), 2)]
        for name in sessions
    }


def ingest_worker(embedder: str, copies: int) -> dict:
    from bench.corpora.pydoc import write_corpus
    from haiku_tui.store.kb import KnowledgeBase

    queries = [q.question for q in QUESTIONS if q.corpus == "pydoc"][:40]
    with (
        tempfile.TemporaryDirectory() as tmp,
        KnowledgeBase.open(str(Path(tmp) / "kb.lancedb"), embedder=embedder) as kb,
    ):
        files = write_corpus(Path(tmp) / "corpus", copies)
        t0 = time.perf_counter()
        report = kb.add(files)
        seconds = time.perf_counter() - t0
        return {
            "embedder": embedder,
            "files": len(files),
            "chunks": report.chunks,
            "seconds": round(seconds, 1),
            "chunks_per_s": round(report.chunks / seconds, 1),
            "search_p50_ms": round(p50_ms(kb, queries), 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        }


def run(*args: str) -> dict:
    command = [sys.executable, "-m", "bench.bench_minilm", *args]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedders", nargs="+", default=["wordllama", "minilm"])
    parser.add_argument("--weights", nargs="+", type=float, default=[0.25, 0.5, 0.75, 1.0, 1.5])
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--ingest", type=int, metavar="COPIES")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--spin-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ingest-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ingest_worker:
        print(json.dumps(ingest_worker(args.ingest_worker, args.ingest)))
        return
    if args.ingest is not None:
        for embedder in args.embedders:
            print(json.dumps(run("--ingest-worker", embedder, "--ingest", str(args.ingest))))
        return
    if args.worker:
        print(json.dumps(worker(args.worker, args.weights)))
        return
    if args.spin_worker:
        print(json.dumps(spin_worker()))
        return
    if args.spin:
        rows = [run("--spin-worker") for _ in range(3)]
        for name in rows[0]:
            print(
                f"{name:20s} search p50 {statistics.median(r[name][0] for r in rows):6.2f} ms "
                f"(runs {[r[name][0] for r in rows]}), "
                f"query embedding before it {statistics.median(r[name][1] for r in rows):6.2f} ms"
            )
        return
    results = [run("--worker", e, "--weights", *map(str, args.weights)) for e in args.embedders]
    for r in results:
        tuning = {w: m["tuning"]["mrr@10"] for w, m in r["by_weight"].items()}
        print(
            f"{r['embedder']}: tuning MRR@10 by VECTOR_WEIGHT " + "  ".join(f"{w}:{v:.3f}" for w, v in tuning.items())
        )
        r["chosen"] = max(tuning, key=lambda w: (round(tuning[w], 4), -abs(float(w) - 0.5)))
    print()
    print(
        "| dense half | weight | held-out R@5 | held-out MRR@10 | fresh4 R@5 | fresh4 MRR@10 | ingest s (chunks) "
        "| pydoc ingest s | query p50 ms | peak RSS MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        for weight, m in r["by_weight"].items():
            print(
                f"| {r['embedder']} | {weight}{' (chosen)' if weight == r['chosen'] else ''} | "
                f"{m['held-out']['recall@5']:.3f} | "
                f"{m['held-out']['mrr@10']:.3f} | {m['fresh4']['recall@5']:.3f} | {m['fresh4']['mrr@10']:.3f} | "
                f"{sum(r['ingest_s'].values()):.1f} ({r['chunks']}) | {r['ingest_s'].get('pydoc', 0):.1f} | "
                f"{r['query_p50_ms']} | {r['peak_rss_mb']} |"
            )
    n = results[0]["by_weight"][results[0]["chosen"]]
    print(f"\nquestions: tuning {n['tuning']['n']}, held-out {n['held-out']['n']}, fresh4 {n['fresh4']['n']}")


if __name__ == "__main__":
    main()
