"""Agent configuration and the one function that builds the agent from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from haiku_tui.agent.preamble import preamble_for

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.models import Model

    from haiku_tui.capabilities import Deps
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.store.rerank import Reranker


DEFER_TOOLS = True
"""The app's default (app, ``ask``, serve): the rag tools are deferred behind ``load_capability`` (False: offered
from the first request). The one place to flip it from ``bench/bench_local_model.py``'s figures; the capability's
own default stays deferred, as the spec says."""


@dataclass(frozen=True)
class AgentConfig:
    """What the agent is built from. ``api_key`` is used, never persisted (it is kept out of repr).

    Unset fields are resolved by :func:`haiku_tui.agent.models.choose_model` (flags, environment,
    config file), the same for the app and the CLI; ``timeout`` is seconds to wait for the model.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    timeout: float | None = None
    db: str | None = None
    defer_loading: bool = DEFER_TOOLS
    compaction: bool = True
    policy: bool = True
    analysis: bool = False
    preamble: str | None = None
    """The agent's own instructions (None: the path's, :func:`~haiku_tui.agent.preamble.preamble_for`)."""
    reranker: str | None = None
    """A rerank server's URL (``POST {url}/rerank``) that reorders the knowledge base's search candidates."""
    reranker_model: str | None = None
    on_reranker_fault: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    """Told the one line a failed rerank costs (the search keeps its own order)."""
    search_first: bool | None = None
    """True: offer the model no tools: haiku-tui searches for each question first and puts the numbered passages
    in its request; the answer's ``[n]`` markers (or, without them, its attributed sentences) are its citations.
    False: tools, always. None (automatic): tools, and the host asks again search-first when the model cannot be
    grounded with them (``agent/fallback.py``; the choice: ``agent/model_paths.search_first_choice``)."""


def build_agent(
    config: AgentConfig | None = None, *, kb: KnowledgeBase | None = None, model: Model | None = None
) -> Agent[Deps, str]:
    """The haiku-tui agent: the resolved model, the RAG capability, compaction and the citation policy.

    With ``config.search_first`` the model is offered no tools: haiku-tui searches for each question and puts
    the passages in its request (:mod:`haiku_tui.capabilities.rag`).

    With ``config.analysis`` the analysis capability (sandboxed Python over the corpus) is
    registered too; both evidence capabilities are then deferred, each loaded on demand.

    ``kb`` (an open knowledge base) takes precedence over ``config.db``; ``model`` (e.g. a test
    double) takes precedence over ``config.model``. Raises ``ModelConfigError`` for a model that
    cannot be built as configured.
    """
    from pydantic_ai import Agent

    from haiku_tui.agent.errors import use_settings
    from haiku_tui.agent.models import choose_model, resolve_model
    from haiku_tui.capabilities import Deps
    from haiku_tui.capabilities import compaction as compaction_capability
    from haiku_tui.capabilities import policy as policy_capability
    from haiku_tui.capabilities import rag

    config = config or AgentConfig()
    if kb is not None and config.reranker:
        kb.reranker = make_reranker(config.reranker, config.reranker_model, on_fault=config.on_reranker_fault)
    choice = choose_model(config.model, config.base_url, config.api_key, config.timeout)
    resolved = model if model is not None else resolve_model(choice.name, choice.base_url, choice.api_key)
    use_settings(choice)
    if config.search_first:
        capabilities: list[Any] = _search_first_capabilities(config, kb)
    else:
        defer = config.defer_loading or config.analysis
        capabilities = [rag.create_capability(config.db, defer_loading=defer, kb=kb)]
        if config.analysis:
            from haiku_tui.capabilities import analysis

            capabilities.append(analysis.create_capability(config.db, kb=kb))
        if config.compaction:
            capabilities.append(compaction_capability.create_capability())
        if config.policy:
            capabilities.append(policy_capability.create_capability())
    return Agent(
        resolved,
        deps_type=Deps,
        output_type=str,
        instructions=(preamble_for(config.search_first) if config.preamble is None else config.preamble) or None,
        capabilities=capabilities,
        name="haiku-tui",
        # A server that accepts and never answers ends the run after ``timeout`` (each attempt, and
        # a stream's first output across attempts); a long answer that keeps streaming is not cut.
        model_settings={
            "timeout": choice.timeout,
            "first_event_timeout": choice.timeout,
            **cache_settings(resolved),
            # search-first: the passages' own note says what they are; Pydantic AI's announcement of its frames
            # (a system message at the first frame) was what small models answered a follow-up with
            **({"framing_announcement": "never"} if config.search_first else {}),
        },
    )


def cache_settings(model: Any) -> dict[str, Any]:
    """Anthropic's prompt cache points for ``model`` (none for other providers, whose servers cache a prompt's
    prefix on their own): the instructions, the tool definitions, and the history up to its last block, which
    moves forward as the conversation grows (compaction keeps what comes before it unchanged).

    Pydantic AI's note on what ``<system>`` blocks in user turns mean (Anthropic's API has no system role there; a
    loaded capability's instructions arrive in one) goes at the start of the system prompt from the first request,
    not from the first load on: the instructions then stay the same in every request of a session."""
    if getattr(model, "system", None) != "anthropic":
        return {}
    return {"anthropic_cache_instructions": True, "anthropic_cache_tool_definitions": True, "anthropic_cache": True,
            "framing_announcement": "always"}


