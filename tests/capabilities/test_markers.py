"""Markers with nothing behind them — ``[n]`` no cite call gave is recorded, not trusted."""

from __future__ import annotations

from pydantic_ai import Agent

from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.policy import CitationPolicyState, recorded_unbacked, unbacked_markers
from haiku_tui.capabilities.policy import create_capability as policy
from haiku_tui.capabilities.rag import create_capability as rag
from tests.capabilities.scripts import Script, cite_top, load, search, text


def state_with(*numbers: int) -> dict:
    index = {f"c{n}": {"index": n, "chunk_id": f"c{n}"} for n in numbers}
    return {
        "rag": {
            "citation_index": index,
            "document_filter": None,
            "question": None,
            "in_progress": False,
            "questions": [],
        }
    }


def test_unbacked_markers_are_the_numbers_no_cite_gave():
    state = state_with(1, 2)
    assert unbacked_markers("Tea [1], coffee [3] and [2]; again [3] and [7].", state) == [3, 7]
    assert unbacked_markers("All backed [1][2].", state) == []
    assert unbacked_markers("Nothing cited yet [1].", {}) == [1]


def test_code_links_and_escapes_are_not_markers():
    answer = "Use `a[4]` and\n```\nx = b[5]\n```\nsee [docs](x) or \\[6] or [8](https://e) and [9]: ref"
    assert unbacked_markers(answer, {}) == []


def test_recorded_unbacked_skips_malformed_entries():
    state = {"citation_policy": {"violations": [], "unbacked": {"4": [2, "x", True], "zz": [1], "6": "no"}}}
    assert recorded_unbacked(state) == {4: [2]}
    assert recorded_unbacked({"citation_policy": {"unbacked": "junk"}}) == {}


async def test_the_policy_records_a_marker_the_cite_tool_never_gave(kb):
    """The answer cites [1] (given) and quotes a document's [2] (never given): [2] is recorded."""
    script = Script(load(), search("tea"), cite_top(), text("Steep it briefly [1], as the guide says [2]."))
    deps = Deps()
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), policy()])
    await agent.run("How long to steep tea?", deps=deps)
    assert deps.state["citation_policy"]["unbacked"] == {"0": [2]}
    assert CitationPolicyState.of(deps.state).unbacked == {0: [2]}


async def test_a_fully_backed_answer_records_nothing(kb):
    script = Script(load(), search("tea"), cite_top(), text("Steep it briefly [1]."))
    deps = Deps()
    await Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), policy()]).run("tea?", deps=deps)
    assert "unbacked" not in deps.state["citation_policy"]
    assert CitationPolicyState.of(deps.state).unbacked == {}
