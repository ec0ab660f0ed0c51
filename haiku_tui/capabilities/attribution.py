"""Attribution: the passage an answer's unmarked sentence was drawn from, for answers given search-first.

A small model handed numbered passages often copies or lightly rewords one ("You should …", "the starter" for "it",
"50 g flour", a clause of the question first) and writes no ``[n]``, or the wrong one (``[2]`` on a sentence copied
from ``[1]``, or a number no passage has). Each such sentence (one with a few content words: "Sure!" is no claim) is
scored against every passage the question was given, after its lead-in ("According to the passage, …") is dropped:

* the share of its word 4-grams the passage holds (copied text);
* over the passage's windows of two sentences, or more for a long sentence
  (:func:`~haiku_tui.capabilities.support.windows`): the share of its content words a window holds (the claim
  support check's coverage) and the share of its content-word pairs the window holds in the same order, at most one
  content word apart (reworded text keeps the content words' order, whatever it adds or drops between them).
  Each window is read with the line the passage was shown under (its title and headings): "it" in "add 50 g of
  flour to it" is what the title names, and a model that read "Feeding the sourdough starter" writes "the starter".

A sentence is attributed to the best-scoring passage when it was copied (4-gram share) or reworded (coverage and
pairs) and it agrees with the passage: every number it states is there ("1 cup of flour" is not drawn from "50 g of
flour"; "twice" is a number), every identifier it names (``__getattr__``, ``TypeError``; an acronym such as "IP" is
a word), and a window says what it says with the same polarity (a negation reaches two content words of its clause:
"is saved" is not drawn from "is not saved", nor "is not saved" from a window without a negation). Otherwise it
stays unsupported. The thresholds were chosen for precision on the DEV pairs of ``bench/bench_attribution.py``,
which hold light rewordings and hard negatives (the same words with a number, a negation or a noun changed): a wrong
attribution is worse than none. A noun swapped for another the same window holds ("press Enter" for "press c") still
passes. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from haiku_tui.capabilities.support import content_terms, coverage, sentences, windows

MIN_TERMS = 3
"""Content words a sentence needs to count as a claim to attribute."""
FOURGRAM_MIN = 0.8
"""Share of a sentence's word 4-grams a passage must hold to be where it was copied from."""
COVERAGE_MIN = 0.7
"""Share of a sentence's content words a window of a passage must hold to be where it was reworded from."""
PAIRS_MIN = 0.6
"""And the share of its ordered content-word pairs the window must hold beside that coverage."""

_WORD = re.compile(r"[a-z0-9]+")
_TOKEN = re.compile(r"[a-z0-9_]+(?:['’][a-z]+)?")
_ASIDE = re.compile(r"^([_*]).+\1$", re.S)
"""A sentence wholly in emphasis, such as the extractive model's closing note: an aside, not a claim."""
_LEAD_IN = re.compile(
    r"^\s*(?:(?:according to|based on|as (?:stated|said|described) in|from|in)\s+(?:the\s+)?(?:given\s+)?"
    r"(?:passages?|documents?|notes?|text|context|sources?)(?:\s*\[\d+\])?\s*[,:]\s*"
    r"|(?:the answer is|in short|in summary|to summari[sz]e|to answer your question)(?:\s+that)?\s*[,:]?\s+"
    r"|(?:you should know|note|remember) that\s+)",
    re.I,
)
_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate("zero once twice three four five six seven eight nine ten eleven twelve".split())
} | {"two": "2"}
_NUMBER = re.compile(r"(?<![a-z_])\d+(?:[.,]\d+)*|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
"""A number standing alone (not the 1 of ``expression1``), or written as a word ("two", "twice")."""
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z]+_\w*|_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]*[A-Z]\w*)\b")
"""A name from code or the documents: ``__getattr__``, ``HAIKU_TUI_MODEL``, ``casefold``'s ``TypeError``."""
_NEGATION = re.compile(r"not|no|never|cannot|neither|nor|without|\w+n['’]t")
_NEGATED_WORDS = 2
"""Content words after a negation that it negates, within its clause."""
_CLAUSE_MARK = re.compile(r"[,;:.!?()]|\b(?:and|or|but|so|because|then|while|although|whereas|which)\b")
"""Where a clause ends, and with it the reach of a negation."""
_CLAUSE = re.compile(r"(?<=[.!?:;])\s+")


