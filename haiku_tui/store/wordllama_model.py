"""wordllama's bundled static model, loaded from the installed package and applied with numpy.

The ``wordllama`` wheel ships a 32k x 256 token-embedding matrix and its tokenizer. Its own loader
looks for the tokenizer in a folder the wheel does not have and then falls back to a Hugging Face
download, so both files are read here from explicit paths inside the installed package: nothing
can reach the network. An embedding is the mean of the text's token vectors, L2-normalised (what
``WordLlamaInference.embed(norm=True)`` computes, without importing wordllama's heavier modules).
The store embeds with it directly; ``offline_embedder`` wraps it as a Pydantic AI model.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

SYSTEM = "wordllama"
CONFIG = "l2_supercat"
DIMENSION = 256
MODEL_NAME = f"{CONFIG}_{DIMENSION}"
MODEL_ID = f"{SYSTEM}:{MODEL_NAME}"

_lock = threading.Lock()
_loaded: tuple[Any, Any] | None = None


def model_files() -> tuple[str, str]:
    """Paths of the bundled weights and tokenizer inside the installed ``wordllama`` package."""
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the built-in embedder needs the `wordllama` package: pip install wordllama")
    root = Path(next(iter(spec.submodule_search_locations)))
    weights = root / "weights" / f"{MODEL_NAME}.safetensors"
    tokenizer = root / "tokenizers" / f"{CONFIG}_tokenizer_config.json"
    for path in (weights, tokenizer):
        if not path.is_file():
            raise FileNotFoundError(
                f"the wordllama package lacks {path.name}; reinstall it: pip install --force-reinstall wordllama"
            )
    return str(weights), str(tokenizer)


def load_model() -> tuple[Any, Any]:
    """``(embedding matrix, tokenizer)``, loaded once per process."""
    global _loaded
    with _lock:
        if _loaded is None:
            import numpy as np
            from safetensors import safe_open
            from tokenizers import Tokenizer

            weights_path, tokenizer_path = model_files()
            with safe_open(weights_path, framework="np") as f:
                matrix = np.ascontiguousarray(f.get_tensor("embedding.weight"), dtype=np.float32)
            tokenizer = Tokenizer.from_file(tokenizer_path)
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _loaded = (matrix, tokenizer)
        return _loaded


def embed_texts(texts: Sequence[str]) -> Any:
    """Unit-length mean-pooled vectors for ``texts`` as a float32 array (zeros for a text with no tokens)."""
    import numpy as np

    matrix, tokenizer = load_model()
    out = np.zeros((len(texts), matrix.shape[1]), dtype=np.float32)
    if not texts:
        return out
    encodings = tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
    last = matrix.shape[0] - 1
    for row, encoding in enumerate(encodings):
        if encoding.ids:
            ids = np.minimum(np.asarray(encoding.ids, dtype=np.int64), last)
            total = matrix[ids].sum(axis=0)
            out[row] = total / max(float(np.linalg.norm(total)), 1e-12)
    return out
