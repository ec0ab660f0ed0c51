"""Fixtures for the agent tests: the small real knowledge base, built once per session."""

from __future__ import annotations

import pytest

from tests.kb_fixture import build_small_kb


@pytest.fixture(scope="session")
def kb_path(tmp_path_factory):
    """Path of the small four-document knowledge base (solar, sourdough, bicycle, tea)."""
    path = tmp_path_factory.mktemp("agent-kb") / "kb.lancedb"
    build_small_kb(path).close()
    return path


@pytest.fixture(scope="session")
def small_kb(kb_path):
    from haiku_tui.store import KnowledgeBase

    return KnowledgeBase.open(str(kb_path), create=False)
