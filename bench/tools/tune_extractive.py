"""Sentence-choice experiments for the extractive model on the tuning questions only (dev, dev2, dev3).

    python -m bench.tools.tune_extractive [GRIDS as JSON, e.g. '[{"MIN_SEMANTIC": [0.3, 0.35]}]']

Searches each tuning question once (as the model's ``rag_search`` call does: the question, 10
results, formatted as the tool formats them), then varies ``haiku_tui.agent.quoting``
constants and prints, per variant, the shares of answers citing an expected document and quoting the
answering phrase (on all the tuning questions, then on dev3 alone), and how many ``OFF_TOPIC`` questions
(asked on every corpus) got an answer instead of "nothing found". Held-out questions are never read here.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from bench.sets.eval_questions import OFF_TOPIC, tuning
from bench.eval_retrieval import corpus_files, grid_settings, norm

import haiku_tui.agent.extractive as X
import haiku_tui.agent.quoting as Q
from haiku_tui.capabilities.evidence import RESULT_SEPARATOR, format_result
from haiku_tui.store.kb import KnowledgeBase

GRIDS = [  # each grid varies its constants around the module's current values
    {"POSITION_DECAY": [0.1, 0.05, 0.025], "ROOM_SOURCES": [2, 3]},
    {"TOP_SOURCES": [1, 2, 3]},
    {"RANK_DECAY": [0.0, 0.1, 0.25]},
    {"SEMANTIC_WEIGHT": [0.5, 1.0, 2.0]},
    {"PAIR_WEIGHT": [0.0, 0.3, 0.7]},
    {"EXTRA_SAME": [0.6, 0.75, 0.9]},
    {"MIN_SEMANTIC": [0.3, 0.35], "MIN_WORDS_MEANING": [0.1, 0.2, 0.3]},
    {"SCAFFOLDING": [frozenset(), Q.SCAFFOLDING]},
]


def searched(questions) -> tuple[list[tuple], list[tuple]]:
    """(question, results, chunk id → document stem) for each question, and (question, results) for each
    off-topic question on each corpus."""
    out, off = [], []
    for corpus, kb in corpus_kbs(questions):
        for q in (q for q in questions if q.corpus == corpus):
            hits = kb.search(q.question, limit=X.SEARCH_LIMIT)
            text = RESULT_SEPARATOR.join(format_result(h, len(hits)) for h in hits)
            out.append((q, X.parse_results(text), {h.chunk_id: Path(h.path).stem for h in hits}))
        for question in OFF_TOPIC:
            hits = kb.search(question, limit=X.SEARCH_LIMIT)
            off.append((question, X.parse_results(RESULT_SEPARATOR.join(format_result(h, len(hits)) for h in hits))))
    return out, off


def corpus_kbs(questions):
    """Each corpus the questions ask about, built into a knowledge base with the default embedder (deleted after)."""
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            with KnowledgeBase.open(str(Path(tmp) / f"{corpus}.lancedb"), embedder="auto") as kb:
                kb.add(corpus_files(corpus, Path(tmp)))
                yield corpus, kb


def score(cases) -> str:
    """Shares of answers citing an expected document and quoting the answering phrase: on all the cases, and
    on the fresh dev3 part alone (the 55 older questions were what the constants were first fitted on)."""
    hits = []
    for q, results, stems in cases:
        quotes = Q.select(q.question, results)
        hits.append(
            (
                q.split,
                any(stems[x.chunk_id] in q.docs for x in quotes),
                norm(q.phrase) in norm(" ".join(x.sentence for x in quotes)),
            )
        )
    fresh = [h for h in hits if h[0] == "dev3"] or hits
    return "  ".join(
        f"{sum(h[1] for h in part) / len(part):.3f}  {sum(h[2] for h in part) / len(part):.3f}"
        for part in (hits, fresh)
    )


def main() -> None:
    cases, off = searched(tuning())
    print(f"{'variant':70s} cites  quotes  dev3: cites  quotes  off-topic answered (of {len(off)})")
    for label in grid_settings(Q, json.loads(sys.argv[1]) if len(sys.argv) > 1 else GRIDS):
        answered = sum(bool(Q.select(question, results)) for question, results in off)
        print(f"{label:70s} {score(cases)}  {answered}")


if __name__ == "__main__":
    main()
