"""Native Pydantic AI capabilities: RAG (search and cite), evidence compaction, citation policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Deps:
    """Agent dependencies: ``state`` is the namespace map the host carries between runs."""

    state: dict[str, Any] = field(default_factory=dict)
    history_offset: int = 0
    """Messages of the stored history the host left out of ``conversation`` (a window): question
    identities stay absolute message indexes."""


__all__ = ["Deps"]
