"""Ranking for :meth:`KnowledgeBase.search`: BM25 over the chunk and heading columns, nearest vectors,
and their fusion.

Hybrid search runs the two queries separately and fuses their rankings here (weighted reciprocal
rank fusion) instead of using LanceDB's hybrid query, which prints deprecation warnings about its
``_score``/``_distance`` columns straight to the terminal and does not take weights.
"""

from __future__ import annotations

import collections
import concurrent.futures
import functools
import itertools
import math
import re
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from .tables import (
    CHUNK_COLUMNS, FTS_COLUMN, HEADINGS_FTS_COLUMN, INDEX_VERSION, SENTENCE_TERMS_COLUMN, VECTOR_COLUMN, chunk_columns,
    row_version,
)
from .proximity import by_proximity, clear_cache
from .sentences import QUERY_STOP_WORDS

HEADINGS_BOOST = 2.0  # weight of a title/heading-path match relative to a match anywhere in the chunk
RRF_K = 60  # reciprocal rank fusion constant: score = sum(weight / (RRF_K + rank))
TEXT_WEIGHT = 1.0
VECTOR_WEIGHT = 0.5
DOC_DECAY = 0.7  # each further chunk of a document already ranked above counts this much less
CANDIDATES = 30  # each ranking contributes at least this many candidates to the fusion
ANN_MIN_ROWS = 50_000  # past this many chunks, vectors get an approximate (IVF) index
ANN_NPROBES = 100  # IVF partitions searched per query (of ~sqrt(rows): ~1/3 of them at 100k chunks)
EXACT_MAX_ROWS = 20_000  # up to this many chunks, unfiltered vector search runs over an in-memory copy
SENTENCE_WEIGHT = 0.5  # weight of the ranking of fused candidates by their best sentence (hybrid search)
PROXIMITY_WEIGHT = 0.5  # weight of their ranking by the question's word pairs they hold together (``proximity``)
LEXICAL_BY_COVERAGE = True  # BM25 and the best-sentence ranking weighted by the best sentence's share of the question
RERANK = 15  # fused candidates ranked again by their best sentence and checked for repeated text
SENTENCE_CACHE = 8192  # chunks whose sentences' terms are kept in memory
DUPLICATE_SHARE = 0.5  # chunks of two documents sharing this share of their 5-word runs repeat each other,
DUPLICATE_DECAY = 0.5  # and the copy in the larger document keeps this share of its score (the smaller gets the best)
RUN_SAMPLE = 4  # one in this many 5-word runs (by hash) is compared

_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(query: str) -> str:
    """The words of ``query`` that carry meaning (all of them if every word is a filler word), and the
    names of the symbols it holds ("what does ^ do" looks for "caret" too)."""
    from .symbols import symbol_names

    words = _WORD.findall(query)
    kept = [w for w in words if w.lower() not in QUERY_STOP_WORDS]
    return " ".join((kept or words) + symbol_names(query))


def vector_text(row: dict) -> str:
    """The text embedded for a chunk row: its text and the names of its symbols."""
    from .symbols import with_symbol_names

    return with_symbol_names(row["text"])


def vector_query(query: str) -> str:
    """The text embedded for a query: the query and the names of its symbols."""
    from .symbols import with_symbol_names

    return with_symbol_names(query)


def text_query(query: str, has_headings_column: bool, neighbours: Sequence[str] = ()) -> Any:
    """The full-text query: the chunk column, plus the boosted heading column when the table has it,
    plus the chunk column for ``neighbours`` (the knowledge base's words for query words it lacks)."""
    from lancedb.query import BooleanQuery, MatchQuery, MultiMatchQuery, Occur

    terms = query_terms(query)
    if HEADINGS_BOOST > 0 and has_headings_column:
        main = MultiMatchQuery(terms, [FTS_COLUMN, HEADINGS_FTS_COLUMN], boosts=[1.0, HEADINGS_BOOST])
    else:
        main = MatchQuery(terms, FTS_COLUMN)
    if not neighbours:
        return main
    return BooleanQuery([(Occur.SHOULD, main), (Occur.SHOULD, MatchQuery(" ".join(neighbours), FTS_COLUMN))])


def missing_word_neighbours(chunks: Any, query: str, version: int) -> list[str]:
    """The knowledge base's nearest words for the query's words it does not hold (see ``vocabulary``)."""
    from .vocabulary import vocabulary

    return vocabulary(chunks, FTS_COLUMN, version).neighbours(query)


