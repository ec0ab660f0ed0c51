"""The built-in offline embedder as a Pydantic AI ``EmbeddingModel`` (the model itself: ``wordllama_model``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic_ai.embeddings import EmbeddingModel, EmbeddingResult
from pydantic_ai.embeddings.settings import EmbeddingSettings

from .wordllama_model import MODEL_NAME, SYSTEM, _model, embed_texts


class WordLlamaEmbeddingModel(EmbeddingModel):
    """wordllama ``l2_supercat`` 256-d static embeddings, computed locally (no server, key or download)."""

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def system(self) -> str:
        return SYSTEM

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: Any, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        texts, _ = self.prepare_embed(inputs, settings)
        vectors = await asyncio.to_thread(embed_texts, texts) if len(texts) > 64 else embed_texts(texts)
        return EmbeddingResult(
            embeddings=vectors.tolist(),
            inputs=texts,
            input_type=input_type,
            model_name=self.model_name,
            provider_name=self.system,
        )

    async def max_input_tokens(self) -> int | None:
        return None  # static embeddings: any length

    async def count_tokens(self, text: str) -> int:
        return len(_model()[1].encode(text, add_special_tokens=False).ids)
