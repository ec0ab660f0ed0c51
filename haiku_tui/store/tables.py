"""The knowledge base's three tables: names, column layout, the index version its rows record, rows as records.

Imported by search, ingest and :class:`~haiku_tui.store.kb.KnowledgeBase` alike (pyarrow and LanceDB lazily).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .records import ChunkRecord, DocumentRecord

SCHEMA_VERSION = "1"
DOCUMENTS = "documents"
CHUNKS = "chunks"
SETTINGS = "settings"

FTS_COLUMN = "fts"
HEADINGS_FTS_COLUMN = "fts_headings"
VECTOR_COLUMN = "vector"
SENTENCE_TERMS_COLUMN = "sentence_terms"  # each sentence's terms, computed at ingest (absent in older bases)
INDEX_VERSION_COLUMN = "index_version"  # the INDEX_VERSION that wrote a document and its chunks (absent in older bases)
CHUNK_COLUMNS = ["id", "document_id", "content_hash", "position", "text", "headings", "pages"]

# The indexing a document's rows were made by: the chunker and its size, the embedded text, the symbol
# names, the stemmer and the sentence terms stored with the stemmer's output. Bump it when any of them
# changes: `add`, `sync` and `reindex` then re-index the documents of older versions even when their
# files did not change, and until they do, search reads what each version needs (see ``search``).
INDEX_VERSION = 2
UNVERSIONED = 1  # what rows written before the version was recorded count as


def row_version(row: dict[str, Any]) -> int:
    """The index version a documents or chunks row was written by."""
    return row.get(INDEX_VERSION_COLUMN) or UNVERSIONED


def outdated_note(count: int, remedy: str = "`haiku-tui reindex` updates them") -> str:
    """The one line telling the user that ``count`` documents were indexed by an older haiku-tui, and how to
    re-index them."""
    return f"{count} document{'s' if count != 1 else ''} indexed by an older haiku-tui: {remedy}"


def fts_config() -> Any:
    from lancedb.index import FTS

    # English stemming; stop words are kept because questions like "how do I write a *with*
    # statement" hinge on them (BM25's IDF already discounts common words).
    return FTS(stem=True, language="English", remove_stop_words=False, with_position=False, ascii_folding=True)


def docs_schema() -> Any:
    import pyarrow as pa

    ts = pa.timestamp("us", tz="UTC")
    return pa.schema(
        [
            pa.field("id", pa.string()),
            pa.field("path", pa.string()),
            pa.field("title", pa.string()),
            pa.field("content_hash", pa.string()),
            pa.field("metadata", pa.string()),
            pa.field("chunks", pa.int32()),
            pa.field("created_at", ts),
            pa.field("updated_at", ts),
            pa.field(INDEX_VERSION_COLUMN, pa.int32(), nullable=False),
        ]
    )


def chunks_schema(dimension: int | None) -> Any:
    import pyarrow as pa

    fields = [
        pa.field("id", pa.string()),
        pa.field("document_id", pa.string()),
        pa.field("content_hash", pa.string()),
        pa.field("position", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("headings", pa.list_(pa.string())),
        pa.field("pages", pa.list_(pa.int32())),
        pa.field(FTS_COLUMN, pa.string()),
        pa.field(HEADINGS_FTS_COLUMN, pa.string()),
        pa.field(SENTENCE_TERMS_COLUMN, pa.string()),
        pa.field(INDEX_VERSION_COLUMN, pa.int32(), nullable=False),
    ]
    if dimension:
        fields.append(pa.field(VECTOR_COLUMN, pa.list_(pa.float32(), dimension)))
    return pa.schema(fields)


def with_index_version(table: Any) -> Any:
    """``table``, given the index-version column (its rows counted as ``UNVERSIONED``) if it lacks it.

    Only writes call this: a base is read as it is, and gains the column when the user next adds to it."""
    if INDEX_VERSION_COLUMN not in table.schema.names:
        table.add_columns({INDEX_VERSION_COLUMN: f"CAST({UNVERSIONED} AS INT)"})
    return table


def chunk_columns(names: Iterable[str]) -> list[str]:
    """The columns a chunk is read with, from a chunks table's column ``names`` (older bases lack the version)."""
    return CHUNK_COLUMNS + [INDEX_VERSION_COLUMN] * (INDEX_VERSION_COLUMN in names)


def sql_list(values: Iterable[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


def doc_record(row: dict[str, Any]) -> DocumentRecord:
    import json

    try:
        meta = json.loads(row.get("metadata") or "{}")
    except ValueError:
        meta = {}
    return DocumentRecord(
        id=row["id"],
        path=row["path"],
        title=row["title"],
        content_hash=row["content_hash"],
        metadata=meta if isinstance(meta, dict) else {"value": meta},
        chunks=int(row["chunks"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        index_version=row_version(row),
    )


def chunk_record(row: dict[str, Any], doc: tuple[str, str, str, int]) -> ChunkRecord:
    return ChunkRecord(
        chunk_id=row["id"],
        document_id=row["document_id"],
        title=doc[0],
        path=doc[1],
        headings=tuple(row.get("headings") or ()),
        pages=tuple(row.get("pages") or ()),
        order=int(row["position"]),
        text=row["text"],
    )
