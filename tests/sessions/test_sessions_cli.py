"""``haiku-tui sessions list|search|show|rename|delete|export|import``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic_ai import Conversation
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from haiku_tui.sessions import SessionStore


def cli(*argv: str) -> int:
    from haiku_tui.cli import main

    return main(["sessions", *argv])


CITATION = {"index": 1, "chunk_id": "c1", "title": "Starters", "path": "docs/bread.md", "headings": [], "pages": [],
            "text": "Feed it daily."}


@pytest.fixture
def saved(store):
    def make(question: str, answer: str, title: str | None = None):
        session = store.new(model="extractive")
        session.commit_run(
            Conversation(messages=[ModelRequest(parts=[UserPromptPart(question)], run_id="r"), ModelResponse(parts=[TextPart(answer)], run_id="r")]),
            {"rag": {"citation_index": {"c1": CITATION}, "questions": [{"question": 0, "prompt": question}]}},
        )
        if title:
            session.rename(title)
        return store.save(session)

    return make


def test_list_and_search(saved, capsys):
    assert cli("list") == 0
    assert "No sessions yet." in capsys.readouterr().out
    a = saved("How do I feed a sourdough starter?", "Daily.")
    b = saved("Solar efficiency?", "Twenty percent \x1b[31mred\x1b[0m [1].", title="Energy \x1b]0;pwned\x07notes")
    assert cli("list") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "QUESTIONS", "CITATIONS", "TITLE"]
    assert lines[1].startswith(b.id) and lines[1].endswith("Energy notes")  # newest first, no escapes
    assert lines[2].startswith(a.id) and "How do I feed a sourdough starter?" in lines[2]
    assert lines[2].split()[3:5] == ["1", "1"]
    assert "\x1b" not in out
    assert cli("list", "--json") == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == [b.id, a.id]
    assert cli("search", "twenty", "percent") == 0
    out = capsys.readouterr().out
    assert b.id in out and a.id not in out and "**Twenty**" in out and "\x1b" not in out
    assert cli("search", "nothing-like-this") == 0
    assert "No session matches" in capsys.readouterr().out


def test_show_rename_delete(saved, store, capsys):
    a = saved("How do I feed a sourdough starter?", "Daily.")
    assert cli("show", a.id[:5]) == 0
    assert capsys.readouterr().out.startswith("# How do I feed a sourdough starter?")
    assert cli("rename", a.id, "Bread", "notes") == 0
    assert "Bread notes" in capsys.readouterr().out
    assert store.load(a.id).title == "Bread notes"
    assert cli("delete", a.id) == 0
    assert f"Deleted session {a.id} (Bread notes)" in capsys.readouterr().out
    assert store.count() == 0
    assert cli("delete", a.id) == 1
    err = capsys.readouterr().err
    assert err.startswith("haiku-tui: error: no session") and err.count("\n") == 1


def test_export_and_import(saved, store, capsys, tmp_path):
    a = saved("How do I feed a sourdough starter?", "Daily [1].")
    out_json, out_md = tmp_path / "s.json", tmp_path / "out" / "s.md"
    assert cli("export", a.id, "--format", "json", "-o", str(out_json)) == 0
    assert cli("export", a.id, "-o", str(out_md)) == 0
    assert "Daily [1]." in out_md.read_text()
    data = json.loads(out_json.read_text())
    assert data["state"]["rag"]["questions"][0]["prompt"] == "How do I feed a sourdough starter?"
    capsys.readouterr()
    assert cli("export", a.id, "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["id"] == a.id
    assert cli("import", str(out_json)) == 0
    new_id = capsys.readouterr().out.split()[2].rstrip(":")
    assert new_id != a.id and store.load(new_id).state == store.load(a.id).state
    assert cli("import", str(out_json), "--keep-id") == 1
    assert "already exists" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data, "schema_version": 42}))
    assert cli("import", str(bad)) == 1
    assert "schema version 42" in capsys.readouterr().err
    assert cli("import", str(tmp_path / "missing.json")) == 1
    assert capsys.readouterr().err.startswith("haiku-tui: error:")
    assert store.count() == 2


def test_unknown_command_and_help(capsys):
    assert cli("frobnicate") == 2
    assert cli("--help") == 0
    out = capsys.readouterr().out
    for command in ("list", "search", "show", "rename", "delete", "export", "import"):
        assert command in out


def test_console_entry_point_runs(saved):
    saved("Fresh process?", "Yes.")
    root = Path(__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "haiku_tui.cli", "sessions", "list"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Fresh process?" in done.stdout
    with SessionStore() as store:
        assert store.count() == 1
