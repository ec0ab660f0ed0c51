"""The RAG capability: search the knowledge base and declare what grounds each answer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai.toolsets import FunctionToolset

from haiku_tui.capabilities.evidence import EvidenceCapability
from haiku_tui.locations import resolve_db

if TYPE_CHECKING:
    from haiku_tui.store import KnowledgeBase

RAG_ID = "haiku-tui-rag"
DESCRIPTION = "Search the local knowledge base and cite the evidence that grounds an answer."

INSTRUCTIONS = """\
You answer from a local knowledge base.
- Search with rag_search before answering a question about the documents. Each result starts with
  its chunk id in square brackets, e.g. [3f2a9c01d4e5b6a7].
- Before giving your answer, call rag_cite with the chunk ids that support it, copied exactly.
  It returns a number for each citation: put those numbers in your answer as markers like [1].
- If nothing you found supports an answer, call rag_cite with an empty list and say so plainly.
- Never invent facts, chunk ids or citation numbers, and never write chunk ids in the answer."""


@dataclass
class RAGCapability(EvidenceCapability):
    """Grounded document search and citations over a LanceDB knowledge base (state key ``"rag"``)."""

    def get_instructions(self) -> str:
        return INSTRUCTIONS

    def get_toolset(self) -> FunctionToolset[Any]:
        return FunctionToolset(self.evidence_tools(), id=self.id, max_retries=3, sequential=True)


def create_capability(
    db_path: str | Path | None = None,
    *,
    defer_loading: bool = True,
    kb: KnowledgeBase | None = None,
    request_limit: int = 20,
    max_searches: int = 5,
    search_limit: int = 5,
) -> RAGCapability:
    """Build the RAG capability.

    The database is ``db_path``, else ``HAIKU_RAG_DB``, else ``<data dir>/haiku.rag.lancedb``;
    an open ``kb`` is used as is. Deferred by default: the model sees only the description and
    ``load_capability`` until it loads the capability.
    """
    return RAGCapability(
        id=RAG_ID,
        description=DESCRIPTION,
        defer_loading=defer_loading,
        namespace="rag",
        tool_prefix="rag",
        db_path=None if kb is not None and db_path is None else resolve_db(db_path),
        request_limit=request_limit,
        max_searches=max_searches,
        search_limit=search_limit,
        kb=kb,
    )
