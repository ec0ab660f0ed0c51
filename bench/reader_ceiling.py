"""What a transformer reader would buy: all-MiniLM-L6-v2 (numpy, ``bench/minilm_numpy.py``) on the tuning splits.

    python bench/reader_ceiling.py MODEL_DIR [--split tuning|dev3]

Two measurements, neither used by the product:

- **Sentence choice.** For each question, every sentence of the 10 results the extractive model reads is ranked by
  the product's scorer (``agent/quoting.py`` with every floor off), by MiniLM's cosine to the question ("heading:
  sentence", as the scorer embeds it), and by their sum; prints where the sentence holding the answering phrase
  lands (1st, 2nd–4th, … none = no single sentence of the results holds it). An answer quotes ≤ 4 sentences.
- **Ranking.** The search's top 10 re-ranked by MiniLM (each chunk's best sentence, with its heading) fused with the
  search's own order by reciprocal ranks (``1/(10+r) + W/(10+r_minilm)``): recall@5 and MRR@10, and the re-ranking's
  cost per query.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_questions import QUESTIONS, tuning  # noqa: E402
from eval_retrieval import norm  # noqa: E402
from minilm_numpy import MiniLM  # noqa: E402
from tune_extractive import corpus_kbs  # noqa: E402

import haiku_tui.agent.extractive as X  # noqa: E402
import haiku_tui.agent.quoting as Q  # noqa: E402
from haiku_tui.capabilities.evidence import RESULT_SEPARATOR, format_result  # noqa: E402
from haiku_tui.store.sentences import sentences  # noqa: E402

BUCKETS = ["1", "2-4", "5-10", ">10", "none"]
WEIGHTS = [1.0, 3.0]


def bucket(rank: int | None) -> str:
    return "none" if rank is None else "1" if rank == 1 else "2-4" if rank <= 4 else "5-10" if rank <= 10 else ">10"


def sentence_ranks(model: MiniLM, question, results) -> dict[str, int | None]:
    """Where the answering phrase's sentence lands under each ordering."""
    for name in ("EXTRA_SAME", "EXTRA_NEW_TERMS"):
        setattr(Q, name, 0.0)
    for name in ("MIN_QUOTED", "MIN_WORDS_MEANING", "MIN_SEMANTIC", "MIN_LEXICAL"):
        setattr(Q, name, -9.0)
    ours = {norm(s.sentence): s.score for s in Q.select(question.question, results, limit=10_000)}
    found, seen = [], set()
    for result in results:
        heading = result.source.split("›")[-1].strip()
        for sentence in sentences(result.text):
            if norm(sentence) not in seen:
                seen.add(norm(sentence))
                found.append((heading, sentence))
    if not found:
        return dict.fromkeys(("ours", "minilm", "ours+minilm"), None)
    vectors = model.encode([question.question, *(f"{h}: {s}" for h, s in found)])
    minilm = vectors[1:] @ vectors[0]
    current = np.array([ours.get(norm(s), -1.0) for _, s in found])
    out = {}
    for name, score in (("ours", current), ("minilm", minilm), ("ours+minilm", current + minilm)):
        order = np.argsort(-score, kind="stable")
        out[name] = next((i for i, j in enumerate(order, 1) if norm(question.phrase) in norm(found[j][1])), None)
    return out


def reranked(model: MiniLM, query: str, hits) -> tuple[dict[float, list], float]:
    """The hits re-ordered for each weight of MiniLM's order, and the seconds it took."""
    start = time.perf_counter()
    texts, owner = [], []
    for i, hit in enumerate(hits):
        for sentence in sentences(hit.text)[:12]:
            texts.append(f"{hit.label()}: {sentence}")
            owner.append(i)
    best = np.full(len(hits), -1.0)
    if texts:
        vectors = model.encode([query, *texts])
        for i, cosine in zip(owner, vectors[1:] @ vectors[0]):
            best[i] = max(best[i], cosine)
    minilm_rank = {i: r for r, i in enumerate(np.argsort(-best, kind="stable"), 1)}
    spent = time.perf_counter() - start
    return {w: [hits[i] for i in sorted(range(len(hits)), key=lambda i: -(1 / (11 + i) + w / (10 + minilm_rank[i])))] for w in WEIGHTS}, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_dir")
    parser.add_argument("--split", choices=["tuning", "dev3"], default="tuning")
    args = parser.parse_args()
    questions = tuning() if args.split == "tuning" else [q for q in QUESTIONS if q.split == "dev3"]
    model = MiniLM(args.model_dir)
    ranks: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    places: dict[str, list[int | None]] = collections.defaultdict(list)
    costs = []
    for corpus, kb in corpus_kbs(questions):
        for q in (q for q in questions if q.corpus == corpus):
            hits = kb.search(q.question, limit=X.SEARCH_LIMIT)
            results = X.parse_results(RESULT_SEPARATOR.join(format_result(h, len(hits)) for h in hits))
            for name, rank in sentence_ranks(model, q, results).items():
                ranks[name][bucket(rank)] += 1
            orders, spent = reranked(model, q.question, hits)
            costs.append(spent)
            for name, order in {"search": hits, **{f"search+minilm W={w:g}": o for w, o in orders.items()}}.items():
                stems = [Path(h.path).stem for h in order]
                places[name].append(next((i for i, s in enumerate(stems, 1) if s in q.docs), None))
    n = len(questions)
    print(f"{args.split}: {n} questions — where the answering sentence lands among the results' sentences")
    for name, counter in ranks.items():
        top4 = counter["1"] + counter["2-4"]
        print(f"  {name:12s} " + "  ".join(f"{b}: {counter[b]:3d}" for b in BUCKETS) + f"   top 4: {top4 / n:.3f}")
    print("ranking (recall@5 / MRR@10)")
    for name, found in places.items():
        print(f"  {name:22s} {sum(1 for r in found if r and r <= 5) / n:.3f} / {sum(1 / r for r in found if r) / n:.3f}")
    costs.sort()
    print(f"  re-ranking 10 results: p50 {1000 * costs[len(costs) // 2]:.0f} ms, p90 {1000 * costs[int(len(costs) * 0.9)]:.0f} ms")


if __name__ == "__main__":
    main()
