"""Native Pydantic AI capabilities: RAG (search and cite), evidence compaction, citation policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Deps:
    """Agent dependencies: ``state`` is the namespace map the host carries between runs."""

    state: dict[str, Any] = field(default_factory=dict)


__all__ = ["Deps"]
