"""``haiku-tui ask`` with the models people run locally, against the loopback server's modes: names sent
verbatim, a server that refuses tools, tool calls written as text, a model that never searches, search-first."""

from __future__ import annotations

import json
import time

import pytest

from haiku_tui.cli import main
from haiku_tui.sessions import SessionStore
from haiku_tui.sessions.errors import SessionNotFound
from tests.model_server import ANNOUNCEMENT, IMITATION, NOWHERE_ANSWER, REFUSAL_FIXES, STRAY_SENTENCE

QUESTION = "How long should I steep green tea?"
MODEL = "qwen2.5:0.5b"


def ask(server, kb_path, *extra: str, model: str = MODEL) -> int:
    return main(["ask", "--db", kb_path, "--base-url", server.base_url, "--model", model, *extra, QUESTION])


def offered_tools(server) -> list[bool]:
    """Whether each request the server received offered tools."""
    return [bool(r.body.get("tools")) for r in server.requests]


def grounded(out: str) -> bool:
    return out.startswith('The documents say: "Green tea') and "[1]" in out and "\nSources:\n[1] Tea brewing" in out


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("haiku-tui: ")]


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("qwen2.5:0.5b", "qwen2.5:0.5b"),
        ("llama3.2", "llama3.2"),
        ("hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M", "hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("openai:llama3.2", "llama3.2"),
    ],
)
def test_the_model_name_reaches_the_server_as_typed(model_server, kb_path, capsys, name, sent):
    assert ask(model_server, kb_path, model=name) == 0
    assert grounded(capsys.readouterr().out)
    assert {r.body["model"] for r in model_server.requests} == {sent}


@pytest.mark.parametrize(
    ("mode", "fix"),
    REFUSAL_FIXES,
)
def test_a_refusal_is_answered_search_first_said_in_one_line_and_remembered(model_server, kb_path, capsys, mode, fix):
    model_server.mode = mode
    assert ask(model_server, kb_path) == 0
    captured = capsys.readouterr()
    assert grounded(captured.out)
    assert notes(captured.err) == [
        "haiku-tui: the server refuses tools: asked again search-first (remembered for this model and server); "
        f"for tools, {fix}" + notes(captured.err)[0].partition(fix)[2]
    ]
    first = offered_tools(model_server)
    assert first[-1] is False and all(first[:-1])  # (the client retries an HTTP 500 twice)

    assert ask(model_server, kb_path) == 0  # the next question does not pay for the refused request
    captured = capsys.readouterr()
    assert grounded(captured.out) and notes(captured.err) == []
    assert offered_tools(model_server) == [*first, False]

    assert main(["info", "--db", kb_path, "--base-url", model_server.base_url, "--model", MODEL]) == 0
    info = capsys.readouterr().out
    assert f"{MODEL} @ {model_server.base_url} · search-first (the server refuses tools; remembered)" in info


def test_another_model_on_the_same_server_is_asked_with_tools(model_server, kb_path, capsys):
    model_server.mode = "refuse-ollama"
    assert ask(model_server, kb_path) == 0
    model_server.mode = "ok"
    assert ask(model_server, kb_path, model="qwen2.5:1.5b") == 0
    assert grounded(capsys.readouterr().out)
    assert offered_tools(model_server)[2] is True


@pytest.mark.parametrize("mode", ["text-call", "text-json", "text-mistral", "imitate", "announce"])
def test_a_tool_call_written_as_text_is_never_shown(model_server, kb_path, capsys, mode):
    model_server.mode = mode
    assert ask(model_server, kb_path) == 0
    captured = capsys.readouterr()
    for shown in ("<tool_call>", "[TOOL_CALLS]", '"arguments"', IMITATION[:15], ANNOUNCEMENT[:20]):
        assert shown not in captured.out
    assert grounded(captured.out)
    assert notes(captured.err) == [
        "haiku-tui: the model writes tool calls as text: asked again search-first (remembered for this model and "
        "server); for tools, a server that parses the model's tool calls (llama.cpp: --jinja; vLLM: --tool-call-parser)"
    ]
    assert offered_tools(model_server)[-1] is False


