"""The citation policy, one test per sentence of the spec."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent, PromptedOutput, ToolOutput
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.toolsets import FunctionToolset

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.evidence import EvidenceCapability
from haiku_tui.capabilities.policy import REDIRECT_TAG, CitationPolicyState
from haiku_tui.capabilities.policy import create_capability as policy
from haiku_tui.capabilities.rag import create_capability as rag
from tests.capabilities.scripts import Script, call, cite, cite_top, load, search, text, wire_text


def agent_for(script: Script, kb, *extra: Any, **kwargs: Any) -> Agent:
    return Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), *extra, policy()], **kwargs)


def redirects(script: Script) -> int:
    """How many requests newly carried the redirect (it stays in history afterwards)."""
    counts = [wire_text(sent).count(REDIRECT_TAG) for sent in script.sent]
    return counts[-1] if counts else 0


async def test_an_undeclared_answer_is_asked_once_and_keeps_its_answer(kb):
    script = Script(load(), search("tea temperature"), text("Use 80 degrees."), cite_top(), text("Use 80 degrees."))
    deps = Deps()
    result = await agent_for(script, kb).run("What temperature for green tea?", deps=deps)
    assert redirects(script) == 1
    assert result.output == "Use 80 degrees."
    asked = str(script.sent[3][-1].parts[-1].content)
    assert (
        "record what grounded the answer you already gave" in asked and "not a request to change that answer" in asked
    )
    assert ledger.citation_status(deps.state, 0) == "grounded"
    assert CitationPolicyState.of(deps.state).violations == []


async def test_an_empty_citation_is_a_valid_declaration(kb):
    script = Script(load(), search("volcano"), cite(), text("Nothing about volcanoes here."))
    deps = Deps()
    await agent_for(script, kb).run("Volcanoes?", deps=deps)
    assert redirects(script) == 0
    assert ledger.citation_status(deps.state, 0) == "ungrounded"
    assert deps.state["citation_policy"] == {"violations": []}


async def test_a_conversation_that_never_searched_or_cited_is_not_enforced(kb):
    script = Script(text("Hello!"))
    deps = Deps()
    await agent_for(script, kb).run("hi", deps=deps)
    assert len(script.sent) == 1 and deps.state["citation_policy"] == {"violations": []}


async def test_after_a_citation_even_a_greeting_must_declare(kb):
    deps = Deps()
    first = await agent_for(Script(load(), search("tea"), cite_top(), text("Tea [1].")), kb).run("tea?", deps=deps)
    script = Script(text("Hello!"), cite(), text("Hello!"))
    result = await agent_for(script, kb).run("hi", deps=deps, message_history=first.all_messages())
    assert redirects(script) == 1 and result.output == "Hello!"
    assert ledger.citation_status(deps.state, len(first.all_messages())) == "ungrounded"


async def test_a_follow_up_about_evidence_cited_earlier_is_enforced_without_searching(kb):
    deps = Deps()
    first = await agent_for(Script(load(), search("bread flour"), cite_top(), text("Flour [1].")), kb).run(
        "flour?", deps=deps
    )
    script = Script(text("As I said, bread flour."), text("As I said, bread flour."))
    await agent_for(script, kb).run("Which flour again?", deps=deps, message_history=first.all_messages())
    assert redirects(script) == 1
    assert CitationPolicyState.of(deps.state).violations == [len(first.all_messages())]


async def test_a_redirect_that_is_ignored_is_recorded_as_a_violation(kb):
    script = Script(load(), search("tea"), text("Tea."), text("Tea."))
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    assert redirects(script) == 1
    assert deps.state["citation_policy"]["violations"] == [0]


async def test_when_the_cite_tool_is_gone_a_violation_is_recorded_without_asking(kb):
    script = Script(load(), search("tea"), call("clock"), call("clock"), text("Tea."))
    deps = Deps()
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb, request_limit=1), policy()])

    @agent.tool_plain
    def clock() -> str:
        """The time (a tool of the host, not an evidence tool)."""
        return "noon"

    await agent.run("tea?", deps=deps)
    assert "rag_cite" in script.tools(3) and "rag_cite" not in script.tools(4)
    assert redirects(script) == 0
    assert deps.state["citation_policy"]["violations"] == [0]


class Answer(BaseModel):
    text: str


async def test_an_output_tool_call_ends_the_question(kb):
    final = call("final_result", text="Tea is brewed hot.")
    script = Script(load(), search("tea"), final, cite_top(), call("final_result", text="Tea is brewed hot."))
    deps = Deps()
    result = await agent_for(script, kb, output_type=ToolOutput(Answer)).run("tea?", deps=deps)
    assert redirects(script) == 1
    assert result.output == Answer(text="Tea is brewed hot.")
    assert ledger.citation_status(deps.state, 0) == "grounded"


async def test_after_run_backstops_an_early_ending_on_text_beside_a_tool_call(kb):
    both = ModelResponse(parts=[TextPart('{"text": "Tea."}'), ToolCallPart("rag_search", {"query": "more"})])
    script = Script(load(), search("tea"), both)
    deps = Deps()
    agent = agent_for(script, kb, output_type=PromptedOutput(Answer), end_strategy="early")
    result = await agent.run("tea?", deps=deps)
    assert result.output == Answer(text="Tea.") and redirects(script) == 0
    assert deps.state["citation_policy"]["violations"] == [0]


@dataclass
class DocsCapability(EvidenceCapability):
    """A second evidence capability over the same knowledge base (namespace ``docs``)."""

    def get_toolset(self) -> FunctionToolset[Any]:
        return FunctionToolset(self.evidence_tools(), id=self.id, sequential=True)


async def test_two_evidence_capabilities_get_exactly_one_redirect(kb):
    docs = DocsCapability(id="docs", namespace="docs", tool_prefix="docs", kb=kb)
    script = Script(load(), search("tea"), call("docs_search", query="tea"), text("Tea."), cite_top(), text("Tea."))
    deps = Deps()
    result = await agent_for(script, kb, docs).run("tea?", deps=deps)
    assert redirects(script) == 1 and result.output == "Tea."
    assert ledger.citation_status(deps.state, 0) == "grounded"
    assert set(ledger.evidence_namespaces(deps.state)) == {"rag", "docs"}


async def test_a_search_of_another_capability_after_citing_undeclares_the_answer(kb):
    docs = DocsCapability(id="docs", namespace="docs", tool_prefix="docs", kb=kb)
    script = Script(load(), search("tea"), cite_top(), call("docs_search", query="tea"), text("Tea."), text("Tea."))
    deps = Deps()
    await agent_for(script, kb, docs).run("tea?", deps=deps)
    assert redirects(script) == 1 and deps.state["citation_policy"]["violations"] == [0]


async def test_enforced_under_iter_and_run_stream_events(kb):
    for mode in ("iter", "events"):
        script = Script(load(), search("tea"), text("Tea."), cite_top(), text("Tea."))
        deps = Deps()
        agent = agent_for(script, kb)
        if mode == "iter":
            async with agent.iter("tea?", deps=deps) as run:
                async for _ in run:
                    pass
            output = run.result.output
        else:
            async with agent.run_stream_events("tea?", deps=deps) as events:
                outputs = [e.result.output async for e in events if hasattr(e, "result")]
            output = outputs[-1]
        assert output == "Tea." and redirects(script) == 1, mode
        assert ledger.citation_status(deps.state, 0) == "grounded", mode


async def test_a_resumed_question_in_a_windowed_history_is_not_asked_twice(kb):
    """The host sends only the question's own messages (history_offset): the redirect asked before
    the question paused is still found, so the ignored redirect is a violation, not a second ask."""
    from pydantic_ai import DeferredToolRequests, DeferredToolResults
    from pydantic_ai.exceptions import CallDeferred

    deps = Deps()
    first = await agent_for(Script(load(), search("tea"), cite_top(), text("Tea [1].")), kb).run("tea?", deps=deps)
    start = len(first.all_messages())
    script = Script(
        search("green tea"), text("Green."), call("ask_user", question="hot?"), text("Green."), text("Green.")
    )
    agent = agent_for(script, kb, output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def ask_user(question: str) -> str:
        """Ask the user something (answered later, by the host)."""
        raise CallDeferred()

    paused = await agent.run("green tea?", deps=deps, message_history=first.all_messages())
    assert isinstance(paused.output, DeferredToolRequests) and redirects(script) == 1
    window = paused.all_messages()[start:]
    call_id = paused.output.calls[0].tool_call_id
    windowed = Deps(state=deps.state, history_offset=start)
    resumed = await agent.run(
        message_history=window, deferred_tool_results=DeferredToolResults(calls={call_id: "yes"}), deps=windowed
    )
    assert resumed.output == "Green."
    assert (
        sum(wire_text(sent).count(REDIRECT_TAG) for sent in script.sent[-1:]) == 1
    )  # the one asked before, not a second
    assert CitationPolicyState.of(deps.state).violations == [start]
