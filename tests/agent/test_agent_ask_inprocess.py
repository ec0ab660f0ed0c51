"""`haiku-tui ask` in process: JSON output, sessions, redirects and one-line errors (fast)."""

from __future__ import annotations

import json

from haiku_tui.cli import main


def ask(capsys, *args):
    code = main(["ask", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json(kb_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "--json", "Do solar panels work in winter?")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {
        "answer", "citations", "status", "policy", "unbacked", "grounding", "attributed", "unsupported", "support",
        "path", "unconfirmed",
    }  # fmt: skip
    assert data["path"] == "tools"  # the extractive model searches with its tools
    assert data["status"] == "grounded" and data["policy"] == "grounded" and data["unbacked"] == []
    assert data["grounding"] is None and data["attributed"] == [] == data["unsupported"]
    # the best sentence and the one after it (it passes the floors too), both from the cited chunk
    assert [(s["number"], s["weak"]) for s in data["support"]] == [(1, False), (1, False)]
    assert "Solar panels still work in winter because they need light, not heat. [1]" in data["answer"]
    (citation,) = data["citations"]
    assert set(citation) == {"number", "chunk_id", "title", "headings", "pages", "path", "by"}
    assert citation["by"] == "model"
    assert citation["number"] == 1 and citation["title"] == "Solar panels"
    assert citation["path"].endswith("solar-panels.md") and len(citation["chunk_id"]) == 16


def test_nothing_found_is_ungrounded(kb_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "--json", "quantum chromodynamics lattice")
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "ungrounded" and data["citations"] == [] and "nothing" in data["answer"]


def test_no_policy_and_no_compaction(kb_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "--json", "--no-policy", "--no-compaction", "black tea water")
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "grounded" and data["policy"] == "grounded"


def test_session_redirect_is_printed_once(kb_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "--session", "chat", "--new", "How do I adjust rim brakes?")
    assert code == 0, err
    assert "Adjust rim brakes by turning the barrel adjuster" in out and "\nSources:\n[1] " in out
    code, out, err = ask(capsys, "--session", "chat", "thanks!")
    assert code == 0, err
    # the model repeated its answer after the citation-policy redirect: the user sees it once
    assert out.count("You're welcome!") == 1
    assert "Sources:" not in out
    code, out, err = ask(capsys, "--session", "chat", "--json", "hello")
    assert json.loads(out)["policy"] == "redirected"

    from haiku_tui.sessions import SessionStore

    (summary,) = SessionStore().list()
    assert summary.title == "chat" and summary.questions == 3


def test_errors_are_one_line(kb_path, tmp_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "--model", "openai:gpt-5", "hello")
    assert code == 1 and out == ""
    assert err.strip() == (
        "haiku-tui: error: openai:gpt-5 needs OPENAI_API_KEY (export it, or pass --base-url for a local server)"
    )
    code, out, err = ask(capsys, "--db", str(kb_path), "--model", "anthropic:claude-sonnet-5-5", "hello")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "anthropic" in err
    code, out, err = ask(capsys, "--db", str(tmp_path / "missing.lancedb"), "hello")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("haiku-tui: error: no knowledge base at")
    code, out, err = ask(capsys, "--db", str(kb_path), "--model", "qwen", "--base-url", "localhost:8080", "hello")
    assert code == 1 and "not an http(s) URL" in err


def test_help(capsys):
    code, out, _ = ask(capsys, "--help")
    assert code == 0
    for option in ("--db", "--model", "--base-url", "--no-policy", "--no-compaction", "--json", "--session"):
        assert option in out


def test_a_long_session_does_not_hit_the_usage_limit_of_one_run():
    """Usage carried by a resumed conversation does not count against the next run's budget."""
    from pydantic_ai import Conversation
    from pydantic_ai.usage import RunUsage

    from haiku_tui.agent import run_limits

    earlier = Conversation(messages=[], usage=RunUsage(requests=400))
    assert run_limits(earlier).request_limit == 450
    assert run_limits(None).request_limit == 50


def test_a_model_given_before_the_subcommand_is_used(kb_path, capsys):
    """`haiku-tui --model X ask …` and `haiku-tui ask --model X …` mean the same."""
    from haiku_tui.cli import main

    db = ["--db", str(kb_path)]
    for argv in ([*db, "--model", "openai:gpt-5", "ask", "hi"], ["ask", *db, "--model", "openai:gpt-5", "hi"]):
        assert main(argv) == 1
        assert "openai:gpt-5 needs OPENAI_API_KEY" in capsys.readouterr().err


def test_ask_in_a_long_session_reads_only_the_window(kb_path, capsys, monkeypatch, _isolated_data_dir):
    """With history_window = 1, `ask --session` opens the newest runs only (a partial session) and still
    appends its question to the whole stored history; the report numbers its sources as the session does."""
    from haiku_tui.sessions import SessionStore

    (_isolated_data_dir / "config.toml").write_text("history_window = 1\n")
    opened = []
    load = SessionStore.load

    def spy(self, ref, **kwargs):
        session = load(self, ref, **kwargs)
        opened.append(session.first_message)
        return session

    monkeypatch.setattr(SessionStore, "load", spy)
    prompts = ["How do I adjust rim brakes?", "Do solar panels work in winter?", "How do I brew black tea?",
               "How do I feed a sourdough starter?"]
    for prompt in prompts:
        code, out, err = ask(capsys, "--db", str(kb_path), "--session", "long", "--new", "--json", prompt)
        assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "grounded" and min(c["number"] for c in data["citations"]) >= 4
    assert opened[-1] > 0  # the fourth question opened the session from its second question on
    monkeypatch.setattr(SessionStore, "load", load)
    with SessionStore() as store:
        whole = store.load("long")
        assert whole.first_message == 0 and whole.question_count == 4
        assert [t.prompt for t in whole.turns()] == prompts
