"""Ranking experiments on the tuning questions only (dev, dev2, dev3) (search figures; no answers).

    python -m bench.tools.tune_search [--chunk-size N ...]

Builds each tuning corpus once per chunk size (hybrid, the built-in embedder, as the product does),
then varies ``haiku_tui.store.search`` constants grid by grid around their current values and
prints recall@5 / MRR@10 per variant. Test and fresh questions are never read here.
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
from pathlib import Path

from bench.sets.eval_questions import tuning
from bench.eval_retrieval import corpus_files, grid_settings

import haiku_tui.store.search as S
from haiku_tui.store.chunking import DEFAULT_TARGET
from haiku_tui.store.kb import KnowledgeBase

GRIDS = [
    {"SENTENCE_WEIGHT": [0.0, 0.5, 1.0, 2.0], "VECTOR_WEIGHT": [0.5, 1.0], "RERANK": [30, 60]},
    {"SENTENCE_WEIGHT": [1.0, 2.0], "DOC_DECAY": [0.7, 0.5], "HEADINGS_BOOST": [2.0, 1.0]},
]


class Constants:
    """``haiku_tui.store.search``'s constants by name, another store module's as ``module.NAME``
    (``proximity.WINDOW``), for ``grid_settings``."""

    @staticmethod
    def _owner(name: str) -> tuple[object, str]:
        module, _, constant = name.rpartition(".")
        return (importlib.import_module(f"haiku_tui.store.{module}") if module else S), constant

    def __getattr__(self, name: str):
        return getattr(*self._owner(name))

    def __setattr__(self, name: str, value) -> None:
        setattr(*self._owner(name), value)


def score(kbs: dict, questions) -> str:
    """recall@5 / MRR@10 over all the tuning questions, then pydoc's alone, then dev3's (the ones written last)."""
    ranks = []
    for q in questions:
        stems = [Path(h.path).stem for h in kbs[q.corpus].search(q.question, limit=10)]
        ranks.append(next((i for i, s in enumerate(stems, 1) if s in q.docs), None))
    out = []
    for name, keep in (
        ("all", lambda q: True),
        ("pydoc", lambda q: q.corpus == "pydoc"),
        ("dev3", lambda q: q.split == "dev3"),
    ):
        kept = [r for q, r in zip(questions, ranks) if keep(q)]
        r5 = sum(bool(r and r <= 5) for r in kept) / len(kept)
        mrr = sum(1 / r for r in kept if r) / len(kept)
        out.append(f"{name} recall@5={r5:.3f} mrr@10={mrr:.3f}")
    return "  ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunk-size", type=int, nargs="+", default=[DEFAULT_TARGET])
    parser.add_argument(
        "--grid",
        type=json.loads,
        action="append",
        help='a grid as JSON, e.g. {"RERANK": [15, 30], "proximity.WINDOW": [1, 3]}',
    )
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
            for label in grid_settings(Constants(), args.grid or GRIDS):
                print(f"chunk={chunk_size} {label:60s} {score(kbs, questions)}", flush=True)
            for kb in kbs.values():
                kb.close()


if __name__ == "__main__":
    main()
