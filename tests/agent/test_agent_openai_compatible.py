"""A real model path: an OpenAI-compatible server on loopback (chat completions, SSE streaming)."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pydantic_ai.models
import pytest

from haiku_tui.agent import AgentConfig, build_agent, describe_error, resolve_model
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.ledger import citation_status, violations
from haiku_tui.capabilities.rag import RAG_ID
from tests.agent.streaming import stream_run

ANSWER = ["Steep green tea ", "for two to three minutes ", "[1]."]


def next_step(body):
    """A scripted model: load the capability, search, cite the first result, then answer."""
    messages = body["messages"]
    tools = {t["function"]["name"] for t in body.get("tools", [])}
    last = messages[-1]
    tool_messages = [m for m in messages if m["role"] == "tool"]
    called = [c["function"]["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    if "rag_search" not in tools:
        return ("tool", "load_capability", {"id": RAG_ID})
    if "rag_search" not in called:
        return ("tool", "rag_search", {"query": "steep green tea"})
    if "rag_cite" not in called:
        search = next(m for m in tool_messages if "(rank 1 of" in str(m["content"]))
        chunk_id = re.search(r"\[([0-9a-f]{16})\]", str(search["content"])).group(1)
        return ("tool", "rag_cite", {"chunk_ids": [chunk_id]})
    assert last["role"] == "tool" and "Registered 1 citation(s): [1]" in str(last["content"])
    return ("text", None, None)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, status=200):
        super().__init__(("127.0.0.1", 0), Handler)
        self.status = status
        self.requests: list[dict] = []
        self.auth: list[str | None] = []

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, **body})
        self.server.auth.append(self.headers.get("Authorization"))
        if self.server.status != 200:
            payload = json.dumps({"error": {"message": "Invalid API key", "type": "invalid_request_error"}}).encode()
            self.send_response(self.server.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        kind, name, args = next_step(body)
        n = len(self.server.requests)
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()

            def chunk(delta, finish=None):
                data = {"id": f"c{n}", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            if kind == "tool":
                arguments = json.dumps(args)
                chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function",
                                                            "function": {"name": name, "arguments": arguments[:5]}}]})
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[5:]}}]})
                chunk({}, "tool_calls")
            else:
                chunk({"role": "assistant", "content": ANSWER[0]})
                for piece in ANSWER[1:]:
                    chunk({"content": piece})
                chunk({}, "stop")
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            return
        if kind == "tool":
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": "".join(ANSWER)}, "stop"
        payload = json.dumps({"id": f"c{n}", "object": "chat.completion", "created": 0, "model": body["model"],
                              "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                              "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server(request, monkeypatch):
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    srv = Server(getattr(request, "param", 200))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


async def test_streams_tool_calls_and_text_through_the_agent(server, small_kb):
    model = resolve_model("qwen2.5-7b-instruct", base_url=server.base_url, api_key="local-key")
    agent = build_agent(AgentConfig(model="qwen2.5-7b-instruct", base_url=server.base_url), kb=small_kb, model=model)
    deps = Deps(state={})
    text, calls, result = await stream_run(agent, "How long should I steep green tea?", deps)
    assert result is not None and result.output == "".join(ANSWER)
    assert text == ANSWER
    assert calls == ["load_capability", "rag_search", "rag_cite"]
    assert citation_status(deps.state, deps.state["rag"]["question"]) == "grounded"
    assert violations(deps.state) == []
    assert all(r["path"] == "/v1/chat/completions" and r["stream"] for r in server.requests)
    assert all(r["model"] == "qwen2.5-7b-instruct" for r in server.requests)
    assert server.auth[0] == "Bearer local-key"
    # the host preamble goes out as the system message
    assert "haiku-tui" in server.requests[0]["messages"][0]["content"]


async def test_non_streamed_run_through_build_agent(server, small_kb):
    agent = build_agent(AgentConfig(model="openai:qwen2.5-7b-instruct", base_url=server.base_url), kb=small_kb)
    deps = Deps(state={})
    result = await agent.run("How long should I steep green tea?", deps=deps)
    assert result.output == "".join(ANSWER)
    assert citation_status(deps.state, deps.state["rag"]["question"]) == "grounded"
    assert len(server.requests) == 4 and not any(r.get("stream") for r in server.requests)


@pytest.mark.parametrize("server", [401], indirect=True)
async def test_server_rejecting_the_key_is_one_line(server, small_kb):
    agent = build_agent(AgentConfig(model="m", base_url=server.base_url), kb=small_kb)
    with pytest.raises(Exception) as info:
        await agent.run("How long should I steep green tea?", deps=Deps(state={}))
    message = describe_error(info.value)
    assert message.startswith("the model provider rejected the credentials (m) (HTTP 401): Invalid API key")


async def test_connection_refused_is_one_line(small_kb, monkeypatch):
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    srv = Server()  # bound, then closed: nothing listens on its port
    url = srv.base_url
    srv.server_close()
    model = resolve_model("m", base_url=url)
    model.client.max_retries = 0
    agent = build_agent(AgentConfig(model="m", base_url=url), kb=small_kb, model=model)
    with pytest.raises(Exception) as info:
        await agent.run("How long should I steep green tea?", deps=Deps(state={}))
    assert describe_error(info.value) == (
        "could not reach the model (m): connection refused; is the server running and the URL right?"
    )
