"""A loopback rerank server (127.0.0.1) for tests: it reorders, fails, hangs or answers malformed JSON on demand."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class RerankServer:
    """``mode``: ``"reverse"`` (the documents last-first), ``"word"`` (those holding ``word`` first), ``"fail"``
    (HTTP 500), ``"hang"`` (answers after ``hang`` seconds), ``"malformed"`` (not JSON), ``"bad-index"`` (an
    index out of range) or ``"tei"`` (Text Embeddings Inference's ``texts`` / ``[{"index", "score"}]`` shape)."""

    url: str = ""
    mode: str = "reverse"
    word: str = ""
    hang: float = 5.0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes]:
        if self.mode == "fail":
            return 500, b'{"error": "model not loaded"}'
        if self.mode == "malformed":
            return 200, b'{"results": [{"index": 0, "relevance_score": '
        if self.mode == "tei":
            if "texts" not in body:
                return 422, b"Failed to deserialize the JSON body into the target type: missing field `texts`"
            texts = body["texts"]
            order = sorted(range(len(texts)), key=lambda i: -i)
            return 200, json.dumps([{"index": i, "score": 1.0 - n / 100} for n, i in enumerate(order)]).encode()
        documents = body["documents"]
        if self.mode == "bad-index":
            return 200, json.dumps({"results": [{"index": len(documents), "relevance_score": 0.9}]}).encode()
        if self.mode == "word":
            order = sorted(range(len(documents)), key=lambda i: (self.word.lower() not in documents[i].lower(), i))
        else:
            order = list(reversed(range(len(documents))))
        results = [{"index": i, "relevance_score": round(1.0 - n / 100, 4)} for n, i in enumerate(order)][
            : body.get("top_n")
        ]
        return 200, json.dumps({"id": "x", "model": body.get("model"), "results": results}).encode()


@contextmanager
def serve_reranker(**settings: Any) -> Iterator[RerankServer]:
    """A :class:`RerankServer` on a free loopback port (``server.url`` is its base URL)."""
    server = RerankServer(**settings)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            server.requests.append(
                {"path": self.path, "body": body, "authorization": self.headers.get("Authorization")}
            )
            if self.path != "/rerank":
                status, payload = 404, b"not found"
            elif server.mode == "hang":
                time.sleep(server.hang)
                status, payload = 200, b'{"results": []}'
            else:
                status, payload = server.answer(body)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
