"""A loopback OpenAI-compatible model server that behaves like a tool-using model, and misbehaves on demand.

``POST /v1/chat/completions`` on 127.0.0.1, streamed (SSE, as vLLM and llama.cpp send it: a role
chunk, word-by-word content deltas, tool-call deltas whose arguments are split across chunks, a
final chunk with ``finish_reason``, a usage chunk, ``data: [DONE]``) either chunked or
close-delimited (no Content-Length, the connection closes at the end), or as plain JSON.

It decides each step from the request's messages, as a model using haiku-tui's tools would:
``load_capability`` while the rag tools are deferred, then ``rag_search`` with the user's
question, then ``rag_cite`` with the chunk ids the search returned, then an answer quoting those
chunks with the ``[n]`` markers the cite call gave. A citation redirect (the policy's tagged
request) is answered by citing and repeating the answer. A request that offers no tools is asked
search-first: it is answered from the numbered ``[n]`` passages its messages carry, in every mode.

The behaviour is ``server.mode`` (one of :data:`MODES`), or the model name when it is
``fake-<mode>`` (e.g. ``--model fake-cut``). Every request is recorded in ``server.requests``.

In tests: the ``model_server`` fixture of ``tests/conftest.py`` (started and stopped per test).
By hand: ``python tests/model_server.py --port 8765 [--mode cut] [--close-delimited] [--delay 0.05]``, then
``haiku-tui --base-url http://127.0.0.1:8765/v1 --model fake``.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RAG_ID = "haiku-tui-rag"
REDIRECT_TAG = "[haiku-tui/citation-redirect]"
RETRY_TAG = "<pyai:retry_feedback>"
LONG_ANSWER_CHARS = 200_000
LOOP_EVENTS = 250_000
"""The most events of a loop (``loop``): 2 MB of it, should nothing stop it."""
TEXT_ABOVE = "[Its text is above"  # a search result whose text the request already holds

MODES = {
    "ok": "a tool-using model: load, search, cite, answer with [n]",
    "error500": "HTTP 500 with a JSON error body",
    "ratelimit": "HTTP 429 with Retry-After (server.retry_after seconds, 7 by default)",
    "unauthorized": "HTTP 401 whose message echoes the Authorization header (as careless servers do)",
    "hang": "accept the request and never answer",
    "cut": "the answer stops mid-stream: no finish_reason, no [DONE], connection closed "
    "(a truncated body when not streamed)",
    "no-finish": "the answer stream ends cleanly but without finish_reason and [DONE]",
    "bad-json": "a malformed JSON event in the answer stream",
    "unknown-tool": "calls a tool that does not exist (frobnicate)",
    "bad-args": "calls rag_search with arguments that are not valid JSON",
    "unbacked": "the answer also writes [7], which no cite call gave",
    "uncited": "searches, never cites, answers without markers",
    "undeclared": "answers without citing; cites and repeats the answer when redirected",
    "long": "a 200 KB answer",
    "loop": "an answer that falls into a loop: its first sentence, then '\\\"' over and over with no end (a small "
    "model on a server with no generation cap), until the client hangs up",
    "hostile": "an answer with terminal escapes and Textual markup",
    "refuse-ollama": "HTTP 400 to any request offering tools, as Ollama for a model without tool support",
    "refuse-llamacpp": "HTTP 500 'tools param requires --jinja flag', as llama.cpp's server without --jinja",
    "refuse-llamacpp-old": "HTTP 500 'Unsupported param: tools', as older llama.cpp servers",
    "refuse-vllm": "HTTP 400 for tool choice 'auto', as vLLM without --enable-auto-tool-choice",
    "text-call": "writes its tool call as text: <tool_call>{…}</tool_call>",
    "text-json": "writes its tool call as a bare JSON object {\"name\": …, \"arguments\": …}",
    "text-mistral": "writes its tool call as text: [TOOL_CALLS][{…}]",
    "no-tools": "never calls a tool: answers from nowhere",
    "imitate": "loads the capability, then writes an imitation tool result (<tool_response>…) as its answer",
    "announce": "loads the capability, then answers 'The following tool(s) are now available: …'",
    "unmarked": "asked search-first, copies a passage and writes no [n]",
    "stray": "asked search-first, quotes its first passage with [n] and marks a sentence no passage holds with the "
    "second's",
}
"""Every mode answers a request without tools search-first: from the numbered passages in its messages, with
their ``[n]`` markers (``unbacked`` adds one no passage carries, ``unmarked`` writes none)."""
REFUSALS = {
    "refuse-ollama": (400, "registry.ollama.ai/library/{model} does not support tools"),
    "refuse-llamacpp": (500, "tools param requires --jinja flag"),
    "refuse-llamacpp-old": (500, "Unsupported param: tools"),
    "refuse-vllm": (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
}
REFUSAL_FIXES = [
    ("refuse-ollama", "pull an Ollama model with tool support"),
    ("refuse-llamacpp", "start llama.cpp's server with --jinja"),
    ("refuse-llamacpp-old", "update llama.cpp and start its server with --jinja"),
    ("refuse-vllm", "start vLLM with --enable-auto-tool-choice --tool-call-parser"),
]
"""Each refusal mode and the fix haiku-tui's line names for it."""
NOWHERE_ANSWER = "Add 1 cup of flour and 1/2 cup of water, twice a day."
IMITATION = (
    '<tool_response>{"message": "Capability \'haiku-tui-rag\' loaded. Tools: rag_search, rag_cite"}</tool_response>'
)
ANNOUNCEMENT = "The following tool(s) are now available: `rag_cite`, `rag_search`."
HOSTILE_ANSWER = "Steep it \x1b[31mred\x1b[0m [bold]three[/bold] minutes [link=http://x]here[/link]\x07 "


