"""Pydantic AI embedders as the store uses them: a stable model id and sync/async embedding."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

EMBED_BATCH = 256


def as_embedder(embedder: Any) -> Any:
    """Accept a Pydantic AI ``Embedder``, an ``EmbeddingModel`` or a model string (``"openai:text-embedding-3-small"``)."""
    if embedder is None:
        return None
    from pydantic_ai.embeddings import Embedder, EmbeddingModel

    if isinstance(embedder, Embedder):
        return embedder
    if isinstance(embedder, (EmbeddingModel, str)):
        return Embedder(embedder)
    if hasattr(embedder, "embed_documents") and hasattr(embedder, "embed_query"):
        return embedder  # duck-typed embedder with the same interface
    raise TypeError(f"not an embedder: {embedder!r} (pass a pydantic_ai Embedder, EmbeddingModel or model string)")


def embedder_id(embedder: Any) -> str:
    """``"provider:model"`` for the embedder's model, as recorded in the database."""
    model = getattr(embedder, "model", None)
    if isinstance(model, str):
        return model
    if model is not None and hasattr(model, "model_name"):
        system = getattr(model, "system", None)
        return f"{system}:{model.model_name}" if system else str(model.model_name)
    name = getattr(embedder, "model_name", None)
    return str(name) if name else type(embedder).__name__


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, even when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def aembed_documents(embedder: Any, texts: Sequence[str]) -> list[list[float]]:
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        result = await embedder.embed_documents(list(texts[start : start + EMBED_BATCH]))
        vectors.extend([float(x) for x in v] for v in result.embeddings)
    return vectors


async def aembed_query(embedder: Any, text: str) -> list[float]:
    result = await embedder.embed_query(text)
    return [float(x) for x in result.embeddings[0]]


def embed_documents(embedder: Any, texts: Sequence[str]) -> list[list[float]]:
    return run_sync(aembed_documents(embedder, texts))


def embed_query(embedder: Any, text: str) -> list[float]:
    return run_sync(aembed_query(embedder, text))