def ranked_rows(
    chunks: Any,
    where: str | None,
    query: str,
    vector: list[float] | None,
    fetch: int,
    vector_weight: float | None = None,
) -> list[dict]:
    """The best ``fetch`` chunk rows for ``query`` (and ``vector``, when given), best first, with ``_relevance_score``.

    Hybrid: the BM25 and vector rankings, and the fused candidates ranked by their best sentence
    (the one holding most of the query's terms), fused; then repeated text and documents thinned out.
    """
    version = chunks.version  # read once: each read of the version or the schema is a call into Lance
    columns = table_columns(chunks, version)
    neighbours = missing_word_neighbours(chunks, query, version) if vector is not None else []
    q = chunks.search(text_query(query, HEADINGS_FTS_COLUMN in columns, neighbours), query_type="fts")
    read = chunk_columns(columns) + [SENTENCE_TERMS_COLUMN] * (SENTENCE_TERMS_COLUMN in columns)
    q = q.select(read + ["_score"])
    if where:
        q = q.where(where, prefilter=True)
    pool = max(fetch, CANDIDATES)
    if vector is None:
        text_rows = q.limit(pool).to_list()
        for row in text_rows:
            row["_relevance_score"] = row.get("_score") or 0.0
        return diversify(text_rows)[:fetch]
    text_future = _executor().submit(q.limit(pool).to_list)  # the two queries run side by side
    exact = None if where else exact_vector_rows(chunks, vector, pool, version, read)
    if exact is None:
        v = chunks.search(vector, query_type="vector", vector_column_name=VECTOR_COLUMN).distance_type("cosine")
        v = v.select(read + ["_distance"]).nprobes(ANN_NPROBES)
        if where:
            v = v.where(where, prefilter=True)
    vector_rows = exact if exact is not None else v.limit(pool).to_list()
    text_rows = text_future.result()
    _, fused = hybrid_rankings(" ".join([query, *neighbours]), text_rows, vector_rows, fetch, vector_weight)
    return diversify(prefer_originals(chunks, fused, version))[:fetch]


def hybrid_rankings(
    query: str, text_rows: list[dict], vector_rows: list[dict], fetch: int, vector_weight: float | None = None
) -> tuple[list[tuple[list[dict], float]], list[dict]]:
    """The weighted rankings fused by hybrid search (BM25, vectors, and the best ``max(RERANK, fetch)``
    of their fusion ranked by their best sentence's share of ``query``'s terms — with the knowledge base's
    words for query words it lacks — and by the question's word pairs they hold together) and their fusion,
    best first. The two word-matching rankings are weighted by the best such share (``LEXICAL_BY_COVERAGE``);
    the sentence and pair rankings count by their order alone (a chunk one leaves out counts as ranked after
    its last). ``vector_weight`` is the embedder's own weight for the vector ranking (else ``VECTOR_WEIGHT``)."""
    vector_weight = VECTOR_WEIGHT if vector_weight is None else vector_weight
    rankings = [(text_rows, TEXT_WEIGHT), (vector_rows, vector_weight)]
    fused = fuse(rankings)
    if SENTENCE_WEIGHT > 0:
        candidates = fused[: max(RERANK, fetch)]
        best = best_sentence_share(query, candidates)
        by_sentence = [candidates[i] for i in sorted(range(len(candidates)), key=lambda i: -best[i]) if best[i] > 0]
        # The two word-matching rankings count in proportion to the share of the question the best sentence
        # among the candidates holds: when none holds most of it, they order chunks by its commonest words.
        lexical = max(best, default=0.0) if LEXICAL_BY_COVERAGE else 1.0
        rankings = [
            (text_rows, TEXT_WEIGHT * lexical),
            (vector_rows, vector_weight),
            (by_sentence, SENTENCE_WEIGHT * lexical),
        ]
        if PROXIMITY_WEIGHT > 0:
            rankings.append((by_proximity(query, candidates), PROXIMITY_WEIGHT))
        fused = fuse(rankings, reranking=len(rankings) - 2)
    return rankings, fused


def ensure_vector_index(chunks: Any) -> bool:
    """Give a large table's vectors an IVF index (exact search is past its latency budget there).

    Created once, at ``ANN_MIN_ROWS``; ``optimize()`` folds later rows into it. True if one exists.
    """
    if VECTOR_COLUMN not in chunks.schema.names:
        return False
    if any(VECTOR_COLUMN in index.columns for index in chunks.list_indices()):
        return True
    rows = chunks.count_rows()
    if rows < ANN_MIN_ROWS:
        return False
    from lancedb.index import IvfFlat

    chunks.create_index(VECTOR_COLUMN, config=IvfFlat(distance_type="cosine", num_partitions=max(1, int(rows**0.5))))
    return True


_columns_cache: weakref.WeakKeyDictionary[Any, tuple[int, frozenset[str]]] = weakref.WeakKeyDictionary()


