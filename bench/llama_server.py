"""A bench-only OpenAI-compatible chat server around one ``llama_cpp.Llama``, for Qwen-style GGUF models.

    python -m bench.llama_server MODEL.gguf [--port 8088] [--threads 2] [--ctx 8192] [--log FILE] [--tools MODE]
    python -m bench.llama_server stock [llama_cpp.server's options]   # its stock server, for comparison

Why not llama-cpp-python's own server (0.3.36, checked 2026-12-07 with Qwen2.5-Coder-0.5B-Instruct):
with the GGUF's own template it renders the tools into the prompt but parses no tool call from the reply:
the 0.5B's call arrives as text content, a bare ``{"name": …, "arguments": …}``, ``finish_reason`` "stop"
(and on this box it crashed in ``llama_decode`` on any request until loaded as below). With
``--chat_format chatml-function-calling`` the prompt is its own, not the model's, and the model answered in
prose without calling anything. This server does what vLLM does with ``--tool-call-parser hermes``:

- the prompt is the GGUF's own ``tokenizer.chat_template`` (Jinja, as Hugging Face renders it), with the
  request's ``tools``;
- the model's ``<tool_call>{"name": …, "arguments": …}</tool_call>`` blocks become OpenAI ``tool_calls``
  (streamed as deltas), the text before them stays content; a block that is not JSON stays text; a reply
  that is nothing but ``{"name": …, "arguments": …}`` naming an offered tool is a call too (the 0.5B
  writes its calls without the tags; Ollama reads them the same way);
- streamed chunks: the role, content deltas, tool-call deltas, the finish reason, then ``usage``.

One model lives for the server's life, so llama.cpp's KV cache keeps the longest common prefix of the
previous prompt: ``usage.prompt_tokens_details.cached_tokens`` and ``timings.cache_n`` say how many prompt
tokens were reused, ``timings.prompt_n`` how many were evaluated (as llama.cpp's own server reports them).
Each request also appends one JSON line to ``--log``. Sampling follows Qwen2.5's generation config unless
the request says otherwise (temperature 0.7, top-p 0.8, top-k 20, repetition penalty 1.05), seed 0;
``--temperature`` sets the default a request that names none gets (servers differ: llama.cpp's own is 0.8);
``--seed`` the seed (another seed samples every answer anew: how much a figure moves by chance).
Both servers load the weights without llama.cpp's extra buffer types (see :func:`without_extra_buffers`).

``--tools`` plays the other servers a user meets: ``parse`` (the above), ``as-text`` (tools in the prompt, no
parser: the model's calls arrive as text content, as from the stock server or vLLM without a parser), or a
refusal of any request that offers tools, in that server's own words and status: ``refuse-llamacpp`` (no
``--jinja``), ``refuse-ollama`` (a model without tool support), ``refuse-vllm`` (no
``--enable-auto-tool-choice``).
"""

from __future__ import annotations

import argparse
import codecs
import json
import re
import sys
import threading
import time
import uuid
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TOOL_OPEN, TOOL_CLOSE = "<tool_call>", "</tool_call>"
TOOL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
BARE_FENCE = re.compile(r"^\s*```(?:json)?|```\s*$")
REFUSALS = {
    "refuse-llamacpp": (
        500,
        {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}},
    ),
    "refuse-ollama": (
        400,
        {
            "error": {
                "message": "registry.ollama.ai/library/{model} does not support tools",
                "type": "api_error",
                "param": None,
                "code": None,
            }
        },
    ),
    "refuse-vllm": (
        400,
        {
            "object": "error",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
            "message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        },
    ),
}


