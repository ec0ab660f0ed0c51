"""`haiku-tui ask` never prints an ungrounded answer as if it were grounded: the line under the answer, in
``--json`` too, for the tool path and for search-first (its attributed sources marked); the exit status stays 0."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from pydantic_ai.models.function import FunctionModel

from haiku_tui.cli import main
from tests.capabilities.scripts import sent_text

LABEL = re.compile(r"^\[(\d+)\] (.*)$", re.M)


def ask(capsys, *args):
    code = main(["ask", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def search_first(monkeypatch):
    """``ask`` builds a search-first agent around a tool-less model whose answer ``answer(labels)`` writes."""
    import haiku_tui.agent

    real = haiku_tui.agent.build_agent
    chosen = {}

    def model_answering(answer):
        async def stream(messages, info):
            assert not info.function_tools
            yield answer({source: int(n) for n, source in LABEL.findall(sent_text(messages[-1]))})

        return FunctionModel(stream_function=stream, model_name="tool-less")

    def build(config, **kwargs):
        return real(replace(config, search_first=True), model=model_answering(chosen["answer"]), **kwargs)

    monkeypatch.setattr(haiku_tui.agent, "build_agent", build)
    return chosen


def test_an_answer_given_without_searching_says_so_under_it(kb_path, capsys):
    code, out, err = ask(capsys, "--db", str(kb_path), "hello")
    assert code == 0, err
    assert out.rstrip().endswith("not grounded: the model answered without searching your documents")
    code, out, err = ask(capsys, "--db", str(kb_path), "--json", "hello")
    data = json.loads(out)
    assert code == 0 and data["status"] != "grounded"
    assert data["grounding"] == "not grounded: the model answered without searching your documents"


def test_search_first_prints_the_sources_and_marks_the_attributed_one(kb_path, capsys, search_first):
    search_first["answer"] = lambda labels: (
        "Feed the starter once a day with equal weights of flour and water "
        f"[{labels['Sourdough bread › The starter']}]. "
        "Bread flour with 12 to 14 percent protein gives sourdough a strong, chewy crumb."
    )
    code, out, err = ask(capsys, "--db", str(kb_path), "How do I feed my starter and which flour should I use?")
    assert code == 0, err
    assert "not grounded" not in out
    sources = out[out.index("\nSources:\n") :].strip().splitlines()[1:]
    assert len(sources) == 2 and sources[0].startswith("[1] Sourdough bread › The starter")
    assert not sources[0].endswith("(attributed by haiku-tui)")
    assert "Sourdough bread › Flour" in sources[1] and sources[1].endswith("(attributed by haiku-tui)")


def test_search_first_markers_no_passage_carries_are_said_in_json(kb_path, capsys, search_first):
    search_first["answer"] = lambda labels: "Feed it every day [9]."
    code, out, err = ask(capsys, "--db", str(kb_path), "--json", "How do I feed my starter?")
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "ungrounded" and data["unbacked"] == [9] and data["citations"] == []
    assert data["grounding"] == "not grounded: no passage carries [9]"
    code, out, err = ask(capsys, "--db", str(kb_path), "How do I feed my starter?")
    assert code == 0 and "not grounded: no passage carries [9]" in out and "no citation backs [9]" in err
