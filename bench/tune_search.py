"""Ranking experiments on the DEV questions only (search figures; no answers).

    python bench/tune_search.py

Builds each corpus once per embedded-text variant and chunk size, then varies query handling
and fusion weights by setting ``haiku_tui.store.search`` constants, printing recall@5 / MRR@10
per variant. Test questions are never read here.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_questions import split  # noqa: E402
from eval_retrieval import corpus_files  # noqa: E402

import haiku_tui.store.search as S  # noqa: E402
from haiku_tui.store.kb import KnowledgeBase  # noqa: E402


def score(kbs: dict, questions) -> tuple[float, float]:
    r5 = mrr = 0.0
    for q in questions:
        stems = [Path(h.path).stem for h in kbs[q.corpus].search(q.question, limit=10)]
        rank = next((i for i, s in enumerate(stems, 1) if s in q.docs), None)
        r5 += bool(rank and rank <= 5)
        mrr += 1 / rank if rank else 0
    return r5 / len(questions), mrr / len(questions)


def main() -> None:
    questions = split("dev")
    corpora = sorted({q.corpus for q in questions})
    with tempfile.TemporaryDirectory() as tmp:
        files = {c: corpus_files(c, Path(tmp)) for c in corpora}
        for chunk_size, embed_headings in itertools.product([1200, 1600], [True, False]):
            S.EMBED_HEADINGS = embed_headings
            kbs = {}
            for c in corpora:
                kb = KnowledgeBase.open(Path(tmp) / f"{c}-{chunk_size}-{embed_headings}", embedder="wordllama")
                kb.add(files[c], chunk_size=chunk_size)
                kbs[c] = kb
            for decay, (tw, vw), k in itertools.product([1.0, 0.7, 0.5], [(1, 0), (1, 1), (1, 0.5), (1, 0.7)], [60]):
                S.DOC_DECAY, S.TEXT_WEIGHT, S.VECTOR_WEIGHT, S.RRF_K = decay, tw, vw, k
                r5, mrr = score(kbs, questions)
                print(f"chunk={chunk_size} embed_headings={embed_headings!s:5} doc_decay={decay} w_text={tw} w_vec={vw} k={k}: recall@5={r5:.3f} mrr@10={mrr:.3f}", flush=True)


if __name__ == "__main__":
    main()
