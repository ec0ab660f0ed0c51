"""Fixtures for the server tests (AG-UI, MCP, the browser, their command-line faults)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kb_fixture import build_small_kb


@pytest.fixture(scope="session")
def kb_path(tmp_path_factory) -> Path:
    """The four-document knowledge base, built once (read-only)."""
    path = tmp_path_factory.mktemp("serve") / "kb.lancedb"
    build_small_kb(path).close()
    return path
