"""Shared fixtures. No test ever reaches a real model or the network."""

from __future__ import annotations

import pydantic_ai.models
import pytest

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory, monkeypatch):
    """Every test gets its own data dir and no inherited database or model settings."""
    data = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("HAIKU_TUI_DATA_DIR", str(data))
    for var in ("HAIKU_RAG_DB", "HAIKU_TUI_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
                "ANTHROPIC_BASE_URL", "HAIKU_TUI_API_KEY", "HAIKU_TUI_BASE_URL", "HAIKU_TUI_TIMEOUT",
                "HAIKU_TUI_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    return data


@pytest.fixture
def model_server(monkeypatch):
    """A loopback OpenAI-compatible model server (``tests/model_server.py``), mode ``ok``; set ``.mode``."""
    from tests.model_server import ModelServer

    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    server = ModelServer().start()
    yield server
    server.stop()


@pytest.fixture
def anthropic_server(monkeypatch):
    """A loopback Anthropic Messages API server with a prompt cache (``tests/anthropic_server.py``); the SDK is
    pointed at it by its own ``ANTHROPIC_BASE_URL``, with a key of its own (haiku-tui redacts every key in use from
    its messages for the rest of the process: a key like "test" would turn later tests' paths to "[redacted]")."""
    from tests.anthropic_server import AnthropicServer

    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    server = AnthropicServer().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-loopback-0f3c9a")
    yield server
    server.stop()
