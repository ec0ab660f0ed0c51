"""Model resolution: which model answers, from the command line, the environment or the config file.

Source order for the model name: the ``--model`` argument, ``HAIKU_TUI_MODEL``, the ``model`` key
of ``<data dir>/config.toml``, else ``extractive`` (the offline, retrieval-only default). The app and
the CLI resolve everything else the same way, in :func:`choose_model`: the server URL
(``--base-url``, ``HAIKU_TUI_BASE_URL``, config ``base_url``), the API key (given, else
``HAIKU_TUI_API_KEY``, else the provider's own variable such as ``OPENAI_API_KEY``) and the request
timeout (``--timeout``, ``HAIKU_TUI_TIMEOUT``, config ``timeout``, else 60 s).

Any Pydantic AI model string works (``openai:…``, ``openai-chat:…``, ``anthropic:…``,
``ollama:…``, ``google-gla:…`` …), and ``base_url`` points any model name at an
OpenAI-compatible server (llama.cpp, vLLM, LM Studio, Ollama). Every configuration problem is
a :class:`ModelConfigError` whose message is one line naming the fix.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.models import Model

EXTRACTIVE = "extractive"
MODEL_ENV = "HAIKU_TUI_MODEL"
BASE_URL_ENV = "HAIKU_TUI_BASE_URL"
API_KEY_ENV = "HAIKU_TUI_API_KEY"
TIMEOUT_ENV = "HAIKU_TUI_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
"""Seconds to wait for the model to start answering (and between streamed chunks)."""
CONFIG_FILE = "config.toml"
EXTRACTIVE_LABEL = "extractive (retrieval-only)"

# Provider prefixes whose models speak the OpenAI Chat Completions API (``--base-url`` applies).
OPENAI_COMPATIBLE_PREFIXES = frozenset(
    {"openai", "openai-chat", "openai-responses", "ollama", "vllm", "local", "lmstudio", "llamacpp"}
)

# A streamed answer that ends without a finish_reason was cut off (llama.cpp, vLLM, LM Studio and Ollama
# all send one): Pydantic AI then raises ModelConnectionError(phase="read") instead of calling it "stop".
FINISH_REQUIRED: dict[str, Any] = {"openai_chat_streaming_requires_finish_reason": True}

# Older / documented spellings Pydantic AI 2.68 no longer parses.
PREFIX_ALIASES = {"google-gla": "google", "google-vertex": "google-cloud"}

# Extras of haiku-tui itself (pyproject ``[project.optional-dependencies]``).
PROJECT_EXTRAS = {"anthropic": "anthropic", "google": "google"}

# The variable each provider reads its key from when none is given (named in advice).
PROVIDER_KEY_ENV = {
    "openai": "OPENAI_API_KEY", "openai-chat": "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY", "google": "GOOGLE_API_KEY", "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY", "cohere": "CO_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY", "ollama": "OLLAMA_API_KEY",
}


class ModelConfigError(ValueError):
    """The model cannot be built as configured; the message is one line naming the fix."""


@dataclass(frozen=True)
class ModelChoice:
    """The model settings that apply: name, server, key and timeout, and where they came from.

    ``api_key`` is the key haiku-tui passes itself (kept out of repr); ``key_source`` names where the
    key that is actually sent comes from (``HAIKU_TUI_API_KEY``, ``OPENAI_API_KEY`` …), or is
    ``None`` when no key is sent.
    """

    name: str
    base_url: str | None
    source: str  # "argument", "environment", "config file" or "default"
    api_key: str | None = field(default=None, repr=False, compare=False)
    key_source: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def secrets(self) -> list[str]:
        """The key values this choice sends (to redact from anything shown)."""
        if self.api_key:
            return [self.api_key]
        sent = os.environ.get(self.key_source or "", "") if self.key_source else ""
        return [sent] if sent else []

    @property
    def label(self) -> str:
        return model_label(self.name, self.base_url)


def config_path() -> Path:
    """``<data dir>/config.toml``."""
    from haiku_tui.locations import data_dir

    return data_dir(create=False) / CONFIG_FILE


def read_config(path: Path | None = None) -> dict[str, Any]:
    """The config file as a dict (empty when it does not exist); a broken file is a ModelConfigError."""
    import tomllib

    path = path or config_path()
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ModelConfigError(f"cannot read {path}: {error} (fix or delete the file)") from None


def choose_model(
    name: str | None = None, base_url: str | None = None, api_key: str | None = None, timeout: float | None = None
) -> ModelChoice:
    """Apply the source order: argument, ``HAIKU_TUI_MODEL``, config file ``model``, ``extractive``.

    The server URL comes from the argument, else ``HAIKU_TUI_BASE_URL``, else the config file's
    ``base_url`` when the model name also came from the config file. The key is ``api_key``, else
    ``HAIKU_TUI_API_KEY``, else (no server URL) the provider's own variable. The timeout is
    ``timeout``, else ``HAIKU_TUI_TIMEOUT``, else the config file's ``timeout``, else 60 s.
    """
    base_url = base_url or os.environ.get(BASE_URL_ENV) or None
    config: dict[str, Any] | None = None
    env = os.environ.get(MODEL_ENV, "").strip()
    if name and name.strip():
        chosen, source = name.strip(), "argument"
    elif env:
        chosen, source = env, "environment"
    else:
        config = read_config()
        configured = config.get("model")
        if configured is not None and not isinstance(configured, str):
            raise ModelConfigError(f"{config_path()}: 'model' must be a string, e.g. model = \"openai:gpt-5\"")
        if configured and configured.strip():
            chosen, source = configured.strip(), "config file"
            url = base_url or config.get("base_url") or None
            if url is not None and not isinstance(url, str):
                raise ModelConfigError(f"{config_path()}: 'base_url' must be a string")
            base_url = url
        else:
            chosen, source = EXTRACTIVE, "default"
    key, key_source = _choose_key(chosen, base_url, api_key)
    return ModelChoice(chosen, base_url, source, key, key_source, _choose_timeout(timeout, config))


def _choose_key(name: str, base_url: str | None, api_key: str | None) -> tuple[str | None, str | None]:
    if api_key:
        return api_key, "the given API key"
    env = os.environ.get(API_KEY_ENV, "").strip()
    if env:
        return env, API_KEY_ENV
    if base_url or is_extractive(name):
        return None, None
    prefix, _ = _split(name)
    return None, PROVIDER_KEY_ENV.get(prefix or "")


def _choose_timeout(timeout: float | None, config: dict[str, Any] | None) -> float:
    if timeout is not None:
        value, where = timeout, "--timeout"
    elif os.environ.get(TIMEOUT_ENV, "").strip():
        value, where = os.environ[TIMEOUT_ENV].strip(), TIMEOUT_ENV
    else:
        config = read_config() if config is None else config
        if "timeout" not in config:
            return DEFAULT_TIMEOUT
        value, where = config["timeout"], f"{config_path()}: 'timeout'"
    return parse_timeout(value, where)


def parse_timeout(value: object, where: str = "--timeout") -> float:
    """A timeout in seconds (a positive number up to a day); anything else is a ModelConfigError."""
    try:
        seconds = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds <= 86400:
        raise ModelConfigError(
            f"{where} must be a number of seconds between 0 and 86400 (e.g. 60), not {str(value)[:40]!r}"
        )
    return seconds


def is_extractive(name: str | None) -> bool:
    """True for the built-in offline model (also when no name is given)."""
    return name is None or name.strip().lower() in {EXTRACTIVE, f"{EXTRACTIVE}:", "haiku-tui:extractive"}


def model_label(name: str | None, base_url: str | None = None) -> str:
    """How the model is shown: ``extractive (retrieval-only)`` for the default, else the name (and server)."""
    if is_extractive(name):
        return EXTRACTIVE_LABEL
    assert name is not None
    return f"{name} @ {base_url}" if base_url else name


def _split(name: str) -> tuple[str | None, str]:
    prefix, sep, rest = name.partition(":")
    if not sep:
        return None, name
    prefix = prefix.strip().lower()
    return PREFIX_ALIASES.get(prefix, prefix), rest.strip()


def resolve_model(name: str | None = None, base_url: str | None = None, api_key: str | None = None) -> Model:
    """A Pydantic AI ``Model`` for ``name`` (see :func:`choose_model` for the source order).

    ``base_url`` serves any model name from an OpenAI-compatible server; ``api_key`` is used for
    that server or the provider (and never stored).
    """
    choice = choose_model(name, base_url, api_key)
    return build_model(choice.name, choice.base_url, choice.api_key)


def build_model(name: str, base_url: str | None = None, api_key: str | None = None) -> Model:
    """Build the model for an explicit name (no source lookup)."""
    if is_extractive(name) and not base_url:
        from haiku_tui.agent.extractive import extractive_model

        return extractive_model()
    if base_url:
        return _compatible_model(name, base_url, api_key)
    prefix, model_name = _split(name)
    if prefix is None:
        raise ModelConfigError(
            f"unknown model {name!r}: use provider:model (e.g. openai:gpt-5, anthropic:claude-sonnet-5-5, "
            f"ollama:llama3.2), or pass --base-url for an OpenAI-compatible server, or use {EXTRACTIVE!r}"
        )
    if not model_name:
        raise ModelConfigError(f"model {name!r} names no model after {prefix + ':'!r} (e.g. {prefix}:<model name>)")
    return _infer(name, prefix, model_name, api_key)


def server_model_name(name: str) -> tuple[str | None, str]:
    """(prefix, the name sent) of a model named for an OpenAI-compatible server: verbatim, but for a prefix of
    :data:`OPENAI_COMPATIBLE_PREFIXES` (``openai:NAME`` → ``NAME``; ``ollama:NAME`` keeps its prefix, which picks
    Pydantic AI's Ollama model). Every other name is the server's own, colons and slashes included
    (``qwen2.5:0.5b``, ``mistral:7b``, ``hf.co/…:Q4_K_M``, ``Qwen/Qwen2.5-7B-Instruct``): a hosted provider's
    prefix too, since the server is the authority on its names (Ollama serves ``mistral:7b``, a proxy may serve
    any name); one it does not serve is its HTTP 404, whose line names the fix."""
    prefix, rest = _split(name)
    if prefix in OPENAI_COMPATIBLE_PREFIXES:
        return prefix, rest
    return None, name.strip()


def _compatible_model(name: str, base_url: str, api_key: str | None) -> Model:
    """``OpenAIChatModel`` on an OpenAI-compatible server at ``base_url``, asked for the model by the server's name."""
    if is_extractive(name):
        raise ModelConfigError(
            "--base-url needs the model name the server serves: pass --model NAME (e.g. --model qwen2.5:0.5b)"
        )
    prefix, model_name = server_model_name(name)
    if not model_name:
        raise ModelConfigError(f"model {name!r} names no model: pass --model NAME as the server knows it")
    if not re.match(r"^https?://", base_url):
        raise ModelConfigError(f"--base-url {base_url!r} is not an http(s) URL (e.g. http://127.0.0.1:8080/v1)")
    try:
        from pydantic_ai.models.openai import OpenAIChatModel

        if prefix == "ollama":
            from pydantic_ai.models.ollama import OllamaModel
            from pydantic_ai.providers.ollama import OllamaProvider

            return OllamaModel(
                model_name, provider=OllamaProvider(base_url=base_url, api_key=api_key), profile=FINISH_REQUIRED
            )
        from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
    except ImportError:
        raise ModelConfigError(
            "OpenAI-compatible servers need the openai package: pip install 'pydantic-ai-slim[openai]'"
        ) from None
    provider = OpenAICompatibleProvider("openai-compatible", base_url=base_url, api_key=api_key or "not-needed")
    return OpenAIChatModel(model_name, provider=provider, profile=FINISH_REQUIRED)


_ENV_VAR = re.compile(r"Set the `([A-Z0-9_]+)` environment variable")
_PIP_EXTRA = re.compile(r"pydantic-ai-slim\[([a-z0-9_-]+)\]")


def _infer(name: str, prefix: str, model_name: str, api_key: str | None) -> Model:
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.models import infer_model
    from pydantic_ai.providers import infer_provider, infer_provider_class

    canonical = f"{prefix}:{model_name}"

    def factory(provider_name: str) -> Any:
        if api_key:
            try:
                return infer_provider_class(provider_name)(api_key=api_key)
            except TypeError:
                pass
        return infer_provider(provider_name)

    try:
        return infer_model(canonical, provider_factory=factory)
    except ImportError as error:
        match = _PIP_EXTRA.search(str(error))
        extra = match.group(1) if match else prefix
        if extra in PROJECT_EXTRAS:
            fix = f"pip install 'haiku-tui[{PROJECT_EXTRAS[extra]}]'"
        else:
            fix = f"pip install 'pydantic-ai-slim[{extra}]'"
        raise ModelConfigError(f"{name} needs the {extra} extra: {fix}") from None
    except (UserError, ValueError) as error:
        raise ModelConfigError(_config_message(name, prefix, str(error))) from None


def _config_message(name: str, prefix: str, message: str) -> str:
    env = _ENV_VAR.search(message)
    if env:
        var = env.group(1)
        if var.endswith("_BASE_URL"):
            return f"{name} needs {var} (export it, e.g. {var}=http://localhost:11434/v1, or pass --base-url)"
        if prefix in OPENAI_COMPATIBLE_PREFIXES:
            return f"{name} needs {var} (export it, or pass --base-url for a local server)"
        return f"{name} needs {var} (export it)"
    if message.startswith(("Unknown model", "Unknown provider")):
        suggestion = re.search(r"Did you mean '([^']+)'", message)
        hint = f"; did you mean {suggestion.group(1)!r}?" if suggestion else ""
        return (
            f"unknown model {name!r}: {prefix!r} is not a provider Pydantic AI knows{hint} "
            "(e.g. openai:gpt-5, anthropic:claude-sonnet-5-5, ollama:llama3.2, or --base-url URL)"
        )
    first = " ".join(message.split())
    return f"{name}: {first}"
