"""The distilled static embedder: the build script's file format, loading from explicit paths, selection by name."""

from __future__ import annotations

import asyncio
import math
import socket

import numpy as np
import pytest
from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordPiece

import haiku_tui.store.distilled_embedder as distilled
from bench.build_distilled import distil, erf, new_words, save, special_ids, vocabulary_ranks
from haiku_tui.store.embedding import as_embedder, embed_query, embedder_id

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[unused0]", "tea", "green", "brew", "solar", "panel", "##s", "roof", "the"]


@pytest.fixture
def model_dir(tmp_path, monkeypatch):
    """A tiny model built with the build script's own functions: tea words near each other, solar words apart,
    and the word "panels" (pieces ``panel ##s``) added to the vocabulary as one token."""
    tokenizer = Tokenizer(WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer_file = tmp_path / "source-tokenizer.json"
    tokenizer.save(str(tokenizer_file))
    rng = np.random.default_rng(0)
    tea, sun = rng.normal(size=8), rng.normal(size=8)
    topic = {"tea": tea, "green": tea, "brew": tea, "solar": sun, "panel": sun, "##s": sun, "roof": sun}
    vectors = np.stack([topic.get(t, np.zeros(8)) + 0.2 * rng.normal(size=8) for t in VOCAB]).astype(np.float32)
    words, pieces, word_ranks = new_words(tokenizer, ["the", "panels", "Roofs", "tea", "x1"])
    assert (words, pieces, word_ranks.tolist()) == (["panels"], [[9, 10]], [2.0])  # only what the vocabulary splits
    vectors = np.vstack([vectors, sun + 0.2 * rng.normal(size=8)]).astype(np.float32)
    ranks = np.concatenate([vocabulary_ranks(tokenizer), word_ranks])
    matrix = distil(vectors, 4, 1e-5, ranks, special_ids(tokenizer))
    assert matrix.shape == (len(VOCAB) + 1, 4) and not matrix[special_ids(tokenizer)].any()
    folder = tmp_path / "model"
    save(matrix, folder, tokenizer_file, "tiny_test_4", words)
    monkeypatch.setenv(distilled.ENV, str(folder))
    return folder


def test_loads_from_its_folder_without_the_network_and_pools_tokens(model_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the distilled embedder opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    model = distilled.DistilledEmbeddingModel()
    assert model.model_name == "tiny_test_4" and model.folder == model_dir
    vectors = model.embed_texts(["Brew green tea", "green tea", "solar panels on the roof", "", "[CLS] xyz"])
    assert vectors.shape == (5, 4)
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert not vectors[3].any() and not vectors[4].any()  # no tokens, or only special/unknown ones: zeros
    assert vectors[0] @ vectors[1] > 0.9 > vectors[0] @ vectors[2]


def test_selected_by_name_as_a_pydantic_ai_embedder(model_dir):
    embedder = as_embedder("minilm-static")
    assert embedder_id(embedder) == "distilled:tiny_test_4"
    result = asyncio.run(embedder.embed_documents(["green tea", "solar roof"]))
    assert len(result.embeddings) == 2 and len(result.embeddings[0]) == 4
    assert np.allclose(embed_query(embedder, "green tea"), result.embeddings[0], atol=1e-6)  # the direct path agrees
    assert asyncio.run(embedder.count_tokens("solar panels")) == 2  # "panels" is one token of the distilled vocabulary


def test_missing_model_says_how_to_get_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="build_distilled"):
        distilled.DistilledEmbeddingModel(tmp_path / "nowhere").embed_texts(["tea"])


def test_build_script_erf_is_accurate():
    x = np.linspace(-4, 4, 101)
    assert np.abs(erf(x) - np.array([math.erf(v) for v in x])).max() < 2e-7