def table_columns(chunks: Any, version: int) -> frozenset[str]:
    """The chunks table's column names, read once per table version (older bases lack some)."""
    cached = _columns_cache.get(chunks)
    if cached is None or cached[0] != version:
        cached = (version, frozenset(chunks.schema.names))
        _columns_cache[chunks] = cached
    return cached[1]


_exact_lock = threading.Lock()
_exact_cache: weakref.WeakKeyDictionary[Any, tuple[int, Any, list[dict]] | tuple[int, None, None]] = (
    weakref.WeakKeyDictionary()
)


def exact_vector_rows(
    chunks: Any, vector: list[float], limit: int, version: int | None = None, columns: list[str] = CHUNK_COLUMNS
) -> list[dict] | None:
    """The ``limit`` rows nearest ``vector`` by cosine distance, from a copy of a small table's
    vectors held in memory per table version (a Lance query costs more than the arithmetic at this
    size); None when the table has more than ``EXACT_MAX_ROWS`` chunks. Rows hold ``columns``."""
    import numpy as np

    version = chunks.version if version is None else version
    with _exact_lock:
        cached = _exact_cache.get(chunks)
        if cached is None or cached[0] != version:
            cached = (version, None, None)
            if chunks.count_rows() <= EXACT_MAX_ROWS:
                data = chunks.search().select(columns + [VECTOR_COLUMN]).limit(None).to_arrow()
                rows = [row for row in data.drop_columns([VECTOR_COLUMN]).to_pylist()]
                vectors = data.column(VECTOR_COLUMN).to_pylist()
                keep = [i for i, vec in enumerate(vectors) if vec is not None]
                matrix = np.asarray([vectors[i] for i in keep], dtype=np.float32).reshape(len(keep), -1)
                norms = np.linalg.norm(matrix, axis=1, keepdims=True)
                cached = (version, matrix / np.where(norms == 0, 1, norms), [rows[i] for i in keep])
            _exact_cache[chunks] = cached
    _, matrix, rows = cached
    if matrix is None or rows is None:
        return None
    query = np.asarray(vector, dtype=np.float32)
    distances = 1.0 - matrix @ (query / (np.linalg.norm(query) or 1.0))
    top = np.argsort(distances, kind="stable")[:limit]
    return [{**rows[i], "_distance": float(distances[i])} for i in top]


_terms_lock = threading.Lock()
_sentence_terms: collections.OrderedDict[tuple[str, str], list[frozenset[str]]] = collections.OrderedDict()


def best_sentence_share(query: str, rows: list[dict]) -> list[float]:
    """For each chunk row, the share of the query's terms (weighted by their rarity among ``rows``)
    that its best sentence holds: one sentence holding the whole question beats terms scattered
    over a long chunk. Each chunk's sentence terms (stored at ingest by today's stemmer, else computed
    from its text: a chunk of an older index version holds another stemmer's terms) are cached by its id
    and text."""
    from .sentences import decode_sentence_terms, sentence_terms, terms

    wanted = list(dict.fromkeys(terms(query)))
    if not wanted or not rows:
        return [0.0] * len(rows)
    per_row = []
    with _terms_lock:
        for row in rows:
            key = (row["id"], row["text"])
            cached = _sentence_terms.get(key)
            if cached is None:
                stored = row.get(SENTENCE_TERMS_COLUMN) if row_version(row) == INDEX_VERSION else None
                cached = sentence_terms(row["text"]) if stored is None else decode_sentence_terms(stored)
                _sentence_terms[key] = cached
                if len(_sentence_terms) > SENTENCE_CACHE:
                    _sentence_terms.popitem(last=False)
            per_row.append(cached)
    n = len(rows)
    weight = {t: math.log(1 + (n + 1) / (sum(any(t in s for s in row) for row in per_row) + 0.5)) for t in wanted}
    total = sum(weight.values())
    return [max((sum(weight[t] for t in wanted if t in s) / total for s in row), default=0.0) for row in per_row]


def clear_chunk_caches() -> None:
    """Forget every chunk's sentence terms, term places and 5-word runs (benchmarks of the cold path use it)."""
    clear_cache()
    with _terms_lock:
        _sentence_terms.clear()
        _runs_cache.clear()


@functools.cache
def _executor() -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="haiku-search")


