"""A learned combination of the search's candidate features, judged by leave-one-corpus-out cross-validation
on the tuning questions only (dev, dev2, dev3). Test and fresh questions are never read here.

    python -m bench.tools.learn_ranking [--collect] [--cache PATH] [--loss softmax|pairs|top-pairs|mrr]
        [--decay D] [--l2 ...] [--drop J ...]

``--collect`` (or a missing cache) builds each tuning corpus (hybrid, the built-in embedder, as the
product does) and pickles, per question, the features of every candidate chunk of the BM25 and vector
pools (``FEATURES``: ranks and scores of each ranking, best-sentence and heading share of the query's
terms, document size, position, chunks of the same document among the candidates, the search's own fused
score) and the rank the search gives the expected document. A linear scorer is then fitted on four
corpora and scored on the fifth (MRR@10 of the first chunk of an expected document, after the per-document
decay ``--decay``), for each corpus, against the search's ranking on the same questions:
``softmax`` maximises the probability mass on the expected document's chunks, ``pairs`` is a pairwise
logistic ranker, ``top-pairs`` pairs only the expected document's best chunk with the other chunks of the
search's top ten,
``mrr`` is a coordinate search on MRR itself from the search's own score. Finally the weights
fitted on all tuning questions are printed. numpy only.
"""

from __future__ import annotations

import argparse
import collections
import math
import pickle
import tempfile
from pathlib import Path

import numpy as np

from bench.sets.eval_questions import tuning
from bench.eval_retrieval import corpus_files

import haiku_tui.store.search as S
from haiku_tui.store.embedding import embed_documents, embed_query
from haiku_tui.store.kb import KnowledgeBase
from haiku_tui.store.sentences import sentences, term_set


FEATURES = (
    "bm25 1/rank", "bm25 score/best", "vector 1/rank", "cosine-best", "best sentence share",
    "heading share", "log doc chunks", "first chunk", "log doc candidates", "log fused rrf", "copy in larger doc",
    "better chunks of its doc", "best sentence cosine",
)
CURRENT = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)  # the search's ranking (but its copy rule)


def candidates(chunks, query: str, vector: list[float], embedder) -> tuple[list[dict], np.ndarray]:
    """Every chunk of the search's BM25 and vector pools, best first by its fused score as the search
    computes it, with its features (rows × ``FEATURES``)."""
    version = chunks.version
    columns = S.table_columns(chunks, version)
    read = S.CHUNK_COLUMNS + [S.SENTENCE_TERMS_COLUMN] * (S.SENTENCE_TERMS_COLUMN in columns)
    q = chunks.search(S.text_query(query, S.HEADINGS_FTS_COLUMN in columns), query_type="fts").select(read + ["_score"])
    text_rows = q.limit(S.CANDIDATES).to_list()
    vector_rows = S.exact_vector_rows(chunks, vector, S.CANDIDATES, version, read) or []
    _, rows = S.hybrid_rankings(query, text_rows, vector_rows, S.RERANK)
    index = {row["id"]: i for i, row in enumerate(rows)}
    x = np.zeros((len(rows), len(FEATURES)))
    top = max((r.get("_score") or 0.0 for r in text_rows), default=0.0) or 1.0
    for rank, row in enumerate(text_rows, 1):
        x[index[row["id"]], 0] = 1 / rank
        x[index[row["id"]], 1] = (row.get("_score") or 0.0) / top
    cos = [1 - r["_distance"] for r in vector_rows] or [0.0]
    x[:, 3] = min(cos) - max(cos)  # outside the vector pool: as the last of it
    for rank, row in enumerate(vector_rows, 1):
        x[index[row["id"]], 2] = 1 / rank
        x[index[row["id"]], 3] = cos[rank - 1] - max(cos)
    x[:, 4] = S.best_sentence_share(query, rows)
    wanted = set(term_set(query))
    if wanted:
        x[:, 5] = [len(wanted & term_set(" ".join(r["headings"] or []))) / len(wanted) for r in rows]
    sizes = S.document_sizes(chunks, version)
    x[:, 6] = [math.log(sizes.get(r["document_id"], 1)) for r in rows]
    x[:, 7] = [r["position"] == 0 for r in rows]
    per_doc = collections.Counter(r["document_id"] for r in rows)
    x[:, 8] = [math.log(per_doc[r["document_id"]]) for r in rows]
    scale = (S.RRF_K + 1) / (S.TEXT_WEIGHT + S.VECTOR_WEIGHT + S.SENTENCE_WEIGHT)
    x[:, 9] = [math.log(r["_relevance_score"] * scale) for r in rows]
    demoted = S.prefer_originals(chunks, rows, version)
    after = {r["id"]: r["_relevance_score"] for r in demoted}
    x[:, 10] = [after[r["id"]] < r["_relevance_score"] for r in rows]
    seen: collections.Counter[str] = collections.Counter()
    for i, row in enumerate(rows):  # the chunks of its document ranked above it by the fused score
        x[i, 11] = seen[row["document_id"]]
        seen[row["document_id"]] += 1
    q = np.asarray(vector) / np.linalg.norm(vector)
    for i, row in enumerate(rows):
        said = sentences(row["text"])
        if said:
            m = np.asarray(embed_documents(embedder, said))
            x[i, 12] = float(np.max(m @ q / np.maximum(np.linalg.norm(m, axis=1), 1e-9)))
    return rows, x


