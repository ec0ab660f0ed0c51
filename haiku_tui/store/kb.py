"""The LanceDB knowledge base: documents, chunks and search (ingest and sync: ``store/ingest.py``).

Consistency model (what survives Ctrl+C or a kill at any moment):

* a document's chunks are written first, its ``documents`` row last (one atomic merge-insert
  per batch), and the chunks of its previous version are deleted after that;
* search and lookups only show chunks whose ``(document_id, content_hash)`` matches a
  ``documents`` row, so a half-written document is never visible, and neither are the stale
  chunks of a replaced one;
* ``add`` (and :meth:`KnowledgeBase.repair`) first deletes such orphan chunks;
* full-text indexes missing after a kill are built on the next open.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

from .. import locations
from .chunking import DEFAULT_TARGET
from .embedding import (
    BUILTIN_ID,
    EMBED_BATCH,
    aembed_query,
    as_embedder,
    choose_embedder,
    embed_documents,
    embed_query,
    embedder_id,
    vector_weight,
)
from .errors import EmbedderMismatch, EmptyKnowledgeBase, InvalidFilter, StoreError, damaged, unwritable
from .ingest import Ingest, document_id, ensure_embedder_settings, missing_indexes, refresh_index
from .lancedb_import import import_lancedb
from .limits import DEFAULT_MAX_BYTES, IngestLimits
from .records import ChunkRecord, DocumentRecord, IngestProgress, IngestReport, SearchHit
from .rerank import CANDIDATES as RERANK_CANDIDATES
from .rerank import Reranker, candidate_text
from .search import ranked_rows, vector_query, vector_text
from .sentences import encode_sentence_terms
from .tables import (
    CHUNKS, DOCUMENTS, FTS_COLUMN, HEADINGS_FTS_COLUMN, INDEX_VERSION, INDEX_VERSION_COLUMN, SENTENCE_TERMS_COLUMN,
    SETTINGS, UNVERSIONED, chunk_columns, chunk_record, chunks_schema, doc_record, one_line, row_version, sql_list,
)

from .remote import explain as explain_remote

# How stale an open handle may be about another process's writes (own writes are seen at once).
READ_CONSISTENCY = timedelta(seconds=1)
ADD_HINT = "add documents with `haiku-tui add PATH…`"

_FTS_COLUMNS = [FTS_COLUMN, HEADINGS_FTS_COLUMN]


class KnowledgeBase:
    """A LanceDB knowledge base. Open with :meth:`KnowledgeBase.open`."""

    def __init__(self, uri: str, db: Any, embedder: Any = None) -> None:
        self.uri = uri
        self._db = db
        self.embedder = embedder
        self._tables: dict[str, Any] = {}
        self._docmap_cache: tuple[int, dict[str, tuple[str, str, str, int]]] | None = None
        self._vectors_ready: bool | None = None
        self.reranker: Reranker | None = None  # reorders the fused candidates (``store/rerank.py``)

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls, uri: str | os.PathLike[str] | None = None, *, embedder: Any = None, create: bool = True
    ) -> KnowledgeBase:
        """Open (lazily creating) the knowledge base at ``uri`` (default: ``locations.resolve_db``).

        ``embedder`` is a Pydantic AI ``Embedder`` / ``EmbeddingModel`` / model string. It must be the
        one the database was built with (else :class:`EmbedderMismatch`). Without one, a base built
        with the built-in offline model still uses it and any other is full-text only; ``"auto"``
        also gives a new base the built-in model (see ``embedding.choose_embedder``).
        ``create=False`` on a missing local path raises :class:`EmptyKnowledgeBase`.
        """
        lancedb = import_lancedb()
        resolved = locations.resolve_db(uri)
        local = not locations.is_uri(resolved)
        if local:
            path = Path(resolved)
            if not path.exists() and not create:
                raise EmptyKnowledgeBase(f"no knowledge base at {resolved}; {ADD_HINT}")
            if path.exists() and not path.is_dir():
                raise StoreError(f"{resolved} is a file, not a LanceDB knowledge base directory")
        try:
            db = lancedb.connect(resolved, read_consistency_interval=READ_CONSISTENCY)
        except Exception as exc:
            explained = None if local else explain_remote(resolved, exc)
            raise StoreError(explained or f"cannot open knowledge base at {resolved}: {one_line(exc)}") from None
        kb = cls(resolved, db)
        kb.embedder = choose_embedder(embedder, kb.recorded_embedder()[0], kb._doc_count() > 0)
        kb._check_embedder()
        kb._build_missing_indexes()
        return kb

    def _build_missing_indexes(self) -> None:
        """Build the full-text indexes a kill between writing rows and indexing left unbuilt."""
        try:
            if missing_indexes(self):
                refresh_index(self)
        except Exception:  # read-only or damaged: search says what to do (see `doctor`)
            pass

    def close(self) -> None:
        if self.reranker is not None:
            self.reranker.close()
        self._tables.clear()
        self._docmap_cache = None
        self._vectors_ready = None

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.uri!r})"

    # ------------------------------------------------------------------ tables

    def _table(self, name: str) -> Any | None:
        table = self._tables.get(name)
        if table is not None:
            return table
        try:
            names = set(self._db.list_tables().tables)
        except Exception:
            return None
        if name not in names:
            return None
        table = self._db.open_table(name)
        self._tables[name] = table
        return table

    def _settings(self) -> dict[str, str]:
        table = self._table(SETTINGS)
        if table is None:
            return {}
        rows = table.to_arrow().to_pylist()
        return {r["key"]: r["value"] for r in rows}

    def _write_settings(self, values: dict[str, str]) -> None:
        import pyarrow as pa

        data = pa.table(
            {"key": list(values), "value": [str(v) for v in values.values()]},
            schema=pa.schema([pa.field("key", pa.string()), pa.field("value", pa.string())]),
        )
        table = self._table(SETTINGS)
        if table is None:
            table = self._db.create_table(SETTINGS, schema=data.schema, exist_ok=True)
            self._tables[SETTINGS] = table
        table.merge_insert("key").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def _has_vector_column(self) -> bool:
        chunks = self._table(CHUNKS)
        return chunks is not None and "vector" in chunks.schema.names

    # ------------------------------------------------------------------ embedder bookkeeping

    def recorded_embedder(self) -> tuple[str | None, int | None]:
        """The embedder model id and dimension the database was built with (``(None, None)`` if none)."""
        s = self._settings()
        dim = s.get("dimension")
        return s.get("embedder") or None, int(dim) if dim else None

    def _check_embedder(self) -> None:
        recorded, dim = self.recorded_embedder()
        if self.embedder is None:
            return
        name = embedder_id(self.embedder)
        if recorded and recorded != name:
            raise EmbedderMismatch(
                f"knowledge base {self.uri} was built with embedder {recorded!r} ({dim} dims) but {name!r} "
                f"is configured; use --embedder {recorded} (or that embedder), move the base onto the new one "
                f"with `haiku-tui embed --embedder {name}`, or build a new knowledge base with --db"
            )
        if not recorded and self._doc_count() > 0:
            raise EmbedderMismatch(
                f"knowledge base {self.uri} was built without an embedder (full-text search only) but "
                f"{name!r} is configured; add vectors to it with `haiku-tui embed --embedder {name}`, or open "
                "it without an embedder (--embedder none)"
            )

    def add_vectors(self, embedder: Any = BUILTIN_ID, on_progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every chunk with ``embedder`` so that search becomes hybrid, replacing the vectors of
        another embedder if the base has them.

        The chunks table is rewritten once with the new vector column (a new Lance version: an
        interruption while embedding leaves the base as it was), then the embedder is recorded.
        ``on_progress(chunks embedded, chunks)`` is called as the embedding goes. Returns the number of chunks embedded.
        """
        import pyarrow as pa

        recorded, _ = self.recorded_embedder()
        model = as_embedder(embedder)
        if recorded and model is not None and recorded == embedder_id(model):
            raise StoreError(f"knowledge base {self.uri} already has vectors from embedder {recorded!r}")
        chunks = self._table(CHUNKS)
        if model is None or chunks is None or not self._doc_count():
            raise EmptyKnowledgeBase(f"the knowledge base at {self.uri} has no documents to embed; {ADD_HINT}")
        data = chunks.to_arrow()
        if "vector" in data.column_names:  # left by an interrupted earlier run
            data = data.drop_columns(["vector"])
        if SENTENCE_TERMS_COLUMN not in data.column_names:  # a base from before sentence terms were stored
            terms = [encode_sentence_terms(text) for text in data.column("text").to_pylist()]
            data = data.append_column(SENTENCE_TERMS_COLUMN, pa.array(terms, type=pa.string()))
        if INDEX_VERSION_COLUMN not in data.column_names:  # nor the index version
            data = data.append_column(INDEX_VERSION_COLUMN, pa.array([UNVERSIONED] * data.num_rows, type=pa.int32()))
        texts = [vector_text(row) for row in data.select(["text", FTS_COLUMN]).to_pylist()]
        vectors: list[list[float]] = []
        for start in range(0, len(texts), EMBED_BATCH):
            vectors.extend(embed_documents(model, texts[start : start + EMBED_BATCH]))
            if on_progress is not None:
                on_progress(len(vectors), len(texts))
        dimension = len(vectors[0]) if vectors else 0
        data = data.append_column("vector", pa.array(vectors, type=pa.list_(pa.float32(), dimension)))
        schema = chunks_schema(dimension)
        if recorded:  # until the new record is written, the base reads as one without vectors (`embed` again)
            self._write_settings({"embedder": "", "dimension": ""})
        self._tables[CHUNKS] = self._db.create_table(CHUNKS, data.select(schema.names).cast(schema), mode="overwrite")
        refresh_index(self)
        self.embedder = model
        self._vectors_ready = None
        ensure_embedder_settings(self, dimension)
        return data.num_rows

    def _vector_search_enabled(self) -> bool:
        if self.embedder is None:
            return False
        if self._vectors_ready is None:  # settings are read once per handle (and after own writes)
            recorded, _ = self.recorded_embedder()
            self._vectors_ready = recorded == embedder_id(self.embedder) and self._has_vector_column()
        return self._vectors_ready

    # ------------------------------------------------------------------ reading

    def holds_documents(self) -> bool:
        """True when the knowledge base holds a document (a row count, no scan)."""
        return self._doc_count() > 0

    def _doc_count(self) -> int:
        docs = self._table(DOCUMENTS)
        return 0 if docs is None else docs.count_rows()

    def _docmap(self) -> dict[str, tuple[str, str, str, int]]:
        """``{document id: (title, path, content_hash, index_version)}``, cached per table version."""
        docs = self._table(DOCUMENTS)
        if docs is None:
            return {}
        version = docs.version
        if self._docmap_cache is not None and self._docmap_cache[0] == version:
            return self._docmap_cache[1]
        versioned = INDEX_VERSION_COLUMN in docs.schema.names
        data = (
            docs.search()
            .select(["id", "title", "path", "content_hash", *[INDEX_VERSION_COLUMN] * versioned])
            .limit(None)
            .to_arrow()
        )
        versions = data.column(INDEX_VERSION_COLUMN).to_pylist() if versioned else [UNVERSIONED] * data.num_rows
        mapping = {
            i: (t, p, h, v)
            for i, t, p, h, v in zip(
                data.column("id").to_pylist(),
                data.column("title").to_pylist(),
                data.column("path").to_pylist(),
                data.column("content_hash").to_pylist(),
                versions,
            )
        }
        self._docmap_cache = (version, mapping)
        return mapping

    def documents(self) -> list[DocumentRecord]:
        """Every document, sorted by path."""
        docs = self._table(DOCUMENTS)
        if docs is None:
            return []
        rows = docs.to_arrow().to_pylist()
        return sorted((doc_record(r) for r in rows), key=lambda d: d.path)

    def document(self, id_or_path: str) -> DocumentRecord | None:
        """The document with this id or path, if any."""
        doc_id = self._resolve_document_id(id_or_path)
        if doc_id is None:
            return None
        docs = self._table(DOCUMENTS)
        rows = docs.search().where(f"id = '{doc_id}'").limit(1).to_list()
        return doc_record(rows[0]) if rows else None

    def _resolve_document_id(self, id_or_path: str) -> str | None:
        docmap = self._docmap()
        if id_or_path in docmap:
            return id_or_path
        candidates = [str(id_or_path)]
        if not locations.is_uri(str(id_or_path)):
            candidates.append(str(Path(id_or_path).expanduser().resolve()))
        for candidate in candidates:
            doc_id = document_id(candidate)
            if doc_id in docmap:
                return doc_id
        return None

    def _visible(
        self, rows: Iterable[dict[str, Any]], docmap: dict[str, tuple[str, str, str, int]] | None = None
    ) -> list[tuple[dict[str, Any], tuple[str, str, str, int]]]:
        """The rows of the indexing each document's row names (content and index version): never a
        half-written one, nor what it replaced."""
        docmap = self._docmap() if docmap is None else docmap
        out = []
        for row in rows:
            doc = docmap.get(row["document_id"])
            if doc is not None and doc[2] == row["content_hash"] and doc[3] == row_version(row):
                out.append((row, doc))
        return out

    def _chunk_columns(self, chunks: Any) -> list[str]:
        return chunk_columns(chunks.schema.names)

    def get_chunks(self, chunk_ids: Iterable[str]) -> dict[str, ChunkRecord]:
        """The chunks with these ids (missing or invisible ids are absent from the result)."""
        ids = sorted({c for c in chunk_ids if isinstance(c, str) and c})
        chunks = self._table(CHUNKS)
        if not ids or chunks is None:
            return {}
        rows = (
            chunks.search()
            .where(f"id IN ({sql_list(ids)})")
            .select(self._chunk_columns(chunks))
            .limit(len(ids) * 4 + 16)
            .to_list()
        )
        return {row["id"]: chunk_record(row, doc) for row, doc in self._visible(rows)}

    def neighbours(self, chunk_id: str, radius: int = 1) -> list[ChunkRecord]:
        """The chunk and up to ``radius`` chunks either side of it in the same document, by order."""
        found = self.get_chunks([chunk_id]).get(chunk_id)
        if found is None:
            return []
        chunks = self._table(CHUNKS)
        lo, hi = found.order - max(0, radius), found.order + max(0, radius)
        doc_hash = self._docmap()[found.document_id][2]
        rows = (
            chunks.search()
            .where(
                f"document_id = '{found.document_id}' AND content_hash = '{doc_hash}' "
                f"AND position >= {lo} AND position <= {hi}"
            )
            .select(self._chunk_columns(chunks))
            .limit(2 * (hi - lo) + 8)  # a re-indexing may hold a second generation of these positions
            .to_list()
        )
        records = [chunk_record(row, doc) for row, doc in self._visible(rows)]
        return sorted(records, key=lambda c: c.order)

    def document_chunks(self, id_or_path: str) -> list[ChunkRecord]:
        """Every chunk of one document, by order."""
        doc_id = self._resolve_document_id(id_or_path)
        chunks = self._table(CHUNKS)
        if doc_id is None or chunks is None:
            return []
        rows = (
            chunks.search().where(f"document_id = '{doc_id}'").select(self._chunk_columns(chunks)).limit(None).to_list()
        )
        return sorted((chunk_record(r, d) for r, d in self._visible(rows)), key=lambda c: c.order)

    def outdated(self) -> list[DocumentRecord]:
        """The documents indexed by an older ``INDEX_VERSION`` (``reindex`` re-indexes them)."""
        return [d for d in self.documents() if d.index_version < INDEX_VERSION]

    def info(self) -> dict[str, Any]:
        """``uri, documents, chunks, embedder, dimension, size_bytes`` (plus a few extras)."""
        docs = self.documents()
        chunks = self._table(CHUNKS)
        recorded, dim = self.recorded_embedder()
        stored = chunks.count_rows() if chunks is not None else 0
        visible = sum(d.chunks for d in docs)
        fts = False
        if chunks is not None:
            indexed = {c for i in chunks.list_indices() for c in i.columns}
            fts = all(c in indexed for c in _FTS_COLUMNS)
        return {
            "uri": self.uri,
            "documents": len(docs),
            "chunks": visible,
            "embedder": recorded,
            "dimension": dim,
            "size_bytes": _dir_size(self.uri),
            "orphan_chunks": max(0, stored - visible),
            "outdated_documents": sum(d.index_version < INDEX_VERSION for d in docs),
            "index_version": INDEX_VERSION,
            "fts_index": fts,
            "configured_embedder": embedder_id(self.embedder) if self.embedder is not None else None,
            "schema_version": self._settings().get("schema_version"),
        }

    # ------------------------------------------------------------------ search

    def _prepare_search(self, query: str, filter: str | None) -> tuple[Any, str | None, dict] | None:
        chunks = self._table(CHUNKS)
        docmap = self._docmap()
        if chunks is None or not docmap:
            raise EmptyKnowledgeBase(f"the knowledge base at {self.uri} has no documents; {ADD_HINT}")
        if not query.strip():
            return None
        where = None
        if filter and filter.strip():
            ids = self.filter_document_ids(filter)
            if not ids:
                return None
            where = f"document_id IN ({sql_list(ids)})"
        return chunks, where, docmap

    def filter_document_ids(self, filter: str) -> list[str]:
        """Resolve a SQL predicate over ``title``, ``path`` and ``metadata`` to document ids."""
        docs = self._table(DOCUMENTS)
        if docs is None:
            return []
        try:
            data = docs.search().where(filter).select(["id"]).limit(None).to_arrow()
        except Exception as exc:
            raise InvalidFilter(
                f"invalid document filter {filter!r}: {one_line(exc)[:160]}; write SQL over title, path and "
                "metadata, e.g. \"path LIKE '%guide%'\""
            ) from None
        return data.column("id").to_pylist()

    def search(self, query: str, *, limit: int = 5, filter: str | None = None) -> list[SearchHit]:
        """Search: BM25 full text, or hybrid (full text and vectors, fused by ``store.search``) with an embedder."""
        prepared = self._prepare_search(query, filter)
        if prepared is None:
            return []
        vector = embed_query(self.embedder, vector_query(query)) if self._vector_search_enabled() else None
        return self._search(*prepared, query, vector, limit)

    async def asearch(self, query: str, *, limit: int = 5, filter: str | None = None) -> list[SearchHit]:
        """Async :meth:`search` (awaits the embedder; the query itself runs in a worker thread)."""
        prepared = await asyncio.to_thread(self._prepare_search, query, filter)
        if prepared is None:
            return []
        vector = await aembed_query(self.embedder, vector_query(query)) if self._vector_search_enabled() else None
        return await asyncio.to_thread(self._search, *prepared, query, vector, limit)

    def _search(
        self, chunks: Any, where: str | None, docmap: dict, query: str, vector: list[float] | None, limit: int
    ) -> list[SearchHit]:
        limit = max(1, int(limit))
        wanted = max(limit, RERANK_CANDIDATES) if self.reranker is not None else limit
        fetch = wanted  # widened below only if orphan or stale chunks crowd the top
        while True:
            rows = ranked_rows(chunks, where, query, vector, fetch, vector_weight(self.embedder))
            visible = self._visible(rows, docmap)
            if len(visible) >= wanted or len(rows) < fetch or fetch > 50 * wanted + 200:
                break
            fetch *= 4  # orphan or stale chunks crowded the top; look further
        records = [(chunk_record(row, doc), row.get("_relevance_score", 0.0)) for row, doc in visible[:wanted]]
        if self.reranker is not None:
            records = self._rerank(query, records)
        return [
            SearchHit(**rec.__dict__, score=float(score or 0.0), rank=rank)
            for rank, (rec, score) in enumerate(records[:limit], start=1)
        ]

    def _rerank(self, query: str, records: list[tuple[ChunkRecord, float]]) -> list[tuple[ChunkRecord, float]]:
        """The candidates in the reranker's order, scored by it; the fused order when it fails (``store/rerank.py``)."""
        assert self.reranker is not None
        ranked = self.reranker.reorder(query, records, lambda record: candidate_text(record[0]))
        if ranked is None:
            return records
        return [(record, fused if score is None else score) for (record, fused), score in ranked]

    def repair(self) -> int:
        """Delete orphan chunks (no matching documents row: an interrupted ingest or re-indexing). Returns how many."""
        chunks = self._table(CHUNKS)
        if chunks is None:
            return 0
        docmap = self._docmap()
        keys = ["document_id", "content_hash", *[INDEX_VERSION_COLUMN] * (INDEX_VERSION_COLUMN in chunks.schema.names)]
        data = chunks.search().select(keys).limit(None).to_arrow()
        if data.num_rows == 0:
            return 0
        groups = data.group_by(keys).aggregate([([], "count_all")]).to_pylist()
        bad = [
            g
            for g in groups
            if (doc := docmap.get(g["document_id"])) is None or (doc[2], doc[3]) != (g["content_hash"], row_version(g))
        ]
        for start in range(0, len(bad), 100):
            chunks.delete(" OR ".join(_generation_filter(g) for g in bad[start : start + 100]))
        return sum(g["count_all"] for g in bad)

    def delete(self, id_or_path: str) -> DocumentRecord | None:
        """Delete one document (by id or path) and its chunks; returns it, or None if unknown."""
        record = self.document(id_or_path)
        if record is None:
            return None
        try:
            self._table(DOCUMENTS).delete(f"id = '{record.id}'")  # invisible from here on
            chunks = self._table(CHUNKS)
            if chunks is not None:
                chunks.delete(f"document_id = '{record.id}'")
        except Exception as exc:
            raise unwritable(exc, self.uri) or exc from None
        return record

    def add(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        on_progress: Callable[[IngestProgress], None] | None = None,
        metadata: dict[str, Any] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        chunk_size: int = DEFAULT_TARGET,
        limits: IngestLimits | None = None,
    ) -> IngestReport:
        """Ingest files and folders (recursively). Unchanged files are skipped, changed ones replaced, and so
        are unchanged ones an older ``INDEX_VERSION`` indexed.

        Bad files (missing, binary, undecodable, empty, too large or slow, unsupported, PDF without
        text) land in ``report.failed`` with a one-line reason, folder entries not ingested in
        ``report.passed_over``; the rest of the batch is ingested.
        """
        limits = limits or IngestLimits.from_env(max_bytes)
        job = Ingest(self, on_progress=on_progress, metadata=metadata, limits=limits, chunk_size=chunk_size)
        return self._run(job, paths, sync=False)

    def sync(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        dry_run: bool = False,
        on_progress: Callable[[IngestProgress], None] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        limits: IngestLimits | None = None,
        reindex: bool = True,
    ) -> IngestReport:
        """Make the documents under ``paths`` match the disk: like :meth:`add`, plus documents whose
        file is gone are removed (``report.removed``) and a moved file (same content) replaces its old
        document (``report.moved``). ``dry_run`` reports the changes without writing. ``reindex=False``
        leaves unchanged files of an older index version as they are (the watcher's syncs)."""
        limits = limits or IngestLimits.from_env(max_bytes)
        job = Ingest(
            self,
            on_progress=on_progress,
            metadata=None,
            limits=limits,
            chunk_size=DEFAULT_TARGET,
            dry_run=dry_run,
            reindex=reindex,
        )
        return self._run(job, paths, sync=True)

    def reindex(
        self, *, on_progress: Callable[[IngestProgress], None] | None = None, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> IngestReport:
        """Re-index the documents an older ``INDEX_VERSION`` indexed, from their files (one gone is a failure)."""
        return self.add([d.path for d in self.outdated()], on_progress=on_progress, max_bytes=max_bytes)

    def _run(self, job: Ingest, paths: Iterable[str | os.PathLike[str]], *, sync: bool) -> IngestReport:
        try:
            return job.run(paths, sync=sync)
        except StoreError:
            raise
        except Exception as exc:
            raise damaged(exc) or unwritable(exc, self.uri) or exc from None


def _generation_filter(group: dict[str, Any]) -> str:
    """SQL for the chunks of one document's indexing (rows without a version column hold version 1)."""
    where = f"document_id = '{group['document_id']}' AND content_hash = '{group['content_hash']}'"
    return (
        f"({where})"
        if INDEX_VERSION_COLUMN not in group
        else f"({where} AND {INDEX_VERSION_COLUMN} = {group[INDEX_VERSION_COLUMN]})"
    )


def _dir_size(uri: str) -> int | None:
    if locations.is_uri(uri):
        return None
    total = 0
    for root, _dirs, names in os.walk(uri):
        for name in names:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total
