"""``haiku-tui ask`` as a user runs it, against the loopback model server: what it prints, exits and saves."""

from __future__ import annotations

import json

import pytest

from haiku_tui.capabilities.policy import REDIRECT_TAG
from haiku_tui.cli import main
from haiku_tui.sessions import SessionNotFound, SessionStore

QUESTION = "How long should I steep green tea?"


def ask(server, kb_path, *extra: str, session: str = "tea") -> int:
    return main(["ask", "--db", kb_path, "--base-url", server.base_url, "--model", "fake", "-s", session, "--new",
                 *extra, QUESTION])


def saved_messages(session: str = "tea") -> int:
    """Messages saved in the session (0 when it was never saved)."""
    with SessionStore() as store:
        try:
            return len(store.load(store.resolve(session)).messages)
        except SessionNotFound:
            return 0


def error_line(capsys) -> tuple[str, str]:
    """(stdout, the single error line on stderr)."""
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("haiku-tui: error: ")]
    assert len(errors) == 1, captured.err
    assert "created session" not in captured.err  # nothing was saved, so no session was created
    return captured.out, errors[0].removeprefix("haiku-tui: error: ")


def test_a_grounded_answer_streams_with_its_sources_and_is_saved(model_server, kb_path, capsys):
    assert ask(model_server, kb_path) == 0
    out = capsys.readouterr().out
    assert out.startswith('The documents say: "') and "[1]" in out and "\nSources:\n[1] " in out
    assert saved_messages() > 0


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
def test_an_answer_cut_mid_stream_fails_and_saves_nothing(model_server, kb_path, capsys, chunked):
    model_server.mode, model_server.chunked = "cut", chunked
    assert ask(model_server, kb_path) == 1
    out, error = error_line(capsys)
    streamed = len(out.rstrip("\n"))
    assert streamed > 20 and "Sources:" not in out
    assert error == f"the model's answer was cut off after {streamed} characters; nothing was saved"
    assert saved_messages() == 0


def test_a_stream_that_ends_without_finish_reason_is_cut_off(model_server, kb_path, capsys):
    model_server.mode = "no-finish"
    assert ask(model_server, kb_path) == 1
    out, error = error_line(capsys)
    assert error.startswith("the model's answer was cut off after ") and "Sources:" not in out
    assert saved_messages() == 0


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("error500", "the model provider failed (fake) (HTTP 500): the model crashed; try again later"),
        (
            "ratelimit",
            "rate limited by the model provider (fake) (HTTP 429) (retry after 1 s); wait a moment and try again",
        ),
        (
            "unauthorized",
            (
                "the model provider rejected the credentials (fake) (HTTP 401): Invalid API key "
                "(Bearer [redacted]); check the API key (HAIKU_TUI_API_KEY)"
            ),
        ),
        ("bad-json", "model request failed (fake): Failed to decode response as JSON"),
        ("unknown-tool", "the model called a tool that does not exist (frobnicate); try another model, or ask again"),
        ("bad-args", "the model sent rag_search arguments that are not valid JSON; try another model, or ask again"),
        ("hang", "the model did not answer within 1 s (fake); check the server, or allow longer"),
    ],
)
def test_server_failures_are_one_line_non_zero_and_unsaved(model_server, kb_path, capsys, monkeypatch, mode, expected):
    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-local-123456")
    model_server.mode, model_server.retry_after = mode, 1
    assert ask(model_server, kb_path, *(["--timeout", "1"] if mode == "hang" else [])) == 1
    _, error = error_line(capsys)
    assert error.startswith(expected)
    assert saved_messages() == 0
    if mode == "ratelimit":  # the client waited Retry-After and tried again before giving up
        assert len(model_server.requests) > 1


def test_after_a_citation_redirect_only_the_saved_answer_is_printed(model_server, kb_path, capsys):
    model_server.mode = "undeclared"  # answers undeclared, then cites and answers again when redirected
    assert ask(model_server, kb_path, "--json") == 0
    saved = json.loads(capsys.readouterr().out)["answer"]
    assert "[1]" in saved
    assert ask(model_server, kb_path, session="again") == 0
    out = capsys.readouterr().out
    assert out.split("\n\nSources:\n")[0] == saved
    assert any(REDIRECT_TAG in str(m.get("content")) for m in model_server.requests[-1].messages)


def test_without_the_policy_the_answer_streams_as_written(model_server, kb_path, capsys):
    model_server.mode = "uncited"
    assert ask(model_server, kb_path, "--no-policy") == 0
    out = capsys.readouterr().out
    assert out.startswith('The documents say: "') and out.count("The documents say") == 1


def test_unbacked_markers_are_named_under_the_answer_and_stay_unbacked_in_the_export(model_server, kb_path, capsys):
    model_server.mode = "unbacked"  # cites [1] [2], and also writes [7]
    assert ask(model_server, kb_path) == 0
    captured = capsys.readouterr()
    assert "Some say otherwise [7]." in captured.out
    assert (
        "haiku-tui: note: no citation backs [7] in this answer; what it marks has no source"
        in captured.err.splitlines()
    )
    model_server.mode = "ok"
    for question in ("How do I feed a sourdough starter?", "How often should I oil a bicycle chain?",
                     "How efficient are solar panels?"):
        assert (
            main(
                ["ask", "--db", kb_path, "--base-url", model_server.base_url, "--model", "fake", "-s", "tea", question]
            )
            == 0
        )
    with SessionStore() as store:
        session = store.load(store.resolve("tea"))
    assert 7 in {c["index"] for c in session.state["rag"]["citation_index"].values()}  # a later question registered [7]
    capsys.readouterr()
    assert main(["sessions", "show", "tea"]) == 0
    first = capsys.readouterr().out.split("## Question 2")[0]
    assert "**Unbacked:** [7]" in first
    assert "⚠ [7] no citation has this number" in first and "[7] score" not in first


def test_escapes_and_markup_in_an_answer_never_act(model_server, kb_path, capsys):
    from tests.hostile import active_controls

    model_server.mode = "hostile"
    assert ask(model_server, kb_path) == 0
    out = capsys.readouterr().out
    assert active_controls(out) == []
    assert "[bold]three[/bold]" in out and "[link=http://x]here[/link]" in out  # markup shown as written
