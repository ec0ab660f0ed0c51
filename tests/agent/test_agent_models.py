"""Model resolution: the source order, every model family, and one clear line for every error."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from pydantic_ai.models.function import FunctionModel

from haiku_tui.agent import EXTRACTIVE, ModelConfigError, choose_model, model_label, resolve_model
from haiku_tui.agent.models import config_path


def write_config(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def config_error(name, base_url=None, api_key=None) -> str:
    with pytest.raises(ModelConfigError) as info:
        resolve_model(name, base_url, api_key)
    message = str(info.value)
    assert "\n" not in message and message.strip() == message
    return message


# ---- source order --------------------------------------------------------------------------


def test_default_is_extractive():
    choice = choose_model(None)
    assert (choice.name, choice.source, choice.base_url) == (EXTRACTIVE, "default", None)
    model = resolve_model(None)
    assert isinstance(model, FunctionModel)
    assert model.model_name == "extractive"


def test_source_order_argument_env_config(monkeypatch):
    write_config('model = "openai-chat:from-config"\n')
    assert choose_model(None).name == "openai-chat:from-config"
    assert choose_model(None).source == "config file"
    monkeypatch.setenv("HAIKU_TUI_MODEL", "openai:from-env")
    assert (choose_model(None).name, choose_model(None).source) == ("openai:from-env", "environment")
    assert (choose_model("anthropic:from-arg").name, choose_model("anthropic:from-arg").source) == (
        "anthropic:from-arg",
        "argument",
    )


def test_config_base_url_applies_with_config_model_only(monkeypatch):
    write_config('model = "qwen2.5"\nbase_url = "http://127.0.0.1:8080/v1"\n')
    assert choose_model(None).base_url == "http://127.0.0.1:8080/v1"
    assert choose_model("openai:gpt-5").base_url is None
    assert choose_model("x", "http://other/v1").base_url == "http://other/v1"


def test_config_file_may_choose_extractive_explicitly():
    write_config('model = "extractive"\n')
    assert isinstance(resolve_model(None), FunctionModel)


def test_broken_config_file_is_one_clear_line():
    write_config("model = [unterminated\n")
    message = config_error(None)
    assert "config.toml" in message and "fix or delete" in message


def test_config_model_must_be_a_string():
    write_config("model = 3\n")
    assert "'model' must be a string" in config_error(None)


# ---- model families -------------------------------------------------------------------------


def test_openai_needs_key():
    assert config_error("openai:gpt-5") == (
        "openai:gpt-5 needs OPENAI_API_KEY (export it, or pass --base-url for a local server)"
    )
    assert "needs OPENAI_API_KEY" in config_error("openai-chat:gpt-4o")


def test_openai_with_key_from_env_or_argument(monkeypatch):
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel

    model = resolve_model("openai:gpt-5", api_key="sk-test")
    assert isinstance(model, OpenAIResponsesModel) and model.model_name == "gpt-5"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert isinstance(resolve_model("openai:gpt-5"), OpenAIResponsesModel)
    chat = resolve_model("openai-chat:gpt-4o")
    assert isinstance(chat, OpenAIChatModel) and chat.model_name == "gpt-4o"


def test_anthropic_needs_its_extra(monkeypatch):
    for module in ("anthropic", "pydantic_ai.providers.anthropic", "pydantic_ai.models.anthropic"):
        monkeypatch.setitem(sys.modules, module, None)  # as without the extra (the test extra installs it)
    assert config_error("anthropic:claude-sonnet-5-5") == (
        "anthropic:claude-sonnet-5-5 needs the anthropic extra: pip install 'haiku-tui[anthropic]'"
    )


@pytest.mark.skipif(importlib.util.find_spec("google") is not None, reason="the google extra is installed")
@pytest.mark.parametrize("name", ["google-gla:gemini-2.5-flash", "google:gemini-2.5-flash"])
def test_google_needs_its_extra(name):
    assert config_error(name) == f"{name} needs the google extra: pip install 'haiku-tui[google]'"


def test_other_provider_extra_names_pydantic_ai_slim():
    if importlib.util.find_spec("groq") is not None:
        pytest.skip("groq installed")
    assert (
        config_error("groq:llama-3.3-70b")
        == "groq:llama-3.3-70b needs the groq extra: pip install 'pydantic-ai-slim[groq]'"
    )


def test_ollama_needs_base_url(monkeypatch):
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    message = config_error("ollama:llama3.2")
    assert message.startswith("ollama:llama3.2 needs OLLAMA_BASE_URL (export it")
    assert "--base-url" in message


def test_ollama_from_env_or_base_url(monkeypatch):
    from pydantic_ai.models.ollama import OllamaModel

    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:11434/v1")
    model = resolve_model("ollama:llama3.2")
    assert isinstance(model, OllamaModel) and model.model_name == "llama3.2"
    monkeypatch.delenv("OLLAMA_BASE_URL")
    model = resolve_model("ollama:llama3.2", base_url="http://127.0.0.1:11434/v1")
    assert isinstance(model, OllamaModel)
    assert str(model.client.base_url).startswith("http://127.0.0.1:11434/v1")


@pytest.mark.parametrize(
    "name", ["qwen2.5-7b-instruct", "openai:qwen2.5-7b-instruct", "openai-chat:qwen2.5-7b-instruct"]
)
def test_base_url_serves_any_name_from_an_openai_compatible_server(name):
    from pydantic_ai.models.openai import OpenAIChatModel

    model = resolve_model(name, base_url="http://127.0.0.1:8080/v1")
    assert isinstance(model, OpenAIChatModel)
    assert model.model_name == "qwen2.5-7b-instruct"
    assert str(model.client.base_url).rstrip("/") == "http://127.0.0.1:8080/v1"


def test_base_url_api_key_is_passed_to_the_server():
    model = resolve_model("m", base_url="http://127.0.0.1:8080/v1", api_key="secret")
    assert model.client.api_key == "secret"


def test_base_url_from_env(monkeypatch):
    from pydantic_ai.models.openai import OpenAIChatModel

    monkeypatch.setenv("HAIKU_TUI_BASE_URL", "http://127.0.0.1:8080/v1")
    assert isinstance(resolve_model("local-model"), OpenAIChatModel)


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("qwen2.5:0.5b", "qwen2.5:0.5b"),
        ("llama3.2", "llama3.2"),
        ("mistral:7b", "mistral:7b"),  # Ollama's name, though "mistral" is also a hosted provider's prefix
        ("hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M", "hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("anthropic:claude-sonnet-5-5", "anthropic:claude-sonnet-5-5"),  # the server's to serve or to refuse
        ("openai:qwen2.5:0.5b", "qwen2.5:0.5b"),
        ("OpenAI:llama3.2", "llama3.2"),
        ("lmstudio:qwen2.5-7b-instruct", "qwen2.5-7b-instruct"),
    ],
)
def test_base_url_sends_the_name_as_the_server_knows_it(name, sent):
    from pydantic_ai.models.openai import OpenAIChatModel

    model = resolve_model(name, base_url="http://127.0.0.1:11434/v1")
    assert isinstance(model, OpenAIChatModel) and model.model_name == sent


def test_an_ollama_prefix_keeps_the_ollama_model_and_sends_the_name_after_it():
    from pydantic_ai.models.ollama import OllamaModel

    model = resolve_model("ollama:qwen2.5:0.5b", base_url="http://127.0.0.1:11434/v1")
    assert isinstance(model, OllamaModel) and model.model_name == "qwen2.5:0.5b"


def test_base_url_errors():
    assert "--base-url needs the model name" in config_error(None, base_url="http://127.0.0.1:8080/v1")
    assert "names no model" in config_error("openai:", base_url="http://127.0.0.1:8080/v1")
    assert "not an http(s) URL" in config_error("m", base_url="127.0.0.1:8080")


@pytest.mark.parametrize("name", ["foo:bar", "gpt-4o"])
def test_unknown_models(name):
    message = config_error(name)
    assert message.startswith(f"unknown model {name!r}")


def test_empty_model_name_after_prefix():
    assert "names no model" in config_error("openai:")


def test_model_label():
    assert model_label(None) == "extractive (retrieval-only)"
    assert model_label("extractive") == "extractive (retrieval-only)"
    assert model_label("openai:gpt-5") == "openai:gpt-5"
    assert model_label("qwen", "http://127.0.0.1:8080/v1") == "qwen @ http://127.0.0.1:8080/v1"
    assert choose_model(None).label == "extractive (retrieval-only)"
