"""Ingest: folders, bad input, re-add / replace / delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from haiku_tui.store import EmbedderMismatch, KnowledgeBase
from haiku_tui.store.ingest import discover
from haiku_tui.store.ingest import chunk_id, document_id


def reasons(report) -> dict[str, str]:
    return {Path(f.path).name: f.reason for f in report.failed}


def test_add_folder_recursively(tmp_path, docs_dir):
    nested = docs_dir / "more" / "deeper"
    nested.mkdir(parents=True)
    (nested / "kettle.txt").write_text("Descale the kettle\n==================\n\nUse citric acid once a month.\n")
    (nested / "page.html").write_text("<title>Gardening</title><h1>Roses</h1><p>Prune roses in early spring.</p>")
    (docs_dir / ".hidden.md").write_text("# Hidden\n\nnot ingested\n")
    (docs_dir / "image.png").write_bytes(b"\x89PNG\x00\x00")
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    seen = []
    report = kb.add([docs_dir], on_progress=seen.append)
    assert not report.failed
    assert len(report.added) == 6 and report.chunks > 6
    titles = {d.title for d in kb.documents()}
    assert {"Solar panels", "Tea brewing", "Descale the kettle", "Gardening"} <= titles
    assert seen[-1].files_done == seen[-1].files_total == 6 and seen[-1].chunks_done == report.chunks
    doc = next(d for d in kb.documents() if d.title == "Gardening")
    assert doc.metadata["source_type"] == "html" and doc.id == document_id(doc.path)


def test_ids_are_stable_hex(small_kb):
    for doc in small_kb.documents():
        assert len(doc.id) == 16 and int(doc.id, 16) >= 0
        chunks = small_kb.document_chunks(doc.id)
        assert [c.order for c in chunks] == list(range(doc.chunks))
        assert chunks[0].chunk_id == chunk_id(doc.id, doc.content_hash, 0)


def test_bad_inputs_are_reported_and_the_rest_lands(tmp_path, docs_dir, pdf_bytes):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "binary.md").write_bytes(b"\x00\x01\x02\x03binary\x00")
    (bad / "latin1.txt").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e".encode("latin-1"))
    (bad / "empty.md").write_bytes(b"")
    (bad / "scan.pdf").write_bytes(pdf_bytes([[]]))
    (bad / "good.pdf").write_bytes(pdf_bytes([["Kettles boil water quickly."]], title="Kettles"))
    huge = bad / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(21 * 1024 * 1024)  # sparse: > 20 MB without writing it
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    report = kb.add([docs_dir, bad, tmp_path / "missing.md", tmp_path / "nope-dir"])
    got = reasons(report)
    assert "binary" in got["binary.md"]
    assert "UTF-8" in got["latin1.txt"]
    assert got["empty.md"] == "empty file"
    assert "no text layer" in got["scan.pdf"]
    assert "too large" in got["huge.txt"] and "20.0 MB" in got["huge.txt"]
    assert got["missing.md"] == "no such file or directory"
    assert got["nope-dir"] == "no such file or directory"
    assert all("\n" not in r for r in got.values())
    assert len(report.added) == 5  # four docs + good.pdf
    hit = kb.search("kettles boil water")[0]
    assert hit.title == "Kettles" and hit.pages == (1,)


def test_file_vanishing_mid_ingest(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    victim = docs_dir / "tea-brewing.md"  # sorted last of the four

    def on_progress(p):
        if p.files_done == 1 and victim.exists():
            victim.unlink()

    report = kb.add([docs_dir], on_progress=on_progress)
    assert reasons(report) == {"tea-brewing.md": "file disappeared before it could be read"}
    assert len(report.added) == 3


def test_max_bytes_option(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    report = kb.add([docs_dir / "solar-panels.md"], max_bytes=100)
    assert "too large" in report.failed[0].reason and not report.added


def test_unsupported_explicit_file_is_reported(tmp_path):
    (tmp_path / "a.psd").write_bytes(b"8BPS")
    found = discover([tmp_path / "a.psd"])
    assert not found.files and "unsupported file type '.psd'" in found.failed[0].reason


def test_readd_unchanged_is_skipped_changed_is_replaced(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    kb.add([docs_dir])
    before = {d.path: d for d in kb.documents()}
    again = kb.add([docs_dir])
    assert len(again.skipped) == 4 and not again.added and not again.replaced and again.chunks == 0

    tea = docs_dir / "tea-brewing.md"
    old_doc = before[str(tea)]
    old_ids = {c.chunk_id for c in kb.document_chunks(old_doc.id)}
    tea.write_text("# Tea brewing\n\n## Oolong\n\nOolong tea is partly oxidised and steeped at 90 degrees.\n")
    report = kb.add([docs_dir])
    assert [Path(d.path).name for d in report.replaced] == ["tea-brewing.md"] and len(report.skipped) == 3
    new_doc = kb.document(str(tea))
    assert new_doc.id == old_doc.id and new_doc.content_hash != old_doc.content_hash
    assert new_doc.created_at == old_doc.created_at and new_doc.updated_at > old_doc.updated_at
    assert not kb.get_chunks(old_ids)  # old chunks are gone
    assert kb.info()["orphan_chunks"] == 0
    hits = kb.search("oolong")
    assert hits[0].title == "Tea brewing" and hits[0].headings == ("Tea brewing", "Oolong")
    assert not any("Green tea" in h.text for h in kb.search("green tea steep", limit=10))


def test_delete_by_id_and_by_path(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    kb.add([docs_dir])
    solar = kb.document(str(docs_dir / "solar-panels.md"))
    assert kb.delete(solar.id).id == solar.id
    assert kb.delete(str(docs_dir / "tea-brewing.md")).title == "Tea brewing"
    assert kb.delete("0123456789abcdef") is None
    assert kb.delete(solar.id) is None
    assert {d.title for d in kb.documents()} == {"Sourdough bread", "Bicycle maintenance"}
    assert all(h.title != "Solar panels" for h in kb.search("solar panels inverter", limit=10))
    assert kb.info()["chunks"] == kb.info()["chunks"] and kb.info()["orphan_chunks"] == 0
    # a deleted document can be added again
    assert len(kb.add([docs_dir]).added) == 2


def test_relative_path_delete(tmp_path, docs_dir, monkeypatch):
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")
    monkeypatch.chdir(docs_dir)
    kb.add(["tea-brewing.md"])
    assert kb.documents()[0].path == str(docs_dir / "tea-brewing.md")
    assert kb.delete("tea-brewing.md") is not None


def test_add_without_the_recorded_embedder_is_refused(tmp_path, docs_dir, hash_embedder):
    KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=hash_embedder).add([docs_dir / "tea-brewing.md"])
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb")  # reading without it is fine (full text)
    assert kb.search("green tea")[0].title == "Tea brewing"
    with pytest.raises(EmbedderMismatch, match="hash-bow"):
        kb.add([docs_dir])
