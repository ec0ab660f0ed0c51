"""The knowledge base: LanceDB documents and chunks, ingest, chunking and search.

``KnowledgeBase`` (and lancedb/pyarrow behind it) is imported lazily, so importing the records
from this package stays cheap.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .errors import EmbedderMismatch, EmptyKnowledgeBase, InvalidFilter, ParseError, StoreError
from .records import ChunkRecord, DocumentRecord, IngestFailure, IngestProgress, IngestReport, SearchHit

# LanceDB's Rust logging writes warnings (deprecation notices, k-means notes while an index is
# built) straight to the terminal; keep errors only, unless the user chose a level.
os.environ.setdefault("LANCEDB_LOG", "error")

if TYPE_CHECKING:
    from .kb import KnowledgeBase

__all__ = [
    "ChunkRecord",
    "DocumentRecord",
    "EmbedderMismatch",
    "EmptyKnowledgeBase",
    "IngestFailure",
    "IngestProgress",
    "IngestReport",
    "InvalidFilter",
    "KnowledgeBase",
    "ParseError",
    "SearchHit",
    "StoreError",
]


def __getattr__(name: str) -> Any:
    if name == "KnowledgeBase":
        from .kb import KnowledgeBase

        return KnowledgeBase
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
