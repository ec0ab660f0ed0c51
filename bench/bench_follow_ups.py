"""Does search-first's search find a follow-up's source? The follow-up alone, against it with the question before.

    python -m bench.bench_follow_ups

Ingests the pydoc topics and the bundled guide (two corpora) into a temporary knowledge base and searches each
follow-up of :data:`PAIRS` twice: as asked ("and when is it enforced?"), and as search-first searches it
(``haiku_tui.agent.quoting.search_query``: a follow-up that leans on the question before it is searched together
with that question). Reports how often the expected document is among the five passages the model is given,
and its mean reciprocal rank. The pairs were written for this measure; the rule was not tuned on them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from haiku_tui.agent.quoting import search_query
from haiku_tui.store import KnowledgeBase

GUIDE = Path(__file__).resolve().parent.parent / "haiku_tui" / "guide"
LIMIT = 5

PAIRS = [  # (question before, follow-up, document stem that answers the follow-up)
    ("What does the break statement do in a loop?", "and what about continue?", "continue"),
    ("How does the with statement work?", "what happens when its body raises an exception?", "with"),
    ("What does a lambda expression create?", "can it contain statements?", "lambda"),
    ("How does the global statement work?", "and the nonlocal one?", "nonlocal"),
    ("What does the assert statement do?", "when is it removed?", "assert"),
    ("What does the power operator do?", "and how does it bind with a unary minus?", "power"),
    ("How do I leave a function with a value?", "and what does it give back without one?", "return"),
    ("How does evidence compaction work?", "and when does it apply?", "03-evidence-and-compaction"),
    ("What is the citation policy?", "when is it enforced?", "04-citation-policy"),
    ("How do I open a saved session?", "and how do I export it?", "05-sessions"),
    ("How do I add documents to the knowledge base?", "and how do I keep it in sync?", "06-knowledge-base"),
    ("How do I use a local model with haiku-tui?", "which environment variable sets it?", "07-models"),
    ("What does the evidence pane show?", "and what does retained mean there?", "03-evidence-and-compaction"),
    ("How do I measure retrieval quality?", "and what does recall at five mean?", "09-measuring"),
]


def rank(kb: KnowledgeBase, query: str, stem: str) -> int | None:
    hits = kb.search(query, limit=LIMIT)
    return next((h.rank for h in hits if Path(h.path).stem == stem), None)


def main() -> None:
    rows = {"follow-up alone": [], "with the question before (search-first)": []}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(Path(tmp) / "corpus")
        with KnowledgeBase.open(Path(tmp) / "kb.lancedb") as kb:
            kb.add([*corpus, *sorted(GUIDE.glob("*.md"))])
            for before, follow_up, stem in PAIRS:
                rows["follow-up alone"].append(rank(kb, follow_up, stem))
                combined = search_query(follow_up, before)
                rows["with the question before (search-first)"].append(rank(kb, combined, stem))
    print(f"{len(PAIRS)} follow-ups over the pydoc topics and the guide; the source among the {LIMIT} passages")
    print("| query | found in top 5 | MRR@5 |")
    print("|---|---:|---:|")
    for name, ranks in rows.items():
        found = sum(r is not None for r in ranks) / len(ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        print(f"| {name} | {found:.2f} | {mrr:.2f} |")


if __name__ == "__main__":
    main()