def render_template(template: str, messages: list[dict], tools: list[dict] | None) -> str:
    """The chat prompt as Hugging Face renders ``template`` (``tojson`` without HTML escaping)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise ValueError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda value, indent=None: json.dumps(value, ensure_ascii=False, indent=indent)
    env.globals.update(raise_exception=raise_exception, strftime_now=lambda f: datetime.now().strftime(f))
    return env.from_string(template).render(
        messages=messages, tools=tools or None, add_generation_prompt=True, bos_token="", eos_token="<|im_end|>"
    )


def template_messages(messages: list[dict]) -> list[dict]:
    """OpenAI messages as chat templates expect them: text content, tool-call arguments as objects."""
    out = []
    for message in messages:
        message = dict(message)
        content = message.get("content")
        if isinstance(content, list):
            message["content"] = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        elif content is None:
            message["content"] = ""
        if message.get("role") == "developer":
            message["role"] = "system"
        calls = []
        for call in message.get("tool_calls") or []:
            function = dict(call.get("function") or {})
            try:
                function["arguments"] = json.loads(function.get("arguments") or "{}")
            except (TypeError, ValueError):
                pass
            calls.append({**call, "function": function})
        if calls:
            message["tool_calls"] = calls
        out.append(message)
    return out


def tool_call(data: object) -> dict | None:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    arguments = data.get("arguments", data.get("parameters", {}))
    return {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {
            "name": data["name"],
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


def parse_tool_calls(text: str, names: set[str]) -> list[dict] | None:
    """The reply's tool calls: its ``<tool_call>`` blocks, or a reply that is nothing but one JSON call of an
    offered tool (as Ollama reads Qwen's replies); None when there are none or a block is not a JSON call."""
    if TOOL_OPEN not in text:
        body = BARE_FENCE.sub("", text).strip()
        try:
            call = tool_call(json.loads(body))
        except ValueError:
            return None
        return [call] if call is not None and call["function"]["name"] in names else None
    calls = []
    for block in TOOL_BLOCK.findall(text):
        try:
            call = tool_call(json.loads(block))
        except ValueError:
            return None
        if call is None:
            return None
        calls.append(call)
    return calls or None


def held_back(text: str) -> int:
    """How many characters at the end of ``text`` could begin ``<tool_call>`` (kept until known)."""
    for n in range(min(len(TOOL_OPEN) - 1, len(text)), 0, -1):
        if TOOL_OPEN.startswith(text[-n:]):
            return n
    return 0


def without_extra_buffers() -> None:
    """Load weights without llama.cpp's extra buffer types (AMX, repacking): on this box's CPU (AMX in a VM)
    they crash ``llama_decode`` with a segmentation fault. llama-cpp-python has no switch for it."""
    import llama_cpp.llama_cpp as api

    defaults = api.llama_model_default_params

    def params():
        value = defaults()
        value.use_extra_bufts = False
        return value

    api.llama_model_default_params = params


class Engine:
    """One Llama and its lock: requests are served one at a time, sharing the KV cache."""

    def __init__(
        self,
        model: Path,
        threads: int,
        ctx: int,
        log: Path | None,
        parse: bool = True,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> None:
        self.temperature = temperature
        self.seed = seed
        without_extra_buffers()
        from llama_cpp import Llama, llama_vocab_is_eog

        self.llm = Llama(
            model_path=str(model), n_ctx=ctx, n_threads=threads, n_threads_batch=threads, n_batch=512, verbose=False
        )
        self.is_eog = lambda token: llama_vocab_is_eog(self.llm._model.vocab, token)
        self.template = self.llm.metadata["tokenizer.chat_template"]
        self.name = model.stem
        self.lock = threading.Lock()
        self.log = log
        self.parse = parse

    def cached_prefix(self, tokens: list[int]) -> int:
        """The prompt tokens llama.cpp will reuse from its KV cache (``Llama.generate``'s own rule)."""
        n = 0
        for a, b in zip(self.llm.input_ids[: self.llm.n_tokens].tolist(), tokens):
            if a != b:
                break
            n += 1
        return n - 1 if n == len(tokens) else n

    def tokens(self, tokens: list[int], body: dict, limit: int):
        """The generated token texts (special tokens as text: Qwen's ``<tool_call>`` is one), up to an
        end-of-generation token or ``limit`` tokens; then ``None`` when the limit was what stopped it."""
        self.llm.set_seed(body.get("seed", self.seed))
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        stream = self.llm.generate(
            tokens,
            temp=body.get("temperature", self.temperature),
            top_p=body.get("top_p", 0.8),
            top_k=20,
            min_p=0.0,
            repeat_penalty=1.05,
        )
        for count, token in enumerate(stream, 1):
            if self.is_eog(token):
                return
            yield decoder.decode(self.llm.detokenize([token], special=True))
            if count >= limit:
                yield None
                return

    def prompt(self, body: dict) -> tuple[str, list[int], list[dict] | None]:
        """The request's prompt as text and tokens, and the tools it offers."""
        tools = body.get("tools") if body.get("tool_choice") != "none" else None
        prompt = render_template(self.template, template_messages(body["messages"]), tools)
        return prompt, self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True), tools

    def overflow(self, body: dict) -> dict | None:
        """llama.cpp's server's error for a prompt that does not fit the context (None: it fits)."""
        with self.lock:
            n_prompt, n_ctx = len(self.prompt(body)[1]), self.llm.n_ctx()
        if n_prompt < n_ctx:
            return None
        message = f"request ({n_prompt} tokens) exceeds the available context size ({n_ctx} tokens)"
        return {"error": {"code": 400, "message": message, "type": "exceed_context_size_error",
                          "n_prompt_tokens": n_prompt, "n_ctx": n_ctx}}

    def chat(self, body: dict):
        """Yield ``("content", text)`` / ``("tool_calls", calls)`` events, then ``("end", stats)``."""
        started = time.perf_counter()
        with self.lock:
            prompt, tokens, tools = self.prompt(body)
            # generation stops where the context ends, as llama.cpp's server's does without context shift
            limit = min(body.get("max_completion_tokens") or body.get("max_tokens") or 1024,
                        self.llm.n_ctx() - len(tokens))
            reused = self.cached_prefix(tokens)
            text, shown, first, finish, generated, in_tool = "", 0, None, "stop", 0, False
            for piece in self.tokens(tokens, body, limit):
                if first is None:
                    first = time.perf_counter()
                if piece is None:
                    finish = "length"
                    break
                generated += 1
                text += piece
                if not self.parse:  # every piece is content, calls too
                    yield "content", piece
                    shown = len(text)
                    continue
                if in_tool:
                    continue
                if tools and shown == 0 and text.lstrip()[:1] in ("{", "`"):
                    in_tool = True  # perhaps a bare JSON call: known at the end
                    continue
                at = text.find(TOOL_OPEN, shown)
                if at >= 0:
                    in_tool = True
                    if at > shown:
                        yield "content", text[shown:at]
                    shown = at
                    continue
                upto = len(text) - held_back(text)
                if upto > shown:
                    yield "content", text[shown:upto]
                    shown = upto
            done = time.perf_counter()
        rest = text[shown:]
        names = {t.get("function", {}).get("name") for t in tools or []}
        calls = parse_tool_calls(rest, names) if in_tool and tools else None
        if calls:
            yield "tool_calls", calls
            finish = "tool_calls"
        elif rest:
            yield "content", rest
        first = first or done
        stats = {
            "prompt_tokens": len(tokens),
            "cached_tokens": reused,
            "evaluated_tokens": len(tokens) - reused,
            "completion_tokens": generated,
            "prompt_ms": round((first - started) * 1000, 1),
            "predicted_ms": round((done - first) * 1000, 1),
            "finish_reason": finish,
            "tools": len(tools or []),
            "tool_calls": [c["function"]["name"] for c in calls or []],
            "text": text,
            "prompt_tail": prompt[-1500:],
        }
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"time": time.time(), **stats}) + "\n")
        yield "end", stats


