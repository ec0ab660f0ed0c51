"""The knowledge-base subcommands of ``haiku-tui``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from haiku_tui.cli import COMMAND_MODULES, main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_top_level_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "usage: haiku-tui" in out
    for cmd in ("add", "list", "delete", "search", "info"):
        assert cmd in out


@pytest.mark.parametrize("cmd", ["add", "list", "delete", "search", "info"])
def test_help_everywhere(capsys, cmd):
    code, out, _ = run(capsys, cmd, "--help")
    assert code == 0 and f"haiku-tui {cmd}" in out and "--db" in out


def test_kb_module_registered():
    assert "kb" in COMMAND_MODULES


def test_add_list_search_info_delete(capsys, tmp_path, docs_dir):
    db = str(tmp_path / "kb.lancedb")
    (docs_dir / "broken.md").write_bytes(b"\xff\xfe\x00\x00")  # garbage
    (docs_dir / "bad.txt").write_bytes(b"\xc3\x28 invalid utf8")
    code, out, err = run(capsys, "--db", db, "add", str(docs_dir), str(tmp_path / "nope.md"))
    assert code == 0
    assert "added 4, replaced 0, skipped unchanged 0, failed 3" in out
    assert "failed: " + str(tmp_path / "nope.md") + ": no such file or directory" in out
    assert "bad.txt: not valid UTF-8" in out

    code, out, _ = run(capsys, "add", "--db", db, str(docs_dir / "tea-brewing.md"))  # per-subcommand --db
    assert "skipped unchanged 1" in out

    code, out, _ = run(capsys, "--db", db, "list")
    assert code == 0 and "Tea brewing" in out and "4 documents" in out

    code, out, _ = run(capsys, "--db", db, "search", "how", "long", "to", "steep", "green", "tea")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith(" 1.") and "Tea brewing › Green tea" in first
    assert "Steep green tea" in out

    code, out, _ = run(
        capsys, "--db", db, "search", "degrees", "--json", "--limit", "3", "--filter", "title = 'Sourdough bread'"
    )
    hits = json.loads(out)
    assert code == 0 and 1 <= len(hits) <= 3 and {h["title"] for h in hits} == {"Sourdough bread"}
    assert {"chunk_id", "score", "rank", "headings", "pages", "text"} <= set(hits[0])

    code, out, _ = run(capsys, "--db", db, "info")
    assert code == 0 and "documents        4" in out and "wordllama:l2_supercat_256 (256 dims)" in out and db in out
    code, out, _ = run(capsys, "--db", db, "info", "--json")
    assert json.loads(out)["documents"] == 4

    code, out, err = run(capsys, "--db", db, "delete", str(docs_dir / "tea-brewing.md"), "0000000000000000")
    assert code == 1 and "deleted" in out and "Tea brewing" in out
    assert err.strip() == "haiku-tui: error: no such document: 0000000000000000 (see `haiku-tui list`)"


def test_errors_are_one_line(capsys, tmp_path, docs_dir):
    code, _, err = run(capsys, "--db", str(tmp_path / "missing"), "search", "x")
    assert code == 1 and err.count("\n") == 1 and err.startswith("haiku-tui: error: no knowledge base at")
    assert "haiku-tui add" in err

    db = str(tmp_path / "kb.lancedb")
    run(capsys, "--db", db, "add", str(docs_dir))
    code, _, err = run(capsys, "--db", db, "search", "tea", "--filter", "nonsense((")
    assert code == 1 and err.count("\n") == 1 and "invalid document filter" in err and "Traceback" not in err
    for bad in ("0", "99999999999999999999", "ten"):
        code, _, err = run(capsys, "--db", db, "search", "tea", "--limit", bad)
        assert code == 2 and "--limit" in err and "Traceback" not in err and "Overflow" not in err

    code, _, err = run(capsys, "search")  # usage error from argparse
    assert code == 2 and "usage" in err

    Path(tmp_path / "afile").write_text("x")
    code, _, err = run(capsys, "--db", str(tmp_path / "afile"), "info")
    assert code == 1 and "not a LanceDB" in err


def test_search_output_is_terminal_safe(capsys, tmp_path):
    doc = tmp_path / "evil.md"
    doc.write_text("# Evil \x1b[31mred\x1b[0m [bold]markup[/bold]\n\nRadish text with escape \x1b]0;title\x07 codes.\n")
    db = str(tmp_path / "kb.lancedb")
    run(capsys, "--db", db, "add", str(doc))
    code, out, _ = run(capsys, "--db", db, "search", "radish")
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "[bold]markup[/bold]" in out


def test_search_json_escapes_control_characters(capsys, tmp_path):
    doc = tmp_path / "c1.md"
    doc.write_text("# Title \x9b31m\n\nRadish with a C1 \x9b2J control and \x1b]2;PWN\x07 escape.\n")
    db = str(tmp_path / "kb.lancedb")
    run(capsys, "--db", db, "add", str(doc))
    code, out, _ = run(capsys, "--db", db, "search", "--json", "radish")
    assert code == 0 and "\\u009b" in out and "\\u001b" in out
    assert not any(ch in out for ch in "\x9b\x1b\x07")
    assert "\x9b2J" in json.loads(out)[0]["text"]  # the data itself is intact


def test_all_failed_add_exits_nonzero(capsys, tmp_path):
    code, out, _ = run(capsys, "--db", str(tmp_path / "kb"), "add", str(tmp_path / "nothing-here"))
    assert code == 1 and "failed 1" in out


@pytest.mark.slow
def test_python_m_cli_subprocess(tmp_path, docs_dir):
    env = dict(os.environ, HAIKU_RAG_DB=str(tmp_path / "kb.lancedb"))
    add = subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", "add", str(docs_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert add.returncode == 0, add.stderr
    assert "added 4" in add.stdout
    search = subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", "search", "sourdough", "starter"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    assert search.returncode == 0 and "Sourdough bread" in search.stdout.splitlines()[0]
    assert "WARN" not in search.stderr and search.stderr == ""
    bad = subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", "--db", str(tmp_path / "none"), "search", "x"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    assert bad.returncode == 1 and bad.stderr.startswith("haiku-tui: error: ") and bad.stderr.count("\n") == 1


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys; from haiku_tui.cli import main; main(['--help']);"
        "heavy = [m for m in ('lancedb', 'pyarrow', 'textual', 'pydantic_ai') if m in sys.modules];"
        "print('HEAVY', heavy, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "HEAVY []" in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, docs_dir):
    """`haiku-tui list | head -0`: the pipe is closed before anything is written; no traceback, no error line."""
    env = dict(os.environ, HAIKU_RAG_DB=str(tmp_path / "kb.lancedb"))
    subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", "add", str(docs_dir)],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "haiku_tui.cli", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert err == b"" and proc.returncode == 141


def test_output_a_terminal_cannot_encode_prints_as_question_marks(tmp_path):
    (tmp_path / "cafe.md").write_text("# Café — naïve\n\nThe café serves crème brûlée 🍮.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "HAIKU_TUI_DATA_DIR": str(tmp_path / "data")}
    db = str(tmp_path / "kb")
    for argv in (["add", str(tmp_path / "cafe.md")], ["list"], ["search", "crème"]):
        done = subprocess.run(
            [sys.executable, "-m", "haiku_tui.cli", "--db", db, "--embedder", "none", *argv],
            capture_output=True, env=env, cwd=ROOT, timeout=120,
        )
        assert done.returncode == 0 and b"Error" not in done.stderr, (argv, done.stderr)
    assert b"Caf? ? na?ve" in done.stdout and b"cr?me br?l?e ?." in done.stdout
