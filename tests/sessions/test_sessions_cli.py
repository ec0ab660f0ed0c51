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
            Conversation(
                messages=[
                    ModelRequest(parts=[UserPromptPart(question)], run_id="r"),
                    ModelResponse(parts=[TextPart(answer)], run_id="r"),
                ]
            ),
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


def test_every_subcommand_takes_an_id_a_prefix_or_an_exact_title(saved, store, capsys, tmp_path):
    a = saved("How do I feed a sourdough starter?", "Daily.", title="Cheese Qs")
    assert cli("show", "cheese  qs") == 0  # case and spacing ignored
    assert capsys.readouterr().out.startswith("# Cheese Qs")
    assert cli("export", "Cheese Qs", "-o", str(tmp_path / "c.md")) == 0
    assert cli("rename", "Cheese Qs", "Cheese", "questions") == 0
    assert store.find("Cheese questions").id == a.id == store.find(a.id[:4]).id
    b = saved("Another?", "Yes.", title="Cheese questions")
    capsys.readouterr()
    for command in (("show",), ("export",), ("rename", "x"), ("delete",)):
        assert cli(command[0], "Cheese questions", *command[1:]) == 1
        err = capsys.readouterr().err
        assert "names 2 sessions" in err and a.id in err and b.id in err and err.count("\n") == 1
    assert cli("delete", "no such session") == 1
    assert "no session 'no such session'" in capsys.readouterr().err
    assert store.count() == 2


def test_an_import_with_malformed_app_data_or_state_is_refused(saved, store, capsys, tmp_path):
    a = saved("How do I feed a sourdough starter?", "Daily [1].")
    data = json.loads(store.export_json(a.id))
    cases = {
        "reviews": ({**data, "app_data": {"reviews": {"0": "zz"}}}, "app_data.reviews['0'] is not an object"),
        "mark": ({**data, "app_data": {"reviews": {"0": {"c1": "maybe"}}}}, "is not a review mark"),
        "title": (
            json.loads(json.dumps(data).replace('"title": "Starters"', '"title": 7')),
            "title has the wrong type",
        ),
        "order": (
            {
                **data,
                "state": {
                    "rag": {
                        **data["state"]["rag"],
                        "questions": [{"question": 4, "prompt": "b"}, {"question": 2, "prompt": "a"}],
                    }
                },
            },
            "does not follow the question before it",
        ),
    }
    for name, (bad, message) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bad))
        assert cli("import", str(path)) == 1, name
        err = capsys.readouterr().err
        assert message in err and "nothing was imported" in err and err.count("\n") == 1, (name, err)
    assert store.count() == 1


def test_exports_never_carry_escape_codes_and_a_folder_gets_a_file_name(saved, store, capsys, tmp_path):
    a = saved("Evil \x1b]52;c;ZWNobyBwd25lZA==\x07question\x1b[2J?", "Answer \x1b]2;PWN\x07 with \u009b31m C1.",
              title="Solar panels")
    assert cli("export", a.id, "-o", str(tmp_path)) == 0
    target = tmp_path / f"solar-panels-{a.id[:8]}.md"
    text = target.read_text()
    assert "\x1b" not in text and "\u009b" not in text and "\x07" not in text
    assert "Evil question?" in text and "Answer  with  C1." in text  # the C1 CSI and its parameters are gone
    assert str(target) in capsys.readouterr().err
    assert cli("export", a.id, "--format", "json", "-o", str(tmp_path / "new") + os.sep) == 0
    exported = (tmp_path / "new" / f"solar-panels-{a.id[:8]}.json").read_text()
    assert "\u009b" not in exported and "\\u009b" in exported
    assert json.loads(exported)["conversation"]["messages"][1]["parts"][0]["content"].startswith("Answer \x1b]2;PWN")


def test_list_with_n_0_does_not_say_there_are_none(saved, capsys):
    saved("Q?", "A.")
    assert cli("list", "-n", "0") == 0
    out = capsys.readouterr().out
    assert "No sessions yet." not in out and "1 session(s); none shown" in out
    assert cli("list", "-n", "-3") == 2
    assert "use a number from 0" in capsys.readouterr().err


def test_the_secrets_in_use_are_scrubbed_whatever_they_look_like(store, monkeypatch):
    from haiku_tui.sessions import scrub

    monkeypatch.setattr(scrub, "_sent", {})
    monkeypatch.setattr(scrub, "_env_loaded", False)
    monkeypatch.setenv("HAIKU_TUI_API_KEY", "plainvalue42")
    scrub.register_secrets("sk-test-123456", None, "abc")  # too short to register: "abc"
    session = store.new()
    session.commit_run(
        Conversation(
            messages=[
                ModelRequest(parts=[UserPromptPart("why does sk-test-123456 fail? plainvalue42")], run_id="r"),
                ModelResponse(parts=[TextPart("Server said: Authorization: sk-test-123456; abc")], run_id="r"),
            ]
        ),
        {"rag": {"note": "sent sk-test-123456"}},
    )
    store.save(session)
    store.close()
    blob = b"".join(p.read_bytes() for p in store.path.parent.glob(store.path.name + "*"))
    assert b"sk-test-123456" not in blob and b"plainvalue42" not in blob
    with SessionStore() as reopened:
        loaded = reopened.load(session.id)
        assert loaded.turns()[0].answer == "Server said: Authorization: [redacted]; abc"
        assert loaded.state["rag"]["note"] == "sent [redacted]"


def test_an_import_with_a_huge_title_is_stored_cut_to_one_short_line(saved, store, capsys, tmp_path):
    a = saved("How do I feed a sourdough starter?", "Daily [1].")
    data = json.loads(store.export_json(a.id))
    data["metadata"]["title"] = "Starter\n" + "A" * 2_000_000
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(data))
    assert cli("import", str(path)) == 0
    out = capsys.readouterr().out
    assert len(out) < 300 and "\n" not in out.rstrip("\n")
    assert cli("list") == 0
    listed = capsys.readouterr().out
    assert len(listed) < 1000 and "Starter AAAA" in listed
    imported = [s for s in store.list() if s.id != a.id][0]
    assert store.load(imported.id).title == "Starter " + "A" * 192


def test_an_unreadable_import_file_is_one_line_saying_what_to_do(store, capsys, tmp_path):
    cases = {
        "missing": (tmp_path / "nope.json", "no such file or folder"),
        "folder": (tmp_path, "a folder was given where a file is needed"),
        "not utf-8": (tmp_path / "bin.json", "the file is not UTF-8 text"),
    }
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    for name, (path, message) in cases.items():
        assert cli("import", str(path)) == 1, name
        err = capsys.readouterr().err
        assert err.startswith("haiku-tui: error: ") and message in err and err.count("\n") == 1, (name, err)
        assert "Errno" not in err and "codec" not in err, (name, err)
    assert store.count() == 0
