"""One model-settings path for the app and the CLI: model, server, key and timeout, and their sources."""

from __future__ import annotations

import pytest

from haiku_tui.agent import AgentConfig, ModelConfigError, build_agent, choose_model, describe_error
from haiku_tui.agent.errors import redact, secrets_in_use
from haiku_tui.agent.models import DEFAULT_TIMEOUT, config_path
from haiku_tui.capabilities import Deps


def write_config(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_key_comes_from_the_argument_then_haiku_tui_api_key(monkeypatch):
    assert choose_model("m", "http://127.0.0.1:1/v1", api_key="given").key_source == "the given API key"
    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-env-key")
    choice = choose_model("m", "http://127.0.0.1:1/v1")
    assert (choice.api_key, choice.key_source, choice.secrets) == ("sk-env-key", "HAIKU_TUI_API_KEY", ["sk-env-key"])
    assert "sk-env-key" not in repr(choice)


def test_without_haiku_tui_api_key_a_server_gets_no_key_and_a_provider_its_own_variable(monkeypatch):
    assert choose_model("m", "http://127.0.0.1:1/v1").key_source is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    choice = choose_model("openai:gpt-5")
    assert choice.key_source == "OPENAI_API_KEY" and choice.secrets == ["sk-provider"]
    assert choose_model("anthropic:claude-sonnet-5-5").key_source == "ANTHROPIC_API_KEY"
    assert choose_model(None).key_source is None  # extractive sends nothing


def test_the_timeout_comes_from_the_argument_environment_config_or_default(monkeypatch):
    assert choose_model(None).timeout == DEFAULT_TIMEOUT
    write_config('timeout = 12\n')
    assert choose_model(None).timeout == 12
    monkeypatch.setenv("HAIKU_TUI_TIMEOUT", "7.5")
    assert choose_model(None).timeout == 7.5
    assert choose_model(None, timeout=3).timeout == 3


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "nan", "1e9"])
def test_a_bad_timeout_is_one_line_naming_where_it_came_from(monkeypatch, bad):
    monkeypatch.setenv("HAIKU_TUI_TIMEOUT", bad)
    with pytest.raises(ModelConfigError, match="HAIKU_TUI_TIMEOUT must be a number of seconds"):
        choose_model(None)


def test_a_bad_config_timeout_names_the_file():
    write_config('timeout = "later"\n')
    with pytest.raises(ModelConfigError, match="config.toml: 'timeout' must be a number"):
        choose_model(None)


def test_the_agent_carries_the_timeout():
    agent = build_agent(AgentConfig(timeout=4))
    assert agent.model_settings == {"timeout": 4, "first_event_timeout": 4}


async def test_the_app_path_sends_haiku_tui_api_key(small_kb, model_server, monkeypatch):
    """The app builds its agent from an AgentConfig without a key: HAIKU_TUI_API_KEY is still sent."""
    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-app-777")
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb)
    await agent.run("How long should I steep green tea?", deps=Deps(state={}))
    assert model_server.requests and {r.headers["authorization"] for r in model_server.requests} == {
        "Bearer sk-app-777"
    }
    assert "sk-app-777" in secrets_in_use()
    assert redact("echo: Bearer sk-app-777") == "echo: Bearer [redacted]"


def test_model_errors_are_sanitised_and_redacted(monkeypatch):
    from pydantic_ai import exceptions as ex

    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-short-1")
    build_agent(AgentConfig(model="m", base_url="http://127.0.0.1:9/v1"))
    error = ex.ModelHTTPError(500, "m", body={"error": {"message": "\x1b]2;PWN\x07 key sk-short-1 \x9b2J"}})
    message = describe_error(error)
    assert message == "the model provider failed (m) (HTTP 500): key [redacted]; try again later"


def test_a_key_split_by_control_characters_is_still_redacted(monkeypatch):
    from haiku_tui.agent.errors import safe_line

    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-split-42")
    build_agent(AgentConfig(model="m", base_url="http://127.0.0.1:9/v1"))
    assert safe_line("echo sk-spl\x1b[0mit-42 \x1b]2;t\x07done") == "echo [redacted] done"
