"""The RAG capability, sentence by sentence of the spec, driven by scripted models over a real KB."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass

import pytest
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.exceptions import CallDeferred
from pydantic_ai.messages import SystemPromptPart

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.errors import QuestionStateMissing
from haiku_tui.capabilities.parts import BudgetNoticePart
from haiku_tui.capabilities.rag import DESCRIPTION, INSTRUCTIONS, RAG_ID, create_capability
from tests.capabilities.scripts import (
    Script,
    call,
    cite,
    cite_top,
    ids_in,
    last_return,
    load,
    search,
    text,
    wire_text,
)


def agent_for(script: Script, kb, **kwargs) -> Agent:
    return Agent(script.model, deps_type=Deps, capabilities=[create_capability(kb=kb, **kwargs)])


async def test_deferred_by_default_only_the_catalog_and_load_tool_until_loaded(kb):
    script = Script(load(), search("solar panel efficiency"), cite_top(), text("Answer [1]."))
    result = await agent_for(script, kb).run("How efficient are solar panels?", deps=Deps())
    assert script.tools(0) == ["load_capability"]
    assert f"- {RAG_ID}: {DESCRIPTION}" in script.infos[0].instructions
    assert "rag_search" not in (script.infos[0].instructions or "")
    assert set(script.tools(1)) == {"load_capability", "rag_search", "rag_cite"}
    assert result.output == "Answer [1]."


async def test_not_deferred_exposes_tools_and_instructions_from_the_start(kb):
    script = Script(search("sourdough starter"), cite_top(), text("ok"))
    await agent_for(script, kb, defer_loading=False).run("starter?", deps=Deps())
    assert set(script.tools(0)) == {"rag_search", "rag_cite"}
    assert INSTRUCTIONS.splitlines()[0] in script.infos[0].instructions


def test_db_path_resolution_order(monkeypatch, tmp_path, _isolated_data_dir):
    assert create_capability().db_path == str(_isolated_data_dir / "haiku.rag.lancedb")
    monkeypatch.setenv("HAIKU_RAG_DB", str(tmp_path / "env.lancedb"))
    assert create_capability().db_path == str(tmp_path / "env.lancedb")
    assert create_capability(tmp_path / "arg.lancedb").db_path == str(tmp_path / "arg.lancedb")
    assert create_capability("s3://bucket/kb").db_path == "s3://bucket/kb"


async def test_search_cite_answer_records_a_grounded_question(kb):
    script = Script(load(), search("bread starter feeding"), cite_top(2), text("Feed it daily [1][2]."))
    deps = Deps()
    await agent_for(script, kb).run("How do I feed a sourdough starter?", deps=deps)
    results = last_return(script.sent[2])
    ids = ids_in(results)
    assert len(ids) >= 2 and "Source: " in results
    rag = deps.state["rag"]
    record = ledger.current_record(rag)
    assert record["prompt"] == "How do I feed a sourdough starter?"
    assert ledger.retrieved_ids(record) == ids
    assert record["declaration"]["chunk_ids"] == ids[:2]
    assert [rag["citation_index"][c]["index"] for c in ids[:2]] == [1, 2]
    assert ledger.citation_status(deps.state, record["question"]) == "grounded"
    assert rag["in_progress"] is False
    assert "Registered 2 citation(s): [1] = " in last_return(script.sent[3], "rag_cite")


async def test_empty_cite_is_ungrounded_and_never_citing_is_missing(kb):
    deps = Deps()
    await agent_for(Script(load(), search("volcano eruptions"), cite(), text("Nothing on that.")), kb).run(
        "volcanoes?", deps=deps
    )
    assert ledger.citation_status(deps.state, 0) == "ungrounded"
    other = Deps()
    await agent_for(Script(load(), search("tea"), text("Tea is nice.")), kb).run("tea?", deps=other)
    assert ledger.citation_status(other.state, 0) == "missing"


async def test_mangled_ids_are_repaired_against_this_questions_results(kb):
    def mangled(messages, info):
        good = ids_in(last_return(messages))[0]
        return cite(f"[{good[:7] + good[8:]}]")  # one character dropped, brackets kept

    script = Script(load(), search("chain lubrication"), mangled, text("Oil it [1]."))
    deps = Deps()
    await agent_for(script, kb).run("chain?", deps=deps)
    top = ids_in(last_return(script.sent[2]))[0]
    assert ledger.cited_ids(deps.state, 0) == [top]


async def test_unresolvable_ids_ask_for_a_retry_that_says_how_to_fix_it(kb):
    script = Script(load(), search("tea"), cite("not-an-id-at-all"), cite_top(), text("ok [1]"))
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    retry = last_return_text = str(script.sent[3][-1].parts[-1].content)
    assert "could be resolved" in retry and "Copy each id exactly" in retry
    assert ledger.citation_status(deps.state, 0) == "grounded", last_return_text


async def test_partly_resolvable_lists_register_what_resolves_and_say_what_was_ignored(kb):
    def partly(messages, info):
        return cite(ids_in(last_return(messages))[0], "zzzzzzzzzzzzzzzz")

    script = Script(load(), search("tea brewing temperature"), partly, text("ok [1]"))
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    reply = last_return(script.sent[3], "rag_cite")
    assert "Registered 1 citation(s)" in reply and "Ignored 1 unresolvable id(s): ['zzzzzzzzzzzzzzzz']" in reply
    assert len(ledger.cited_ids(deps.state, 0)) == 1


async def test_a_search_after_a_cite_makes_the_question_undeclared_again(kb):
    script = Script(load(), search("tea"), cite_top(), search("green tea"), text("ok"))
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    assert ledger.citation_status(deps.state, 0) == "missing"


async def test_a_cite_in_the_same_response_as_its_search_is_not_a_declaration(kb):
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    script = Script(
        load(),
        ModelResponse(
            parts=[ToolCallPart("rag_search", {"query": "tea"}), ToolCallPart("rag_cite", {"chunk_ids": []})]
        ),
        text("ok"),
    )
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    assert ledger.citation_status(deps.state, 0) == "missing"


async def test_a_repeated_query_merges_results_instead_of_losing_them(kb):
    script = Script(load(), search("tea", limit=4), search("tea", limit=1), text("ok"))
    deps = Deps()
    await agent_for(script, kb).run("tea?", deps=deps)
    record = ledger.current_record(deps.state["rag"])
    assert len(record["searches"]) == 1
    assert ledger.retrieved_ids(record) == ids_in(last_return(script.sent[2]))


async def test_ids_cited_earlier_stay_citable_with_the_same_number(kb):
    deps = Deps()
    first = Script(load(), search("solar inverter"), cite_top(), text("Inverters [1]."))
    agent = agent_for(first, kb)
    r1 = await agent.run("What does an inverter do?", deps=deps)
    earlier = ledger.cited_ids(deps.state, 0)[0]
    second = Script(cite(earlier), text("As said [1]."))
    r2 = await agent_for(second, kb).run("Remind me?", deps=deps, message_history=r1.all_messages())
    q2 = len(r1.all_messages())
    assert ledger.citation_status(deps.state, q2) == "grounded"
    assert deps.state["rag"]["citation_index"][earlier]["index"] == 1
    assert len(r2.all_messages()) > q2


async def test_state_round_trips_through_json_and_carries_between_runs(kb):
    deps = Deps()
    r1 = await agent_for(Script(load(), search("tea"), cite_top(), text("a [1]")), kb).run("tea?", deps=deps)
    carried = Deps(state=json.loads(json.dumps(deps.state)))
    assert carried.state == deps.state
    script = Script(search("bicycle brakes"), cite_top(), text("b [2]"))
    await agent_for(script, kb).run("brakes?", deps=carried, message_history=r1.all_messages())
    rag = carried.state["rag"]
    assert [r["question"] for r in rag["questions"]] == [0, len(r1.all_messages())]
    assert sorted(c["index"] for c in rag["citation_index"].values()) == [1, 2]
    json.dumps(carried.state)  # still plain JSON


async def test_a_deps_object_without_state_still_works_for_one_question(kb):
    @dataclass
    class Bare:
        pass

    script = Script(load(), search("tea"), cite_top(), text("fine [1]"))
    agent = Agent(script.model, capabilities=[create_capability(kb=kb)])
    assert (await agent.run("tea?", deps=Bare())).output == "fine [1]"
    assert (
        await Agent(Script(load(), search("tea"), text("x")).model, capabilities=[create_capability(kb=kb)]).run("q")
    ).output == "x"


def _deferring_agent(script: Script, kb) -> Agent:
    agent = Agent(
        script.model, deps_type=Deps, output_type=[str, DeferredToolRequests], capabilities=[create_capability(kb=kb)]
    )

    @agent.tool_plain
    def ask_user(question: str) -> str:
        """Ask the user something (answered later, by the host)."""
        raise CallDeferred()

    return agent


async def test_resuming_continues_the_question_identity_from_carried_state(kb):
    from pydantic_ai import DeferredToolResults

    script = Script(
        load(), search("tea"), call("ask_user", question="green or black?"), cite_top(), text("Brew it [1].")
    )
    agent = _deferring_agent(script, kb)
    deps = Deps()
    paused = await agent.run("How do I brew tea?", deps=deps)
    assert isinstance(paused.output, DeferredToolRequests)
    assert deps.state["rag"]["in_progress"] is True
    call_id = paused.output.calls[0].tool_call_id
    resumed = await agent.run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(calls={call_id: "green"}),
        deps=deps,
    )
    assert resumed.output == "Brew it [1]."
    assert [r["question"] for r in deps.state["rag"]["questions"]] == [0]
    assert ledger.citation_status(deps.state, 0) == "grounded"
    assert deps.state["rag"]["in_progress"] is False


async def test_resuming_without_carried_state_fails_instead_of_starting_a_new_question(kb):
    from pydantic_ai import DeferredToolResults

    script = Script(load(), search("tea"), call("ask_user", question="?"))
    agent = _deferring_agent(script, kb)
    paused = await agent.run("How do I brew tea?", deps=Deps())
    call_id = paused.output.calls[0].tool_call_id
    with pytest.raises(QuestionStateMissing, match="carries no question in progress"):
        await agent.run(
            message_history=paused.all_messages(),
            deferred_tool_results=DeferredToolResults(calls={call_id: "x"}),
            deps=Deps(),
        )


async def test_search_budget_spent_tells_the_model_and_keeps_cite(kb):
    script = Script(load(), search("tea"), search("bread"), cite_top(), text("ok [1]"))
    deps = Deps()
    await agent_for(script, kb, max_searches=1).run("tea?", deps=deps)
    assert "Search budget for this question is spent (1 searches)" in last_return(script.sent[3])
    assert ledger.citation_status(deps.state, 0) == "grounded"


async def test_request_budget_leaves_only_cite_for_a_grace_window_then_nothing(kb):
    script = Script(load(), search("tea"), search("bread"), cite_top(), cite_top(), text("final"))
    deps = Deps()
    await agent_for(script, kb, request_limit=2).run("tea?", deps=deps)
    assert set(script.tools(1)) == {"load_capability", "rag_search", "rag_cite"}
    assert "rag_search" not in script.tools(3) and "rag_cite" in script.tools(3)
    assert "request budget for this question is spent" in str(script.sent[3][-1].parts[-1].content)
    assert "rag_cite" not in script.tools(5)
    assert "no longer available" in str(script.sent[5][-1].parts[-1].content)


async def test_budget_notice_is_a_request_scoped_capability_part_sent_without_a_warning(kb):
    script = Script(load(), search("tea"), search("bread"), cite_top(), cite_top(), text("final"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = await agent_for(script, kb, request_limit=2).run("tea?", deps=Deps())
    spent = "request budget for this question is spent (2 requests)"
    assert spent not in wire_text(script.sent[2])
    assert wire_text(script.sent[3]).count(spent) == 1  # the request where the budget is spent carries it
    assert wire_text(script.sent[4]).count(spent) == 1  # its own notice, not the one before
    assert spent not in wire_text(script.sent[5])  # request-scoped: later requests no longer show it
    assert "no longer available" in wire_text(script.sent[5])
    notices = [p for m in result.all_messages() for p in m.parts if isinstance(p, BudgetNoticePart)]
    assert [(n.kind, n.scope, n.source.authority) for n in notices] == [
        ("haiku_tui.budget_notice", "request", "operator")
    ] * 3
    assert not any(isinstance(p, SystemPromptPart) for m in result.all_messages() for p in m.parts)


TEN_QUESTIONS = [
    ("How do solar panels make electricity?", "solar cells electricity", 1),
    ("hello", None, None),
    ("What flour is best for sourdough?", "sourdough flour", 2),
    ("How often should I oil a bicycle chain?", "bicycle chain oil", 1),
    ("Anything about volcanoes?", "volcano", 0),
    ("What water temperature for green tea?", "green tea temperature", 1),
    ("And for black tea?", "black tea temperature", 1),
    ("How do I adjust bicycle brakes?", "brakes adjust", 2),
    ("thanks", None, None),
    ("Do solar panels work in winter?", "solar panels winter snow", 1),
]


async def test_ten_question_conversation_record_matches_the_hand_checked_expectation(kb):
    deps = Deps()
    history: list = []
    picked: list[list[str]] = []
    for i, (prompt, query, n) in enumerate(TEN_QUESTIONS):
        steps = [] if i else [load()]
        if query is None:
            steps.append(text("Hello!"))
        else:
            steps += [search(query), cite_top(n), text("answer")]
        script = Script(*steps)
        result = await agent_for(script, kb).run(prompt, deps=deps, message_history=history)
        picked.append(ids_in(last_return(script.sent[-2])) [:n] if query else [])
        history = result.all_messages()
    rag = deps.state["rag"]
    questions = rag["questions"]
    assert [r["prompt"] for r in questions] == [p for p, _, _ in TEN_QUESTIONS]
    identities = [r["question"] for r in questions]
    assert identities[0] == 0 and identities == sorted(identities)
    # Q1 loads (2 messages) + search, cite, answer (6) = 8 messages; a greeting adds 2; others 6.
    expected, position = [], 0
    for i, (_, query, _) in enumerate(TEN_QUESTIONS):
        expected.append(position)
        position += 2 if query is None else (8 if i == 0 else 6)
    assert identities == expected
    assert [ledger.citation_status(deps.state, q) for q in identities] == [
        "grounded",
        "missing",
        "grounded",
        "grounded",
        "ungrounded",
        "grounded",
        "grounded",
        "grounded",
        "missing",
        "grounded",
    ]
    assert [ledger.cited_ids(deps.state, q) for q in identities] == picked
    numbering: dict[str, int] = {}
    for ids in picked:
        for cid in ids:
            numbering.setdefault(cid, len(numbering) + 1)
    assert {cid: entry["index"] for cid, entry in rag["citation_index"].items()} == numbering
    assert rag["question"] == identities[-1] and rag["in_progress"] is False
    assert json.loads(json.dumps(deps.state)) == deps.state


async def test_a_history_shorter_than_the_carried_state_is_refused(kb):
    from haiku_tui.capabilities.errors import HistoryRegression

    deps = Deps()
    r1 = await agent_for(Script(load(), search("tea"), cite_top(), text("a")), kb).run("tea?", deps=deps)
    r2 = await agent_for(Script(text("b")), kb).run("more?", deps=deps, message_history=r1.all_messages())
    assert r2.output == "b"
    with pytest.raises(HistoryRegression, match="Pass the whole history saved with this state"):
        await agent_for(Script(text("c")), kb).run("again?", deps=deps, message_history=r1.all_messages()[:2])


async def test_repeated_ids_are_registered_once_and_only_unresolvable_ones_reported(kb):
    def repeated(messages, info):
        top = ids_in(last_return(messages))[0]
        return cite(top, top, "0000000000000000")

    script = Script(load(), search("tea"), repeated, text("ok [1]"))
    await agent_for(script, kb).run("tea?", deps=Deps())
    reply = last_return(script.sent[3], "rag_cite")
    assert "Registered 1 citation(s)" in reply and "Ignored 1 unresolvable id(s): ['0000000000000000']" in reply


async def test_an_imported_label_never_labels_a_fresh_citation(kb):
    """Provenance comes from the knowledge base: a forged title/path carried in the state is replaced
    when the chunk is cited again, and its citation number is kept."""
    deps = Deps()
    first = Script(load(), search("sourdough starter"), cite_top(), text("Feed it [1]."))
    result = await agent_for(first, kb).run("starter?", deps=deps)
    (cid, entry), = deps.state["rag"]["citation_index"].items()
    real_title, real_path = entry["title"], entry["path"]
    entry.update(title="FORGED", path="/etc/forged.md")  # what an edited export brings back
    second = Script(search("sourdough starter"), cite(cid), text("Again [1]."))
    await agent_for(second, kb).run("again?", deps=deps, message_history=result.all_messages())
    entry = deps.state["rag"]["citation_index"][cid]
    assert (entry["index"], entry["title"], entry["path"]) == (1, real_title, real_path)
