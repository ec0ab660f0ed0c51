"""Fixtures for the reach tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kb_fixture import build_small_kb


@pytest.fixture(scope="session")
def kb_path(tmp_path_factory) -> Path:
    """The four-document knowledge base, built once (read-only)."""
    path = tmp_path_factory.mktemp("reach") / "kb.lancedb"
    build_small_kb(path).close()
    return path
