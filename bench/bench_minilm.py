"""The MiniLM embedder (``--embedder minilm``) against wordllama, as the dense half of hybrid search.

    python bench/bench_minilm.py [--embedders wordllama minilm] [--weights 0.25 0.5 0.75 1 1.5]
    python bench/bench_minilm.py --spin      # search p50 beside a loaded ONNX model: ORT defaults vs ours
    python bench/bench_minilm.py --ingest 24 # the pydoc corpus + 24 replicas (~10k chunks): ingest s, RSS

Each embedder runs in its own process (its peak RSS is its own). The process builds one knowledge base per
corpus of ``bench/eval_questions.py`` (ingest seconds, to searchable), then for every ``VECTOR_WEIGHT`` in
``--weights`` (the embedder's ``fusion_weight``, else ``search.VECTOR_WEIGHT``) measures recall@5 and MRR@10 on the tuning splits (dev + dev2 + dev3), on ``held-out``
(test + fresh + fresh2) and on ``fresh4``, and the p50 of ``KnowledgeBase.search`` (query embedding included).
The weight is chosen on the tuning splits alone (best MRR@10); the table shows the held-out sets at it.

``--spin`` builds the pydoc base with wordllama and measures its search p50 before and after an ONNX
Runtime session of the model has run (60 chunks embedded), once with ONNX Runtime's default session
options, once with the product's (``minilm.THREADS`` intra-op threads, no spinning) and once with those
at two threads, each in a fresh process, three rounds alternating.

``--ingest N`` adds the pydoc corpus and N replicas (``bench/corpus.py``) with each embedder, in a process
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_questions import QUESTIONS, TUNING  # noqa: E402
from eval_retrieval import corpus_files  # noqa: E402

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


def spin_worker(options: str) -> dict:
    from haiku_tui.store import minilm
    from haiku_tui.store.kb import KnowledgeBase

    if options.startswith("threads="):  # the product's options with another thread count
        minilm.THREADS = int(options.removeprefix("threads="))
    if options == "default":  # the session ONNX Runtime gives without options
        import onnxruntime
        from tokenizers import Tokenizer

        onnx_path, tokenizer_path = minilm.model_files()
        tokenizer = Tokenizer.from_file(tokenizer_path)
        tokenizer.no_padding()
        tokenizer.no_truncation()
        minilm._loaded = (onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"]), tokenizer)
    queries = [q.question for q in QUESTIONS if q.corpus == "pydoc"][:40]
    with tempfile.TemporaryDirectory() as tmp:
        with KnowledgeBase.open(str(Path(tmp) / "pydoc.lancedb"), embedder="wordllama") as kb:
            kb.add(corpus_files("pydoc", Path(tmp)))
            p50_ms(kb, queries, reps=1)  # warm
            before = p50_ms(kb, queries)
            texts = kb._table("chunks").to_arrow().column("text").to_pylist()[:60]
            t0 = time.perf_counter()
            minilm.embed_texts(texts)
            embed_s = time.perf_counter() - t0
            after = p50_ms(kb, queries)
    return {"options": options, "before_ms": round(before, 2), "after_ms": round(after, 2), "ratio": round(after / before, 2),
            "embed_s": round(embed_s, 1)}


def ingest_worker(embedder: str, copies: int) -> dict:
    from corpus import write_corpus

    from haiku_tui.store.kb import KnowledgeBase

    queries = [q.question for q in QUESTIONS if q.corpus == "pydoc"][:40]
    with tempfile.TemporaryDirectory() as tmp:
        files = write_corpus(Path(tmp) / "corpus", copies)
        with KnowledgeBase.open(str(Path(tmp) / "kb.lancedb"), embedder=embedder) as kb:
            t0 = time.perf_counter()
            report = kb.add(files)
            seconds = time.perf_counter() - t0
            return {
                "embedder": embedder, "files": len(files), "chunks": report.chunks, "seconds": round(seconds, 1),
                "chunks_per_s": round(report.chunks / seconds, 1), "search_p50_ms": round(p50_ms(kb, queries), 1),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            }


def run(*args: str) -> dict:
    result = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedders", nargs="+", default=["wordllama", "minilm"])
    parser.add_argument("--weights", nargs="+", type=float, default=[0.25, 0.5, 0.75, 1.0, 1.5])
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--ingest", type=int, metavar="COPIES")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--spin-worker", help=argparse.SUPPRESS)
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
        print(json.dumps(spin_worker(args.spin_worker)))
        return
    if args.spin:
        variants = ("default", "product", "threads=2")
        rows = [run("--spin-worker", options) for _ in range(3) for options in variants]
        for options in variants:
            mine = [r for r in rows if r["options"] == options]
            print(f"{options:8s} search p50 before {statistics.median(r['before_ms'] for r in mine):6.2f} ms, after the "
                  f"model ran {statistics.median(r['after_ms'] for r in mine):6.2f} ms (median ratio "
                  f"{statistics.median(r['ratio'] for r in mine):.2f}; runs: {[r['ratio'] for r in mine]}); "
                  f"60 chunks embedded in {statistics.median(r['embed_s'] for r in mine):.1f} s")
        return
    results = [run("--worker", e, "--weights", *map(str, args.weights)) for e in args.embedders]
    for r in results:
        tuning = {w: m["tuning"]["mrr@10"] for w, m in r["by_weight"].items()}
        print(f"{r['embedder']}: tuning MRR@10 by VECTOR_WEIGHT " + "  ".join(f"{w}:{v:.3f}" for w, v in tuning.items()))
        r["chosen"] = max(tuning, key=lambda w: (round(tuning[w], 4), -abs(float(w) - 0.5)))
    print()
    print("| dense half | weight (tuning) | held-out R@5 | held-out MRR@10 | fresh4 R@5 | fresh4 MRR@10 | ingest s (chunks) | pydoc ingest s | query p50 ms | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        for weight in dict.fromkeys(w for w in ("0.5", r["chosen"]) if w in r["by_weight"]):
            m = r["by_weight"][weight]
            print(f"| {r['embedder']} | {weight}{' (chosen)' if weight == r['chosen'] else ''} | {m['held-out']['recall@5']:.3f} | "
                  f"{m['held-out']['mrr@10']:.3f} | {m['fresh4']['recall@5']:.3f} | {m['fresh4']['mrr@10']:.3f} | "
                  f"{sum(r['ingest_s'].values()):.1f} ({r['chunks']}) | {r['ingest_s'].get('pydoc', 0):.1f} | "
                  f"{r['query_p50_ms']} | {r['peak_rss_mb']} |")
    n = results[0]["by_weight"][results[0]["chosen"]]
    print(f"\nquestions: tuning {n['tuning']['n']}, held-out {n['held-out']['n']}, fresh4 {n['fresh4']['n']}")


if __name__ == "__main__":
    main()
