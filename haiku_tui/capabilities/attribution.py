"""Attribution: the passage an answer's unmarked sentence was drawn from, for answers given search-first.

A small model handed numbered passages often copies or lightly rewords one and writes no ``[n]``. Each
such sentence (one with a few content words: "Sure!" is no claim) is scored against every passage the
question was given: the share of its word 4-grams the passage holds (copied text) and the claim support
check's lexical coverage (:func:`~haiku_tui.capabilities.support.best_passage`: reworded text). A sentence
is attributed to the best-scoring passage when either share passes its threshold and every number it
states is in that passage ("1 cup of flour" is not drawn from "50 g of flour"); otherwise it stays
unsupported. The thresholds were chosen for precision on the DEV pairs of ``bench/bench_attribution.py``
(a wrong attribution is worse than none). Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from haiku_tui.capabilities.support import best_passage, content_terms, sentences

MIN_TERMS = 3
"""Content words a sentence needs to count as a claim to attribute."""
FOURGRAM_MIN = 0.7
"""Share of a sentence's word 4-grams a passage must hold to be where it was copied from."""
COVERAGE_MIN = 0.7
"""Share of a sentence's content words the best window of a passage must hold to be where it was reworded from."""
BESIDE_MIN = 0.2
"""And the share of its word 4-grams the passage must hold beside that coverage."""

_WORD = re.compile(r"[a-z0-9]+")
_ASIDE = re.compile(r"^([_*]).+\1$", re.S)
"""A sentence wholly in emphasis, such as the extractive model's closing note: an aside, not a claim."""
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Attribution:
    """One unmarked sentence of an answer and the passage it was drawn from (``label`` None: none found)."""

    sentence: str
    label: int | None
    chunk_id: str | None
    score: float


def _fourgrams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}


def fourgram_share(sentence: str, text: str) -> float:
    """Share of ``sentence``'s word 4-grams that ``text`` holds (0 for a sentence under four words)."""
    grams = _fourgrams(sentence)
    return len(grams & _fourgrams(text)) / len(grams) if grams else 0.0


def numbers_hold(sentence: str, text: str) -> bool:
    """Whether every number ``sentence`` states appears in ``text``."""
    return set(_NUMBER.findall(sentence)) <= set(_NUMBER.findall(text))


def score(sentence: str, text: str) -> tuple[float, float]:
    """``(4-gram share, lexical coverage)`` of ``sentence`` by one passage's ``text``."""
    return fourgram_share(sentence, text), best_passage(sentence, text)[0]


def attributed(
    shares: tuple[float, float],
    fourgram_min: float = FOURGRAM_MIN,
    coverage_min: float = COVERAGE_MIN,
    beside_min: float = BESIDE_MIN,
) -> bool:
    """Whether ``(4-gram share, coverage)`` is enough to say a sentence was drawn from the passage: copied (the
    4-gram share), or reworded (the coverage, with some 4-grams beside it: sharing words is not saying the same)."""
    return shares[0] >= fourgram_min or (shares[1] >= coverage_min and shares[0] >= beside_min)


def attribute_sentence(
    sentence: str,
    passages: dict[int, tuple[str, str]],
    *,
    fourgram_min: float = FOURGRAM_MIN,
    coverage_min: float = COVERAGE_MIN,
    beside_min: float = BESIDE_MIN,
) -> Attribution:
    """The passage (label → (chunk id, text)) ``sentence`` was drawn from, or an unsupported attribution."""
    best: tuple[float, int, str] | None = None
    for label, (chunk_id, text) in passages.items():
        shares = score(sentence, text)
        if not numbers_hold(sentence, text) or not attributed(shares, fourgram_min, coverage_min, beside_min):
            continue
        value = max(shares)
        if best is None or value > best[0]:
            best = (value, label, chunk_id)
    if best is None:
        return Attribution(sentence, None, None, 0.0)
    return Attribution(sentence, best[1], best[2], round(best[0], 3))


def unmarked_claims(answer: str) -> list[str]:
    """The sentences of ``answer`` that carry no ``[n]`` marker and are long enough to be claims (asides in
    emphasis left out)."""
    return [
        s
        for s, numbers in sentences(answer)
        if not numbers and len(content_terms(s)) >= MIN_TERMS and not _ASIDE.match(s.strip())
    ]


def attribute(answer: str, passages: dict[int, tuple[str, str]]) -> list[Attribution]:
    """Every unmarked claim of ``answer`` with the passage it was drawn from (or none)."""
    return [attribute_sentence(s, passages) for s in unmarked_claims(answer)]
