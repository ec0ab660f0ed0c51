"""A real model path: the loopback OpenAI-compatible server (chat completions, SSE and JSON)."""

from __future__ import annotations

import pydantic_ai.models
import pytest

from haiku_tui.agent import AgentConfig, build_agent, describe_error, resolve_model
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.ledger import citation_status, violations
from tests.agent.streaming import stream_run
from tests.model_server import ModelServer

QUESTION = "How long should I steep green tea?"


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
async def test_streams_tool_calls_and_text_through_the_agent(model_server, small_kb, chunked):
    model_server.chunked = chunked
    model = resolve_model("qwen2.5-7b-instruct", base_url=model_server.base_url, api_key="local-key")
    agent = build_agent(
        AgentConfig(model="qwen2.5-7b-instruct", base_url=model_server.base_url), kb=small_kb, model=model
    )
    deps = Deps(state={})
    text, calls, result = await stream_run(agent, QUESTION, deps)
    assert calls == ["load_capability", "rag_search", "rag_cite"]
    assert len(text) > 5 and "".join(text) == result.output  # word by word
    assert result.output.startswith('The documents say: "') and "[1]" in result.output and "[2]" in result.output
    assert "tea" in result.output.lower()
    assert citation_status(deps.state, deps.state["rag"]["question"]) == "grounded"
    assert violations(deps.state) == []
    requests = model_server.requests
    assert all(r.path == "/v1/chat/completions" and r.body["stream"] for r in requests)
    assert all(r.body["model"] == "qwen2.5-7b-instruct" for r in requests)
    assert requests[0].headers["authorization"] == "Bearer local-key"
    assert "haiku-tui" in requests[0].messages[0]["content"]  # the host preamble is the system message
    search = next(
        c for m in requests[-1].messages for c in m.get("tool_calls") or [] if c["function"]["name"] == "rag_search"
    )
    assert QUESTION in search["function"]["arguments"]


async def test_non_streamed_run_through_build_agent(model_server, small_kb):
    agent = build_agent(AgentConfig(model="openai:qwen2.5-7b-instruct", base_url=model_server.base_url), kb=small_kb)
    deps = Deps(state={})
    result = await agent.run(QUESTION, deps=deps)
    assert "[1]" in result.output
    assert citation_status(deps.state, deps.state["rag"]["question"]) == "grounded"
    assert len(model_server.requests) == 4 and not any(r.body.get("stream") for r in model_server.requests)


async def test_server_rejecting_the_key_is_one_line(model_server, small_kb):
    model_server.mode = "unauthorized"
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb)
    with pytest.raises(Exception) as info:
        await agent.run(QUESTION, deps=Deps(state={}))
    message = describe_error(info.value)
    assert message.startswith("the model provider rejected the credentials (m) (HTTP 401): Invalid API key")


async def test_connection_refused_is_one_line(small_kb, monkeypatch):
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    srv = ModelServer()  # bound, then closed: nothing listens on its port
    url = srv.base_url
    srv.server_close()
    model = resolve_model("m", base_url=url)
    model.client.max_retries = 0
    agent = build_agent(AgentConfig(model="m", base_url=url), kb=small_kb, model=model)
    with pytest.raises(Exception) as info:
        await agent.run(QUESTION, deps=Deps(state={}))
    assert describe_error(info.value) == (
        "could not reach the model (m): connection refused; is the server running and the URL right?"
    )


@pytest.mark.parametrize(
    ("mode", "error", "row"),
    [
        ("unknown-tool", "the model called a tool that does not exist (frobnicate); try another model",
         "frobnicate failed: no such tool"),
        ("bad-args", "the model sent rag_search arguments that are not valid JSON; try another model",
         "rag_search failed: arguments that are not valid JSON"),
    ],
)
async def test_tool_misuse_ends_in_plain_words_with_one_failed_row_per_call(model_server, small_kb, mode, error, row):
    from haiku_tui.sessions.model import Session
    from haiku_tui.sessions.run import Finished, QuestionRun, StepFinished, StepStarted

    model_server.mode = mode
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb)
    started, rows, finished = [], {}, None
    async for event in QuestionRun(agent, Session(), QUESTION):
        if isinstance(event, StepStarted):
            started.append(event.step.text)
        elif isinstance(event, StepFinished):
            rows[event.call_id] = event.step
        elif isinstance(event, Finished):
            finished = event
    assert finished.outcome == "failed" and finished.error.startswith(error)
    failed = [step.text for step in rows.values() if step.failed]
    assert len(rows) == len(started)  # every call ends in one row: none left "interrupted"
    assert failed == [row] * len(failed) and len(failed) >= 2, (started, rows)
    assert not any("“”" in text or "{'type'" in text for text in started + failed)


async def test_a_body_cut_short_is_a_cut_off_reply(model_server, small_kb):
    model_server.mode = "cut"  # not streamed: the JSON body stops halfway through its Content-Length
    model = resolve_model("m", base_url=model_server.base_url)
    model.client.max_retries = 0
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb, model=model)
    with pytest.raises(Exception) as info:
        await agent.run(QUESTION, deps=Deps(state={}))
    assert (
        describe_error(info.value) == "the model's reply was cut off before it finished; nothing was saved; try again"
    )


async def test_the_server_streams_at_a_set_pace(model_server, small_kb):
    import time

    model_server.delay = 0.02
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb)
    started = time.monotonic()
    text, _, _ = await stream_run(agent, QUESTION, Deps(state={}))
    assert time.monotonic() - started >= 0.02 * len(text)  # at least one delay per streamed piece


async def test_cached_tokens_the_server_reports_reach_the_session_tokens(model_server, small_kb):
    """A server's ``usage.prompt_tokens_details.cached_tokens`` (OpenAI's, llama.cpp's) is what the wire inspector
    and the status bar show as cached."""
    from haiku_tui.capabilities.wire import session_tokens

    model_server.cached_tokens = 7
    agent = build_agent(AgentConfig(model="m", base_url=model_server.base_url), kb=small_kb)
    _, _, result = await stream_run(agent, QUESTION, Deps(state={}))
    tokens = session_tokens(result.all_messages())
    assert tokens.cached == 7 * len(model_server.requests) and tokens.input == 10 * len(model_server.requests)
    assert not tokens.estimated
