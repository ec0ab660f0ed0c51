"""The one owner of a knowledge base's LanceDB tables and settings.

:class:`Storage` opens each table once per handle, creates and replaces them, reads and writes the
settings (layout version, embedder), and builds the full-text and vector indexes. A
:class:`~haiku_tui.store.kb.KnowledgeBase` holds one (``kb.storage``), and its ingest runs write through it.
"""

from __future__ import annotations

from typing import Any

from .errors import EmbedderMismatch, StoreError
from .search import ensure_vector_index
from .tables import (
    CHUNKS, DOCUMENTS, FTS_COLUMN, HEADINGS_FTS_COLUMN, SCHEMA_VERSION, SETTINGS, chunks_schema, docs_schema,
    fts_config, with_index_version,
)

FTS_COLUMNS = (FTS_COLUMN, HEADINGS_FTS_COLUMN)


class Storage:
    """The tables of the LanceDB database at ``uri`` (``db``: its connection), opened once and cached."""

    def __init__(self, uri: str, db: Any) -> None:
        self.uri = uri
        self._db = db
        self._tables: dict[str, Any] = {}

    def close(self) -> None:
        """Forget the open tables (the next use opens them again)."""
        self._tables.clear()

    # ------------------------------------------------------------------ tables

    def table(self, name: str) -> Any | None:
        """The table ``name``, or None when the database has none."""
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

    def overwrite(self, name: str, data: Any) -> Any:
        """Replace the table ``name`` with ``data`` (a new Lance version of it); returns the new table."""
        table = self._tables[name] = self._db.create_table(name, data, mode="overwrite")
        return table

    def doc_count(self) -> int:
        """How many documents rows the base holds."""
        docs = self.table(DOCUMENTS)
        return 0 if docs is None else docs.count_rows()

    def has_vector_column(self) -> bool:
        chunks = self.table(CHUNKS)
        return chunks is not None and "vector" in chunks.schema.names

    def docs_table(self) -> Any:
        """The documents table for a write: created when missing, given the index-version column."""
        docs = self.table(DOCUMENTS)
        if docs is None:
            docs = self._db.create_table(DOCUMENTS, schema=docs_schema(), exist_ok=True)
            self._tables[DOCUMENTS] = docs
        return with_index_version(docs)

    def chunks_table(self, dimension: int | None) -> Any:
        """The chunks table for a write of vectors of ``dimension`` (None: none): created when missing, and
        re-created when empty with the other layout; a base holding documents of the other layout is refused."""
        chunks = self.table(CHUNKS)
        if chunks is not None:
            has_vector = "vector" in chunks.schema.names
            if has_vector == bool(dimension):
                return with_index_version(chunks)
            if self.doc_count() == 0:
                self._db.drop_table(CHUNKS)
                self._tables.pop(CHUNKS, None)
            else:
                raise EmbedderMismatch(
                    f"knowledge base {self.uri} was built "
                    + ("with" if has_vector else "without")
                    + " an embedder; build a new knowledge base with --db"
                )
        if not self.settings():
            self.write_settings({"schema_version": SCHEMA_VERSION})
        chunks = self._db.create_table(CHUNKS, schema=chunks_schema(dimension), exist_ok=True)
        self._tables[CHUNKS] = chunks
        return chunks

    # ------------------------------------------------------------------ settings

    def settings(self) -> dict[str, str]:
        table = self.table(SETTINGS)
        if table is None:
            return {}
        rows = table.to_arrow().to_pylist()
        return {r["key"]: r["value"] for r in rows}

    def write_settings(self, values: dict[str, str]) -> None:
        import pyarrow as pa

        data = pa.table(
            {"key": list(values), "value": [str(v) for v in values.values()]},
            schema=pa.schema([pa.field("key", pa.string()), pa.field("value", pa.string())]),
        )
        table = self.table(SETTINGS)
        if table is None:
            table = self._db.create_table(SETTINGS, schema=data.schema, exist_ok=True)
            self._tables[SETTINGS] = table
        table.merge_insert("key").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def recorded_embedder(self) -> tuple[str | None, int | None]:
        """The embedder model id and dimension the database was built with (``(None, None)`` if none)."""
        s = self.settings()
        dim = s.get("dimension")
        return s.get("embedder") or None, int(dim) if dim else None

    def refuse_newer(self) -> None:
        """Refuse to write to a knowledge base a newer haiku-tui laid out (its ``schema_version`` is above ours)."""
        stored = self.settings().get("schema_version", "")
        if stored.isdigit() and int(stored) > int(SCHEMA_VERSION):
            raise StoreError(
                f"knowledge base {self.uri} was written by a newer haiku-tui (layout {stored}, this one knows "
                f"{SCHEMA_VERSION}); upgrade haiku-tui to add to it"
            )

    def ensure_embedder_settings(self, name: str, dimension: int | None) -> None:
        """Record embedder ``name`` and its ``dimension`` unless recorded; a recorded other dimension is refused."""
        recorded, recorded_dim = self.recorded_embedder()
        if recorded and recorded_dim and dimension and recorded_dim != dimension:
            raise EmbedderMismatch(
                f"embedder {name!r} returned {dimension}-dim vectors but knowledge base {self.uri} holds "
                f"{recorded_dim}-dim vectors; use the original embedder settings or build a new knowledge base "
                "with --db"
            )
        if not recorded or not recorded_dim:
            self.write_settings({"schema_version": SCHEMA_VERSION, "embedder": name, "dimension": str(dimension)})

    # ------------------------------------------------------------------ indexes

    def missing_indexes(self) -> list[str]:
        """Full-text columns of a non-empty chunks table that have no index (a kill skipped building it)."""
        chunks = self.table(CHUNKS)
        if chunks is None or chunks.count_rows() == 0:
            return []
        indexed = {c for i in chunks.list_indices() for c in i.columns}
        return [c for c in FTS_COLUMNS if c in chunks.schema.names and c not in indexed]

    def refresh_index(self) -> None:
        """Make new rows part of the full-text index (build it the first time, then fold in)."""
        chunks = self.table(CHUNKS)
        if chunks is None:
            return
        missing = self.missing_indexes()
        for column in missing:
            chunks.create_index(column, config=fts_config())
        if len(missing) < len(FTS_COLUMNS):
            chunks.optimize()  # folds new rows into the existing indexes (and compacts files)
        ensure_vector_index(chunks)
        docs = self.table(DOCUMENTS)
        if docs is not None and len(docs.list_versions()) > 64:
            docs.optimize()
