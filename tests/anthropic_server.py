"""A loopback Anthropic Messages API server that behaves like a tool-using Claude and keeps a prompt cache.

``POST /v1/messages`` on 127.0.0.1, streamed as Anthropic streams it (``message_start`` with the usage,
``content_block_start``/``content_block_delta``/``content_block_stop`` for a text block or a ``tool_use`` block whose
``input_json_delta`` pieces split the arguments, ``message_delta`` with the ``stop_reason`` and the usage,
``message_stop``). Pydantic AI streams every request to Anthropic (``agent.run`` too): nothing else is served.

Each step is :func:`tests.model_server.next_step`'s, on the request read as an OpenAI chat request: load the
capability while the rag tools are deferred, search with the question, cite the top results, answer with ``[n]``.

The prompt cache is Anthropic's, as its docs describe it: the request is read in the cache's order (every tool
definition, every system block, every content block of every message, each a block), and each ``cache_control``
breakpoint (a block's own, or the top-level one, which Anthropic puts on the last block) writes the prefix up to it.
A breakpoint reads the longest prefix that a request before wrote, ending at it or at one of the 20 blocks before it
(Anthropic's lookback). The usage reports that prefix as ``cache_read_input_tokens``, the rest up to the last
breakpoint as ``cache_creation_input_tokens``, and what follows as ``input_tokens``. Tokens are estimated at four
characters of the blocks' JSON each; the minimum cacheable length (1,024 tokens on Sonnet) is not applied, so the
small knowledge bases of the tests cache too. A prefix's identity is its blocks' JSON without their ``cache_control``.

In tests: the ``anthropic_server`` fixture of ``tests/conftest.py``, which points ``ANTHROPIC_BASE_URL`` (the
SDK's own variable) at it. By hand: ``python tests/anthropic_server.py --port 8766``, then
``ANTHROPIC_API_KEY=any ANTHROPIC_BASE_URL=http://127.0.0.1:8766 haiku-tui --model anthropic:claude-sonnet-5-5``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.model_server import LoopbackServer, Request, Step, next_step

LOOKBACK = 20
"""Blocks before a breakpoint at which Anthropic also looks for a cached prefix."""


@dataclass(frozen=True)
class Usage:
    """What the usage reports for one request: tokens read from the cache, written to it, and after the last
    breakpoint (``input``)."""

    input: int
    cache_creation: int
    cache_read: int

    def as_json(self, output: int) -> dict[str, int]:
        return {"input_tokens": self.input, "cache_creation_input_tokens": self.cache_creation,
                "cache_read_input_tokens": self.cache_read, "output_tokens": output}


def cache_blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(the block's JSON without ``cache_control``, whether it is a breakpoint) of each block of ``body``, in the
    cache's order: tools, system, messages; the top-level ``cache_control`` marks the last block."""
    system = body.get("system") or []
    tools = [t for t in body.get("tools") or [] if not t.get("defer_loading")]  # deferred: outside the prefix
    blocks: list[tuple[str, dict[str, Any]]] = [("tool", t) for t in tools]
    blocks += [("system", b) for b in ([{"type": "text", "text": system}] if isinstance(system, str) else system)]
    for message in body.get("messages", []):
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            blocks.append((message["role"], block))
    found = []
    for where, block in blocks:
        bare = {k: v for k, v in block.items() if k != "cache_control"}
        found.append((json.dumps([where, bare], sort_keys=True), "cache_control" in block))
    if body.get("cache_control") and found:
        found[-1] = (found[-1][0], True)
    return found