def fuse(rankings: list[tuple[list[dict], float]], reranking: int = 0) -> list[dict]:
    """Weighted reciprocal rank fusion of rankings of rows keyed by ``id``; sets ``_relevance_score``.

    The last ``reranking`` rankings re-order some of the others' rows: a row one leaves out counts as
    ranked just after its last one, since being among the rows it ranks is what the others already said."""
    scores: dict[str, float] = {}
    rows: dict[str, dict] = {}
    for ranking, weight in rankings:
        for rank, row in enumerate(ranking, start=1):
            key = row["id"]
            scores[key] = scores.get(key, 0.0) + weight / (RRF_K + rank)
            rows.setdefault(key, row)
    for ranking, weight in rankings[len(rankings) - reranking :] if reranking else ():
        ranked = {row["id"] for row in ranking}
        for key in scores.keys() - ranked:
            scores[key] += weight / (RRF_K + len(ranking) + 1)
    ordered = sorted(scores, key=lambda key: -scores[key])
    out = []
    for key in ordered:
        row = dict(rows[key])
        row["_relevance_score"] = scores[key]
        out.append(row)
    return out


_sizes_cache: weakref.WeakKeyDictionary[Any, tuple[int, dict[str, int]]] = weakref.WeakKeyDictionary()


def document_sizes(chunks: Any, version: int | None = None) -> dict[str, int]:
    """Chunks per document id, read once per table version."""
    version = chunks.version if version is None else version
    with _exact_lock:
        cached = _sizes_cache.get(chunks)
    if cached is None or cached[0] != version:
        ids = chunks.search().select(["document_id"]).limit(None).to_arrow().column("document_id")
        counts = ids.value_counts().to_pylist()
        cached = (version, {c["values"]: c["counts"] for c in counts})
        with _exact_lock:
            _sizes_cache[chunks] = cached
    return cached[1]


_runs_cache: collections.OrderedDict[tuple[str, str], frozenset[int]] = collections.OrderedDict()


def _runs(row: dict) -> frozenset[int]:
    """A sample (the same runs in every text) of the hashes of a chunk's 5-word runs, cached by id and text."""
    key = (row["id"], row["text"])
    with _terms_lock:
        cached = _runs_cache.get(key)
    if cached is None:
        tokens = _WORD.findall(row["text"].lower())
        total = list(itertools.accumulate(map(len, tokens), initial=0))
        if len(tokens) < 5:
            cached = frozenset([hash(tuple(tokens))] if tokens and total[-1] % RUN_SAMPLE == 0 else [])
        else:  # a run is kept by its letter count, so every process samples the same runs
            kept = [n % RUN_SAMPLE == 0 for n in map(int.__sub__, total[5:], total)]
            runs = zip(tokens, tokens[1:], tokens[2:], tokens[3:], tokens[4:])
            cached = frozenset(map(hash, itertools.compress(runs, kept)))
        with _terms_lock:
            _runs_cache[key] = cached
            if len(_runs_cache) > SENTENCE_CACHE:
                _runs_cache.popitem(last=False)
    return cached


def prefer_originals(chunks: Any, rows: list[dict], version: int | None = None) -> list[dict]:
    """Where chunks of two documents repeat the same text (a catch-all page quoting a smaller one),
    the smaller document's chunk takes the better score and the larger one's copy is demoted.
    ``rows`` are best first with ``_relevance_score``; returns them re-ordered."""
    pool = rows[:RERANK]
    if len({row["document_id"] for row in pool}) < 2:
        return rows
    runs = [_runs(row) for row in pool]
    pairs = []
    for i, j in itertools.combinations(range(len(pool)), 2):
        if (
            pool[i]["document_id"] != pool[j]["document_id"]
            and runs[i]
            and runs[j]
            and len(runs[i] & runs[j]) >= DUPLICATE_SHARE * min(len(runs[i]), len(runs[j]))
        ):
            pairs.append((i, j))
    if not pairs:
        return rows
    sizes = document_sizes(chunks, version)
    scores = [row["_relevance_score"] for row in pool]
    for i, j in sorted(pairs):
        size_i, size_j = sizes.get(pool[i]["document_id"], 0), sizes.get(pool[j]["document_id"], 0)
        if size_i == size_j:
            continue  # neither is the catch-all
        small, large = (i, j) if size_i < size_j else (j, i)
        best = max(scores[small], scores[large])
        scores[small], scores[large] = best, min(scores[large], best * DUPLICATE_DECAY)
    out = [{**row, "_relevance_score": score} for row, score in zip(pool, scores)] + rows[len(pool) :]
    return sorted(out, key=lambda row: -row["_relevance_score"])


def diversify(rows: list[dict]) -> list[dict]:
    """Re-rank so one large document does not fill the top: the n-th chunk of a document keeps
    ``DOC_DECAY ** n`` of its score. ``rows`` are best first."""
    seen_docs: dict[str, int] = {}
    out = []
    for row in rows:
        n = seen_docs.get(row["document_id"], 0)
        seen_docs[row["document_id"]] = n + 1
        out.append({**row, "_relevance_score": row["_relevance_score"] * DOC_DECAY**n})
    return sorted(out, key=lambda row: -row["_relevance_score"])
