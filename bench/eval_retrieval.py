"""Retrieval and extractive-answer quality on ``bench/sets/eval_questions.py``.

    python -m bench.eval_retrieval [--embedder auto|none|MODEL]
        [--split dev|dev2|dev3|tuning|test|fresh|fresh2|fresh4|held-out|all]
        [--no-ask] [--misses] [--check] [--off-topic [tuning|fresh4]]

Builds one knowledge base per corpus (pydoc topics, the bundled guide, stdlib docstrings,
package READMEs, numpy docstrings) and
reports, per split: recall@5 and MRR@10 of ``KnowledgeBase.search`` (a hit is a chunk of an
expected document), and for ``haiku-tui ask --json`` with the default extractive model the share
of answers citing an expected document and the share quoting the answering phrase.
``tuning`` = dev + dev2 + dev3, ``held-out`` = test + fresh + fresh2.
``--misses`` lists the failures (use it on tuning splits only: ``test``, ``fresh``, ``fresh2`` and
``fresh4`` are for reporting; ``fresh4`` is measured once, at the end of the session that wrote it).
``--check`` only confirms that every question's phrase occurs in one of its documents.
``--off-topic`` also asks each ``OFF_TOPIC`` question (``--off-topic fresh4``: each ``OFF_TOPIC_FRESH4``
question) on every corpus built and reports how many got an answer with citations instead of
"nothing found" (it should be none).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from bench.corpora.numpydoc import write_corpus as write_numpy
from bench.corpora.readmes import write_corpus as write_readmes
from bench.corpora.readmes import write_corpus2 as write_readmes2
from bench.corpora.stdlib import write_corpus as write_stdlib
from bench.sets.eval_questions import OFF_TOPIC, OFF_TOPIC_FRESH4, QUESTIONS, TUNING, Question

GROUPS = {"tuning": set(TUNING), "held-out": {"test", "fresh", "fresh2"}}
OFF_TOPIC_LISTS = {"tuning": OFF_TOPIC, "fresh4": OFF_TOPIC_FRESH4}
GUIDE = Path(__file__).resolve().parents[1] / "haiku_tui" / "guide"


def norm(text: str) -> str:
    return " ".join(text.lower().replace("’", "'").replace("“", '"').replace("”", '"').split())


def corpus_files(name: str, tmp: Path) -> list[Path]:
    if name == "pydoc":
        return write_corpus(tmp / "pydoc-corpus")
    if name == "stdlib":
        return write_stdlib(tmp / "stdlib-corpus")
    if name == "readmes":
        return write_readmes(tmp / "readmes-corpus")
    if name == "readmes2":
        return write_readmes2(tmp / "readmes2-corpus")
    if name == "numpy":
        return write_numpy(tmp / "numpy-corpus")
    return sorted(GUIDE.glob("*.md"))


def grid_settings(module, grids: list[dict[str, list]]):
    """Set ``module``'s constants to every combination of each grid in turn, yielding a label for each;
    each grid's constants are put back after it."""
    for grid in grids:
        current = {name: getattr(module, name) for name in grid}
        for values in itertools.product(*grid.values()):
            for name, value in zip(grid, values):
                setattr(module, name, value)
            yield " ".join(f"{k}={v}" for k, v in zip(grid, values))
        for name, value in current.items():
            setattr(module, name, value)


def check(questions: list[Question]) -> list[str]:
    """Questions whose answering phrase occurs in none of their documents (one line each)."""
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            texts = {p.stem: norm(p.read_text(encoding="utf-8")) for p in corpus_files(corpus, Path(tmp))}
            for q in (q for q in questions if q.corpus == corpus):
                missing = [d for d in q.docs if d not in texts]
                if missing or not any(norm(q.phrase) in texts[d] for d in q.docs):
                    bad.append(f"[{corpus}] {q.question!r}: phrase not in {sorted(q.docs)} (missing docs: {missing})")
    return bad


def ask(db: str, embedder: str, question: str) -> dict:
    from haiku_tui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--db", db, *(["--embedder", embedder] if embedder else []), "ask", "--json", question])
    return json.loads(out.getvalue()) if code == 0 else {"answer": "", "citations": []}


