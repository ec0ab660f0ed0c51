"""Search: full text, hybrid, filters, lookups, embedder bookkeeping, empty databases."""

from __future__ import annotations

import pytest
from pydantic_ai.embeddings import Embedder

from haiku_tui.store import EmbedderMismatch, EmptyKnowledgeBase, InvalidFilter, KnowledgeBase, SearchHit
from tests.store.conftest import HashEmbeddingModel


def test_fts_finds_the_right_document(small_kb):
    hits = small_kb.search("how long should I steep green tea")
    assert isinstance(hits[0], SearchHit)
    assert hits[0].title == "Tea brewing" and hits[0].headings == ("Tea brewing", "Green tea")
    assert hits[0].label() == "Tea brewing › Green tea"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    assert small_kb.search("sourdough starter feeding")[0].title == "Sourdough bread"
    assert small_kb.search("chain oil")[0].title == "Bicycle maintenance"


def test_titles_and_headings_are_searchable(small_kb):
    # "Efficiency" appears as a heading; "maintenance" only in the title
    assert small_kb.search("efficiency")[0].headings[-1] == "Efficiency"
    assert small_kb.search("maintenance")[0].title == "Bicycle maintenance"


def test_stemming_and_odd_queries(small_kb):
    assert small_kb.search("brewed")[0].title == "Tea brewing"  # stem of "brewing"/"brewed"
    for query in ['"unbalanced quote', "a:b", "(x", "AND", "it's", "***", "tea OR"]:
        small_kb.search(query)  # never raises
    assert small_kb.search("   ") == []
    assert small_kb.search("zyzzyva") == []


def test_limit(small_kb):
    assert len(small_kb.search("the", limit=2)) == 2
    many = small_kb.search("the", limit=50)
    assert 2 < len(many) <= small_kb.info()["chunks"]
    assert len({h.chunk_id for h in many}) == len(many)


def test_new_rows_are_searchable_after_each_add(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    kb.add([docs_dir / "tea-brewing.md"])
    for i in range(3):
        (docs_dir / f"extra{i}.md").write_text(f"# Extra {i}\n\nThe zanzibar{i} keyword lives here.\n")
        kb.add([docs_dir / f"extra{i}.md"])
        assert kb.search(f"zanzibar{i}")[0].title == f"Extra {i}"
    assert kb.info()["fts_index"] is True


def test_filter(small_kb):
    hits = small_kb.search("degrees", filter="title = 'Tea brewing'", limit=10)
    assert hits and {h.title for h in hits} == {"Tea brewing"}
    hits = small_kb.search("degrees", filter="path LIKE '%sourdough%'", limit=10)
    assert {h.title for h in hits} == {"Sourdough bread"}
    assert small_kb.search("degrees", filter="metadata LIKE '%\"source_type\": \"markdown\"%'")
    assert small_kb.search("degrees", filter="title = 'Nothing'") == []
    ids = small_kb.filter_document_ids("title LIKE 'S%'")
    assert len(ids) == 2
    with pytest.raises(InvalidFilter, match="title, path and metadata"):
        small_kb.search("tea", filter="no_such_column = 1")


def test_get_chunks_and_neighbours(small_kb):
    tea = next(d for d in small_kb.documents() if d.title == "Tea brewing")
    chunks = small_kb.document_chunks(tea.id)
    assert len(chunks) >= 2
    got = small_kb.get_chunks([chunks[0].chunk_id, "ffffffffffffffff"])
    assert list(got) == [chunks[0].chunk_id] and got[chunks[0].chunk_id].text == chunks[0].text
    mid = chunks[1]
    around = small_kb.neighbours(mid.chunk_id, radius=1)
    assert [c.order for c in around] == [c.order for c in chunks[max(0, mid.order - 1) : mid.order + 2]]
    assert small_kb.neighbours(chunks[0].chunk_id, radius=0) == [chunks[0]]
    assert small_kb.neighbours("ffffffffffffffff") == []


def test_empty_and_missing_databases(tmp_path):
    with pytest.raises(EmptyKnowledgeBase, match="haiku-tui add"):
        KnowledgeBase.open(tmp_path / "missing.lancedb", create=False)
    kb = KnowledgeBase.open(tmp_path / "fresh.lancedb")
    assert kb.documents() == [] and kb.info()["documents"] == 0
    with pytest.raises(EmptyKnowledgeBase, match="add documents"):
        kb.search("anything")
    assert not (tmp_path / "fresh.lancedb").exists() or kb.info()["chunks"] == 0


def test_default_location_comes_from_locations(monkeypatch, tmp_path, docs_dir, _isolated_data_dir):
    kb = KnowledgeBase.open()
    assert kb.uri == str(_isolated_data_dir / "haiku.rag.lancedb")
    monkeypatch.setenv("HAIKU_RAG_DB", str(tmp_path / "env.lancedb"))
    kb = KnowledgeBase.open()
    kb.add([docs_dir / "tea-brewing.md"])
    assert kb.uri == str(tmp_path / "env.lancedb") and kb.info()["size_bytes"] > 0


def test_hybrid_search_with_an_embedder(tmp_path, docs_dir, hash_embedder):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=hash_embedder)
    kb.add([docs_dir])
    info = kb.info()
    assert info["embedder"] == "test-hash:hash-bow" and info["dimension"] == 64
    hits = kb.search("steep black tea boiled water")
    assert hits[0].title == "Tea brewing"
    assert all(0 < h.score < 1 for h in hits)  # RRF relevance scores
    # vector side alone can find text that full text cannot rank (all words are stop-ish)
    assert kb.search("tyre pressure psi", filter="title = 'Bicycle maintenance'")[0].title == "Bicycle maintenance"
    # reopen with the same embedder: fine
    again = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=Embedder(HashEmbeddingModel()))
    assert again.search("sourdough starter")[0].title == "Sourdough bread"


async def test_asearch_inside_an_event_loop(tmp_path, docs_dir, hash_embedder):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=hash_embedder)
    kb.add([docs_dir])  # sync embedding works while a loop is running
    hits = await kb.asearch("green tea temperature")
    assert hits[0].title == "Tea brewing"
    assert kb.search("green tea temperature")[0].chunk_id == hits[0].chunk_id


def test_embedder_mismatch_is_refused(tmp_path, docs_dir, hash_embedder):
    KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=hash_embedder).add([docs_dir])
    with pytest.raises(EmbedderMismatch, match=r"built with embedder 'test-hash:hash-bow' \(64 dims\).*--db"):
        KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=Embedder(HashEmbeddingModel(name="other")))
    # same name, different dimension: refused when vectors come back
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=Embedder(HashEmbeddingModel(dimensions=32)))
    (docs_dir / "new.md").write_text("# New\n\nNew text.\n")
    with pytest.raises(EmbedderMismatch, match="32-dim"):
        kb.add([docs_dir / "new.md"])


def test_embedder_on_a_full_text_database_is_refused(small_kb, hash_embedder):
    with pytest.raises(EmbedderMismatch, match="without an embedder"):
        KnowledgeBase.open(small_kb.uri, embedder=hash_embedder)


def test_embedder_accepted_on_an_emptied_database(tmp_path, docs_dir, hash_embedder):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    kb.add([docs_dir / "tea-brewing.md"])
    kb.delete(str(docs_dir / "tea-brewing.md"))
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=hash_embedder)
    kb.add([docs_dir])
    assert kb.info()["dimension"] == 64 and kb.search("green tea")[0].title == "Tea brewing"
