"""A real LanceDB knowledge base shared by the capability tests (read-only)."""

from __future__ import annotations

import pytest

from tests.kb_fixture import build_small_kb


@pytest.fixture(scope="session")
def kb(tmp_path_factory):
    """The small four-document knowledge base, built once."""
    return build_small_kb(tmp_path_factory.mktemp("kb") / "kb.lancedb")
