"""The offline embedders as Pydantic AI ``EmbeddingModel`` s: :class:`LocalEmbeddingModel` runs a model shipped in a
wheel in this process; wordllama (``wordllama_model``) is the built-in one, MiniLM (``minilm``) the optional one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic_ai.embeddings import EmbeddingModel, EmbeddingResult
from pydantic_ai.embeddings.settings import EmbeddingSettings

from . import wordllama_model
from .wordllama_model import embed_texts

__all__ = ["LocalEmbeddingModel", "WordLlamaEmbeddingModel", "embed_texts"]


class LocalEmbeddingModel(EmbeddingModel):
    """Embeddings computed locally (no server, key or download) by a module that has ``SYSTEM``, ``MODEL_NAME``,
    ``embed_texts(texts)`` and ``load_model()`` (whose second item is the tokenizer)."""

    engine: ClassVar[Any]
    """The module that loads and runs the model."""
    off_loop_from: ClassVar[int] = 0
    """From this many inputs, the embedding runs in a thread, off the event loop."""

    @property
    def model_name(self) -> str:
        return self.engine.MODEL_NAME

    @property
    def system(self) -> str:
        return self.engine.SYSTEM

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: Any, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        texts, _ = self.prepare_embed(inputs, settings)
        run: Callable[[Sequence[str]], Any] = self.engine.embed_texts
        vectors = await asyncio.to_thread(run, texts) if len(texts) >= self.off_loop_from else run(texts)
        return EmbeddingResult(
            embeddings=vectors.tolist(),
            inputs=texts,
            input_type=input_type,
            model_name=self.model_name,
            provider_name=self.system,
        )

    async def max_input_tokens(self) -> int | None:
        return None  # any length: static embeddings, or a transformer's windows

    async def count_tokens(self, text: str) -> int:
        return len(self.engine.load_model()[1].encode(text, add_special_tokens=False).ids)


class WordLlamaEmbeddingModel(LocalEmbeddingModel):
    """wordllama ``l2_supercat`` 256-d static embeddings; a query (a few inputs) is embedded on the loop."""

    engine = wordllama_model
    off_loop_from = 65
