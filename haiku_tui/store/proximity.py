"""Term proximity: the question's words that stand together ("progress bar", "context manager") standing
together in a chunk, rather than scattered over a catch-all page.

A pair is two consecutive content terms of the question (stop words dropped, stemmed as the sentence
terms are); a chunk holds it when the two stand at most ``WINDOW`` words apart in its text, in either
order. Each pair counts by its rarity among the candidates, as BM25 counts a term (Robertson–Spärck Jones):
a pair most candidates hold ("pip install" in every README) counts nothing.
"""

from __future__ import annotations

import collections
import math
import threading

from .sentences import QUERY_STOP_WORDS, STOPWORDS, stem, words

WINDOW = 3  # two terms stand together when at most this many words apart (1: next to each other)
CACHE = 8192  # chunks whose term places are kept in memory


def query_pairs(query: str) -> list[tuple[str, str]]:
    """The distinct pairs of consecutive content terms of ``query``, stemmed, in the question's order."""
    kept = [w.replace("'", "").replace("’", "") for w in words(query.lower())]
    stems = [stem(w) for w in kept if w not in STOPWORDS and w not in QUERY_STOP_WORDS]
    return list(dict.fromkeys((a, b) for a, b in zip(stems, stems[1:]) if a != b))


def term_places(text: str) -> dict[str, list[int]]:
    """Each stemmed word of ``text`` with the places it stands, ascending (stop words take a place too)."""
    out: collections.defaultdict[str, list[int]] = collections.defaultdict(list)
    for place, term in enumerate(map(stem, words(text))):
        out[term].append(place)
    return dict(out)


def together(first: list[int], second: list[int], window: int) -> bool:
    """Whether a place in ``first`` and one in ``second`` (both ascending) are at most ``window`` apart."""
    i = j = 0
    while i < len(first) and j < len(second):
        if abs(second[j] - first[i]) <= window:
            return True
        if first[i] < second[j]:
            i += 1
        else:
            j += 1
    return False


_lock = threading.Lock()
_cache: collections.OrderedDict[tuple[str, str], dict[str, list[int]]] = collections.OrderedDict()


def _chunk_places(row: dict) -> dict[str, list[int]]:
    """:func:`term_places` of a chunk row's text, cached by its id and text."""
    key = (row["id"], row["text"])
    with _lock:
        cached = _cache.get(key)
    if cached is None:
        cached = term_places(row["text"])
        with _lock:
            _cache[key] = cached
            if len(_cache) > CACHE:
                _cache.popitem(last=False)
    return cached


def proximity_scores(query: str, rows: list[dict]) -> list[float]:
    """For each chunk row, the summed rarity among ``rows`` of the question's term pairs it holds together."""
    pairs = query_pairs(query)
    if not pairs or not rows:
        return [0.0] * len(rows)
    held = [held_pairs(pairs, _chunk_places(row)) for row in rows]
    weight = pair_weights(pairs, held)
    return [sum(weight[p] for p in h) for h in held]


def held_pairs(pairs: list[tuple[str, str]], places: dict[str, list[int]]) -> set[tuple[str, str]]:
    """The ``pairs`` whose two terms stand together (at most ``WINDOW`` words apart) in a text's ``places``."""
    return {(a, b) for a, b in pairs if a in places and b in places and together(places[a], places[b], WINDOW)}


def pair_weights(pairs: list[tuple[str, str]], held: list[set[tuple[str, str]]]) -> dict[tuple[str, str], float]:
    """Each pair's rarity among texts holding ``held`` (Robertson–Spärck Jones, none below zero): a pair half the
    texts hold counts nothing."""
    n = len(held)
    df = {p: sum(p in h for h in held) for p in pairs}
    return {p: max(0.0, math.log((n - df[p] + 0.5) / (df[p] + 0.5))) for p in pairs}


def by_proximity(query: str, rows: list[dict]) -> list[dict]:
    """``rows`` holding a pair of the question's terms together that counts, best first (ties keep their order)."""
    scores = proximity_scores(query, rows)
    return [rows[i] for i in sorted(range(len(rows)), key=lambda i: -scores[i]) if scores[i] > 0]


def clear_cache() -> None:
    """Forget every chunk's term places."""
    with _lock:
        _cache.clear()
