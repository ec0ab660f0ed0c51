"""Why DEV questions miss: each ranking's view of the answering document, and where the answering sentence went.

    python -m bench.tools.eval_misses [--split dev|dev2|dev3|tuning] [--all]

For every dev question whose answering document is not ranked first (``--all``: every question),
prints the rank of that document in the fused result and in each ranking fused into it (BM25,
vectors, best sentence), the documents and sections that outranked it, and the section holding the
answering phrase. For every question whose extractive answer does not quote the phrase, prints
where the phrase is: not in the ten searched chunks, not a sentence of its own (split across
sentences or filtered), or a sentence scored below the chosen ones (its place among candidates).
Only tuning questions (dev, dev2, dev3) are read.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.sets.eval_questions import split, tuning
from bench.eval_retrieval import corpus_files, norm

import haiku_tui.agent.extractive as X
import haiku_tui.agent.quoting as Q
import haiku_tui.store.search as S
from haiku_tui.capabilities.evidence import RESULT_SEPARATOR, format_result
from haiku_tui.store.embedding import embed_query
from haiku_tui.store.kb import KnowledgeBase
from haiku_tui.store.sentences import sentences


def doc_rank(rows: list[dict], stem_of: dict[str, str], docs) -> int | None:
    """1-based rank of the first row of an expected document, documents counted once."""
    seen: list[str] = []
    for row in rows:
        stem = stem_of.get(row["document_id"], "?")
        if stem not in seen:
            seen.append(stem)
        if stem in docs:
            return len(seen)
    return None


def label(row: dict, stem_of: dict[str, str]) -> str:
    heads = " › ".join(h for h in (row.get("headings") or [])[-2:])
    return f"{stem_of.get(row['document_id'], '?')}[{heads[:40]}]"


def rankings(kb: KnowledgeBase, question: str) -> dict[str, list[dict]]:
    chunks, where, _ = kb._prepare_search(question, None)
    vector = embed_query(kb.embedder, S.vector_query(question))
    text = (
        chunks.search(S.text_query(question, True), query_type="fts")
        .select(S.CHUNK_COLUMNS + ["_score"])
        .limit(30)
        .to_list()
    )
    vec = S.exact_vector_rows(chunks, vector, 30)
    fused = S.fuse([(text, S.TEXT_WEIGHT), (vec, S.VECTOR_WEIGHT)])
    cand = fused[: S.RERANK]
    best = S.best_sentence_share(question, cand)
    by_sentence = [cand[i] for i in sorted(range(len(cand)), key=lambda i: -best[i]) if best[i] > 0]
    final = S.ranked_rows(chunks, where, question, vector, 10)
    return {"bm25": text, "vector": vec, "sentence": by_sentence, "final": final}


def candidate_place(question: str, results: list, phrase: str) -> int | None:
    """Place of the phrase's sentence among all sentences passing the floor, by score (None: below it)."""
    saved = Q.EXTRA_SAME, Q.EXTRA_NEW_TERMS, Q.CONTINUATIONS
    Q.EXTRA_SAME, Q.EXTRA_NEW_TERMS, Q.CONTINUATIONS = 0.0, 0.0, frozenset()
    try:
        ranked = sorted(Q.select(question, results, limit=10_000), key=lambda x: -x.score)
    finally:
        Q.EXTRA_SAME, Q.EXTRA_NEW_TERMS, Q.CONTINUATIONS = saved
    return next((i for i, x in enumerate(ranked, 1) if norm(phrase) in norm(x.sentence)), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--split", choices=["dev", "dev2", "dev3", "tuning"], default="tuning")
    args = parser.parse_args()
    questions = tuning() if args.split == "tuning" else split(args.split)
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            with KnowledgeBase.open(str(Path(tmp) / f"{corpus}.lancedb"), embedder="auto") as kb:
                kb.add(corpus_files(corpus, Path(tmp)))
                stem_of = {d.id: Path(d.path).stem for d in kb.documents()}
                all_chunks = (
                    kb.storage.table("chunks").search().select(["id", "document_id", "text", "headings"])
                    .limit(None)
                    .to_list()
                )
                for q in (q for q in questions if q.corpus == corpus):
                    ranks = rankings(kb, q.question)
                    r = {name: doc_rank(rows, stem_of, q.docs) for name, rows in ranks.items()}
                    home = [
                        c
                        for c in all_chunks
                        if stem_of[c["document_id"]] in q.docs and norm(q.phrase) in norm(c["text"])
                    ]
                    hits = kb.search(q.question, limit=X.SEARCH_LIMIT)
                    text = RESULT_SEPARATOR.join(format_result(h, len(hits)) for h in hits)
                    quotes = Q.select(q.question, X.parse_results(text))
                    quoted = norm(q.phrase) in norm(" ".join(x.sentence for x in quotes))
                    if r["final"] == 1 and quoted and not args.all:
                        continue
                    print(f"\n[{corpus}] {q.question!r}  docs={sorted(q.docs)}")
                    print(
                        f"  doc rank: final={r['final']} bm25={r['bm25']} vector={r['vector']} sentence={r['sentence']}"
                    )
                    if r["final"] != 1:
                        print("  above:", ", ".join(label(x, stem_of) for x in ranks["final"][:4]))
                    print("  phrase in:", ", ".join(label(c, stem_of) for c in home) or "NOT FOUND")
                    if quoted:
                        continue
                    home_ids = {c["id"] for c in home}
                    at = [h.rank for h in hits if h.chunk_id in home_ids]
                    if not at:
                        print("  quote: answering chunk not among the 10 searched")
                        continue
                    chunk = next(h for h in hits if h.chunk_id in home_ids)
                    own = [s for s in sentences(chunk.text) if norm(q.phrase) in norm(s)]
                    if not own:
                        near = [s for s in chunk.text.splitlines() if norm(q.phrase)[:20] in norm(s)]
                        print(f"  quote: chunk rank {at[0]}, phrase not inside one sentence: {near[:1]}")
                        continue
                    place = candidate_place(q.question, X.parse_results(text), q.phrase)
                    print(f"  quote: chunk rank {at[0]}, sentence {own[0][:90]!r}; chosen instead:")
                    for x in quotes:
                        print(f"     - {x.sentence[:100]!r} (score {x.score:.2f})")
                    print(f"     answering sentence's place among scored sentences: {place or 'below the floor'}")


if __name__ == "__main__":
    main()