class Scores(NamedTuple):
    """How one passage holds one sentence."""

    fourgrams: float
    """Share of the sentence's word 4-grams the passage holds."""
    coverage: float
    """Share of its content words the best agreeing window holds."""
    pairs: float
    """Share of its ordered content-word pairs that window holds."""
    agrees: bool
    """Its numbers and identifiers are in the passage and a window states it with the same polarity."""


@dataclass(frozen=True)
class Attribution:
    """One unmarked sentence of an answer and the passage it was drawn from (``label`` None: none found)."""

    sentence: str
    label: int | None
    chunk_id: str | None
    score: float


def without_lead_in(sentence: str) -> str:
    """``sentence`` without the lead-ins small models put first ("According to the passage, ", "In short, ")."""
    shorter = _LEAD_IN.sub("", sentence, count=1)
    return shorter if shorter == sentence else without_lead_in(shorter)


@lru_cache(maxsize=256)
def _fourgrams(text: str) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return frozenset(tuple(words[i : i + 4]) for i in range(len(words) - 3))


def fourgram_share(sentence: str, text: str) -> float:
    """Share of ``sentence``'s word 4-grams that ``text`` holds (0 for a sentence under four words)."""
    grams = _fourgrams(sentence)
    return len(grams & _fourgrams(text)) / len(grams) if grams else 0.0


def numbers(text: str) -> set[str]:
    """The numbers ``text`` states, number words as digits."""
    return {_NUMBER_WORDS.get(n.lower(), n) for n in _NUMBER.findall(text)}


def numbers_hold(sentence: str, text: str) -> bool:
    """Whether every number ``sentence`` states appears in ``text``."""
    return numbers(sentence) <= numbers(text)


def identifiers(sentence: str) -> list[str]:
    """The identifiers ``sentence`` names; an acronym in capitals ("IP", "CSV") is a word, not one."""
    return [name for name in _IDENTIFIER.findall(sentence) if not (name.isalpha() and name.isupper())]


