"""Write the retrieval evaluation sets of ``bench/`` as JSON Lines cases that ``haiku-tui eval`` runs.

    python -m bench.eval.export          # rewrites bench/eval/<corpus>-<split>.jsonl

One file per corpus and split of ``bench/sets/eval_questions.py`` (a case's ``expected`` is the list of
file stems that answer it, its ``phrase`` the answering phrase), and ``pydoc-questions-dev.jsonl`` /
``pydoc-questions-held-out.jsonl`` from ``bench/sets/pydoc_questions.py``. Each corpus is its own knowledge base:
``python -m bench.eval.corpus`` writes its files (see ``bench/eval/README.md``).
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.sets import pydoc_questions as questions
from bench.sets.eval_questions import QUESTIONS

HERE = Path(__file__).resolve().parent


def case(question: str, docs: set[str] | frozenset[str], phrase: str | None = None) -> str:
    names = sorted(docs)
    data = {"question": question, "expected": names[0] if len(names) == 1 else names}
    if phrase:
        data["phrase"] = phrase
    return json.dumps(data, ensure_ascii=False)


def main() -> None:
    files: dict[str, list[str]] = {}
    for q in QUESTIONS:
        files.setdefault(f"{q.corpus}-{q.split}", []).append(case(q.question, q.docs, q.phrase))
    files["pydoc-questions-dev"] = [case(text, docs) for text, docs in questions.DEV]
    files["pydoc-questions-held-out"] = [case(text, docs) for text, docs in questions.HELD_OUT]
    for name, lines in sorted(files.items()):
        (HERE / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}.jsonl: {len(lines)} cases")


if __name__ == "__main__":
    main()
