"""``eval_retrieval.py`` with the extractive model's sentence similarities from the distilled MiniLM model.

    python bench/eval_sentence_embedder.py [eval_retrieval.py arguments]

Search keeps whatever ``--embedder`` says; only ``haiku_tui.agent.extractive._similarities`` (which the
product computes with wordllama) is replaced, in this process, by the model in
``$HAIKU_TUI_DISTILLED_MODEL`` (see ``haiku_tui.store.distilled_embedder``).
"""

from __future__ import annotations

import runpy
from pathlib import Path

from haiku_tui.agent import extractive
from haiku_tui.store.distilled_embedder import DistilledEmbeddingModel

MODEL = DistilledEmbeddingModel()


def similarities(question: str, texts: list[str]) -> list[float]:
    vectors = MODEL.embed_texts([question, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]


extractive._similarities = similarities
runpy.run_path(str(Path(__file__).with_name("eval_retrieval.py")), run_name="__main__")
