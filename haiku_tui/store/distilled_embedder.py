"""A static embedding model distilled from all-MiniLM-L6-v2, as a Pydantic AI ``EmbeddingModel``.

``bench/build_distilled.py`` runs every MiniLM vocabulary token through the transformer once and keeps
a PCA-reduced, frequency-weighted vector per token: a folder with ``embeddings.safetensors`` (int8 rows
``embeddings`` and their float32 ``scales``; the model's name in the file's metadata) and MiniLM's
``tokenizer.json``. A text's vector is the normalised sum of its tokens' rows, as fast as wordllama.
The folder is ``$HAIKU_TUI_DISTILLED_MODEL``, else ``distilled/`` next to this module; it is read from
those explicit paths and nothing reaches the network.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from .offline_embedder import StaticEmbeddingModel

SYSTEM = "distilled"
NAME = "minilm-static"  # what ``--embedder`` accepts
ENV = "HAIKU_TUI_DISTILLED_MODEL"

_lock = threading.Lock()
_loaded: dict[Path, tuple[str, Any, Any]] = {}


def model_folder() -> Path:
    """Where the distilled model is read from."""
    return Path(os.environ.get(ENV) or Path(__file__).with_name("distilled"))


def load(folder: Path) -> tuple[str, Any, Any]:
    """``(name, float32 matrix, tokenizer)`` of the model in ``folder``, loaded once per process."""
    folder = folder.resolve()
    with _lock:
        if folder not in _loaded:
            import numpy as np
            from safetensors import safe_open
            from tokenizers import Tokenizer

            weights, tokenizer_file = folder / "embeddings.safetensors", folder / "tokenizer.json"
            for path in (weights, tokenizer_file):
                if not path.is_file():
                    raise FileNotFoundError(f"no distilled model at {folder} (missing {path.name}); build it with bench/build_distilled.py or set ${ENV}")
            with safe_open(str(weights), framework="np") as f:
                name = (f.metadata() or {}).get("name", folder.name)
                matrix = f.get_tensor("embeddings").astype(np.float32) * f.get_tensor("scales").astype(np.float32)[:, None]
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _loaded[folder] = (name, np.ascontiguousarray(matrix), tokenizer)
        return _loaded[folder]


class DistilledEmbeddingModel(StaticEmbeddingModel):
    """MiniLM distilled to static token vectors (see :mod:`bench.build_distilled`)."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__()
        self.folder = folder or model_folder()

    @property
    def model_name(self) -> str:
        return load(self.folder)[0]

    @property
    def system(self) -> str:
        return SYSTEM

    def loaded(self) -> tuple[Any, Any]:
        return load(self.folder)[1:]
