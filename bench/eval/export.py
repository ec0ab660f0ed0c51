"""Write the retrieval evaluation sets of ``bench/`` as JSON Lines cases that ``haiku-tui eval`` runs.

    python bench/eval/export.py          # rewrites bench/eval/<corpus>-<split>.jsonl

One file per corpus and split of ``bench/eval_questions.py`` (a case's ``expected`` is the list of
file stems that answer it, its ``phrase`` the answering phrase), and ``pydoc-questions-dev.jsonl`` /
``pydoc-questions-held-out.jsonl`` from ``bench/questions.py``. Each corpus is its own knowledge base:
``bench/eval/corpus.py`` writes its files (see ``bench/eval/README.md``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import questions
from eval_questions import QUESTIONS


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