@dataclass
class Request:
    """One request the server received."""

    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def size(self) -> int:
        """Characters of message content the request carried."""
        return sum(len(_text(m.get("content"))) for m in self.messages)


@dataclass
class Step:
    """What the model does next: call a tool (``name``, raw ``arguments``) or answer ``text``."""

    text: str | None = None
    name: str | None = None
    arguments: str = ""


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _question_turn(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]], bool]:
    """(the user's current question, the messages after it, whether a citation redirect came since)."""
    start, redirected = 0, False
    for i, m in enumerate(messages):
        if m["role"] == "user":
            text = _text(m.get("content"))
            if REDIRECT_TAG in text:
                redirected = True
            elif not text.startswith("<system>") and RETRY_TAG not in text:
                start, redirected = i, False
    return _text(messages[start].get("content")), messages[start + 1:], redirected


def _calls(turn: list[dict[str, Any]]) -> list[str]:
    return [c["function"]["name"] for m in turn if m["role"] == "assistant" for c in m.get("tool_calls") or []]


def _chunks(search_result: str, source: bool = True) -> list[tuple[str, str]]:
    """(chunk id, text) of each search result block: ``[id] (rank …)``, ``Source: …``, then the text (and, not
    ``source``, of each block kept by compaction: ``[id] Source: …``, then the text)."""
    found = []
    rank = r"\(rank " if source else r"(?:\(rank |Source: )"
    for block in re.split(rf"(?m)^(?=\[[0-9a-f]{{16}}\] {rank})", search_result):
        head = re.match(r"\[([0-9a-f]{16})\] (?:\(rank [^\n]*\n)?(?:Source:[^\n]*\n)?", block)
        if head:
            found.append((head.group(1), block[head.end():].strip()))
    return found


