"""Telling a model that cannot be grounded with tools (agent/fallback.py) and what is learned of it (model_paths.py)."""

from __future__ import annotations

import json

import pytest
from pydantic_ai.exceptions import ModelHTTPError

from haiku_tui.agent.fallback import Reroute, asks_the_documents, text_tool_call, tool_refusal
from haiku_tui.agent.model_paths import ModelPaths, path_text, search_first_choice
from haiku_tui.agent.models import ModelConfigError
from tests.model_server import ANNOUNCEMENT, IMITATION, REFUSAL_FIXES, REFUSALS


def refusal(status: int, message: str, *, top_level: bool = False) -> ModelHTTPError:
    body = {"object": "error", "message": message} if top_level else {"error": {"message": message}}
    return ModelHTTPError(status, "m", body)


@pytest.mark.parametrize(
    ("mode", "fix"),
    REFUSAL_FIXES,
)
def test_each_servers_refusal_is_told_with_its_fix(mode, fix):
    status, message = REFUSALS[mode]
    found = tool_refusal(refusal(status, message.format(model="qwen2.5:0.5b"), top_level=mode == "refuse-vllm"))
    assert found is not None and found.reason == "refused" and found.fix.startswith(fix)


def test_other_failures_are_not_refusals():
    assert tool_refusal(refusal(500, "the model crashed")) is None
    assert tool_refusal(refusal(401, "registry.ollama.ai/library/x does not support tools")) is None
    assert tool_refusal(ValueError("does not support tools")) is None


def test_the_line_says_what_happened_what_would_enable_tools_and_whether_it_is_remembered():
    line = Reroute("refused", "start llama.cpp's server with --jinja").line(remembered=True)
    assert line == (
        "the server refuses tools: asked again search-first (remembered for this model and server); for tools, "
        "start llama.cpp's server with --jinja"
    )
    assert "remembered" not in Reroute("no-search").line(remembered=False)


CALL = json.dumps({"name": "rag_search", "arguments": {"query": "flour?"}})


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        (f"<tool_call>\n{CALL}\n</tool_call>", "<tool_call>"),
        (f"  {CALL}", "json"),
        (f"```json\n{CALL}\n```", "json"),
        (f"[TOOL_CALLS][{CALL}]", "[TOOL_CALLS]"),
        (f"[{CALL}]", "json"),
        (IMITATION, "<tool_response>"),
        (ANNOUNCEMENT, "tools available"),
        ('<tools>\n  <rag_search query="how to make coffee with the V60" limit=5 />\n</tools>', "<tools>"),
        ('<function=rag_search>{"query": "flour"}</function>', "<function="),
    ],
)
def test_a_tool_call_written_as_text_is_found_and_held_until_it_is(text, shape):
    assert text_tool_call(text, ended=True) == shape
    verdicts = [text_tool_call(text[:i]) for i in range(1, len(text) + 1)]
    assert "no" not in verdicts  # every prefix is held back (or already known as a call)
    assert verdicts[-1] in (shape, "maybe")


@pytest.mark.parametrize(
    "text",
    [
        'The documents say: "Feed it 50 g of flour." [1]',
        "The following tools are needed: a jar and a spoon.",
        '{"flour": "50 g"} is what the note says.',
        "[1] says 50 g.",
        "```python\nprint(1)\n```",
        "<toolbox> is not a tag the notes use.",
    ],
)
def test_an_answer_is_let_through_as_soon_as_it_cannot_be_a_call(text):
    assert text_tool_call(text, ended=True) == "no"
    first_no = next(i for i in range(1, len(text) + 1) if text_tool_call(text[:i]) != "maybe")
    assert text_tool_call(text[:first_no]) == "no"
    if not text.startswith("{"):
        assert first_no < 30  # the answer streams after a few words at most


def test_what_is_learned_is_kept_per_model_and_server_and_forgotten(tmp_path):
    paths = ModelPaths(tmp_path / "model-paths.json")
    label = "qwen2.5:0.5b @ http://127.0.0.1:11434/v1"
    assert paths.learned(label) is None
    assert paths.learn(label, "refused", "an Ollama model with tool support").search_first
    again = ModelPaths(tmp_path / "model-paths.json").learned(label)
    assert again is not None and again.reason == "refused" and again.search_first
    assert ModelPaths(tmp_path / "model-paths.json").learned("llama3.2 @ http://127.0.0.1:11434/v1") is None
    assert path_text(None, again) == "search-first (the server refuses tools; remembered)"
    assert paths.forget(label) and paths.learned(label) is None and not paths.forget(label)


def test_the_context_size_is_kept_beside_the_path_and_outlives_forgetting_it(tmp_path):
    paths = ModelPaths(tmp_path / "model-paths.json")
    label = "qwen2.5:0.5b @ http://127.0.0.1:8080/v1"
    assert paths.context(label) == 0
    paths.learn_context(label, 8192)
    assert paths.learned(label) is None and ModelPaths(tmp_path / "model-paths.json").context(label) == 8192
    paths.learn(label, "refused")
    assert paths.context(label) == 8192 and paths.learned(label) is not None
    assert paths.forget(label) and paths.learned(label) is None and paths.context(label) == 8192
    assert not paths.forget(label)


def test_an_answer_that_never_searched_is_remembered_the_second_time_in_a_row(tmp_path):
    paths = ModelPaths(tmp_path / "model-paths.json")
    assert not paths.learn("m", "no-search").search_first
    assert path_text(None, paths.learned("m")) == "tools"
    assert paths.learn("m", "no-search").search_first
    assert path_text(None, paths.learned("m")) == "search-first (the model answers without searching; remembered)"


def test_a_corrupt_file_is_one_line_and_ignored_then_rewritten(tmp_path):
    file = tmp_path / "model-paths.json"
    file.write_text("{not json")
    paths = ModelPaths(file)
    assert paths.learned("m") is None
    assert paths.problem is not None and "\n" not in paths.problem and str(file) in paths.problem
    paths.learn("m", "text-call")
    assert json.loads(file.read_text())["models"]["m"]["reason"] == "text-call"
    assert [p.name for p in tmp_path.iterdir()] == ["model-paths.json"]  # written through a temporary file


def test_the_choice_comes_from_the_flag_the_environment_then_the_config(monkeypatch, _isolated_data_dir):
    assert search_first_choice() is None
    (_isolated_data_dir / "config.toml").write_text("search_first = true\n")
    assert search_first_choice() is True
    monkeypatch.setenv("HAIKU_TUI_SEARCH_FIRST", "0")
    assert search_first_choice() is False
    assert search_first_choice(True) is True
    monkeypatch.setenv("HAIKU_TUI_SEARCH_FIRST", "maybe")
    with pytest.raises(ModelConfigError, match="HAIKU_TUI_SEARCH_FIRST must be 1"):
        search_first_choice()
    monkeypatch.delenv("HAIKU_TUI_SEARCH_FIRST")
    (_isolated_data_dir / "config.toml").write_text('search_first = "yes"\n')
    with pytest.raises(ModelConfigError, match="'search_first' must be true or false"):
        search_first_choice()
    assert path_text(True, None) == "search-first" and path_text(False, None) == "tools"


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        ("How much flour do I add?", True),
        ("how much flour", True),
        ("and rye?", True),
        ("Thanks, that helps a lot", False),
        ("hello", False),
        ("ok great", False),
        ("Hi! How long should I steep green tea?", True),
    ],
)
def test_small_talk_is_not_expected_to_search(prompt, asks):
    assert asks_the_documents(prompt) is asks
