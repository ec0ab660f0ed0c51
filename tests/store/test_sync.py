"""sync: the documents under a folder match the disk; every file passed over is reported."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from haiku_tui.cli import main
from haiku_tui.store import KnowledgeBase
from haiku_tui.store.kb import CHUNKS


def stored_chunks(kb: KnowledgeBase, doc_id: str) -> int:
    return kb.storage.table(CHUNKS).count_rows(f"document_id = '{doc_id}'")


def test_deleted_file_and_its_chunks_are_gone_after_sync(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir])
    tea = kb.document(str(docs_dir / "tea-brewing.md"))
    assert stored_chunks(kb, tea.id) > 0
    (docs_dir / "tea-brewing.md").unlink()
    assert len(kb.add([docs_dir]).removed) == 0 and kb.document(tea.id) is not None  # add only adds
    report = kb.sync([docs_dir])
    assert [d.path for d in report.removed] == [tea.path] and not report.failed
    assert kb.document(tea.id) is None and stored_chunks(kb, tea.id) == 0
    assert len(kb.documents()) == 3 and all("tea-brewing" not in h.path for h in kb.search("tea", limit=20))


def test_moved_file_is_one_document(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir])
    old = kb.document(str(docs_dir / "tea-brewing.md"))
    (docs_dir / "sub").mkdir()
    shutil.move(docs_dir / "tea-brewing.md", docs_dir / "sub" / "tea.md")
    report = kb.sync([docs_dir])
    assert report.moved == [(old.path, str(docs_dir / "sub" / "tea.md"))]
    assert not report.added and not report.removed
    teas = [d for d in kb.documents() if d.title == old.title]
    assert len(teas) == 1 and teas[0].path.endswith("sub/tea.md") and teas[0].created_at == old.created_at
    assert stored_chunks(kb, old.id) == 0
    assert {h.path for h in kb.search("tea", limit=20)} <= {d.path for d in kb.documents()}


def test_dry_run_lists_changes_and_changes_nothing(tmp_path, docs_dir, capsys):
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir])
    before = {d.path: d.content_hash for d in kb.documents()}
    (docs_dir / "tea-brewing.md").unlink()
    (docs_dir / "new.md").write_text("# New\n\nFresh text.\n")
    (docs_dir / "solar-panels.md").write_text("# Solar panels\n\nRewritten.\n")
    report = kb.sync([docs_dir], dry_run=True)
    assert [Path(d.path).name for d in report.added] == ["new.md"]
    assert [Path(d.path).name for d in report.replaced] == ["solar-panels.md"]
    assert [Path(d.path).name for d in report.removed] == ["tea-brewing.md"]
    assert {d.path: d.content_hash for d in kb.documents()} == before
    code = main(["--db", str(tmp_path / "kb"), "sync", "--dry-run", str(docs_dir)])
    out = capsys.readouterr().out
    assert code == 0 and "would be removed: " + str(docs_dir / "tea-brewing.md") in out


def test_sync_leaves_documents_outside_the_roots(tmp_path, docs_dir):
    other = tmp_path / "other"
    other.mkdir()
    (other / "note.md").write_text("# Note\n\nElsewhere.\n")
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir, other])
    (docs_dir / "tea-brewing.md").unlink()
    kb.sync([docs_dir])
    assert kb.document(str(other / "note.md")) is not None and len(kb.documents()) == 4


def test_folder_with_unsupported_files_reports_them(tmp_path, docs_dir, capsys):
    (docs_dir / "art.psd").write_bytes(b"8BPS")
    (docs_dir / "bundle.zip").write_bytes(b"PK")
    (docs_dir / "more.zip").write_bytes(b"PK")
    (docs_dir / ".hidden.md").write_text("# hidden")
    kb = KnowledgeBase.open(tmp_path / "kb")
    report = kb.add([docs_dir])
    assert len(report.added) == 4
    assert sorted(report.passed_over_summary()) == ["1 skipped: hidden", "3 skipped: unsupported type (.psd, .zip)"]
    db = str(tmp_path / "kb2")
    assert main(["--db", db, "add", str(docs_dir)]) == 0
    out = capsys.readouterr().out
    assert "3 skipped: unsupported type (.psd, .zip) (--verbose lists them)" in out and "art.psd" not in out
    main(["--db", db, "add", "--verbose", str(docs_dir)])
    out = capsys.readouterr().out
    assert f"skipped: {docs_dir / 'art.psd'}: unsupported type" in out


def test_folder_without_supported_files_says_why(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.psd").write_bytes(b"8BPS")
    main(["--db", str(tmp_path / "kb"), "add", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert (
        "added 0" in out
        and "no supported files found (supported: " in out
        and "1 skipped: unsupported type (.psd)" in out
    )


def test_symlinked_file_is_one_document(tmp_path, docs_dir):
    os.symlink(docs_dir / "tea-brewing.md", docs_dir / "a-link.md")
    kb = KnowledgeBase.open(tmp_path / "kb")
    report = kb.add([docs_dir])
    assert len(report.added) == 4 and len(kb.documents()) == 4
    assert [(Path(p.path).name, p.reason) for p in report.passed_over] == [
        ("a-link.md", "same file as another path (symlink)")
    ]


def test_a_symlink_loop_named_on_the_command_line_is_one_failure_and_the_rest_lands(tmp_path, docs_dir, capsys):
    os.symlink(tmp_path / "b.md", tmp_path / "a.md")
    os.symlink(tmp_path / "a.md", tmp_path / "b.md")
    code = main(["--db", str(tmp_path / "kb"), "--embedder", "none", "add", str(tmp_path / "a.md"), str(docs_dir)])
    out, err = capsys.readouterr()
    assert code == 0 and "added 4, replaced 0, skipped unchanged 0, failed 1;" in out
    assert f"failed: {tmp_path / 'a.md'}: symlink loop (the link leads back to itself)" in out
    assert "RuntimeError" not in out + err


def test_a_file_name_that_is_not_utf8_is_one_failure_and_the_rest_lands(tmp_path, docs_dir, capsys):
    bad = os.path.join(os.fsencode(docs_dir), b"caf\xe9.md")  # a Latin-1 name
    with open(bad, "w", encoding="utf-8") as f:
        f.write("# Okapis\n\nOkapis are shy.\n")
    for command in ("add", "sync"):
        code = main(["--db", str(tmp_path / "kb"), "--embedder", "none", command, str(docs_dir)])
        out, err = capsys.readouterr()
        assert code == 0 and ", failed 1;" in out and "Error" not in out + err, (command, out, err)
        assert (
            f"failed: {docs_dir}/caf\ufffd.md: the file name is not valid UTF-8 (shown with \ufffd); rename the file"
            in out
        )
    assert len(KnowledgeBase.open(tmp_path / "kb").documents()) == 4


def test_unreadable_subfolder_is_reported(tmp_path, docs_dir, monkeypatch):
    locked = docs_dir / "locked"
    locked.mkdir()
    (locked / "secret.md").write_text("# Secret\n\ntext\n")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == locked:  # what chmod 000 does for a non-root user
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = KnowledgeBase.open(tmp_path / "kb").add([docs_dir])
    assert len(report.added) == 4
    assert [(p.path, p.reason) for p in report.passed_over] == [(str(locked), "unreadable folder (Permission denied)")]


def test_sync_of_a_deleted_folder_removes_it_and_a_typo_is_an_error(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir])
    shutil.rmtree(docs_dir)
    report = kb.sync([docs_dir])
    assert len(report.removed) == 4 and not report.failed and kb.documents() == []
    report = kb.sync([tmp_path / "no-such-folder"])
    assert [f.reason for f in report.failed] == ["no such file or directory"]


def test_identical_files_deleted_together_are_all_removed(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    for name in ("one.md", "two.md", "keep.md"):
        (folder / name).write_text("# Same\n\nIdentical text.\n" if name != "keep.md" else "# Keep\n\nOther.\n")
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([folder])
    (folder / "one.md").unlink()
    (folder / "two.md").rename(folder / "three.md")
    report = kb.sync([folder])
    assert len(report.moved) == 1 and len(report.removed) == 1
    assert sorted(Path(d.path).name for d in kb.documents()) == ["keep.md", "three.md"]