def _first_sentence(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    sentence = re.split(r"(?<=[.!?])\s", " ".join(lines).strip(), maxsplit=1)[0]
    return sentence.rstrip(".")


def passages(messages: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(n, text) of each numbered passage the current question of a search-first request carries (its messages
    after the last answer): a line starting ``[n]`` (its label) and the text after it, up to the next such line."""
    answered = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    text = "\n".join(_text(m.get("content")) for m in messages[answered + 1:] if m["role"] in ("system", "user"))
    found = []
    for piece in re.split(r"(?m)^(?=\[\d+\][ \t])", text):
        head = re.match(r"\[(\d+)\][ \t]+([^\n]*)\n?", piece)
        if head:
            body = piece[head.end():].strip() or head.group(2)
            found.append((int(head.group(1)), body))
    return found


STRAY_SENTENCE = "The moon is made of green cheese"
"""What ``stray`` marks with a passage that does not hold it."""


def search_first_text(body: dict[str, Any], mode: str) -> str:
    """The answer to a request without tools: the first two passages' first sentences, quoted, with their
    ``[n]`` (none in ``unmarked``)."""
    numbered = passages(body.get("messages", []))[:2]
    if mode == "stray" and len(numbered) == 2:
        return f"{answer_text([], mode, numbered[:1])} {STRAY_SENTENCE} [{numbered[1][0]}]."
    if mode == "unmarked":
        numbered = [(0, text) for _, text in numbered[:1]]
    return answer_text([], mode, numbered)


def answer_text(
    turn: list[dict[str, Any]], mode: str, numbered: list[tuple[int, str]] | None = None,
    history: list[dict[str, Any]] | None = None,
) -> str:
    """The answer: each cited chunk's first sentence, quoted, with its ``[n]`` (``numbered``: (n, text) quoted
    instead, as asked search-first); a result whose text is above (:data:`TEXT_ABOVE`) is quoted from where
    ``history`` shows it."""
    results = [_text(m.get("content")) for m in turn if m["role"] == "tool"]
    shown = [_text(m.get("content")) for m in history or () if m["role"] in ("tool", "user")]
    known = dict(c for r in shown for c in _chunks(r, source=False) if not c[1].startswith(TEXT_ABOVE))
    chunks = {
        cid: known.get(cid, "") if text.startswith(TEXT_ABOVE) else text for r in results for cid, text in _chunks(r)
    }
    registered = [r for r in results if r.startswith("Registered ")]
    numbers = re.findall(r"\[(\d+)\] = ([0-9a-f]{16})", registered[-1]) if registered else []
    if numbered is not None:
        numbers = [(str(n), str(n)) for n, _ in numbered if n]
        chunks = {str(n): text for n, text in numbered}
        if not numbers:
            return " ".join(f"{text.split('.')[0].strip()}." for _, text in numbered) or NOWHERE_ANSWER
    if mode == "long":  # numbered sentences: long, but not one phrase over and over (that is a loop)
        said = "".join(f"Note {i} of the sources goes on at length. " for i in range(LONG_ANSWER_CHARS // 40))
        return said[:LONG_ANSWER_CHARS] + " [1]"
    if mode == "hostile":
        return HOSTILE_ANSWER + ("[1]" if numbers else "")
    quoted = [(n, chunks.get(cid, "")) for n, cid in numbers] or [(None, t) for t in list(chunks.values())[:1]]
    parts = []
    for i, (n, text) in enumerate(quoted):
        lead = "The documents say" if i == 0 else "They also say"
        marker = f" [{n}]" if n else ""
        parts.append(f'{lead}: "{_first_sentence(text)}."{marker}')
    if mode == "unbacked":
        parts.append("Some say otherwise [7].")
    return " ".join(parts) if parts else "I found nothing about that in the knowledge base."


def next_step(body: dict[str, Any], mode: str) -> Step:
    """The tool-using model's next move for ``body``."""
    tools = {t["function"]["name"] for t in body.get("tools") or []}
    question, turn, redirected = _question_turn(body.get("messages", []))
    called = _calls(turn)
    if not tools:
        return Step(text=search_first_text(body, mode))
    if mode == "no-tools":
        return Step(text=NOWHERE_ANSWER)
    if mode in ("text-call", "text-json", "text-mistral"):
        call = json.dumps({"name": "rag_search", "arguments": {"query": question}})
        return Step(text={"text-call": f"<tool_call>\n{call}\n</tool_call>", "text-json": call}.get(
            mode, f"[TOOL_CALLS][{call}]"))
    if mode in ("imitate", "announce") and "rag_search" in tools:
        return Step(text=IMITATION if mode == "imitate" else ANNOUNCEMENT)
    if mode == "unknown-tool":
        return Step(name="frobnicate", arguments=json.dumps({"x": 1}))
    if "rag_search" not in tools and "load_capability" in tools:
        return Step(name="load_capability", arguments=json.dumps({"id": RAG_ID}))
    if mode == "bad-args":  # every time: a model that never gets the arguments right
        return Step(name="rag_search", arguments='{"query": "' + question[:20])
    if "rag_search" not in called:
        return Step(name="rag_search", arguments=json.dumps({"query": question}))
    citing = mode not in ("uncited", "undeclared") or (mode == "undeclared" and redirected)
    if citing and "rag_cite" not in called:
        results = [_text(m.get("content")) for m in turn if m["role"] == "tool"]
        ids = [cid for r in results for cid, _ in _chunks(r)][:2]
        return Step(name="rag_cite", arguments=json.dumps({"chunk_ids": ids}))
    return Step(text=answer_text(turn, mode, history=body.get("messages", [])))


class LoopbackServer(ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 that serves from its own thread: :meth:`start`, then :meth:`stop`."""

    daemon_threads = True

    def __init__(self, port: int, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self):
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()

    def serve_until_interrupted(self, banner: str) -> None:
        """Serve in this thread (``python -m …``) after printing ``banner``, until Ctrl+C."""
        print(f"{banner}; Ctrl+C stops", flush=True)
        try:
            self.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.server_close()


class ModelServer(LoopbackServer):
    """The server; ``mode``, ``chunked``, ``retry_after`` and ``delay`` may be changed between requests."""

    def __init__(self, port: int = 0, mode: str = "ok", *, chunked: bool = True):
        super().__init__(port, _Handler)
        self.mode = mode
        self.chunked = chunked
        self.retry_after = 7
        self.delay = 0.0  # seconds before each streamed event (a real model's pace)
        self.cached_tokens = 0  # what the usage chunk reports as read from a prompt cache
        self.context = 0  # tokens (4 characters of the request's messages each) a request may hold (0: any)
        self.requests: list[Request] = []
        self.loops = 0  # answers that fell into a loop (``loop``)
        self.loops_left = 0  # of those, the ones the client hung up on
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def mode_for(self, body: dict[str, Any]) -> str:
        model = str(body.get("model", ""))
        named = model.removeprefix("fake-")
        return named if model.startswith("fake-") and named in MODES else self.mode

class _Handler(BaseHTTPRequestHandler):
    server: ModelServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _prompt_tokens(self, body: dict[str, Any]) -> int:
        """The prompt tokens the usage reports: with a ``context``, counted as it counts them (4 characters of the
        messages each), else 10."""
        return len(json.dumps(body.get("messages"))) // 4 if self.server.context else 10

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        self.server.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        mode = self.server.mode_for(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._error(404, "not found")
        if mode == "error500":
            return self._error(500, "the model crashed")
        if mode == "ratelimit":
            return self._error(429, "slow down", {"Retry-After": str(self.server.retry_after)})
        if mode == "unauthorized":
            return self._error(401, f"Invalid API key ({self.headers.get('Authorization', 'none sent')})")
        if self.server.context and (n := len(json.dumps(body.get("messages"))) // 4) >= self.server.context:
            message = f"request ({n} tokens) exceeds the available context size ({self.server.context} tokens)"
            return self._error(400, message, body={"error": {  # llama.cpp's server's error, word for word
                "code": 400, "message": message, "type": "exceed_context_size_error", "n_prompt_tokens": n,
                "n_ctx": self.server.context}})
        if mode in REFUSALS and body.get("tools"):
            status, message = REFUSALS[mode]
            message = message.format(model=body.get("model"))
            if mode == "refuse-vllm":  # vLLM's own error shape: the message at the top level
                return self._error(status, message, body={"object": "error", "message": message,
                                                          "type": "BadRequestError", "param": None, "code": status})
            return self._error(status, message)
        if mode == "hang":
            self.server.stopping.wait(600)
            self.close_connection = True
            return None
        step = next_step(body, mode)
        n = len(self.server.requests)
        if body.get("stream"):
            return self._stream(body, step, mode, n)
        return self._json(body, step, mode, n)

    # ---- responses

    def _error(
        self, status: int, message: str, headers: dict[str, str] | None = None, body: dict[str, Any] | None = None
    ) -> None:
        payload = json.dumps(body or {"error": {"message": message, "type": "server_error", "code": status}}).encode()
        self.send_response(status)
        for name, value in {
            "Content-Type": "application/json",
            "Content-Length": str(len(payload)),
            **(headers or {}),
        }.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, body: dict[str, Any], step: Step, mode: str, n: int) -> None:
        if step.name:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": step.name, "arguments": step.arguments}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": step.text}, "stop"
        payload = json.dumps({
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": self._prompt_tokens(body), "completion_tokens": 5,
                      "total_tokens": self._prompt_tokens(body) + 5},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if step.text is not None and mode == "cut":  # a truncated body: less than Content-Length promised
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(payload)

    def _stream(self, body: dict[str, Any], step: Step, mode: str, n: int) -> None:
        chunked = self.server.chunked
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

        def send(data: bytes) -> None:
            if self.server.delay:
                self.server.stopping.wait(self.server.delay)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            self.wfile.flush()

        def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            data = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": body.get("model"),
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
            send(f"data: {json.dumps(data)}\n\n".encode())

        def end(finish: str | None) -> None:
            if finish is not None:
                event({}, finish)
                usage = {"prompt_tokens": self._prompt_tokens(body), "completion_tokens": 5,
                         "total_tokens": self._prompt_tokens(body) + 5,
                         "prompt_tokens_details": {"cached_tokens": self.server.cached_tokens}}
                send(
                    (
                        "data: "
                        + json.dumps(
                            {
                                "id": f"chatcmpl-{n}",
                                "object": "chat.completion.chunk",
                                "created": 0,
                                "model": body.get("model"),
                                "choices": [],
                                "usage": usage,
                            }
                        )
                        + "\n\n"
                    ).encode()
                )
                send(b"data: [DONE]\n\n")
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        event({"role": "assistant", "content": ""})
        if step.name:
            args = step.arguments
            event({"tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function",
                                   "function": {"name": step.name, "arguments": args[:4]}}]})
            for i in range(4, len(args), 7):
                event({"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + 7]}}]})
            return end("tool_calls")
        assert step.text is not None
        words = re.findall(r"\S+\s*|\s+", step.text)
        if mode == "long":  # word by word would be 30k events: send the long answer in 2 KB pieces
            words = [step.text[i:i + 2048] for i in range(0, len(step.text), 2048)]
        if mode == "cut":
            words = words[: max(1, len(words) // 2)]
        if mode == "loop":
            return self._loop(event, words[:6])
        for i, word in enumerate(words):
            event({"content": word})
            if mode == "bad-json" and i == len(words) // 2:
                send(b'data: {"id": "x", "choices": [{"index": 0, "delta": {"content": "oops"\n\n')
        if mode == "cut":  # the connection drops: chunked streams lose their terminating chunk
            self.close_connection = True
            return None
        return end(None if mode == "no-finish" else "stop")


    def _loop(self, event: Any, words: list[str]) -> None:
        """``words``, then the same two characters until the client hangs up (at most :data:`LOOP_EVENTS` events)."""
        self.server.loops += 1
        try:
            for word in words:
                event({"content": word})
            for _ in range(LOOP_EVENTS):
                if self.server.stopping.is_set():
                    break
                event({"content": '\\"' * 4})
        except OSError:  # the client stopped reading: what a run that noticed the loop does
            self.server.loops_left += 1
        self.close_connection = True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mode", choices=sorted(MODES), default="ok")
    parser.add_argument("--close-delimited", action="store_true", help="stream without chunked encoding")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each streamed event")
    args = parser.parse_args(argv)
    server = ModelServer(args.port, args.mode, chunked=not args.close_delimited)
    server.delay = args.delay
    server.serve_until_interrupted(f"serving {server.base_url} (mode {args.mode})")


if __name__ == "__main__":
    main()