def test_a_text_tool_call_on_the_tools_path_fails_with_one_line(model_server, kb_path, capsys):
    model_server.mode = "text-call"
    assert ask(model_server, kb_path, "--tools") == 1
    captured = capsys.readouterr()
    assert "<tool_call>" not in captured.out and "rag_search" not in captured.out
    assert notes(captured.err) == [
        "haiku-tui: error: the model wrote its tool call as text (<tool_call>) instead of calling the tool; nothing "
        "was saved; ask search-first (--search-first), or use a server that parses its tool calls"
    ]


def test_an_answer_that_never_searched_is_asked_again_and_remembered_the_second_time(model_server, kb_path, capsys):
    model_server.mode = "no-tools"
    said = "haiku-tui: the model answers without searching: asked again search-first"
    fix = "; for tools, a model that calls tools (usually a larger one)"
    assert ask(model_server, kb_path) == 0
    captured = capsys.readouterr()
    assert grounded(captured.out) and NOWHERE_ANSWER not in captured.out
    assert notes(captured.err) == [said + fix]
    assert ask(model_server, kb_path) == 0
    assert notes(capsys.readouterr().err) == [said + " (remembered for this model and server)" + fix]
    assert ask(model_server, kb_path) == 0
    assert grounded(capsys.readouterr().out)
    assert offered_tools(model_server) == [True, False, True, False, False]


def test_search_first_sends_the_evidence_in_the_first_request(model_server, kb_path, capsys):
    assert ask(model_server, kb_path, "--search-first") == 0
    assert grounded(capsys.readouterr().out)
    first = model_server.requests[0]
    assert not first.body.get("tools")
    carried = json.dumps(first.messages)
    assert "<passages>" in carried and "[1] Tea brewing" in carried and "80 degrees Celsius" in carried


