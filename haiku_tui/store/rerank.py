"""A cross-encoder reranker over HTTP: the fused candidates of a search, reordered by ``POST {url}/rerank``.

The request is the Cohere/Jina shape that llama.cpp's server, vLLM and Infinity serve:
``{"model", "query", "documents", "top_n"}`` answered with ``{"results": [{"index", "relevance_score"}]}``.
Text Embeddings Inference's own route takes ``{"query", "texts"}`` and answers ``[{"index", "score"}]``:
a server that refuses the first shape for want of ``texts`` is asked in the second from then on.

A reranker that fails, times out or answers something else never costs a search: :meth:`Reranker.reorder`
reports one line through ``on_fault`` and the fused order stands. httpx2 (the HTTP client the OpenAI SDK
brings) is imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .records import ChunkRecord

T = TypeVar("T")

CANDIDATES = 30
"""Fused candidates sent to the reranker (its order decides the hits among them)."""

TIMEOUT = 10.0
"""Seconds a reranker may take before the search keeps its own order."""

DOCUMENT_CHARS = 2000
"""Characters of each candidate sent (its label, then its text): cross-encoders read ~512 tokens."""


class RerankFault(Exception):
    """The reranker did not give an order; the message is the one line a user sees."""


@dataclass
class Reranker:
    """``POST {url}/rerank`` with ``model`` (None: the server's own); ``api_key`` sent as a bearer token."""

    url: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = TIMEOUT
    on_fault: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    tei: bool = field(default=False, compare=False)  # the server takes TEI's {"query", "texts"}
    _client: Any = field(default=None, repr=False, compare=False)

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/rerank") else f"{base}/rerank"

    def describe(self) -> str:
        """``"http://127.0.0.1:8012/rerank (bge-reranker-v2-m3)"``: what ``info`` and the status bar name."""
        return self.endpoint + (f" ({self.model})" if self.model else "")

    def close(self) -> None:
        """Close the HTTP connections (a later rerank opens new ones)."""
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def reorder(self, query: str, items: Sequence[T], text: Callable[[T], str]) -> list[tuple[T, float | None]] | None:
        """``items`` in the reranker's order with its scores (those it leaves out after, in their order, with None),
        or None when it failed (then ``on_fault`` got one line). ``text(item)`` is what the reranker reads."""
        if len(items) < 2:
            return [(item, None) for item in items]
        try:
            order = self.rank(query, [text(item)[:DOCUMENT_CHARS] for item in items])
        except RerankFault as fault:
            if self.on_fault is not None:
                self.on_fault(f"{fault}; the search kept its own order")
            return None
        picked = {i for i, _ in order}
        rest: list[tuple[T, float | None]] = [(item, None) for i, item in enumerate(items) if i not in picked]
        return [(items[i], score) for i, score in order] + rest

    def rank(self, query: str, documents: list[str]) -> list[tuple[int, float]]:
        """(index, score) of the documents, best first. Raises :class:`RerankFault`."""
        import httpx2 as httpx

        where = self.endpoint
        try:
            response = self._post(query, documents)
            if response.status_code == 422 and not self.tei and "texts" in response.text:
                self.tei = True  # Text Embeddings Inference's own route
                response = self._post(query, documents)
        except httpx.TimeoutException:
            raise RerankFault(f"reranker {where} did not answer within {self.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise RerankFault(f"reranker {where} is unreachable ({type(exc).__name__}); check --reranker") from None
        if response.status_code in (401, 403):
            raise RerankFault(
                f"reranker {where} refused the key (HTTP {response.status_code}); check HAIKU_TUI_API_KEY"
            )
        if response.status_code >= 400:
            raise RerankFault(f"reranker {where} failed (HTTP {response.status_code})")
        try:
            data = response.json()
        except ValueError:
            raise RerankFault(f"reranker {where} answered something other than JSON") from None
        return parse_ranking(data, len(documents), where)

    def _post(self, query: str, documents: list[str]) -> Any:
        import httpx2 as httpx

        if self._client is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.Client(timeout=self.timeout, headers=headers)
        if self.tei:
            body: dict[str, Any] = {"query": query, "texts": documents}
        else:
            body = {"query": query, "documents": documents, "top_n": len(documents)}
            if self.model:
                body["model"] = self.model
        return self._client.post(self.endpoint, json=body)


def parse_ranking(data: Any, count: int, where: str = "the reranker") -> list[tuple[int, float]]:
    """(index, score) best first from ``{"results": [{"index", "relevance_score"}]}`` or TEI's ``[{"index", "score"}]``;
    :class:`RerankFault` for anything else (an index out of range or repeated, a score that is not a number)."""
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise RerankFault(f"reranker {where} answered JSON without results")
    ranked: list[tuple[int, float]] = []
    seen: set[int] = set()
    for item in items:
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get("relevance_score", item.get("score")) if isinstance(item, dict) else None
        if (not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or index in seen
                or not isinstance(score, (int, float)) or isinstance(score, bool) or not math.isfinite(score)):
            raise RerankFault(f"reranker {where} answered malformed results (expected index and relevance_score)")
        seen.add(index)
        ranked.append((index, float(score)))
    ranked.sort(key=lambda pair: -pair[1])  # stable: a server's own best-first order is kept
    return ranked


def candidate_text(chunk: ChunkRecord) -> str:
    """What the reranker reads of a chunk: its ``Title › heading`` label, then its text."""
    label = chunk.label()
    return f"{label}\n{chunk.text}" if label else chunk.text
