"""A full or read-only disk under the knowledge base: one line saying what to do, exit 1, nothing lost.

Real mounts (a 1 MB tmpfs, a read-only bind mount), so these run only where the tests may mount (root in a
container); elsewhere they are skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from haiku_tui.cli import main


def _mount(*argv: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *argv], capture_output=True).returncode == 0


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[list[Path]]:
    points: list[Path] = []
    yield points
    for point in reversed(points):
        subprocess.run(["umount", str(point)], capture_output=True)


def _full_disk(mounted: list[Path], where: Path) -> Path:
    where.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    mounted.append(where)
    return where


def _read_only(mounted: list[Path], source: Path, where: Path) -> Path:
    where.mkdir()
    if not _mount("--bind", str(source), str(where)):
        pytest.skip("cannot bind-mount here (needs root)")
    mounted.append(where)
    if not _mount("-o", "remount,ro,bind", str(where)):
        pytest.skip("cannot remount read-only here")
    return where


def _documents(folder: Path, count: int, words: int) -> Path:
    folder.mkdir()
    for i in range(count):
        body = " ".join(f"word{i}x{j}" for j in range(words))
        (folder / f"d{i}.md").write_text(f"# Document {i}\n\n{body}.\n", encoding="utf-8")
    return folder


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_adding_to_a_full_disk_is_one_line_and_a_retry_after_freeing_space_adds_everything(tmp_path, mounted, capsys):
    disk = _full_disk(mounted, tmp_path / "full")
    docs = _documents(tmp_path / "docs", 40, 3000)  # ~2 MB of text: more than the disk holds
    db = str(disk / "kb")
    code, out, err = _run(capsys, "--db", db, "--embedder", "none", "add", str(docs))
    assert code == 1
    assert err.count("\n") == 1 and "(os error" not in err and "lance" not in err.lower()
    assert f"cannot write to the knowledge base at {db}: the disk is full; free some space" in err
    assert "failed:" not in out  # not forty per-file lines of the same fault

    assert _mount("-o", "remount,size=64m", str(disk))
    code, out, _ = _run(capsys, "--db", db, "--embedder", "none", "add", str(docs))
    assert code == 0 and ", failed 0;" in out
    code, out, _ = _run(capsys, "--db", db, "list")
    assert out.splitlines()[-1].startswith("40 documents")
    code, out, _ = _run(capsys, "--db", db, "search", "word7x2999")
    assert code == 0 and "Document 7" in out.splitlines()[0]


def test_writing_to_a_read_only_knowledge_base_is_one_line_and_reading_still_works(tmp_path, mounted, capsys):
    docs = _documents(tmp_path / "docs", 2, 20)
    db = tmp_path / "kb"
    assert _run(capsys, "--db", str(db), "--embedder", "none", "add", str(docs))[0] == 0
    ro = _read_only(mounted, db, tmp_path / "ro")
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nGiraffes are tall.\n", encoding="utf-8")
    advice = f"cannot write to the knowledge base at {ro}: it is read-only or not permitted; check its permissions"
    for argv in (("add", str(extra)), ("delete", str(docs / "d0.md"))):
        code, out, err = _run(capsys, "--db", str(ro), *argv)
        assert code == 1, argv
        assert err.count("\n") == 1 and advice in err and "(os error" not in err, argv
    code, out, _ = _run(capsys, "--db", str(ro), "list")
    assert code == 0 and out.splitlines()[-1].startswith("2 documents")
    code, out, _ = _run(capsys, "--db", str(ro), "search", "word1x3")
    assert code == 0 and "Document 1" in out.splitlines()[0]
