"""Retrieval-quality questions over the pydoc corpus (``bench/corpora/pydoc.py``).

Each entry: a user-style question and the topic file stems that answer it (a hit is any of them).
``DEV`` was used while tuning chunking and ranking; ``HELD_OUT`` was written separately and is
only used for the reported numbers.

    python -m bench.sets.pydoc_questions [--db DIR]   # prints hit@1, hit@5 and MRR for both sets
"""

from __future__ import annotations

DEV: list[tuple[str, set[str]]] = [
    ("how do I write a with statement", {"with", "context-managers"}),
    ("what does yield do", {"yield"}),
    ("how do I catch an exception", {"try", "exceptions"}),
    ("what is a lambda", {"lambda"}),
    ("what does the global keyword do", {"global"}),
    ("how do I make my class support the + operator", {"numeric-types", "specialnames"}),
    ("what values count as false in an if", {"truth"}),
    ("how do I write a class", {"class"}),
    ("what is the operator precedence in python", {"operator-summary"}),
    ("how do I exit a loop early", {"break"}),
]

HELD_OUT: list[tuple[str, set[str]]] = [
    ("how do I loop over a list", {"for"}),
    ("how do I import a module from a package", {"import"}),
    ("how do I raise an error myself", {"raise"}),
    ("how do I split a string into words", {"string-methods"}),
    ("how do f-strings work", {"formatstrings", "strings"}),
    ("difference between == and is", {"comparisons"}),
    ("what does __call__ do", {"callable-types", "specialnames", "customization"}),
    ("how does slicing work", {"slicings", "typesseq"}),
    ("how do I get a value from a dict with a default", {"typesmapping", "dict"}),
    ("how do I write a coroutine with async def", {"async", "await"}),
    ("how do I write a while loop", {"while"}),
    ("what does nonlocal mean", {"nonlocal"}),
    ("how do I remove an item from a list", {"typesseq-mutable", "del"}),
    ("what does pass do", {"pass"}),
    ("how do I check a condition with assert", {"assert"}),
    ("what is floor division", {"binary"}),
    ("how do I define __eq__ and __hash__ for my objects", {"customization", "specialnames"}),
    ("how are names resolved in nested scopes", {"naming", "execmodel"}),
    ("what does return do in a generator", {"return"}),
    ("how do I continue to the next iteration", {"continue"}),
]


def topic_of(path: str) -> str:
    from pathlib import Path

    return Path(path).stem


def evaluate(kb, questions, k: int = 5) -> dict[str, float]:
    hit1 = hitk = rr = 0.0
    misses = []
    for question, expected in questions:
        hits = kb.search(question, limit=k)
        topics = [topic_of(h.path) for h in hits]
        rank = next((i for i, t in enumerate(topics, start=1) if t in expected), None)
        if rank == 1:
            hit1 += 1
        if rank is not None:
            hitk += 1
            rr += 1.0 / rank
        else:
            misses.append((question, topics))
    n = len(questions)
    return {"n": n, "hit@1": hit1 / n, f"hit@{k}": hitk / n, "mrr": rr / n, "misses": misses}


def main() -> None:
    import argparse
    import tempfile
    from pathlib import Path
    from bench.corpora.pydoc import write_corpus

    from haiku_tui.store import KnowledgeBase

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        write_corpus(Path(tmp) / "corpus")
        kb = KnowledgeBase.open(Path(tmp) / "kb.lancedb")
        kb.add([Path(tmp) / "corpus"])
        print(f"{'set':10s} {'n':>3s} {'hit@1':>6s} {'hit@5':>6s} {'MRR':>6s}")
        for name, qs in (("dev", DEV), ("held-out", HELD_OUT)):
            r = evaluate(kb, qs)
            print(f"{name:10s} {r['n']:3d} {r['hit@1']:6.2f} {r['hit@5']:6.2f} {r['mrr']:6.3f}")
            if args.verbose:
                for q, got in r["misses"]:
                    print(f"   miss: {q!r} -> {got}")


if __name__ == "__main__":
    main()