def identifiers_hold(sentence: str, text: str) -> bool:
    """Whether every identifier ``sentence`` names appears in ``text`` as a whole word."""
    lowered = text.lower()
    return all(re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", lowered) for name in identifiers(sentence))


@lru_cache(maxsize=1024)
def _terms(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


@lru_cache(maxsize=1024)
def _pairs(text: str) -> frozenset[tuple[str, str]]:
    """Ordered pairs of content words of ``text`` at most one content word apart, within each of its sentences."""
    out: set[tuple[str, str]] = set()
    for part in _CLAUSE.split(text):
        terms = content_terms(part)
        out.update(zip(terms, terms[1:]))
        out.update(zip(terms, terms[2:]))
    return frozenset(out)


@lru_cache(maxsize=1024)
def _polarity(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """``(content words negated, content words stated, any negation)`` of ``text``: a negation reaches the next
    two content words of its clause ("not saved and the session stays": "saved" only)."""
    negated: set[str] = set()
    stated: set[str] = set()
    negative = False
    for clause in _CLAUSE_MARK.split(text.lower()):
        reach = 0
        for word in _TOKEN.findall(clause):
            if _NEGATION.fullmatch(word):
                negative, reach = True, _NEGATED_WORDS
            elif terms := content_terms(word):
                (negated if reach else stated).update(terms)
                reach = max(0, reach - 1)
    return frozenset(negated), frozenset(stated), negative


def polarity_agrees(sentence: str, window: str) -> bool:
    """Whether ``window`` states what ``sentence`` states with the same polarity: no word the sentence negates is
    only stated there, none it states is only negated there, and a negated sentence needs a negation there."""
    negated, stated, negative = _polarity(sentence)
    w_negated, w_stated, w_negative = _polarity(window)
    if negative and not w_negative:
        return False
    return not (negated & w_stated) - w_negated and not (stated & w_negated) - w_stated


def score(sentence: str, text: str, source: str = "") -> Scores:
    """How one passage's ``text`` holds ``sentence``; ``source``: the line it was shown under (its title and
    headings), whose words every window is read with ("it" in a window is what the title names)."""
    claim = without_lead_in(sentence)
    terms = content_terms(claim)
    pairs = list(zip(terms, terms[1:]))
    best: tuple[bool, float, float] = (False, 0.0, 0.0)
    for window in windows(text, len(claim.split())):
        covered = coverage(terms, set(_terms(window) | _terms(source)))
        held = _pairs(window) | _pairs(source)
        paired = sum(pair in held for pair in pairs) / len(pairs) if pairs else 0.0
        candidate = (polarity_agrees(claim, f"{source}. {window}" if source else window), covered, paired)
        if (candidate[0], candidate[1] + candidate[2]) > (best[0], best[1] + best[2]):
            best = candidate
    agrees = best[0] and numbers_hold(sentence, text) and identifiers_hold(claim, text)
    return Scores(fourgram_share(sentence, text), best[1], best[2], agrees)


def attributed(
    scores: Scores,
    fourgram_min: float = FOURGRAM_MIN,
    coverage_min: float = COVERAGE_MIN,
    pairs_min: float = PAIRS_MIN,
) -> bool:
    """Whether ``scores`` say the sentence was drawn from the passage: it agrees with it, and was copied (the
    4-gram share) or reworded (coverage with the content words' order kept: sharing words is not saying the same)."""
    return scores.agrees and (
        scores.fourgrams >= fourgram_min or (scores.coverage >= coverage_min and scores.pairs >= pairs_min)
    )


def strength(scores: Scores) -> float:
    """One figure to rank the passages that hold a sentence."""
    return max(scores.fourgrams, (scores.coverage + scores.pairs) / 2)


def attribute_sentence(
    sentence: str,
    passages: dict[int, tuple[str, str]],
    *,
    sources: dict[int, str] | None = None,
    fourgram_min: float = FOURGRAM_MIN,
    coverage_min: float = COVERAGE_MIN,
    pairs_min: float = PAIRS_MIN,
) -> Attribution:
    """The passage (label → (chunk id, text)) ``sentence`` was drawn from, or an unsupported attribution;
    ``sources``: label → the line each passage was shown under (:func:`score`)."""
    best: tuple[float, int, str] | None = None
    for label, (chunk_id, text) in passages.items():
        scores = score(sentence, text, (sources or {}).get(label, ""))
        if not attributed(scores, fourgram_min, coverage_min, pairs_min):
            continue
        value = strength(scores)
        if best is None or value > best[0]:
            best = (value, label, chunk_id)
    if best is None:
        return Attribution(sentence, None, None, 0.0)
    return Attribution(sentence, best[1], best[2], round(best[0], 3))


def unmarked_claims(answer: str, backs: Callable[[str, int], bool] | None = None) -> list[str]:
    """The sentences of ``answer`` that carry no ``[n]`` marker and are long enough to be claims (asides in
    emphasis left out); with ``backs(sentence, n)``, also those none of whose markers' passages hold them (small
    models put ``[2]`` on a sentence copied from ``[1]``, or a number no passage has)."""
    return [
        s
        for s, marks in sentences(answer)
        if (not marks or (backs is not None and not any(backs(s, n) for n in marks)))
        and len(content_terms(s)) >= MIN_TERMS
        and not _ASIDE.match(s.strip())
    ]


def attribute(
    answer: str,
    passages: dict[int, tuple[str, str]],
    sources: dict[int, str] | None = None,
    backs: Callable[[str, int], bool] | None = None,
) -> list[Attribution]:
    """Every unmarked claim of ``answer`` (with ``backs``, every wrongly marked one too: :func:`unmarked_claims`)
    with the passage it was drawn from (or none)."""
    return [attribute_sentence(s, passages, sources=sources) for s in unmarked_claims(answer, backs)]
