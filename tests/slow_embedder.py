"""A slow embedder for progress tests: the built-in model, wrapped to sleep before each batch; and a folder of
many small documents to embed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic_ai.embeddings import Embedder
from pydantic_ai.embeddings.result import EmbeddingResult, EmbedInputType
from pydantic_ai.embeddings.settings import EmbeddingSettings
from pydantic_ai.embeddings.wrapper import WrapperEmbeddingModel

from haiku_tui.store.offline_embedder import WordLlamaEmbeddingModel


class SlowEmbeddingModel(WrapperEmbeddingModel):
    """``wrapped``, sleeping ``delay`` seconds before each batch (``first_delay`` before the first); call number
    ``fail_on`` (1-based) raises. ``batches`` holds each call's size and the time it began."""

    __test__ = False

    def __init__(self, wrapped, delay: float, *, first_delay: float | None = None, fail_on: int = 0) -> None:
        super().__init__(wrapped)
        self.delay = delay
        self.first_delay = delay if first_delay is None else first_delay
        self.fail_on = fail_on
        self.batches: list[tuple[int, float]] = []

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        self.batches.append((len(texts), time.perf_counter()))
        await asyncio.sleep(self.first_delay if len(self.batches) == 1 else self.delay)
        if len(self.batches) == self.fail_on:
            raise RuntimeError("the embedding server went away")
        return await super().embed(inputs, input_type=input_type, settings=settings)


def slow_builtin(delay: float, **options) -> Embedder:
    """The built-in model (same id, so a base it built opens with the plain one), slow."""
    return Embedder(SlowEmbeddingModel(WordLlamaEmbeddingModel(), delay, **options))


def write_many(folder: Path, count: int) -> Path:
    """``count`` Markdown documents of three sections (a chunk or more each) about numbered teapots."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        sections = "\n\n".join(
            f"## Part {part}\n\n" + " ".join(f"Teapot {n} glaze {part} needs kiln firing {k}." for k in range(40))
            for part in range(3)
        )
        (folder / f"teapot-{n:02d}.md").write_text(f"# Teapot {n}\n\n{sections}\n", encoding="utf-8")
    return folder
