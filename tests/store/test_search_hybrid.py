"""Hybrid search by default with the built-in offline embedder, fusion and the ``embed`` command."""

from __future__ import annotations

import asyncio
import socket

import numpy as np
import pytest

import haiku_tui.store.wordllama_model as offline
from haiku_tui.cli import main
from haiku_tui.store import search
from haiku_tui.store.embedding import BUILTIN_ID, as_embedder, choose_embedder, embedder_id
from haiku_tui.store.kb import KnowledgeBase
from tests.kb_fixture import write_documents


def test_builtin_model_matches_wordllama_and_never_touches_the_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the offline embedder opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(offline, "_loaded", None)  # load from disk again, with sockets refused
    texts = ["how do I brew green tea", "Steep green tea for two minutes.", "", "solar panels on a roof"]
    mine = offline.embed_texts(texts)

    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    weights, tokenizer = offline.model_files()
    with safe_open(weights, framework="np") as f:
        reference = WordLlamaInference(f.get_tensor("embedding.weight"), Tokenizer.from_file(tokenizer))
    expected = reference.embed([t for t in texts if t], norm=True)
    assert mine.shape == (4, offline.DIMENSION)
    assert np.allclose(mine[[0, 1, 3]], expected, atol=1e-5)
    assert not mine[2].any()  # a text without tokens embeds to zeros, not NaN
    assert mine[0] @ mine[1] > mine[0] @ mine[3]  # tea is closer to tea than to solar panels


def test_builtin_model_is_a_pydantic_ai_embedder():
    embedder = as_embedder("wordllama")
    assert embedder_id(embedder) == BUILTIN_ID
    result = asyncio.run(embedder.embed_documents(["one text", "another text"]))
    assert len(result.embeddings) == 2 and len(result.embeddings[0]) == offline.DIMENSION
    assert as_embedder("none") is None


def test_choose_embedder():
    assert embedder_id(choose_embedder("auto", None, False)) == BUILTIN_ID  # new base: built-in model
    assert choose_embedder("auto", None, True) is None  # full-text-only base stays full text
    assert embedder_id(choose_embedder(None, BUILTIN_ID, True)) == BUILTIN_ID  # built with it: used anywhere
    assert choose_embedder(None, None, False) is None  # library default: none
    assert choose_embedder("auto", "openai:text-embedding-3-small", True) is None  # needs --embedder


def test_fusion_weights_and_document_decay(monkeypatch):
    def row(cid, doc):
        return {"id": cid, "document_id": doc, "text": cid}

    text = [row("a", "big"), row("b", "big"), row("c", "small")]
    vectors = [row("c", "small"), row("a", "big"), row("b", "big")]
    monkeypatch.setattr(search, "RRF_K", 1)
    fused = search.fuse([(text, 1.0), (vectors, 1.0)])
    assert [r["id"] for r in fused] == ["a", "c", "b"]  # a: 1/2 + 1/3, c: 1/4 + 1/2, b: 1/3 + 1/4
    assert fused[0]["_relevance_score"] == pytest.approx(1 / 2 + 1 / 3)
    assert [r["id"] for r in search.fuse([(text, 1.0), (vectors, 0.0)])] == ["a", "b", "c"]

    monkeypatch.setattr(search, "DOC_DECAY", 0.5)
    rows = [{**row("a", "big"), "_relevance_score": 1.0}, {**row("b", "big"), "_relevance_score": 0.9},
            {**row("c", "small"), "_relevance_score": 0.6}]
    assert [r["id"] for r in search.diversify(rows)] == ["a", "c", "b"]  # b keeps 0.45 < 0.6


def test_new_knowledge_base_is_hybrid_without_a_flag_and_lance_stays_quiet(tmp_path, capfd):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb.lancedb")
    assert main(["--db", db, "add", "--quiet", str(docs)]) == 0
    assert main(["--db", db, "search", "how hot should the water be for tea"]) == 0
    out, err = capfd.readouterr()
    assert "WARN" not in err and "lance::" not in err and "_distance" not in err
    with KnowledgeBase.open(db, create=False) as kb:
        assert kb.recorded_embedder() == (BUILTIN_ID, offline.DIMENSION)
        assert kb._vector_search_enabled()
        assert "tea" in kb.search("how hot should the water be for tea", limit=1)[0].text.lower()