def evaluate(
    questions: list[Question], embedder: str, with_ask: bool, show_misses: bool, off_topic: list[str] | None = None
) -> dict[str, dict]:
    from haiku_tui.store.kb import KnowledgeBase

    rows: list[tuple[Question, int | None, bool, bool]] = []
    timings = {}
    answered: list[str] = []  # off-topic questions answered with citations, as "corpus: question"
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in questions}):
            db = str(Path(tmp) / f"{corpus}.lancedb")
            files = corpus_files(corpus, Path(tmp))
            with KnowledgeBase.open(db, embedder=embedder or None) as kb:
                t0 = time.perf_counter()
                kb.add(files)
                timings[corpus] = time.perf_counter() - t0
                for q in (q for q in questions if q.corpus == corpus):
                    stems = [Path(h.path).stem for h in kb.search(q.question, limit=10)]
                    rank = next((i for i, s in enumerate(stems, 1) if s in q.docs), None)
                    cited = quoted = False
                    if with_ask:
                        data = ask(db, embedder, q.question)
                        cited = any(Path(c["path"]).stem in q.docs for c in data["citations"])
                        quoted = norm(q.phrase) in norm(data["answer"])
                    rows.append((q, rank, cited, quoted))
                    if show_misses and (rank is None or rank > 5 or (with_ask and not quoted)):
                        answer = norm(data["answer"])[:300] if with_ask else ""
                        print(
                            f"MISS [{q.corpus}] {q.question!r} rank={rank} cited={cited} quoted={quoted}\n   "
                            f"top={stems[:5]}\n   {answer}"
                        )
                for question in off_topic or []:
                    if ask(db, embedder, question)["citations"]:
                        answered.append(f"{corpus}: {question}")
    out = {}
    for name in ["all", *sorted({q.corpus for q in questions})]:
        sel = [r for r in rows if name == "all" or r[0].corpus == name]
        n = len(sel)
        out[name] = {
            "n": n,
            "recall@5": sum(1 for _, r, _, _ in sel if r and r <= 5) / n,
            "mrr@10": sum(1 / r for _, r, _, _ in sel if r) / n,
            **(
                {"cites_doc": sum(c for *_, c, _ in sel) / n, "quotes_answer": sum(x for *_, x in sel) / n}
                if with_ask
                else {}
            ),
        }
    if off_topic:
        out["off-topic"] = {"answered": len(answered), "asked": len(off_topic) * len(timings), "which": answered}
    out["ingest_s"] = {k: round(v, 2) for k, v in timings.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--embedder", default="auto", help='"auto" (the default), "none", a model; "" = none on older versions'
    )
    parser.add_argument(
        "--split",
        choices=["dev", "dev2", "dev3", "tuning", "test", "fresh", "fresh2", "fresh4", "held-out", "all"],
        default="dev",
    )
    parser.add_argument("--no-ask", action="store_true")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--off-topic", nargs="?", const="tuning", choices=sorted(OFF_TOPIC_LISTS))
    args = parser.parse_args()
    questions = [q for q in QUESTIONS if args.split == "all" or q.split in GROUPS.get(args.split, {args.split})]
    if args.check:
        bad = check(questions)
        print("\n".join(bad) or f"all {len(questions)} phrases found in their documents")
        raise SystemExit(1 if bad else 0)
    off_topic = OFF_TOPIC_LISTS[args.off_topic] if args.off_topic else None
    result = evaluate(questions, args.embedder, not args.no_ask, args.misses, off_topic)
    timings = result.pop("ingest_s")
    answered = result.pop("off-topic", None)
    for name, m in result.items():
        figures = "  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in m.items())
        print(f"{args.split:4s} {args.embedder:9s} {name:7s} {figures}")
    print(f"ingest seconds: {timings}")
    if answered:
        print(f"off-topic questions answered with citations: {answered['answered']} of {answered['asked']}")
        print("".join(f"   {line}\n" for line in answered["which"]), end="")


if __name__ == "__main__":
    main()
