"""Precision of search-first attribution: is an unmarked sentence tied to the passage it came from, and only then?

    python -m bench.bench_attribution

Ingests the pydoc topics and the bundled guide (two corpora) into a temporary knowledge base. For every pair
of ``bench/sets/support_pairs.py`` the passages are the top five for the pair's claim, and nine sentences are
attributed against them (``bench/sets/attribution_pairs.py``): five drawn from the supporting chunk (copied,
reworded, lightly reworded, led in, terse) and four hard negatives (wrong, edited, wrong and led in, unrelated).
Three more are attributed against the top five for the pair's question (``bench/sets/question_pairs.py``, written
blind to the rule): an answer that restates the question and then gives the chunk's fact (echo), one that gives a
fact the chunk does not support (echo, wrong), and the question restated as a claim (echo only).
An attribution is right when it names the supporting chunk of a sentence drawn from it; anything else it names is
wrong. The thresholds (4-gram share; coverage and ordered content-word pairs) are chosen on the DEV pairs: the
most sentences attributed with a precision of at least ``TARGET``; TEST is only reported, beside the plain "most
shared 4-grams" rule and the shipped rule without its agreement checks.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.corpora.pydoc import write_corpus
from bench.sets.attribution_pairs import (
    EDITED_DEV,
    EDITED_TEST,
    LEAD_INS,
    LIGHT_DEV,
    LIGHT_TEST,
    UNRELATED,
    WRONG_DEV,
    WRONG_TEST,
)
from bench.sets.question_pairs import QUESTION_DEV, QUESTION_TEST, QuestionEntry
from bench.sets.support_pairs import DEV, TEST, Pair
from haiku_tui.capabilities import attribution
from haiku_tui.store import KnowledgeBase
from haiku_tui.store.records import chunk_label

GUIDE = Path(__file__).resolve().parent.parent / "haiku_tui" / "guide"
KINDS = (
    "copied", "reworded", "light", "led in", "terse", "echo",
    "wrong", "edited", "wrong, led in", "unrelated", "echo, wrong", "echo only",
)
TARGET = 0.97
"""Precision the DEV thresholds must reach: DEV holds 24 pairs, and 0.95 chose thresholds that let in edited
negatives (a wrong attribution is worse than none)."""
SHIPPED = (attribution.FOURGRAM_MIN, attribution.COVERAGE_MIN, attribution.PAIRS_MIN)


@dataclass(frozen=True)
class Case:
    sentence: str
    kind: str
    right: frozenset[str]  # the passages holding the pair's phrase (copied / reworded); empty: none is right
    passages: dict[int, tuple[str, str]]
    scores: dict[int, attribution.Scores]  # label → how that passage holds the sentence


def _norm(text: str) -> str:
    return " ".join(text.split())


def chunk_of(kb: KnowledgeBase, stem: str, phrase: str) -> tuple[str, str]:
    for doc in kb.documents():
        if Path(doc.path).stem == stem:
            for chunk in kb.document_chunks(doc.id):
                if _norm(phrase) in _norm(chunk.text):
                    return chunk.chunk_id, chunk.text
    raise SystemExit(f"no chunk of {stem!r} contains {phrase!r}")


def copied_sentence(text: str, phrase: str) -> str:
    """The sentence of ``text`` holding the start of ``phrase``, as a model copies it."""
    flat = _norm(text)
    at = flat.index(_norm(phrase))
    start = max(flat.rfind(". ", 0, at) + 2, 0) if flat.rfind(". ", 0, at) >= 0 else 0
    end = flat.find(". ", at)
    return flat[start : end + 1 if end >= 0 else len(flat)].strip()


def led_in(sentence: str, i: int) -> str:
    """``sentence`` after the ``i``-th lead-in (cycled), its first letter lowered unless it starts a name."""
    head = sentence[:1].lower() if sentence[1:2].islower() else sentence[:1]
    return LEAD_INS[i % len(LEAD_INS)] + head + sentence[1:]


def terse(sentence: str) -> str:
    """``sentence`` without its articles, as small models drop them ("press c in evidence pane")."""
    kept = " ".join(w for w in sentence.split() if w.lower() not in ("a", "an", "the"))
    return kept[:1].upper() + kept[1:]


def cases(
    kb: KnowledgeBase,
    pairs: list[Pair],
    wrong: list[str],
    light: list[str],
    edited: list[str],
    questions: list[QuestionEntry],
    *,
    sources: bool = True,
) -> list[Case]:
    """Every sentence of every pair with its passages scored (``sources``: each read under the line the model saw
    it under, its title and headings, as the product does). The three question kinds are attributed against the top
    five for the pair's question, the others against the top five for the pair's claim."""
    out = []
    for i, (claim, (stem, phrase), _) in enumerate(pairs):
        _, text = chunk_of(kb, stem, phrase)
        question, echo, echo_wrong, echo_only = questions[i]
        copied = copied_sentence(text, phrase)
        for query, sentences in (
            (claim, {
                "copied": (copied, True),
                "reworded": (claim, True),
                "light": (light[i], True),
                "led in": (led_in(copied, i), True),
                "terse": (terse(copied), True),
                "wrong": (wrong[i], False),
                "edited": (edited[i], False),
                "wrong, led in": (led_in(wrong[i], i + 2), False),
                "unrelated": (UNRELATED[i % len(UNRELATED)], False),
            }),
            (question, {"echo": (echo, True), "echo, wrong": (echo_wrong, False), "echo only": (echo_only, False)}),
        ):
            hits = kb.search(query, limit=5)
            passages = {n: (h.chunk_id, h.text) for n, h in enumerate(hits, start=1)}
            labels = {n: chunk_label(h.title, h.headings) if sources else "" for n, h in enumerate(hits, start=1)}
            found = frozenset(c for c, t in passages.values() if _norm(phrase) in _norm(t))
            for kind, (sentence, drawn) in sentences.items():
                scores = {n: attribution.score(sentence, t, labels[n]) for n, (_, t) in passages.items()}
                out.append(Case(sentence, kind, found if drawn else frozenset(), passages, scores))
    return out


def decide(case: Case, rule: tuple[float, float, float], agree: bool = True) -> str | None:
    """The chunk the rule attributes ``case`` to (the same choice as :func:`attribution.attribute_sentence`);
    ``agree=False``: without the agreement checks (numbers, identifiers, polarity)."""
    best = None
    for n, scores in case.scores.items():
        if not attribution.attributed(scores if agree else scores._replace(agrees=True), *rule):
            continue
        if best is None or attribution.strength(scores) > best[0]:
            best = (attribution.strength(scores), case.passages[n][0])
    return best[1] if best else None


def most_fourgrams(case: Case) -> str | None:
    """The rule measured by hand in the issue: the passage sharing the most word 4-grams (any at all)."""
    n, scores = max(case.scores.items(), key=lambda item: item[1].fourgrams)
    return case.passages[n][0] if scores.fourgrams > 0 else None


def tally(rows: list[Case], chosen) -> dict[str, float]:
    made = [(case, chosen(case)) for case in rows]
    attributed = [(case, got) for case, got in made if got is not None]
    right = sum(got in case.right for case, got in attributed)
    reachable = sum(bool(case.right) for case in rows)
    out = {
        "attributed": len(attributed),
        "precision": right / len(attributed) if attributed else 1.0,
        "recall": right / reachable if reachable else 1.0,
    }
    for kind in KINDS:
        of_kind = [got for case, got in made if case.kind == kind]
        out[kind] = sum(got is not None for got in of_kind) / len(of_kind)
    return out


def choose(rows: list[Case]) -> tuple[float, float, float]:
    """The thresholds that attribute the most sentences at precision ≥ TARGET (the highest ones on a tie)."""
    best = (-1.0, 0.0, SHIPPED)
    for fourgram in [x / 20 for x in range(20, 7, -1)]:
        for coverage in [x / 20 for x in range(20, 9, -1)]:
            for pairs in [x / 20 for x in range(20, -1, -1)]:
                t = tally(rows, lambda c, rule=(fourgram, coverage, pairs): decide(c, rule))
                if t["precision"] >= TARGET and t["recall"] > best[0]:
                    best = (t["recall"], t["precision"], (fourgram, coverage, pairs))
    return best[2]


def main() -> None:
    sets = {"dev": (DEV, WRONG_DEV, LIGHT_DEV, EDITED_DEV, QUESTION_DEV),
            "test": (TEST, WRONG_TEST, LIGHT_TEST, EDITED_TEST, QUESTION_TEST)}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(Path(tmp) / "corpus")
        with KnowledgeBase.open(Path(tmp) / "kb.lancedb") as kb:
            kb.add([*corpus, *sorted(GUIDE.glob("*.md"))])
            scored = {name: cases(kb, *data) for name, data in sets.items()}
            bare = {name: cases(kb, *data, sources=False) for name, data in sets.items()}  # no source lines
    fourgram, coverage, pairs = choose(scored["dev"])
    print(
        f"chosen on DEV: 4-gram share ≥ {fourgram:.2f}, or coverage ≥ {coverage:.2f} with ordered pairs ≥ {pairs:.2f}"
        f" (shipped: {SHIPPED})"
    )
    print(f"| set | rule | sentences | attributed | precision | recall | {' | '.join(KINDS)} |")
    print("|---|---|---:|---:|---:|---:|" + "---:|" * len(KINDS))
    rules = {
        "shipped": lambda c: decide(c, SHIPPED),
        "shipped, no agreement checks": lambda c: decide(c, SHIPPED, agree=False),
        "most shared 4-grams": most_fourgrams,
    }
    for name, rows in scored.items():
        variants = [(rule, chosen, rows) for rule, chosen in rules.items()]
        variants += [("shipped, no source line", rules["shipped"], bare[name])]
        for rule, chosen, rows_scored in variants:
            t = tally(rows_scored, chosen)
            shares = " | ".join(f"{t[k]:.2f}" for k in KINDS)
            figures = f"{t['attributed']} | {t['precision']:.2f} | {t['recall']:.2f}"
            print(f"| {name} | {rule} | {len(rows_scored)} | {figures} | {shares} |")


if __name__ == "__main__":
    main()
