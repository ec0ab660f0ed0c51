"""One clear line for whatever ends a run; a failed run saves nothing."""

from __future__ import annotations

import pytest
from pydantic_ai import exceptions as ex
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel

from haiku_tui.agent import AgentConfig, ModelConfigError, build_agent, describe_error
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.errors import QuestionStateMissing


def http(status, body=None, category=None):
    return ex.ModelHTTPError.for_category(category, status_code=status, model_name="gpt-x", body=body)


@pytest.mark.parametrize(
    "error, expected",
    [
        (
            ModelConfigError("openai:gpt-5 needs OPENAI_API_KEY (export it)"),
            "openai:gpt-5 needs OPENAI_API_KEY (export it)",
        ),
        (
            http(401, {"error": {"message": "Incorrect API key"}}, ex.ModelAuthenticationError),
            "rejected the credentials",
        ),
        (ex.ModelHTTPError(401, "gpt-x"), "rejected the credentials"),
        (http(429, None, ex.ModelRateLimitError), "rate limited"),
        (ex.ModelHTTPError(429, "gpt-x"), "rate limited"),
        (http(404, None, ex.ModelNotFoundError), "model not found"),
        (http(500, None, ex.ModelServerError), "provider failed"),
        (ex.ModelConnectionError("gpt-x", "Connection error.", phase="connect"), "could not reach the model"),
        (ex.ModelTimeoutError("gpt-x", "Request timed out."), "did not answer"),
        (ex.ModelRequestTimeout("gpt-x", 30.0), "did not answer"),
        (ex.UnexpectedModelBehavior("Exceeded maximum retries (1) for output validation"), "the model misbehaved"),
        (ex.UsageLimitExceeded("The next request would exceed the request_limit of 50"), "stopped:"),
        (ex.RunCancelled("The agent run was cancelled."), "cancelled"),
        (
            QuestionStateMissing("This run resumes a question, but deps.state carries none."),
            "This run resumes a question",
        ),
        (ConnectionRefusedError(111, "Connection refused"), "connection refused"),
        (TimeoutError(), "did not answer"),
        (ValueError("bad\nthing"), "ValueError: bad thing"),
    ],
)
def test_describe_error(error, expected):
    text = describe_error(error)
    assert expected in text
    assert "\n" not in text and len(text) <= 320


def test_describe_error_reads_the_cause_of_a_connection_error():
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as cause:
            raise ex.ModelConnectionError("qwen", "Connection error.") from cause
    except ex.ModelConnectionError as error:
        assert describe_error(error) == (
            "could not reach the model (qwen): connection refused; is the server running and the URL right?"
        )


def test_describe_error_unwraps_groups():
    group = ExceptionGroup("all failed", [ValueError("x"), ex.ModelHTTPError(429, "m")])
    assert "rate limited" in describe_error(group)


def failing(error):
    def function(messages, info):
        raise error

    async def stream(messages, info):
        raise error
        yield ""  # pragma: no cover

    return FunctionModel(function, stream_function=stream, model_name="failing")


@pytest.mark.parametrize(
    "error, expected",
    [
        (ex.ModelHTTPError(401, "failing"), "rejected the credentials"),
        (ex.ModelHTTPError(429, "failing"), "rate limited"),
        (ex.ModelConnectionError("failing", "Connection refused"), "could not reach the model"),
    ],
)
async def test_provider_failure_ends_the_run_with_one_line_and_no_state_change(small_kb, error, expected):
    agent = build_agent(AgentConfig(), kb=small_kb, model=failing(error))
    deps = Deps(state={})
    with pytest.raises(type(error)) as info:
        await agent.run("How long should I steep green tea?", deps=deps)
    assert expected in describe_error(info.value)


async def test_calls_to_a_missing_tool_end_in_plain_words(small_kb):
    def broken(messages, info):
        return ModelResponse(parts=[ToolCallPart("no_such_tool", {"x": 1})])

    agent = build_agent(AgentConfig(defer_loading=False), kb=small_kb, model=FunctionModel(broken))
    with pytest.raises(ex.UnexpectedModelBehavior) as info:
        await agent.run("How long should I steep green tea?", deps=Deps(state={}))
    assert describe_error(info.value) == (
        "the model called a tool that does not exist (no_such_tool); try another model, or ask again"
    )


def test_cli_failed_run_saves_nothing(kb_path, monkeypatch, capsys):
    """In process: a failing model ends `ask --session` with one line; the stored session is unchanged."""
    import haiku_tui.agent.models as models
    from haiku_tui.cli import main
    from haiku_tui.sessions import SessionStore

    assert main(["ask", "--db", str(kb_path), "--session", "talk", "--new", "How do I oil a bicycle chain?"]) == 0
    store = SessionStore()
    (summary,) = store.list()
    before = store.load(summary.id)
    capsys.readouterr()

    monkeypatch.setattr(models, "resolve_model", lambda *a, **k: failing(ex.ModelHTTPError(401, "failing")))
    assert main(["ask", "--db", str(kb_path), "--session", "talk", "And the brakes?"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("haiku-tui: error: the model provider rejected the credentials")
    after = SessionStore().load(summary.id)
    assert after.revision == before.revision
    assert after.state == before.state
    assert len(after.messages) == len(before.messages)


@pytest.mark.parametrize(
    ("body", "tokens"),
    [
        ({"error": {"code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens)",
                    "type": "exceed_context_size_error", "n_prompt_tokens": 4476, "n_ctx": 4096}}, 4096),
        ({"object": "error", "message": "This model's maximum context length is 8192 tokens. However, you requested "
          "9000 tokens (8000 in the messages, 1000 in the completion).", "type": "BadRequestError"}, 8192),
        ({"type": "error", "error": {"type": "invalid_request_error",
                                     "message": "prompt is too long: 210000 tokens > 200000 maximum"}}, 200000),
        ({"error": {"message": "the context window is full"}}, 0),
        ({"error": {"message": "tools param requires --jinja flag"}}, None),
    ],
)
def test_a_request_too_long_for_the_model_is_told_with_its_context(body, tokens):
    from pydantic_ai.exceptions import ModelHTTPError

    from haiku_tui.agent.errors import context_overflow

    assert context_overflow(ModelHTTPError(400, "m", body)) == tokens
    assert context_overflow(ModelHTTPError(500, "m", body)) is None