def _search_first_capabilities(config: AgentConfig, kb: KnowledgeBase | None) -> list[Any]:
    """Search-first: no tools (so no analysis); haiku-tui searches before the model is asked.

    The citation policy comes first: its ``after_*`` hooks then run after the RAG capability's, which register
    the answer's citations (Pydantic AI runs those hooks innermost first)."""
    from haiku_tui.agent.quoting import search_query
    from haiku_tui.capabilities import compaction, policy, rag

    capabilities: list[Any] = [policy.create_capability()] if config.policy else []
    capabilities.append(
        rag.create_capability(
            config.db, kb=kb, search_first=True, query_for=search_query, search_limit=_passages()
        )
    )
    if config.compaction:
        capabilities.append(compaction.create_capability())
    return capabilities


RUN_REQUEST_LIMIT = 50
"""Model requests one run (one question) may make."""


def run_limits(conversation: Any = None) -> Any:
    """Usage limits for one run: a resumed conversation's earlier requests do not count against it."""
    from pydantic_ai.usage import UsageLimits

    earlier = conversation.usage.requests if conversation is not None else 0
    return UsageLimits(request_limit=earlier + RUN_REQUEST_LIMIT)


HISTORY_WINDOW = 20
"""Earlier questions whose messages a run is given by default (the stored history keeps all)."""

RETAINED_CHARS = 32_000
"""Characters of earlier cited text a run's requests carry in full by default (about 8k tokens): what the
citations of a full :data:`HISTORY_WINDOW` take (20 questions citing two or three chunks each, 25–30k
characters in ``bench/bench_ask_turns.py``). Chunks cited before those reach the model as receipt lines."""


def _setting(key: str, default: int, meaning: str, example: int, *, least: int = 0) -> int:
    """Whole-number setting ``key`` of ``<data dir>/config.toml`` (≥ ``least``), else ``default``.

    A value that is not a whole number ≥ ``least`` is a ModelConfigError naming the fix.
    """
    from haiku_tui.agent.models import ModelConfigError, config_path, read_config

    value = read_config().get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ModelConfigError(
            f"{config_path()}: '{key}' must be a whole number ≥ {least} ({meaning}), e.g. {key} = {example}"
        )
    return value


def history_window() -> int:
    """``history_window`` of ``<data dir>/config.toml`` (0: the whole history), else :data:`HISTORY_WINDOW`."""
    return _setting("history_window", HISTORY_WINDOW, "0: the whole history", HISTORY_WINDOW)


def retained_chars() -> int:
    """``retained_chars`` of ``<data dir>/config.toml`` (0: every cited chunk in full), else :data:`RETAINED_CHARS`."""
    return _setting("retained_chars", RETAINED_CHARS, "0: every cited chunk in full", RETAINED_CHARS)


SEARCH_FIRST_PASSAGES = 5
"""Passages a question asked search-first comes with."""


def search_first_passages() -> int:
    """``search_first_passages`` of ``<data dir>/config.toml`` (at least 1), else :data:`SEARCH_FIRST_PASSAGES`."""
    return _setting("search_first_passages", SEARCH_FIRST_PASSAGES, "passages a question comes with", 5, least=1)


def _passages() -> int:
    """:func:`search_first_passages`, or its default when the setting is bad (the CLI and the app say so first)."""
    from haiku_tui.agent.models import ModelConfigError

    try:
        return search_first_passages()
    except ModelConfigError:
        return SEARCH_FIRST_PASSAGES


def context_tokens() -> int:
    """``context_tokens`` of ``<data dir>/config.toml``: the model's context size in tokens, for a server that does
    not say it (Ollama cuts an over-long request silently); 0 (the default): as the server says when a request does
    not fit (:class:`~haiku_tui.sessions.fallback.ContextMemory`)."""
    return _setting("context_tokens", 0, "0: as the server says when a request does not fit", 8192)


RERANKER_ENV = "HAIKU_TUI_RERANKER"
RERANKER_MODEL_ENV = "HAIKU_TUI_RERANKER_MODEL"


def reranker_choice(url: str | None = None, model: str | None = None) -> tuple[str | None, str | None]:
    """The reranker's URL and model: the flags, else ``$HAIKU_TUI_RERANKER`` / ``$HAIKU_TUI_RERANKER_MODEL``,
    else ``reranker`` / ``reranker_model`` in ``<data dir>/config.toml`` (None: no reranker)."""
    import os

    from haiku_tui.agent.models import ModelConfigError, config_path, read_config

    settings: dict[str, Any] = {}
    if not (url or os.environ.get(RERANKER_ENV)) or not (model or os.environ.get(RERANKER_MODEL_ENV)):
        settings = read_config()
    chosen = []
    for value, env, key in ((url, RERANKER_ENV, "reranker"), (model, RERANKER_MODEL_ENV, "reranker_model")):
        value = value or os.environ.get(env) or settings.get(key)
        if value is not None and not isinstance(value, str):
            raise ModelConfigError(f"{config_path()}: '{key}' must be a string, e.g. {key} = \"http://127.0.0.1:8012\"")
        chosen.append(value.strip() or None if value else None)
    return chosen[0], chosen[1]


def make_reranker(url: str, model: str | None = None, *, on_fault: Callable[[str], None] | None = None) -> Reranker:
    """A :class:`~haiku_tui.store.rerank.Reranker` for ``url``, its key (if any) from ``$HAIKU_TUI_API_KEY``;
    ModelConfigError for a URL that is not http(s)."""
    import os
    from urllib.parse import urlsplit

    from haiku_tui.agent.models import API_KEY_ENV, ModelConfigError
    from haiku_tui.store.rerank import Reranker

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelConfigError(f"reranker {url!r} is not an http(s) URL; give the server's address, e.g. --reranker http://127.0.0.1:8012")
    return Reranker(url, model, api_key=os.environ.get(API_KEY_ENV) or None, on_fault=on_fault)