def first_rank(stems: list[str], docs) -> int | None:
    return next((i for i, s in enumerate(stems, 1) if s in docs), None)


def collect(cache: Path) -> None:
    questions = tuning()
    data = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            with KnowledgeBase.open(str(Path(tmp) / f"{corpus}.lancedb"), embedder="auto") as kb:
                kb.add(corpus_files(corpus, Path(tmp)))
                stem_of = {d.id: Path(d.path).stem for d in kb.documents()}
                for q in (q for q in questions if q.corpus == corpus):
                    chunks, _, _ = kb._prepare_search(q.question, None)
                    vector = embed_query(kb.embedder, S.vector_query(q.question))
                    rows, features = candidates(chunks, q.question, vector, kb.embedder)
                    current = [stem_of[r["document_id"]] for r in S.ranked_rows(chunks, None, q.question, vector, 10)]
                    data.append(
                        {
                            "corpus": corpus,
                            "question": q.question,
                            "features": features,
                            "docs": [r["document_id"] for r in rows],
                            "relevant": np.array([stem_of[r["document_id"]] in q.docs for r in rows]),
                            "current_rank": first_rank(current, q.docs),
                        }
                    )
    cache.write_bytes(pickle.dumps(data))


def ranked(scores: np.ndarray, docs: list[str], decay: float) -> list[int]:
    """Candidate indexes best first after the per-document decay (in log space: scores are logits)."""
    order = np.argsort(-scores, kind="stable")
    seen: dict[str, int] = {}
    adjusted = scores.copy()
    for i in order:
        n = seen.get(docs[i], 0)
        seen[docs[i]] = n + 1
        adjusted[i] = scores[i] + n * np.log(decay)
    return list(np.argsort(-adjusted, kind="stable"))


def metrics(data: list[dict], weights: np.ndarray | None, decay: float) -> tuple[float, float]:
    r5 = mrr = 0.0
    for d in data:
        if weights is None:
            rank = d["current_rank"]
        else:
            order = ranked(d["features"] @ weights, d["docs"], decay)[:10]
            rank = next((k for k, i in enumerate(order, 1) if d["relevant"][i]), None)
        r5 += bool(rank and rank <= 5)
        mrr += 1 / rank if rank else 0.0
    return r5 / len(data), mrr / len(data)


def fit_softmax(data: list[dict], l2: float, steps: int = 600, lr: float = 0.5) -> np.ndarray:
    """Listwise: maximise each question's softmax probability mass on its expected document's chunks
    (questions weighted equally); plain gradient descent with L2."""
    usable = [d for d in data if d["relevant"].any() and not d["relevant"].all()]
    w = np.zeros(usable[0]["features"].shape[1])
    for _ in range(steps):
        grad = l2 * w
        for d in usable:
            x = d["features"]
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            q = p * d["relevant"]
            q /= q.sum()
            grad += (p - q) @ x / len(usable)
        w -= lr * grad
    return w


