"""Knowledge bases indexed by an older haiku-tui: the index version, ``add``/``reindex`` re-indexing them,
search before, during and after, and the stemmer's output they hold."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from haiku_tui.cli import main
from haiku_tui.store.kb import CHUNKS, DOCUMENTS, KnowledgeBase
from haiku_tui.store.search import best_sentence_share, clear_chunk_caches
from haiku_tui.store.storage import Storage
from haiku_tui.store.tables import INDEX_VERSION, INDEX_VERSION_COLUMN, SENTENCE_TERMS_COLUMN, UNVERSIONED
from tests.kb_fixture import make_old


@pytest.fixture
def old_kb(tmp_path, docs_dir) -> Path:
    uri = tmp_path / "old.lancedb"
    with KnowledgeBase.open(uri) as kb:
        kb.add([docs_dir], metadata={"team": "tea"})
    make_old(uri)
    return uri


def chunk_rows(kb: KnowledgeBase) -> list[dict]:
    return kb.storage.table(CHUNKS).to_arrow().select(["id", "document_id", "content_hash"]).to_pylist()


def hit_ids(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.chunk_id for h in kb.search(query, limit=20)]


def test_an_old_base_reads_as_version_one_and_reading_does_not_rewrite_it(old_kb):
    with KnowledgeBase.open(old_kb) as kb:
        docs = kb.documents()
        assert {d.index_version for d in docs} == {UNVERSIONED} and UNVERSIONED < INDEX_VERSION
        info = kb.info()
        assert info["outdated_documents"] == len(docs) == 4 and info["index_version"] == INDEX_VERSION
        assert [h.title for h in kb.search("steep green tea")][:1] == ["Tea brewing"]
        assert kb.document_chunks(docs[0].path) and kb.neighbours(hit_ids(kb, "tea")[0])
        for name in (DOCUMENTS, CHUNKS):
            assert INDEX_VERSION_COLUMN not in kb.storage.table(name).schema.names


def test_add_reindexes_unchanged_documents_of_an_older_version_once(old_kb, docs_dir):
    with KnowledgeBase.open(old_kb) as kb:
        before = chunk_rows(kb)
        report = kb.add([docs_dir])
        assert len(report.replaced) == 4 and not report.skipped and not report.added
        assert kb.outdated() == [] and kb.info()["outdated_documents"] == 0
        assert {d.index_version for d in kb.documents()} == {INDEX_VERSION}
        assert kb.documents()[0].metadata["team"] == "tea"  # given at the first add, kept
        after = chunk_rows(kb)
        # one generation: the old chunks are gone, the new ids are unique and differ from the old ones
        assert len(after) == sum(d.chunks for d in kb.documents()) == len({r["id"] for r in after})
        assert not {r["id"] for r in before} & {r["id"] for r in after}
        assert kb.info()["orphan_chunks"] == 0
        assert [h.title for h in kb.search("steep green tea")][:1] == ["Tea brewing"]
        again = kb.add([docs_dir])
        assert len(again.skipped) == 4 and not again.replaced


def test_search_shows_one_generation_while_a_reindex_is_cut_short(old_kb, docs_dir, monkeypatch):
    """A re-index killed after writing the new chunks and before the documents rows: the old generation
    stays the visible one (never both, never neither); the next add finishes the job."""
    with KnowledgeBase.open(old_kb) as kb:
        old_ids = hit_ids(kb, "tea")
        stored = kb.storage.table(CHUNKS).count_rows()
        real = Storage.docs_table

        class Docs:
            def __init__(self, table):
                self.table = table

            def merge_insert(self, on):
                raise OSError("killed before the documents rows")

        monkeypatch.setattr(Storage, "docs_table", lambda storage: Docs(real(storage)))
        report = kb.add([docs_dir])
        assert len(report.failed) == 4
        assert kb.storage.table(CHUNKS).count_rows() == 2 * stored  # both generations are on disk
        assert hit_ids(kb, "tea") == old_ids  # only the old one is seen
        assert kb.info()["orphan_chunks"] == stored and kb.info()["outdated_documents"] == 4
        monkeypatch.setattr(Storage, "docs_table", real)
        assert len(kb.add([docs_dir]).replaced) == 4
        assert kb.storage.table(CHUNKS).count_rows() == stored and kb.info()["outdated_documents"] == 0
        assert hit_ids(kb, "tea") and not set(hit_ids(kb, "tea")) & set(old_ids)


def test_sync_reindexes_unless_told_not_to_and_the_watcher_does_not(old_kb, docs_dir):
    from haiku_tui.store.watch import watch

    with KnowledgeBase.open(old_kb) as kb:
        stop = threading.Event()
        steps = watch(kb, [docs_dir], stop_event=stop)
        first = next(steps)  # the initial sync
        stop.set()
        steps.close()
        assert len(first.skipped) == 4 and not first.replaced and len(kb.outdated()) == 4
        assert len(kb.sync([docs_dir], dry_run=True).replaced) == 4 and len(kb.outdated()) == 4
        assert len(kb.sync([docs_dir]).replaced) == 4 and kb.outdated() == []


def test_reindex_takes_the_documents_from_their_files(old_kb, docs_dir, tmp_path):
    gone = docs_dir / "solar-panels.md"
    gone.unlink()
    with KnowledgeBase.open(old_kb) as kb:
        report = kb.reindex()
        assert len(report.replaced) == 3 and [f.path for f in report.failed] == [str(gone)]
        assert [d.path for d in kb.outdated()] == [str(gone)]
        assert kb.search("solar panel") != []  # still searchable as it was indexed


def test_cli_info_says_it_and_reindex_does_it(old_kb, capsys):
    assert main(["info", "--db", str(old_kb)]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "older haiku-tui" in line]
    assert lines == ["outdated         4 documents indexed by an older haiku-tui: `haiku-tui reindex` updates them"]
    assert main(["reindex", "--db", str(old_kb), "--quiet"]) == 0
    assert "replaced 4" in capsys.readouterr().out
    assert main(["info", "--db", str(old_kb)]) == 0
    assert "older haiku-tui" not in capsys.readouterr().out
    assert main(["reindex", "--db", str(old_kb)]) == 0
    assert "every document" in capsys.readouterr().out


def test_stored_sentence_terms_count_only_for_chunks_of_todays_version():
    """An older stemmer's stored terms ("rep" for "reply") would never match today's query stems: for
    chunks of an older version the terms are made from the text instead."""
    clear_chunk_caches()
    text = "Reply to the sender when the message arrives."
    old = {"id": "a", "text": text, SENTENCE_TERMS_COLUMN: "arriv messag rep sender"}
    current = {**old, "id": "b", INDEX_VERSION_COLUMN: INDEX_VERSION}
    newer_unknown = {**old, "id": "c", INDEX_VERSION_COLUMN: INDEX_VERSION + 1}
    assert best_sentence_share("how do I reply", [old]) == [1.0]
    assert best_sentence_share("how do I reply", [current]) == [0.0]  # today's stored terms are trusted
    assert best_sentence_share("how do I reply", [newer_unknown]) == [1.0]


def test_a_base_a_newer_haiku_tui_laid_out_is_not_written_to(tmp_path, docs_dir, capsys):
    uri = tmp_path / "newer.lancedb"
    with KnowledgeBase.open(uri) as kb:
        kb.add([docs_dir])
        kb.storage.write_settings({"schema_version": "7"})
        before = [d.id for d in kb.documents()]
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nA document written after the newer version laid the base out.\n", encoding="utf-8")
    assert main(["--db", str(uri), "add", str(extra)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "newer haiku-tui" in err[0] and "upgrade haiku-tui" in err[0]
    with KnowledgeBase.open(uri) as kb:
        assert [d.id for d in kb.documents()] == before  # nothing was written
