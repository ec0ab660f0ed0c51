"""Claim support: how well each sentence that carries ``[n]`` is backed by the chunk it cites.

Pure functions over an answer's text and the state map (no I/O). The score combines lexical
evidence (how much of the claim's content the chunk's best-matching passage contains) with an
optional embedding similarity between the claim and that passage; a claim scoring under the
threshold is *weak support*. A marker whose number no citation gave has nothing to score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from haiku_tui.capabilities.ledger import evidence_namespaces

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]

WEAK_BELOW = 0.52
WEAK_BELOW_LEXICAL = 0.43
"""Claims scoring under these (with / without an embedder) are flagged "weak support"; both were
chosen on the dev pairs by ``bench/bench_support.py``."""

_MARKER = re.compile(r"\[(\d{1,4})\]")
_TRAILING_MARKERS = re.compile(r"([.!?])((?:\s*\[\d{1,4}\])+)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*] )")
_WORD = re.compile(r"[a-z0-9_]+(?:'[a-z]+)?")
_STOP = frozenset(
    """a about above after again all also an and any are as at be because been before being below
    between both but by can could did do does doing down during each either else few for from further
    had has have having here how i if in into is it its itself just may might more most must no nor
    not now of off on once only or other our out over own same shall should so some such than that the
    their them then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your""".split()
)


@dataclass(frozen=True)
class ClaimSupport:
    """One cited claim: the sentence (markers removed), the number it cites and how well it is backed."""

    sentence: str
    number: int
    chunk_id: str | None  # None: no citation has this number
    lexical: float
    semantic: float | None
    score: float
    weak: bool
    by: str = "model"
    """Who tied the sentence to the chunk: ``"model"`` (its ``[n]``) or ``"haiku-tui"`` (attributed)."""


def sentences(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """Every sentence of ``answer`` with the numbers of the ``[n]`` markers it carries (markers removed)."""
    out: list[tuple[str, tuple[int, ...]]] = []
    for raw in _SENTENCE_END.split(_TRAILING_MARKERS.sub(r"\2\1", answer)):
        numbers = tuple(dict.fromkeys(int(n) for n in _MARKER.findall(raw)))
        sentence = re.sub(r"\s+([.!?,;:])", r"\1", " ".join(_MARKER.sub("", raw).split())).strip(" -*")
        if sentence:
            out.append((sentence, numbers))
    return out


def claims(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """The sentences of ``answer`` that carry ``[n]`` markers, with their numbers (markers removed)."""
    return [(sentence, numbers) for sentence, numbers in sentences(answer) if numbers]


def _stem(word: str) -> str:
    for suffix in ("ing", "edly", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> list[str]:
    """Lower-cased, lightly stemmed content words of ``text`` (stop words dropped)."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]


def windows(text: str, words: int = 0) -> list[str]:
    """The chunk's sentences, each with its neighbour (claims often paraphrase two sentences), and with more of the
    following ones while they hold fewer than ``words`` words (a long claim needs a window as long)."""
    parts = [p for p in re.split(r"(?<=[.!?:])\s+|\n\s*\n", text) if p.strip()]
    if len(parts) <= 1:
        return [text]
    out = []
    for i in range(len(parts) - 1):
        end = i + 2
        while end < len(parts) and len(" ".join(parts[i:end]).split()) < words:
            end += 1
        out.append(" ".join(parts[i:end]))
    return out


def coverage(terms: list[str], passage: set[str]) -> float:
    """Share of the claim's terms found in a passage, a term matching also by a 5-letter prefix."""
    if not terms:
        return 0.0
    prefixes = {t[:5] for t in passage if len(t) >= 5}
    found = sum(1.0 if t in passage else 0.7 if len(t) >= 5 and t[:5] in prefixes else 0.0 for t in terms)
    return found / len(terms)


def best_passage(claim: str, chunk_text: str) -> tuple[float, str]:
    """The lexical support of ``claim`` by ``chunk_text`` and the passage that gives it."""
    terms = content_terms(claim)
    best, where = 0.0, chunk_text
    for passage in windows(chunk_text):
        score = coverage(terms, set(content_terms(passage)))
        if score > best:
            best, where = score, passage
    return best, where


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


LEXICAL_WEIGHT = 0.3
"""Weight of lexical coverage against embedding similarity (chosen on the dev pairs)."""


def support_score(claim: str, chunk_text: str, embed: Embed | None = None) -> tuple[float, float | None, float]:
    """``(lexical, semantic, combined)`` support of one claim by one chunk's text.

    Semantic support is the claim's best cosine similarity to any passage of the chunk.
    """
    lexical, _ = best_passage(claim, chunk_text)
    if embed is None:
        return lexical, None, lexical
    claim_vec, *passage_vecs = embed([claim, *windows(chunk_text)])
    semantic = max(0.0, max(_cosine(claim_vec, v) for v in passage_vecs))
    return lexical, semantic, LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * semantic


def citation_texts(state: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """Citation number → (chunk id, text) across every evidence namespace."""
    return {
        entry["index"]: (chunk_id, entry.get("text") or "")
        for namespace in evidence_namespaces(state).values()
        for chunk_id, entry in namespace["citation_index"].items()
    }


def check_answer(
    answer: str,
    state: dict[str, Any],
    *,
    embed: Embed | None = None,
    threshold: float | None = None,
    cited: dict[int, tuple[str, str]] | None = None,
) -> list[ClaimSupport]:
    """Every cited claim of ``answer`` scored against the chunk its number points to (``cited``: the state's
    :func:`citation_texts`, when the caller scores many answers)."""
    if threshold is None:
        threshold = WEAK_BELOW if embed is not None else WEAK_BELOW_LEXICAL
    cited = citation_texts(state) if cited is None else cited
    out: list[ClaimSupport] = []
    for sentence, numbers in claims(answer):
        for number in numbers:
            chunk_id, text = cited.get(number, (None, ""))
            if chunk_id is None:
                out.append(ClaimSupport(sentence, number, None, 0.0, None, 0.0, True))
                continue
            lexical, semantic, score = support_score(sentence, text, embed)
            out.append(ClaimSupport(sentence, number, chunk_id, lexical, semantic, score, score < threshold))
    return out


def support_lines(results: list[ClaimSupport]) -> list[str]:
    """Markdown lines for an export, under the answer: each weak claim, its number and score (none when
    every cited claim is supported). The sentence is model text: the export's sanitiser applies to it."""
    weak = [claim for claim in results if claim.weak]
    if not weak:
        return []
    lines = [f"**Claim support:** {len(weak)} of {len(results)} cited claim(s) weakly supported", ""]
    for claim in weak:
        why = "no citation has this number" if claim.chunk_id is None else f"score {claim.score:.2f}"
        lines.append(f"- ⚠ [{claim.number}] {why}: {' '.join(claim.sentence.split())[:300]}")
    return lines
