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
    """The host's bound on earlier cited text sent in full (characters, 0: all), which it planned its window with
    (:func:`~haiku_tui.capabilities.compaction.plan_start`); chunks cited before the window reach the model as
    receipt lines naming their ids and sources. It also caps an earlier answer on the wire (a quarter of it)."""


__all__ = ["Deps"]
