"""``haiku-tui ask --session`` against a server whose context the session outgrows (the loopback server answers as
llama.cpp's does: HTTP 400, "exceeds the available context size"): the question is asked again with about a quarter of
the earlier questions, said in one line and kept with the session, and the questions after it start there."""

from __future__ import annotations

import json

from haiku_tui.agent import model_label
from haiku_tui.agent.model_paths import ModelPaths
from haiku_tui.cli import main
from haiku_tui.sessions import SessionStore
from haiku_tui.sessions.run import CONTEXT_SHARE

MODEL = "qwen2.5:0.5b"
QUESTIONS = [
    "How long should I steep green tea?",
    "How much water does a sourdough starter need?",
    "How long should I steep black tea?",
    "What temperature is best for green tea?",
    "How often do I feed the starter?",
    "Can I steep green tea twice?",
]


def ask(server, kb_path, question: str, *extra: str) -> int:
    return main(["ask", "--db", kb_path, "--base-url", server.base_url, "--model", MODEL, "-s", "long", *extra,
                 question])


def sizes(server) -> list[int]:
    return [len(json.dumps(r.body["messages"])) // 4 for r in server.requests]


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("haiku-tui: ")]


def test_a_session_that_outgrows_the_context_is_asked_again_with_fewer_questions(model_server, kb_path, capsys):
    for i, question in enumerate(QUESTIONS[:5]):
        assert ask(model_server, kb_path, question, *(["--new"] if i == 0 else [])) == 0
    capsys.readouterr()
    biggest = max(sizes(model_server))
    model_server.requests.clear()
    model_server.context = biggest + 10  # the next question's requests do not fit

    assert ask(model_server, kb_path, QUESTIONS[5]) == 0
    captured = capsys.readouterr()
    assert notes(captured.err) == [
        f"haiku-tui: the model's context ({biggest + 10:,} tokens) is full: asked again with the last 1 of the 5 "
        "earlier questions; for more, give the server a larger context (llama.cpp --ctx-size, Ollama num_ctx)"
    ]
    assert "[1]" in captured.out and "not grounded" not in captured.out
    assert all(n < biggest + 10 for n in sizes(model_server)[1:])

    with SessionStore() as store:
        session = store.load(store.resolve("long"))
    assert session.message_count and len(session.state["rag"]["questions"]) == 6
    from haiku_tui.sessions.export import to_markdown

    assert to_markdown(session).count("is full: asked again with the last 1 of the 5 earlier questions") == 1

    # the context is remembered for this model and server, and the next question is planned to fit it: its
    # previous request filled more than half of it, so it steps first, and no request is refused
    assert ModelPaths().context(model_label(MODEL, model_server.base_url)) == biggest + 10
    assert main(["info", "--db", kb_path, "--base-url", model_server.base_url, "--model", MODEL]) == 0
    assert f"model context    {biggest + 10:,} tokens (each request is planned" in capsys.readouterr().out
    assert sizes(model_server)[-1] + 5 > (biggest + 10) // CONTEXT_SHARE
    model_server.requests.clear()
    assert ask(model_server, kb_path, QUESTIONS[0]) == 0
    assert notes(capsys.readouterr().err) == []
    first = json.dumps(model_server.requests[0].body["messages"])
    assert QUESTIONS[5] in first and QUESTIONS[4] not in first
    assert all(n < biggest + 10 for n in sizes(model_server))


def test_a_known_context_is_not_stepped_for_while_requests_stay_under_half_of_it(model_server, kb_path, capsys):
    for i, question in enumerate(QUESTIONS[:3]):
        assert ask(model_server, kb_path, question, *(["--new"] if i == 0 else [])) == 0
    ModelPaths().learn_context(model_label(MODEL, model_server.base_url), 100_000)
    model_server.context = 100_000
    model_server.requests.clear()
    assert ask(model_server, kb_path, QUESTIONS[3]) == 0
    first = json.dumps(model_server.requests[0].body["messages"])
    assert all(q in first for q in QUESTIONS[:4])  # every earlier question is still sent


def test_a_question_that_does_not_fit_even_alone_is_one_line_and_nothing_saved(model_server, kb_path, capsys):
    model_server.context = 50
    assert ask(model_server, kb_path, QUESTIONS[0], "--new") == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines()[-1] == (
        "haiku-tui: error: the question and its evidence do not fit the model's context (50 tokens); nothing was "
        "saved; give the server a larger context (llama.cpp --ctx-size, Ollama num_ctx)"
    )
    assert len(model_server.requests) == 1  # not asked again: there was nothing to leave out


def test_a_context_size_in_the_config_is_planned_for_before_any_refusal(model_server, kb_path, capsys,
                                                                        _isolated_data_dir):
    """Ollama cuts an over-long request without a word, so its context can only be set: ``context_tokens``."""
    model_server.context = 1_000_000  # the usage counts the prompt's tokens
    for i, question in enumerate(QUESTIONS[:3]):
        assert ask(model_server, kb_path, question, *(["--new"] if i == 0 else [])) == 0
    biggest = max(sizes(model_server))
    (_isolated_data_dir / "config.toml").write_text(f"context_tokens = {biggest + 10}\n")
    model_server.context = biggest + 10
    model_server.requests.clear()
    capsys.readouterr()
    assert ask(model_server, kb_path, QUESTIONS[3]) == 0
    assert notes(capsys.readouterr().err) == []  # nothing refused, nothing to say
    first = json.dumps(model_server.requests[0].body["messages"])
    assert QUESTIONS[2] in first and QUESTIONS[0] not in first  # it stepped before it was sent
    assert main(["info", "--db", kb_path, "--base-url", model_server.base_url, "--model", MODEL]) == 0
    assert f"model context    {biggest + 10:,} tokens" in capsys.readouterr().out
