"""Ranking experiments on the tuning questions only (dev, dev2, dev3) (search figures; no answers).

    python bench/tune_search.py [--chunk-size N ...]

Builds each tuning corpus once per chunk size (hybrid, the built-in embedder, as the product does),
then varies ``haiku_tui.store.search`` constants grid by grid around their current values and
prints recall@5 / MRR@10 per variant. Test and fresh questions are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_questions import tuning  # noqa: E402
from eval_retrieval import corpus_files, grid_settings  # noqa: E402

import haiku_tui.store.search as S  # noqa: E402
from haiku_tui.store.kb import KnowledgeBase  # noqa: E402

GRIDS = [
    {"SENTENCE_WEIGHT": [0.0, 0.5, 1.0, 2.0], "VECTOR_WEIGHT": [0.5, 1.0], "RERANK": [30, 60]},
    {"SENTENCE_WEIGHT": [1.0, 2.0], "DOC_DECAY": [0.7, 0.5], "HEADINGS_BOOST": [2.0, 1.0]},
]


def score(kbs: dict, questions) -> tuple[float, float]:
    r5 = mrr = 0.0
    for q in questions:
        stems = [Path(h.path).stem for h in kbs[q.corpus].search(q.question, limit=10)]
        rank = next((i for i, s in enumerate(stems, 1) if s in q.docs), None)
        r5 += bool(rank and rank <= 5)
        mrr += 1 / rank if rank else 0
    return r5 / len(questions), mrr / len(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunk-size", type=int, nargs="+", default=[1200])
    parser.add_argument("--grid", type=json.loads, action="append", help='a grid as JSON, e.g. {"RERANK": [15, 30]}')
    args = parser.parse_args()
    questions = tuning()
    corpora = sorted({q.corpus for q in questions})
    with tempfile.TemporaryDirectory() as tmp:
        files = {c: corpus_files(c, Path(tmp)) for c in corpora}
        for chunk_size in args.chunk_size:
            kbs = {}
            for c in corpora:
                kbs[c] = KnowledgeBase.open(Path(tmp) / f"{c}-{chunk_size}", embedder="auto")
                kbs[c].add(files[c], chunk_size=chunk_size)
            for label in grid_settings(S, args.grid or GRIDS):
                print(f"chunk={chunk_size} {label:60s} recall@5=%.3f mrr@10=%.3f" % score(kbs, questions), flush=True)
            for kb in kbs.values():
                kb.close()


if __name__ == "__main__":
    main()
