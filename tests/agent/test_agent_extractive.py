"""The extractive model over the real small knowledge base, with the real capabilities."""

from __future__ import annotations

import re

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.agent.extractive import FOOTER, REPLIES
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.ledger import citation_status, cited_ids, violations
from haiku_tui.capabilities.policy import REDIRECT_TAG
from haiku_tui.capabilities.views import question_views
from tests.agent.streaming import stream_run


def tool_calls(messages):
    return [
        p.tool_name for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]


def question_of(deps):
    return deps.state["rag"]["question"]


def markers(text):
    return sorted({int(n) for n in re.findall(r"\[(\d+)\]", text)})


def assert_grounded_answer(output, deps):
    q = question_of(deps)
    assert citation_status(deps.state, q) == "grounded"
    assert violations(deps.state) == []
    index = deps.state["rag"]["citation_index"]
    cited = cited_ids(deps.state, q)
    assert cited
    assert markers(output) == sorted(index[c]["index"] for c in cited)
    # every quoted sentence is in the text of the chunk its marker names
    by_number = {entry["index"]: entry for entry in index.values()}
    body = output.split("\n\n")[0]
    for sentence, number in re.findall(r"(.+?) \[(\d+)\](?: |$)", body):
        assert sentence.strip() in " ".join(by_number[int(number)]["text"].split())
    assert output.endswith(FOOTER)


@pytest.mark.parametrize("defer", [True, False], ids=["deferred", "loaded"])
async def test_answers_with_cited_sentences(small_kb, defer):
    agent = build_agent(AgentConfig(defer_loading=defer), kb=small_kb)
    deps = Deps(state={})
    result = await agent.run("How long should I steep green tea?", deps=deps)
    assert "Steep green tea for two to three minutes, or it turns bitter. [1]" in result.output
    assert_grounded_answer(result.output, deps)
    expected = ["rag_search", "rag_cite"]
    assert tool_calls(result.all_messages()) == (["load_capability", *expected] if defer else expected)
    view = question_views(deps.state, result.all_messages())[-1]
    assert view.policy.outcome == "grounded" and view.citations == (1,)


@pytest.mark.parametrize("defer", [True, False], ids=["deferred", "loaded"])
async def test_follow_ups_keep_numbers_stable(small_kb, defer):
    agent = build_agent(AgentConfig(defer_loading=defer), kb=small_kb)
    deps = Deps(state={})
    r1 = await agent.run("How often should I feed a sourdough starter on the counter?", deps=deps)
    assert "Feed the starter once a day" in r1.output
    assert_grounded_answer(r1.output, deps)
    r2 = await agent.run("Do solar panels work in winter?", deps=deps, message_history=r1.all_messages())
    assert "Solar panels still work in winter because they need light, not heat. [2]" in r2.output
    assert_grounded_answer(r2.output, deps)
    # the follow-up searched again (no new load: the capability stays loaded in history)
    assert tool_calls(r2.new_messages()) == ["rag_search", "rag_cite"]
    r3 = await agent.run("When should I replace brake pads?", deps=deps, message_history=r2.all_messages())
    assert "Replace brake pads when the grooves in the rubber have worn away. [3]" in r3.output
    assert_grounded_answer(r3.output, deps)
    assert [v.citations for v in question_views(deps.state, r3.all_messages())] == [(1,), (2,), (3,)]


async def test_nothing_found_cites_empty_and_is_ungrounded(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps(state={})
    result = await agent.run("quantum chromodynamics lattice gauge", deps=deps)
    assert "The knowledge base has nothing on this" in result.output
    assert citation_status(deps.state, question_of(deps)) == "ungrounded"
    assert violations(deps.state) == []
    cites = [p.args_as_dict() for m in result.all_messages() if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart) and p.tool_name == "rag_cite"]
    assert cites == [{"chunk_ids": []}]


