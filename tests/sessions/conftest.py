"""Fixtures for the session tests: a store in the per-test data dir, the fake knowledge base, an agent."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent

from haiku_tui.sessions import SessionStore
from tests.sessions.helpers import FakeKB, Researcher, make_agent


@pytest.fixture
def store():
    with SessionStore() as s:
        yield s


@pytest.fixture
def kb() -> FakeKB:
    return FakeKB()


@pytest.fixture
def researcher() -> Researcher:
    return Researcher()


@pytest.fixture
def agent(researcher, kb) -> Agent:
    return make_agent(researcher.model, kb)