def usage(stats: dict) -> dict:
    return {
        "prompt_tokens": stats["prompt_tokens"],
        "completion_tokens": stats["completion_tokens"],
        "total_tokens": stats["prompt_tokens"] + stats["completion_tokens"],
        "prompt_tokens_details": {"cached_tokens": stats["cached_tokens"]},
    }


def timings(stats: dict) -> dict:
    """llama.cpp server's ``timings`` fields."""
    return {
        "prompt_n": stats["evaluated_tokens"],
        "cache_n": stats["cached_tokens"],
        "prompt_ms": stats["prompt_ms"],
        "predicted_n": stats["completion_tokens"],
        "predicted_ms": stats["predicted_ms"],
    }


def make_handler(engine: Engine, tools_mode: str = "parse") -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def send_json(self, status: int, data: dict) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self.send_json(200, {"object": "list", "data": [{"id": engine.name, "object": "model"}]})
            else:
                self.send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if tools_mode in REFUSALS and body.get("tools"):
                status, refusal = REFUSALS[tools_mode]
                self.send_json(status, json.loads(json.dumps(refusal).replace("{model}", str(body.get("model")))))
                return
            if (error := engine.overflow(body)) is not None:
                self.send_json(400, error)
                return
            base = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()), "model": body.get("model")}
            if body.get("stream"):
                self.stream(body, base)
            else:
                self.complete(body, base)

        def complete(self, body: dict, base: dict) -> None:
            content, calls, stats = "", None, {}
            for kind, value in engine.chat(body):
                if kind == "content":
                    content += value
                elif kind == "tool_calls":
                    calls = value
                else:
                    stats = value
            message = {"role": "assistant", "content": content or None}
            if calls:
                message["tool_calls"] = calls
            choice = {"index": 0, "message": message, "finish_reason": stats["finish_reason"]}
            reply = {**base, "object": "chat.completion", "choices": [choice]}
            self.send_json(200, {**reply, "usage": usage(stats), "timings": timings(stats)})

        def stream(self, body: dict, base: dict) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

            def send(choices: list, **extra: Any) -> None:
                data = {**base, "object": "chat.completion.chunk", "choices": choices, **extra}
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def delta(d: dict, finish: str | None = None) -> list:
                return [{"index": 0, "delta": d, "finish_reason": finish}]

            events = engine.chat(body)
            try:
                send(delta({"role": "assistant", "content": ""}))
                for kind, value in events:
                    if kind == "content":
                        send(delta({"content": value}))
                    elif kind == "tool_calls":
                        for i, call in enumerate(value):
                            send(delta({"tool_calls": [{"index": i, **call}]}))
                    else:
                        send(delta({}, value["finish_reason"]))
                        send([], usage=usage(value), timings=timings(value))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                events.close()  # the client went away: stop generating

    return Handler


def stock(args: list[str]) -> None:
    """llama-cpp-python's own server (``python -m llama_cpp.server ARGS``), loading as this one does."""
    without_extra_buffers()
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *args]
    serve()


def main() -> None:
    if sys.argv[1:2] == ["stock"]:
        stock(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--tools", choices=["parse", "as-text", *REFUSALS], default="parse")
    parser.add_argument(
        "--temperature", type=float, default=0.7, help="when a request names none (Qwen2.5's own default: 0.7)"
    )
    parser.add_argument("--seed", type=int, default=0, help="when a request names none")
    args = parser.parse_args()
    engine = Engine(
        args.model, args.threads, args.ctx, args.log, parse=args.tools != "as-text", temperature=args.temperature,
        seed=args.seed,
    )
    server = ThreadingHTTPServer((args.host, args.port), make_handler(engine, args.tools))
    print(f"serving {engine.name} on http://{args.host}:{server.server_port}/v1", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