def test_full_text_base_keeps_working_and_embed_adds_vectors(tmp_path, capsys):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb.lancedb")
    assert main(["--db", db, "--embedder", "none", "add", "--quiet", str(docs)]) == 0
    assert main(["--db", db, "search", "green tea"]) == 0  # auto: stays full text
    assert main(["--db", db, "info"]) == 0
    out = capsys.readouterr().out
    assert "add vectors with `haiku-tui embed`" in out
    with KnowledgeBase.open(db, embedder="auto", create=False) as kb:
        assert kb.embedder is None and kb.recorded_embedder() == (None, None)
        before = [h.chunk_id for h in kb.search("green tea", limit=3)]

    assert main(["--db", db, "embed"]) == 0
    assert "is now hybrid" in capsys.readouterr().out
    with KnowledgeBase.open(db, create=False) as kb:
        assert kb.recorded_embedder() == (BUILTIN_ID, offline.DIMENSION)
        assert kb._vector_search_enabled() and kb.info()["chunks"] > 0
        assert set(before) & {h.chunk_id for h in kb.search("green tea", limit=3)}
        kb.add([docs])  # adding again to the embedded base works and skips unchanged files

    assert main(["--db", db, "embed"]) == 1  # already has vectors: one clear line
    assert "already has vectors" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "missing"), "embed"]) == 1


def test_vector_index_past_the_threshold_is_built_quietly(tmp_path, monkeypatch, capfd):
    import lancedb
    import pyarrow as pa

    monkeypatch.setattr(search, "ANN_MIN_ROWS", 500)
    vectors = np.ones((600, 8), dtype=np.float32)  # duplicates: lance's k-means warns about them
    table = lancedb.connect(str(tmp_path)).create_table(
        "chunks",
        pa.table(
            {"id": [str(i) for i in range(600)], "vector": pa.array(list(vectors), type=pa.list_(pa.float32(), 8))}
        ),
    )
    assert search.ensure_vector_index(table) is True
    assert any("vector" in index.columns for index in table.list_indices())
    assert "WARN" not in capfd.readouterr().err


def test_exact_vector_search_matches_lance_and_follows_new_versions(tmp_path, monkeypatch):
    from haiku_tui.store.kb import CHUNKS

    docs = write_documents(tmp_path / "docs")
    with KnowledgeBase.open(str(tmp_path / "kb.lancedb"), embedder="auto") as kb:
        kb.add([docs])
        chunks = kb.storage.table(CHUNKS)
        vector = offline.embed_texts(["how hot should the water be for tea"])[0].tolist()
        total = chunks.count_rows()
        lance = chunks.search(vector, query_type="vector").distance_type("cosine").limit(total).to_list()
        exact = search.exact_vector_rows(chunks, vector, total)
        assert [r["id"] for r in exact] == [r["id"] for r in lance]
        assert [r["_distance"] for r in exact] == pytest.approx([r["_distance"] for r in lance], abs=1e-4)

        extra = tmp_path / "more" / "kettles.md"
        extra.parent.mkdir()
        extra.write_text("# Kettles\n\nA kettle switches itself off when the water boils.\n", encoding="utf-8")
        kb.add([extra])
        chunks = kb.storage.table(CHUNKS)
        assert len(search.exact_vector_rows(chunks, vector, 1000)) == total + 1  # the new version is read
        assert "kettle" in kb.search("does the kettle turn itself off", limit=1)[0].text.lower()

        monkeypatch.setattr(search, "EXACT_MAX_ROWS", 0)
        extra.write_text("# Kettles\n\nA kettle switches itself off once the water has boiled.\n", encoding="utf-8")
        kb.add([extra])
        assert search.exact_vector_rows(kb.storage.table(CHUNKS), vector, 10) is None  # past the size: Lance searches
        assert "kettle" in kb.search("does the kettle turn itself off", limit=1)[0].text.lower()
