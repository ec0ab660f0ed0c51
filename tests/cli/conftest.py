"""Fixtures for the command-line tests: the small knowledge base, built once per session."""

from __future__ import annotations

import pytest

from tests.kb_fixture import build_small_kb


@pytest.fixture(scope="session")
def kb_path(tmp_path_factory):
    """Path of the small four-document knowledge base (solar, sourdough, bicycle, tea)."""
    path = tmp_path_factory.mktemp("cli-kb") / "kb.lancedb"
    build_small_kb(path).close()
    return str(path)
