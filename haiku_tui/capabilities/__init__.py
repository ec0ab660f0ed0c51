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
    retained_chars: int = 0
    """Characters of earlier cited text compaction keeps in full (0: all); older cited chunks reach the
    model as receipt lines naming their ids and sources."""


__all__ = ["Deps"]
