"""Retrieval evaluation over a user's own questions: cases, matching a hit to its expected source, figures.

A case is one JSON Lines object ``{"question": …, "expected": …}`` with an optional ``"phrase"``.
``expected`` names the source a good search finds: a document path, a file name (with or without its
suffix), a title, a document id or a chunk id — or a list of such names, any of which counts. The
search is :meth:`KnowledgeBase.search`, the one the agent's ``rag_search`` runs, so the figures are
what a question asked in the app retrieves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from .records import SearchHit

MRR_DEPTH = 10
"""Ranks counted by the mean reciprocal rank (MRR@10)."""


@dataclass(frozen=True)
class Case:
    """One question and the source it should find (``line``: its line in the file, 0 when made in memory)."""

    question: str
    expected: tuple[str, ...]
    phrase: str | None = None
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "question": self.question,
            "expected": self.expected[0] if len(self.expected) == 1 else list(self.expected),
        }
        if self.phrase:
            data["phrase"] = self.phrase
        return data


@dataclass(frozen=True)
class CaseResult:
    """A case's search: the rank of the first hit from its source (None: missed) and the hits, best first.

    ``phrase_found`` is None without a phrase, else whether one of the top ``k`` hits' text holds it."""

    case: Case
    rank: int | None
    hits: tuple[SearchHit, ...]
    phrase_found: bool | None = None


@dataclass(frozen=True)
class Evaluation:
    """Every case's result and the figures: recall@k, MRR@10 and the share of phrases found."""

    k: int
    results: tuple[CaseResult, ...] = field(default_factory=tuple)

    @property
    def questions(self) -> int:
        return len(self.results)

    @property
    def recall(self) -> float:
        """Share of questions whose source is among the top ``k`` hits."""
        found = sum(1 for r in self.results if r.rank is not None and r.rank <= self.k)
        return found / len(self.results) if self.results else 0.0

    @property
    def mrr(self) -> float:
        """Mean of 1/rank of each question's first hit from its source within the top 10 (0 when missed)."""
        total = sum(1 / r.rank for r in self.results if r.rank is not None and r.rank <= MRR_DEPTH)
        return total / len(self.results) if self.results else 0.0

    @property
    def phrases(self) -> tuple[int, int]:
        """(questions with a phrase, those whose phrase one of the top ``k`` hits holds)."""
        with_phrase = [r for r in self.results if r.phrase_found is not None]
        return len(with_phrase), sum(1 for r in with_phrase if r.phrase_found)

    def missed(self) -> list[CaseResult]:
        """The results whose source is not among the top ``k`` hits."""
        return [r for r in self.results if r.rank is None or r.rank > self.k]


def parse_cases(lines: Iterable[str]) -> tuple[list[Case], list[str]]:
    """The cases of JSON Lines text and one error line per bad line (``"line 3: …"``); blank lines and
    lines starting with ``#`` are skipped."""
    cases: list[Case] = []
    errors: list[str] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            cases.append(case_from_json(json.loads(text), number))
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not JSON ({exc.msg}); write one object a line, e.g. "
                          '{"question": "…", "expected": "guide.md"}')
        except ValueError as exc:
            errors.append(f"line {number}: {exc}")
    return cases, errors


def case_from_json(data: Any, line: int = 0) -> Case:
    """A :class:`Case` from a decoded line; ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError('not an object; write {"question": "…", "expected": "…"}')
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError('"question" must be a non-empty string')
    expected = data.get("expected")
    names = [expected] if isinstance(expected, str) else expected
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise ValueError('"expected" must be a document path, file name, title or chunk id (or a list of them)')
    phrase = data.get("phrase")
    if phrase is not None and (not isinstance(phrase, str) or not phrase.strip()):
        raise ValueError('"phrase" must be a non-empty string when given')
    unknown = sorted(set(data) - {"question", "expected", "phrase"})
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; a case has question, expected and phrase")
    return Case(question.strip(), tuple(n.strip() for n in names), phrase.strip() if phrase else None, line)


def _normal(text: str) -> str:
    return " ".join(text.casefold().replace("’", "'").split())


def matches(hit: SearchHit, expected: Sequence[str]) -> bool:
    """True when ``hit`` comes from a source ``expected`` names: its chunk id, document id, path, file
    name, file name without suffix or title (titles and names compared without case)."""
    name = PurePath(hit.path).name
    names = {name.casefold(), PurePath(name).stem.casefold(), _normal(hit.title)}
    return any(wanted in (hit.chunk_id, hit.document_id, hit.path) or _normal(wanted) in names for wanted in expected)


def evaluate(
    search: Callable[[str, int], list[SearchHit]],
    cases: Sequence[Case],
    *,
    k: int = 5,
    on_progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Run every case through ``search(question, limit)`` (``KnowledgeBase.search`` with the agent's filter)
    and rank its source; ``on_progress(done, total)`` after each case."""
    depth = max(k, MRR_DEPTH)
    results = []
    for done, case in enumerate(cases, start=1):
        hits = tuple(search(case.question, depth))
        rank = next((h.rank for h in hits if matches(h, case.expected)), None)
        phrase_found = None
        if case.phrase:
            wanted = _normal(case.phrase)
            phrase_found = any(wanted in _normal(h.text) for h in hits[:k])
        results.append(CaseResult(case, rank, hits, phrase_found))
        if on_progress is not None:
            on_progress(done, len(cases))
    return Evaluation(k, tuple(results))


def hit_json(hit: SearchHit) -> dict[str, Any]:
    """A hit as ``--json`` and the stored figures show it."""
    return {
        "rank": hit.rank,
        "chunk_id": hit.chunk_id,
        "label": hit.label(),
        "path": hit.path,
        "score": round(hit.score, 6),
    }


def evaluation_json(evaluation: Evaluation) -> dict[str, Any]:
    """``{"questions", "k", "recall", "mrr", "phrases", "results": [{"question", "expected", "rank", "top"}]}``."""
    with_phrase, found = evaluation.phrases
    results = []
    for r in evaluation.results:
        row: dict[str, Any] = {
            "question": r.case.question,
            "expected": r.case.to_json()["expected"],
            "rank": r.rank,
            "top": [hit_json(h) for h in r.hits[: evaluation.k]],
        }
        if r.phrase_found is not None:
            row["phrase_found"] = r.phrase_found
        results.append(row)
    data: dict[str, Any] = {
        "questions": evaluation.questions,
        "k": evaluation.k,
        "recall": round(evaluation.recall, 4),
        "mrr": round(evaluation.mrr, 4),
    }
    if with_phrase:
        data["phrases"] = {"with_phrase": with_phrase, "found": found}
    data["results"] = results
    return data
