"""Which sentences an extractive answer quotes: the search results' sentences scored against the question.

:func:`select` weighs the question's terms in each sentence against its closeness in meaning (the built-in
static embeddings), prefers higher-ranked chunks, earlier sentences, the form that answers the kind of
question and the question's words held together as it holds them, keeps sentences that continue a quoted
one, and resolves a short follow-up against the question before it. Used by the ``extractive`` model
(``agent/extractive.py``); pure functions, no state.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from haiku_tui.store.proximity import held_pairs, pair_weights, query_pairs, term_places
from haiku_tui.store.sentences import normal_word, sentences, stem, terms, words

MAX_SENTENCES = 4
"""Sentences an answer quotes at most."""


@dataclass(frozen=True)
class Result:
    """One parsed search-result block."""

    chunk_id: str
    rank: int
    source: str
    text: str


@dataclass(frozen=True)
class Quote:
    """A sentence chosen for the answer."""

    chunk_id: str
    sentence: str
    score: float
    rank: int
    position: int


LEXICAL_WEIGHT = 1.0
SEMANTIC_WEIGHT = 1.0
PAIR_WEIGHT = 0.3  # the share of the question's word pairs a sentence holds together counts this much more in the
# order of the sentences (which is best, which are weighed next), not in the score the others are measured against;
# 0.1–0.5 won the same question on the tuning set, 0.7–1.0 nothing (measured with bench/tools/tune_extractive.py)
RANK_DECAY = 0.1  # a chunk ranked r counts 1 / (1 + RANK_DECAY * (r - 1))
POSITION_DECAY = 0.1  # the n-th sentence of a chunk counts 1 / (1 + POSITION_DECAY * n); halved to 0.05 for 1600-
# character chunks it won 2 quotes on the 55 old questions but lost on the 60 fresh ones
# (bench/tools/tune_extractive.py)
MIN_LEXICAL = 0.2  # below this share of the question's terms, a sentence needs MIN_SEMANTIC
MIN_WORDS_MEANING = 0.2  # and at or above it, this similarity: sharing a word is not being about the same thing
MIN_SEMANTIC = (
    0.3  # bench/sets/eval_questions.py OFF_TOPIC met at most 0.29, bar word-sense collisions (capital, strings)
)
MIN_QUOTED = 0.25  # once some sentence passes the floors above, others need only this similarity (or the two above)
EXTRA_SAME = 0.75  # a further sentence is quoted when it scores this share of the best one, and has this share of its
# weighted terms or is at least as close in meaning,
EXTRA_NEW_TERMS = 0.45  # or this share when it covers a question term the others do not
TOP_SOURCES = 2  # the best sentence of each of the first this-many ranked documents is quoted too
ROOM_SOURCES = 3  # and, in the room the answer still has at the end, of the documents ranked after them up to this one
SCAFFOLDING = frozenset(
    stem(w)
    for w in (
        "happen take took make made give gave come came go went look keep kept put try tried say said see saw"
    ).split()
)
"""Light verbs that frame a question ("what happens if", "how do I make", "can I look at") rather than name what
it is about: not weighed as its terms (unless it has no others), so they neither dilute nor pick its sentences."""
CONTINUATIONS = frozenset("it its this these those they their such otherwise however thus then also".split())
"""A sentence opening with one of these continues the one before it: a quoted sentence brings along
the next sentence when that one continues it, and the sentence before it when it is itself a continuation."""


def _similarities(question: str, texts: list[str]) -> list[float]:
    """Cosine similarity of ``question`` to each text with the built-in offline embedder (zeros without it)."""
    try:
        from haiku_tui.store.offline_embedder import embed_texts
    except ImportError:  # pragma: no cover - wordllama is a dependency
        return [0.0] * len(texts)
    vectors = embed_texts([question, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]


def _pair_shares(question: str, texts: list[str]) -> list[float]:
    """Each text's share of the question's consecutive word pairs it holds together ("getattr or getattribute",
    "progress bar"), each pair weighted by its rarity among ``texts`` (``store/proximity.py``)."""
    pairs = query_pairs(question)
    held = [held_pairs(pairs, term_places(text)) for text in texts]
    weight = pair_weights(pairs, held)
    total = sum(weight.values())
    return [sum(weight[p] for p in h) / total if total else 0.0 for h in held]


def _document(result: Result) -> str:
    """The document a result comes from: its source label up to the heading path."""
    return result.source.split("›")[0].strip()


def select(question: str, results: list[Result], limit: int | None = None, context: str = "") -> list[Quote]:
    """The 1–``limit`` sentences that best answer ``question``, in reading order.

    Each sentence is scored by the question terms it contains (stemmed, weighted like IDF over the
    returned chunks) plus its meaning's closeness to the question (static embeddings of the
    sentence with its section heading), preferring higher-ranked chunks, earlier sentences of a
    section and sentences of reasonable length; the question's consecutive word pairs a sentence holds
    together (``PAIR_WEIGHT``) move it up the order without raising the score the others are measured
    against. A sentence that shares few terms with the question must be close to it in meaning to be
    chosen, and one that shares them must not be far from it in meaning (a shared word alone is not an
    answer). Besides the best sentences overall, the
    best sentence of each of the ``TOP_SOURCES`` highest-ranked documents is quoted; sentences that
    continue a quoted one (or that a quoted continuation points back to) fill the room left, then the best
    sentence of the documents ranked next, up to the ``ROOM_SOURCES``-th.
    ``context``: the question a follow-up leans on; its terms count ``CONTEXT_WEIGHT`` of their weight (all of
    it when the follow-up has no terms of its own).
    """
    limit = MAX_SENTENCES if limit is None else limit
    if context and not terms(question):  # "and what is it about?": the question it follows says what about
        question, context = f"{question} {context}", ""
    q_terms = list(dict.fromkeys(terms(question))) or list(dict.fromkeys(stem(w) for w in words(question)))
    q_terms = [t for t in q_terms if t not in SCAFFOLDING] or q_terms
    if not q_terms or not results:
        return []
    chunk_terms = [set(terms(r.text)) | set(terms(r.source)) for r in results]
    n = len(results)
    idf = {t: math.log(1 + (n + 1) / (sum(t in ct for ct in chunk_terms) + 0.5)) for t in q_terms}
    total = sum(idf.values())
    for term in dict.fromkeys(terms(context)):
        if term not in idf:  # the question a follow-up leans on: its words count, less than the question's own
            idf[term] = CONTEXT_WEIGHT * math.log(1 + (n + 1) / (sum(term in ct for ct in chunk_terms) + 0.5))
            q_terms.append(term)
    found: list[tuple[Result, int, str, frozenset[str]]] = []
    seen: set[str] = set()
    for result in results:
        for position, sentence in enumerate(sentences(result.text)):
            key = " ".join(sentence.lower().split())
            if key in seen:
                continue
            seen.add(key)
            present = set(terms(sentence))
            found.append((result, position, sentence, frozenset(t for t in q_terms if t in present)))
    if not found:
        return []
    pair_shares = _pair_shares(question, [s for _, _, s, _ in found])
    kind = question_kind(question)
    heading = {r.chunk_id: r.source.split("›")[-1].strip() for r in results}
    meaning = _similarities(question, [f"{heading[r.chunk_id]}: {s}" for r, _, s, _ in found])
    candidates: list[tuple[Quote, frozenset[str], tuple[float, float]]] = []  # quote, terms, (lexical, semantic)
    answerable = False
    paired: dict[tuple[str, int], float] = {}  # the score with the pairs, that orders the candidates
    for (result, position, sentence, matched), semantic, pair_share in zip(found, meaning, pair_shares):
        lexical = sum(idf[t] for t in matched) / total
        shares_words = lexical >= MIN_LEXICAL and semantic >= MIN_WORDS_MEANING
        if not shares_words and semantic < MIN_QUOTED:
            continue
        answerable = answerable or shares_words or semantic >= MIN_SEMANTIC
        rank_weight = 1.0 / (1.0 + RANK_DECAY * (max(result.rank, 1) - 1))
        length_weight = 1.0 / (1.0 + max(0, len(words(sentence)) - 40) / 40)
        position_weight = 1.0 / (1.0 + POSITION_DECAY * position)
        cue_weight = 1.0 + ANSWER_CUE * answers_kind(kind, sentence)
        weight = rank_weight * length_weight * position_weight * cue_weight
        score = (LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * max(semantic, 0.0)) * weight
        paired[(result.chunk_id, position)] = score + PAIR_WEIGHT * pair_share * weight
        candidates.append(
            (Quote(result.chunk_id, sentence, score, result.rank, position), matched, (lexical, semantic))
        )
    if not answerable:
        return []
    candidates.sort(key=lambda c: (-paired[(c[0].chunk_id, c[0].position)], c[0].rank, c[0].position))
    best, best_terms, (best_lexical, best_semantic) = candidates[0]
    document = {r.chunk_id: _document(r) for r in results}
    ranked_documents = list(dict.fromkeys(_document(r) for r in sorted(results, key=lambda r: r.rank)))
    chosen = [best]
    covered = set(best_terms)
    # the sentence after the best one, when it passed the floors too: it completes or qualifies what the best one says
    after = next((c for c in candidates if c[0].chunk_id == best.chunk_id and c[0].position == best.position + 1), None)
    if after is not None and limit > 1:
        chosen.append(after[0])
        covered.update(after[1])

    def quote_sources(wanted: list[str]) -> None:
        """The best sentence of each ``wanted`` document that has none quoted yet, while there is room."""
        for doc in wanted:
            if len(chosen) < limit and all(document[q.chunk_id] != doc for q in chosen):
                extra = next((c for c in candidates if document[c[0].chunk_id] == doc), None)
                if extra is not None:
                    chosen.append(extra[0])
                    covered.update(extra[1])

    quote_sources(ranked_documents[:TOP_SOURCES])
    for quote, matched, (lexical, semantic) in candidates[1:]:
        if len(chosen) >= limit:
            break
        if quote in chosen:
            continue
        new_terms = matched - covered
        close = (
            lexical >= EXTRA_SAME * best_lexical or semantic >= best_semantic
        )  # in words, or at least as close in meaning
        same = quote.score >= EXTRA_SAME * best.score and close
        if same or (new_terms and quote.score >= EXTRA_NEW_TERMS * best.score):
            chosen.append(quote)
            covered |= matched
    # the sentences that continue a quoted one, or that a quoted continuation points back to, while there is room
    by_place = {(r.chunk_id, position): sentence for r, position, sentence, _ in found}
    placed = {(q.chunk_id, q.position) for q in chosen}
    for quote in list(chosen):
        for neighbour in continued(quote, by_place):
            if len(chosen) < limit and (neighbour.chunk_id, neighbour.position) not in placed:
                chosen.append(neighbour)
                placed.add((neighbour.chunk_id, neighbour.position))
    quote_sources(ranked_documents[TOP_SOURCES:ROOM_SOURCES])  # the room still left: the next documents' best
    order = {r.chunk_id: i for i, r in enumerate(results)}
    return sorted(chosen, key=lambda q: (order.get(q.chunk_id, 0), q.position))


ANSWER_CUE = 0.4  # a sentence in the form that answers the kind of question counts this much more
_HOW = re.compile(r"^\s*(how (do|can|should|would) (i|you|we)|how to)\b", re.I)
_AMOUNT = re.compile(r"^\s*(how (many|much|long|often|big|large|old)|when|what (time|year|size))\b", re.I)
_INSTRUCTION = re.compile(
    r"^(to|use|press|run|call|pass|set|add|create|return|type|open|install|import|write|define|specify|give|put|choose)\b",
    re.I,
)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twice|once|hundred|thousand)\b", re.I)


def question_kind(question: str) -> str:
    """``"how"`` (asks for a procedure), ``"amount"`` (a number, a duration, a time) or ``""``."""
    if _HOW.search(question):
        return "how"
    if _AMOUNT.search(question):
        return "amount"
    return ""


def answers_kind(kind: str, sentence: str) -> bool:
    """Whether a sentence has the form that answers a question of ``kind``: an instruction, a number."""
    if kind == "how":
        return bool(_INSTRUCTION.match(sentence))
    if kind == "amount":
        return bool(_NUMBER.search(sentence))
    return False


def continued(quote: Quote, by_place: dict[tuple[str, int], str]) -> list[Quote]:
    """The next sentence of ``quote``'s chunk when it continues ``quote``, and the one before when ``quote``
    itself is a continuation (``by_place``: the sentences of the results by chunk and position)."""
    out = []
    after = by_place.get((quote.chunk_id, quote.position + 1))
    if after is not None and continues(after):
        out.append(Quote(quote.chunk_id, after, quote.score, quote.rank, quote.position + 1))
    before = by_place.get((quote.chunk_id, quote.position - 1))
    if before is not None and continues(quote.sentence):
        out.append(Quote(quote.chunk_id, before, quote.score, quote.rank, quote.position - 1))
    return out


_POINTS_BACK = frozenset("it its that this these those they them their there same".split())
_FOLLOW_UP_OPENING = re.compile(r"^\s*(and|also|what about|how about|then|so)\b", re.I)
FOLLOW_UP_TERMS = 5
"""A question with at most this many terms of its own and a word that points back ("it", "they") is a follow-up."""
CONTEXT_WEIGHT = 0.5
"""What the words of the question a follow-up leans on count in choosing its sentences, against its own."""


def is_follow_up(question: str) -> bool:
    """Whether ``question`` leans on the one before it: it opens as a continuation ("and …", "what about …"),
    whatever its length, or it has few words of its own and one that points back."""
    if _FOLLOW_UP_OPENING.match(question):
        return True
    return len(set(terms(question))) <= FOLLOW_UP_TERMS and any(normal_word(w) in _POINTS_BACK for w in words(question))


def leaned_on(question: str, previous: str) -> str:
    """The question before ``question`` when ``question`` is a follow-up that leans on it, else ``""``."""
    return previous if previous and is_follow_up(question) else ""


def search_query(question: str, previous: str) -> str:
    """What to search for: the question, and for a follow-up also the question it follows (as a careful model
    would resolve "it" before searching)."""
    return " ".join(f"{question} {leaned_on(question, previous)}".split())


def continues(sentence: str) -> bool:
    """Whether ``sentence`` opens with a word that points back at the sentence before it."""
    first = words(sentence[:40])
    return bool(first) and normal_word(first[0]) in CONTINUATIONS