def test_a_stray_marker_on_a_grounded_answer_is_named_under_it(model_server, kb_path, capsys):
    """A grounded answer with a marker whose passage backs none of its sentences (the real 1.5B wrote one): the
    answer stays grounded by the other, and the stray marker is named, on stdout and in --json."""
    model_server.mode = "stray"
    assert ask(model_server, kb_path, "--search-first") == 0
    out = capsys.readouterr().out
    assert grounded(out) and f"{STRAY_SENTENCE} [2]." in out
    assert "\n([2] backs none of the answer's sentences)\n" in out and "not grounded" not in out
    assert ask(model_server, kb_path, "--search-first", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "grounded" and data["unconfirmed"] == [2]
    assert [c["number"] for c in data["citations"]] == [1]


@pytest.mark.parametrize("how", ["environment", "config file"])
def test_search_first_from_the_environment_or_the_config_file(model_server, kb_path, capsys, monkeypatch, how):
    if how == "environment":
        monkeypatch.setenv("HAIKU_TUI_SEARCH_FIRST", "1")
    else:
        from haiku_tui.agent.models import config_path

        config_path().parent.mkdir(parents=True, exist_ok=True)
        config_path().write_text("search_first = true\n")
    assert ask(model_server, kb_path) == 0
    assert grounded(capsys.readouterr().out) and offered_tools(model_server) == [False]


def test_tools_forgets_what_was_learned_and_a_refusal_is_then_an_error(model_server, kb_path, capsys):
    model_server.mode = "refuse-llamacpp"
    assert ask(model_server, kb_path) == 0
    assert ask(model_server, kb_path, "--tools") == 1
    error = notes(capsys.readouterr().err)[-1]
    assert error == "haiku-tui: error: the model provider failed (qwen2.5:0.5b) (HTTP 500): tools param requires " \
        "--jinja flag; try again later"
    model_server.mode = "ok"  # the server was restarted with --jinja: tools again, by default
    assert ask(model_server, kb_path) == 0
    assert offered_tools(model_server)[-1] is True and grounded(capsys.readouterr().out)


def test_the_question_asked_again_is_saved_once_with_nothing_of_the_first_attempt(model_server, kb_path, capsys):
    model_server.mode = "imitate"
    assert ask(model_server, kb_path, "-s", "tea", "--new", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["path"] == "search-first" and data["status"] == "grounded"
    with SessionStore() as store:
        session = store.load(store.resolve("tea"))
    saved = repr(session.messages)
    assert "PassagesPart" in saved and "load_capability" not in saved and "tool_response" not in saved
    assert [q["question"] for q in session.state["rag"]["questions"]] == [0]


def test_why_a_question_was_asked_again_stays_with_the_session(model_server, kb_path, capsys):
    """Reopened, reviewed or exported, a rerouted question still says why it was asked search-first."""
    from haiku_tui.capabilities.views import question_views
    from haiku_tui.sessions.export import to_markdown

    model_server.mode = "refuse-llamacpp"
    assert ask(model_server, kb_path, "-s", "tea", "--new") == 0
    said = notes(capsys.readouterr().err)[0].removeprefix("haiku-tui: ")
    assert ask(model_server, kb_path, "-s", "tea") == 0  # remembered: not asked again, nothing to say
    with SessionStore() as store:
        session = store.load(store.resolve("tea"))
    first, second = question_views(session.state, session.messages)
    assert first.steps[0].kind == "notice" and first.steps[0].text == said[0].upper() + said[1:] + "."
    assert first.steps[1].text.startswith("haiku-tui searched")
    assert all(step.kind != "notice" for step in second.steps)
    exported = to_markdown(session)
    assert exported.count(f"*{said}*") == 1


def test_a_corrupt_memory_is_one_line_and_ignored(model_server, kb_path, capsys, _isolated_data_dir):
    (_isolated_data_dir / "model-paths.json").write_text("{broken")
    assert ask(model_server, kb_path) == 0
    captured = capsys.readouterr()
    assert grounded(captured.out)
    assert len(notes(captured.err)) == 1 and "model-paths.json" in notes(captured.err)[0]


def test_small_talk_answered_without_searching_is_not_asked_again(model_server, kb_path, capsys):
    model_server.mode = "no-tools"
    assert main(["ask", "--db", kb_path, "--base-url", model_server.base_url, "--model", MODEL, "thanks!"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(NOWHERE_ANSWER) and notes(captured.err) == []
    assert offered_tools(model_server) == [True]


@pytest.mark.parametrize("path", [(), ("--search-first",)])
def test_an_answer_caught_in_a_loop_is_stopped_with_one_line_and_nothing_saved(model_server, kb_path, capsys, path):
    """A small model on a server with no generation cap repeats itself until the context is full: minutes of the
    same two characters on a CPU. The loop is stopped within a few hundred characters, the server sees the client
    hang up, one line says what happened and what to do, and the session keeps nothing of it."""
    model_server.mode = "loop"
    began = time.monotonic()
    assert ask(model_server, kb_path, *path, "--session", "looped", "--new") == 1
    assert time.monotonic() - began < 30
    err = capsys.readouterr().err
    assert "stopped: the model kept writing “" in err and "over and over; nothing was saved" in err, err
    deadline = time.monotonic() + 10
    while model_server.loops_left < model_server.loops and time.monotonic() < deadline:
        time.sleep(0.05)
    assert model_server.loops == model_server.loops_left == 1
    with SessionStore() as store, pytest.raises(SessionNotFound):  # a new session's failed first question: none
        store.resolve("looped")


def test_a_bad_number_of_passages_is_one_line(model_server, kb_path, capsys, _isolated_data_dir):
    (_isolated_data_dir / "config.toml").write_text("search_first_passages = 0\n")
    assert ask(model_server, kb_path, "--search-first") != 0
    assert notes(capsys.readouterr().err) == [
        f"haiku-tui: error: {_isolated_data_dir / 'config.toml'}: 'search_first_passages' must be a whole number ≥ 1 "
        "(passages a question comes with), e.g. search_first_passages = 5"
    ]
    assert model_server.requests == []
