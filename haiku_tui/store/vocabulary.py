"""The knowledge base's own words, for the query words it lacks.

A query word whose stem occurs nowhere in the knowledge base cannot match a chunk's text, so it is
mapped to its nearest words of the knowledge base's vocabulary by the offline embedder's token
vectors ("reply" → "response", "chat" → "conversation"). Words the knowledge base holds are never
touched: what already matches costs nothing. The vocabulary is read once per table version; its
vectors are computed only when a query first has a word to map.
"""

from __future__ import annotations

import itertools
import re
import threading
import weakref
from typing import Any

from .sentences import STOPWORDS, stem

NEIGHBOURS = 1  # nearest vocabulary words taken for each missing query word
MIN_SIMILARITY = 0.6  # cosine similarity a neighbour needs (token vectors; unrelated words sit below 0.45)
PREFIX = 5  # a vocabulary word sharing this many first letters with the missing word is not taken
MAX_ROWS = 20_000  # past this many chunks the vocabulary is not read (its vectors would cost seconds)
MIN_LENGTH = 3  # shorter query words (a letter, "py") are not mapped

_WORD = re.compile(r"[a-z]{3,}")
_lock = threading.Lock()


class Vocabulary:
    """The distinct words (lower case, three letters or more, stopwords dropped) of a table's text."""

    def __init__(self, texts: list[str]) -> None:
        found: set[str] = set()
        for text in texts:
            found.update(_WORD.findall(text.lower()))
        self.words = sorted(found - STOPWORDS)
        self.stems = frozenset(map(stem, self.words))
        self._vectors: Any = None

    def vectors(self) -> Any:
        """Unit vectors of :attr:`words` (computed on first use)."""
        if self._vectors is None:
            from .wordllama_model import embed_texts

            self._vectors = embed_texts(self.words)
        return self._vectors

    def missing(self, query: str) -> list[str]:
        """The query's content words whose stem the vocabulary lacks."""
        words = dict.fromkeys(w for w in _WORD.findall(query.lower()) if w not in STOPWORDS and len(w) >= MIN_LENGTH)
        return [w for w in words if stem(w) not in self.stems]

    def neighbours(self, query: str) -> list[str]:
        """For each missing query word, its nearest vocabulary words at ``MIN_SIMILARITY`` or more."""
        missing = self.missing(query)
        if not missing or not self.words:
            return []
        import numpy as np

        from .wordllama_model import embed_texts

        # einsum, not a BLAS product: BLAS threads spin for ms on a busy machine at this size
        similarity = np.einsum("ij,kj->ik", embed_texts(missing), self.vectors())
        out: list[str] = []
        for word, row in zip(missing, similarity):
            # a word of the same root ("alphabet" for "alphabetically") is morphology, not a synonym
            ranked = (i for i in np.argsort(-row, kind="stable") if self.words[i][:PREFIX] != word[:PREFIX])
            top = itertools.islice(ranked, NEIGHBOURS)
            out.extend(self.words[i] for i in top if row[i] >= MIN_SIMILARITY)
        return list(dict.fromkeys(out))


_cache: weakref.WeakKeyDictionary[Any, tuple[int, Vocabulary]] = weakref.WeakKeyDictionary()


def vocabulary(chunks: Any, column: str, version: int) -> Vocabulary:
    """The vocabulary of ``column`` of the chunks table, read once per table version (empty past ``MAX_ROWS``)."""
    with _lock:
        cached = _cache.get(chunks)
        if cached is None or cached[0] != version:
            texts = []
            if chunks.count_rows() <= MAX_ROWS:
                texts = chunks.search().select([column]).limit(None).to_arrow().column(column).to_pylist()
            cached = (version, Vocabulary([t for t in texts if t]))
            _cache[chunks] = cached
    return cached[1]