def fit_mrr(data: list[dict], l2: float, passes: int = 3, decay: float = S.DOC_DECAY) -> np.ndarray:
    """MRR itself, by coordinate search from the current weights: each weight in turn tried over a grid
    of steps and the best kept (ties keep the smaller change); ``l2`` is charged per unit of change."""
    w = np.array(CURRENT, dtype=float)
    base = w.copy()
    steps = [-2, -1, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1, 2]
    for _ in range(passes):
        for j in range(len(w)):
            best, best_w = metrics(data, w, decay)[1] - l2 * np.abs(w - base).sum(), w[j]
            for step in steps:
                trial = w.copy()
                trial[j] += step
                value = metrics(data, trial, decay)[1] - l2 * np.abs(trial - base).sum()
                if value > best + 1e-9:
                    best, best_w = value, trial[j]
            w[j] = best_w
    return w


def fit_pairs(data: list[dict], l2: float, steps: int = 400, lr: float = 0.5, top: int | None = None) -> np.ndarray:
    """Pairwise logistic ranker: every (expected-document chunk, other chunk) pair of a question, the
    pairs of each question weighted equally; plain gradient descent with L2."""
    diffs, wts = [], []
    for d in data:
        pos, neg = np.flatnonzero(d["relevant"]), np.flatnonzero(~d["relevant"])
        if top:  # the expected document's best chunk against the other chunks of the search's top
            pos, neg = pos[:1], neg[neg < top]
        if len(pos) == 0 or len(neg) == 0:
            continue
        x = d["features"]
        pairs = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1])
        diffs.append(pairs)
        wts.append(np.full(len(pairs), 1.0 / len(pairs)))
    X, W = np.vstack(diffs), np.concatenate(wts)
    W = W / W.sum()
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        margin = X @ w
        grad = -(X * (W / (1 + np.exp(margin)))[:, None]).sum(0) + l2 * w
        w -= lr * grad
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--collect", action="store_true")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "learn_ranking.pkl")
    parser.add_argument("--l2", type=float, nargs="+", default=[0.0, 0.001, 0.01, 0.1])
    parser.add_argument("--loss", choices=["softmax", "pairs", "top-pairs", "mrr"], default="softmax")
    parser.add_argument("--decay", type=float, default=S.DOC_DECAY, help="per-document decay after the learned score")
    parser.add_argument("--drop", type=int, nargs="*", default=[], help="feature columns left out (zeroed)")
    args = parser.parse_args()
    if args.collect or not args.cache.exists():
        collect(args.cache)
    data = pickle.loads(args.cache.read_bytes())
    for d in data:
        d["features"] = d["features"].copy()
        d["features"][:, args.drop] = 0.0
    fit = {
        "softmax": fit_softmax,
        "pairs": fit_pairs,
        "top-pairs": lambda data, l2: fit_pairs(data, l2, top=10),
        "mrr": lambda data, l2: fit_mrr(data, l2, decay=args.decay),
    }[args.loss]
    corpora = sorted({d["corpus"] for d in data})
    print("features:", ", ".join(FEATURES))
    print("current ranking: recall@5={:.3f} mrr@10={:.3f}".format(*metrics(data, None, S.DOC_DECAY)))
    print("current weights: recall@5={:.3f} mrr@10={:.3f}".format(*metrics(data, np.array(CURRENT), args.decay)))
    for l2 in args.l2:
        cur, new = [], []
        for corpus in corpora:
            train = [d for d in data if d["corpus"] != corpus]
            test = [d for d in data if d["corpus"] == corpus]
            w = fit(train, l2)
            cur.append(metrics(test, None, S.DOC_DECAY)[1])
            new.append(metrics(test, w, args.decay)[1])
        folds = "  ".join(f"{c}={a:.3f}→{b:.3f}" for c, a, b in zip(corpora, cur, new))
        print(
            f"l2={l2:<6} cross-validated MRR per held-out corpus (current→learned): {folds}  mean "
            f"{np.mean(cur):.3f}→{np.mean(new):.3f}"
        )
        w = fit(data, l2)
        print(
            f"   fitted on all tuning: weights {np.round(w, 3).tolist()}  recall@5=%.3f mrr@10=%.3f"
            % metrics(data, w, args.decay)
        )


if __name__ == "__main__":
    main()