class PromptCache:
    """The prefixes written so far (by their hash), and the usage of each request read against them."""

    def __init__(self) -> None:
        self.written: set[str] = set()
        self._lock = threading.Lock()

    def usage(self, body: dict[str, Any]) -> Usage:
        """The usage of ``body`` (see the module's docstring); writes its breakpoints' prefixes."""
        blocks = cache_blocks(body)
        keys, tokens, digest, chars = [], [], hashlib.sha256(), 0
        for text, _ in blocks:
            digest.update(text.encode() + b"\0")
            chars += len(text)
            keys.append(digest.hexdigest())
            tokens.append(-(-chars // 4))
        breakpoints = [i for i, (_, marked) in enumerate(blocks) if marked]
        total = tokens[-1] if tokens else 0
        if not breakpoints:
            return Usage(total, 0, 0)
        with self._lock:
            hits = [i for b in breakpoints for i in range(b, max(-1, b - LOOKBACK - 1), -1) if keys[i] in self.written]
            self.written.update(keys[b] for b in breakpoints)
        read = tokens[max(hits)] if hits else 0
        last = tokens[breakpoints[-1]]
        return Usage(total - last, last - read, read)


def chat_shape(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a Messages API request) as the OpenAI chat request :func:`~tests.model_server.next_step` reads:
    text blocks as user or assistant content, ``tool_use`` blocks as tool calls, ``tool_result`` blocks as tool
    messages; a deferred tool is offered once a ``tool_reference`` reveals it."""
    messages: list[dict[str, Any]] = []
    for message in body.get("messages", []):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "assistant":
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})}}
                     for b in blocks if b["type"] == "tool_use"]
            text = "".join(b.get("text", "") for b in blocks if b["type"] == "text")
            messages.append({"role": "assistant", "content": text or None, "tool_calls": calls or None})
            continue
        for b in blocks:
            if b["type"] == "tool_result":
                result = b.get("content") or ""
                text = result if isinstance(result, str) else "".join(p.get("text", "") for p in result)
                messages.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": text})
            elif b["type"] == "text":  # a system entry's text is the application's, never a question
                text = b["text"] if message["role"] == "user" else f"<system>{b['text']}"
                messages.append({"role": "user", "content": text})
    revealed = _revealed(body.get("messages", []))
    tools = [{"type": "function", "function": {"name": t["name"]}} for t in body.get("tools") or []
             if "name" in t and (not t.get("defer_loading") or t["name"] in revealed)]
    return {"model": body.get("model"), "messages": messages, "tools": tools}


def _revealed(value: Any) -> set[str]:
    """Names of the deferred tools a ``tool_reference`` in ``value`` reveals (a ``search_tools`` result's, or a
    system entry's ``tool_addition``)."""
    if isinstance(value, list):
        return set().union(*map(_revealed, value)) if value else set()
    if not isinstance(value, dict):
        return set()
    found = {value.get("tool_name") or value.get("name")} if value.get("type") == "tool_reference" else set()
    return found.union(*map(_revealed, value.values()))


class AnthropicServer(LoopbackServer):
    """The server: ``requests`` (every one received), ``cache`` (its prompt cache), ``usages`` (what each request's
    usage reported, in order)."""

    def __init__(self, port: int = 0):
        super().__init__(port, _Handler)
        self.requests: list[Request] = []
        self.usages: list[Usage] = []
        self.cache = PromptCache()

    @property
    def base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` is set to (the SDK adds ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.server_address[1]}"



class _Handler(BaseHTTPRequestHandler):
    server: AnthropicServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        if self.path.split("?")[0].rstrip("/") != "/v1/messages":
            return self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": "not found"}})
        if not body.get("stream"):
            message = "this loopback server streams only (Pydantic AI streams every Anthropic request, agent.run too)"
            return self._send(400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        self.server.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        usage = self.server.cache.usage(body)
        self.server.usages.append(usage)
        step = next_step(chat_shape(body), "ok")
        n = len(self.server.requests)
        return self._stream(body, step, usage, n)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, body: dict[str, Any], step: Step, usage: Usage, n: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(kind: str, **data: Any) -> None:
            chunk = f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()

        message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": body.get("model"),
                   "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage.as_json(1)}
        event("message_start", message=message)
        block = _block(step, n)
        event("content_block_start", index=0, content_block={**block, **({"input": {}} if step.name else {"text": ""})})
        if step.name:
            pieces = [step.arguments[i:i + 7] for i in range(0, len(step.arguments), 7)]
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
        else:
            words = (step.text or "").split(" ")
            deltas = [{"type": "text_delta", "text": w + (" " if i < len(words) - 1 else "")}
                      for i, w in enumerate(words)]
        for delta in deltas:
            event("content_block_delta", index=0, delta=delta)
        event("content_block_stop", index=0)
        event("message_delta", delta={"stop_reason": "tool_use" if step.name else "end_turn", "stop_sequence": None},
              usage=usage.as_json(5))
        event("message_stop")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _block(step: Step, n: int) -> dict[str, Any]:
    """The response's content block: a ``tool_use`` (its ``input`` parsed) or a ``text``."""
    if step.name:
        return {"type": "tool_use", "id": f"toolu_{n}", "name": step.name, "input": json.loads(step.arguments)}
    return {"type": "text", "text": step.text}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args(argv)
    server = AnthropicServer(args.port)
    server.serve_until_interrupted(f"serving {server.base_url} (ANTHROPIC_BASE_URL)")


if __name__ == "__main__":
    main()