async def test_greeting_uses_no_tools(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps(state={})
    result = await agent.run("hello!", deps=deps)
    assert result.output == REPLIES["greeting"]
    assert tool_calls(result.all_messages()) == []
    assert violations(deps.state) == []


async def test_greeting_after_a_cited_question_obeys_the_redirect(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps(state={})
    r1 = await agent.run("How often should I oil the bicycle chain?", deps=deps)
    assert_grounded_answer(r1.output, deps)
    r2 = await agent.run("thanks!", deps=deps, message_history=r1.all_messages())
    new = r2.new_messages()
    redirects = [p for m in new if isinstance(m, ModelRequest) for p in m.parts
                 if isinstance(p, UserPromptPart) and REDIRECT_TAG in str(p.content)]
    assert len(redirects) == 1
    texts = [p.content for m in new if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, TextPart)]
    assert texts == [REPLIES["thanks"], REPLIES["thanks"]]  # repeated verbatim
    assert r2.output == REPLIES["thanks"]
    cites = [
        p.args_as_dict() for m in new if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]
    assert cites == [{"chunk_ids": []}]
    assert citation_status(deps.state, question_of(deps)) == "ungrounded"
    assert violations(deps.state) == []
    view = question_views(deps.state, r2.all_messages())[-1]
    assert view.policy.outcome == "redirected" and view.badge == "ungrounded"


async def test_streams_text_in_small_chunks(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps(state={})
    chunks, tools, result = await stream_run(agent, "Do solar panels work in winter?", deps)
    assert len(chunks) > 5 and "".join(chunks) == result.output
    assert tools == ["load_capability", "rag_search", "rag_cite"]
    assert_grounded_answer(result.output, deps)


async def test_without_policy_or_compaction(small_kb):
    agent = build_agent(AgentConfig(policy=False, compaction=False), kb=small_kb)
    deps = Deps(state={})
    r1 = await agent.run("What water temperature for black tea?", deps=deps)
    assert "Black tea needs freshly boiled water at 100 degrees Celsius." in r1.output
    assert "citation_policy" not in deps.state
    r2 = await agent.run("hi", deps=deps, message_history=r1.all_messages())
    assert r2.output == REPLIES["greeting"] and tool_calls(r2.new_messages()) == []


class UnresolvableKB:
    """The real knowledge base, except that no chunk can be fetched: every cite raises ModelRetry."""

    def __init__(self, kb):
        self._kb = kb

    def search(self, *args, **kwargs):
        return self._kb.search(*args, **kwargs)

    def get_chunks(self, chunk_ids):
        return {}


async def test_cite_retry_falls_back_to_empty_without_looping(small_kb):
    agent = build_agent(AgentConfig(), kb=UnresolvableKB(small_kb))
    deps = Deps(state={})
    result = await agent.run("How long should I steep green tea?", deps=deps)
    calls = tool_calls(result.all_messages())
    assert calls == ["load_capability", "rag_search", "rag_cite", "rag_cite"]
    assert citation_status(deps.state, question_of(deps)) == "ungrounded"
    assert violations(deps.state) == []
    assert "nothing" in result.output


async def test_model_is_labelled_and_named(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    assert agent.model.model_name == "extractive"
    result = await agent.run("hi", deps=Deps(state={}))
    assert result.all_messages()[-1].model_name == "extractive"


@pytest.mark.parametrize(
    ("first", "follow_up", "expected", "not_expected"),
    [
        ("How hot should the water be for green tea?", "and how long should I steep it?",
         "Steep green tea for two to three minutes", "black tea"),
        ("How do I look after a bicycle chain?", "how often should I do that?",
         "Oil the bicycle chain every 300 kilometres", "nothing on this"),
        ("How do I store tea leaves?", "and why is that?", "Store tea leaves in an airtight tin", "nothing on this"),
    ],
)
async def test_a_follow_up_that_points_back_searches_and_answers_with_the_question_it_follows(
    small_kb, first, follow_up, expected, not_expected
):
    """"it" / "that" in a short question resolve to the question before it, as a careful model would resolve
    them before searching: the search carries both, and the earlier question's words count in choosing."""
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps(state={})
    r1 = await agent.run(first, deps=deps)
    r2 = await agent.run(follow_up, deps=deps, message_history=r1.all_messages())
    query = next(p.args_as_dict()["query"] for m in r2.new_messages() if isinstance(m, ModelResponse)
                 for p in m.parts if isinstance(p, ToolCallPart) and p.tool_name == "rag_search")
    assert query == f"{follow_up} {first}"
    assert expected in r2.output and not_expected not in r2.output


def test_follow_ups_open_as_continuations_or_point_back_in_few_words():
    from haiku_tui.agent.quoting import is_follow_up, search_query

    assert is_follow_up("and how long should I steep it?") and is_follow_up("What about the brakes?")
    assert is_follow_up("and how do I put the pieces back together safely?")  # "and …": any length
    assert is_follow_up("what happens when its body raises an exception?")  # points back, four words of its own
    assert not is_follow_up("How long should I steep green tea?")  # nothing points back
    assert not is_follow_up("Is it true that brake pads wear faster in wet weather on long descents?")  # its own topic
    assert (
        search_query("Do  solar panels work in winter?", "How do I feed a starter?")
        == "Do solar panels work in winter?"
    )
