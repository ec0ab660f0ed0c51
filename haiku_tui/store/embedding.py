"""Pydantic AI embedders as the store uses them: a stable model id and sync/async embedding."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from .wordllama_model import MODEL_ID as BUILTIN_ID

T = TypeVar("T")

EMBED_BATCH = 256
AUTO = "auto"  # the built-in embedder for a new knowledge base, else whatever the existing one was built with
NONE_NAMES = frozenset({"none", "off", "fts"})  # full-text search only
BUILTIN_NAMES = frozenset({"wordllama", BUILTIN_ID})
MINILM_ID = "minilm:all-MiniLM-L6-v2-int8"  # haiku_tui.store.minilm.MODEL_ID (extra `minilm`; not imported here)
MINILM_NAMES = frozenset({"minilm", MINILM_ID})


class BuiltinEmbedder:
    """The offline default, wordllama's bundled static model, with a Pydantic AI ``Embedder``'s interface.

    The store embeds with the model directly (:func:`embed_documents`, :func:`embed_query`), so opening,
    searching and adding never import Pydantic AI; the ``Embedder`` (``embed_documents``, ``model``, …)
    is made when other code first asks for it.
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        embedder = self.__dict__.get("_embedder")
        if embedder is None:
            from pydantic_ai.embeddings import Embedder

            from .offline_embedder import WordLlamaEmbeddingModel

            embedder = self.__dict__["_embedder"] = Embedder(WordLlamaEmbeddingModel())
        return getattr(embedder, name)

    def __repr__(self) -> str:
        return f"BuiltinEmbedder({BUILTIN_ID!r})"


def builtin_embedder() -> BuiltinEmbedder:
    """The offline default: wordllama's bundled static model (see :class:`BuiltinEmbedder`)."""
    return BuiltinEmbedder()


def minilm_embedder() -> Any:
    """The offline transformer (extra ``minilm``) behind a Pydantic AI ``Embedder``."""
    from pydantic_ai.embeddings import Embedder

    from .minilm import MiniLMEmbeddingModel

    return Embedder(MiniLMEmbeddingModel())


def choose_embedder(spec: Any, recorded: str | None, has_documents: bool) -> Any:
    """The embedder to open a knowledge base with.

    ``None`` keeps a full-text-only base full-text only but still uses an offline model (``wordllama``,
    ``minilm``) for a base built with it; :data:`AUTO` also gives a new (empty) base the built-in model; anything else
    is passed to :func:`as_embedder`.
    """
    if spec is None or spec == AUTO:
        if recorded == BUILTIN_ID or (spec == AUTO and not recorded and not has_documents):
            return builtin_embedder()
        return minilm_embedder() if recorded == MINILM_ID else None
    return as_embedder(spec)


def as_embedder(embedder: Any) -> Any:
    """Accept a Pydantic AI ``Embedder``, an ``EmbeddingModel`` or a model string (``"openai:text-embedding-3-small"``,
    ``"wordllama"`` for the built-in offline model, ``"minilm"`` for the offline transformer, ``"none"`` for none)."""
    if embedder is None or isinstance(embedder, BuiltinEmbedder):
        return embedder
    if isinstance(embedder, str):
        name = embedder.strip().lower()
        if name in NONE_NAMES:
            return None
        if name in BUILTIN_NAMES:
            return builtin_embedder()
        if name in MINILM_NAMES:
            return minilm_embedder()
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
    if isinstance(embedder, BuiltinEmbedder):
        return BUILTIN_ID
    model = getattr(embedder, "model", None)
    if isinstance(model, str):
        return model
    if model is not None and hasattr(model, "model_name"):
        system = getattr(model, "system", None)
        return f"{system}:{model.model_name}" if system else str(model.model_name)
    name = getattr(embedder, "model_name", None)
    return str(name) if name else type(embedder).__name__


def vector_weight(embedder: Any) -> float | None:
    """The weight of the vector ranking in hybrid search that ``embedder``'s model was measured best at
    (``fusion_weight``), else ``None`` (``search.VECTOR_WEIGHT``)."""
    if isinstance(embedder, BuiltinEmbedder):
        return None
    weight = getattr(getattr(embedder, "model", None), "fusion_weight", None)
    return float(weight) if isinstance(weight, (int, float)) else None


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, even when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def aembed_documents(embedder: Any, texts: Sequence[str]) -> list[list[float]]:
    if _is_builtin(embedder):
        return _builtin_vectors(texts)
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        result = await embedder.embed_documents(list(texts[start : start + EMBED_BATCH]))
        vectors.extend([float(x) for x in v] for v in result.embeddings)
    return vectors


async def aembed_query(embedder: Any, text: str) -> list[float]:
    if _is_builtin(embedder):
        return _builtin_vectors([text])[0]
    result = await embedder.embed_query(text)
    return [float(x) for x in result.embeddings[0]]


def embed_documents(embedder: Any, texts: Sequence[str]) -> list[list[float]]:
    if _is_builtin(embedder):  # computed here directly: no event loop, no Pydantic AI
        return _builtin_vectors(texts)
    return run_sync(aembed_documents(embedder, texts))


def embed_query(embedder: Any, text: str) -> list[float]:
    if _is_builtin(embedder):  # computed here directly: an event loop per query costs more than the embedding
        return _builtin_vectors([text])[0]
    if _is_minilm(embedder):  # likewise
        from .minilm import embed_texts

        return embed_texts([text])[0].tolist()
    return run_sync(aembed_query(embedder, text))


def _builtin_vectors(texts: Sequence[str]) -> list[list[float]]:
    from .wordllama_model import embed_texts

    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        vectors.extend(embed_texts(texts[start : start + EMBED_BATCH]).tolist())
    return vectors


def _is_builtin(embedder: Any) -> bool:
    """Whether ``embedder`` is the built-in model: a :class:`BuiltinEmbedder`, or the model behind a plain
    Pydantic AI ``Embedder`` (no wrapper that could change what is embedded)."""
    if isinstance(embedder, BuiltinEmbedder):
        return True
    if "pydantic_ai.embeddings" not in sys.modules:  # then no Pydantic AI Embedder exists in this process
        return False
    from pydantic_ai.embeddings import Embedder

    from .offline_embedder import WordLlamaEmbeddingModel

    return type(embedder) is Embedder and type(getattr(embedder, "model", None)) is WordLlamaEmbeddingModel


def _is_minilm(embedder: Any) -> bool:
    """Whether ``embedder`` is the MiniLM model behind a plain Pydantic AI ``Embedder``."""
    minilm = sys.modules.get(f"{__package__}.minilm")  # not imported: no MiniLM model exists in this process
    if minilm is None:
        return False
    from pydantic_ai.embeddings import Embedder

    return type(embedder) is Embedder and type(getattr(embedder, "model", None)) is minilm.MiniLMEmbeddingModel
