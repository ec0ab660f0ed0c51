"""The pure views every pane is drawn from: evidence statuses, policy outcomes, request size."""

from __future__ import annotations

from pydantic_ai import Agent

from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.policy import create_capability as policy
from haiku_tui.capabilities.rag import create_capability as rag
from haiku_tui.capabilities.views import question_views, request_size
from tests.capabilities.scripts import Script, cite, cite_top, ids_in, last_return, load, search, text


async def conversation(kb):
    """Three questions: cited one of several hits; greeting redirected; ignored redirect."""
    deps = Deps()
    agent_caps = lambda: [rag(kb=kb), compaction(), policy()]  # noqa: E731
    s1 = Script(load(), search("sourdough starter"), cite_top(1), text("Feed it [1]."))
    r1 = await Agent(s1.model, deps_type=Deps, capabilities=agent_caps()).run("Starter?", deps=deps)
    hits1 = ids_in(last_return(s1.sent[2]))
    s2 = Script(text("Hi!"), cite(), text("Hi!"))
    r2 = await Agent(s2.model, deps_type=Deps, capabilities=agent_caps()).run(
        "hello", deps=deps, message_history=r1.all_messages()
    )
    s3 = Script(search("bicycle chain"), text("Oil it."), text("Oil it."))
    r3 = await Agent(s3.model, deps_type=Deps, capabilities=agent_caps()).run(
        "Chain?", deps=deps, message_history=r2.all_messages()
    )
    return deps.state, r3.all_messages(), hits1, ids_in(last_return(s3.sent[1]))


async def test_question_views_statuses_and_policy_outcomes(kb):
    state, messages, hits1, hits3 = await conversation(kb)
    q1, q2, q3 = question_views(state, messages)
    assert [v.number for v in (q1, q2, q3)] == [1, 2, 3] and q3.latest and not q1.latest
    assert [(i.chunk_id, i.status) for i in q1.items] == [(hits1[0], "retained")] + [
        (h, "receipted") for h in hits1[1:]
    ]
    assert q1.items[0].citation == 1 and q1.items[1].citation is None
    assert {i.status for i in q3.items} == {"current"} and [i.chunk_id for i in q3.items] == hits3
    assert (q1.badge, q1.policy.outcome, q1.citations) == ("grounded", "grounded", (1,))
    assert (q2.badge, q2.policy.outcome, q2.policy.reason) == (
        "ungrounded",
        "redirected",
        "the conversation has cited evidence before",
    )
    assert (q3.badge, q3.policy.outcome, q3.policy.violation) == ("violation", "violation", True)
    assert q1.answer == "Feed it [1]." and q3.answer == "Oil it."
    assert [s.kind for s in q1.steps] == ["load", "search", "cite"]
    assert [s.kind for s in q2.steps] == ["redirect", "cite"]
    assert q1.prompt == "Starter?"


async def test_latest_question_cited_items_and_no_compaction_statuses(kb):
    state, messages, hits1, _ = await conversation(kb)
    views = question_views(state, messages[:8])  # as it was after the first question
    assert views[0].latest is False  # state knows later questions; the view keeps them
    only_first = {**state, "rag": {**state["rag"], "questions": state["rag"]["questions"][:1], "question": 0}}
    (q1,) = question_views(only_first, messages[:8])
    assert [i.status for i in q1.items] == ["cited"] + ["current"] * (len(hits1) - 1)
    plain = question_views(state, messages, compaction=False)
    assert plain[0].items[0].status == "cited" and plain[0].items[1].status == "current"


async def test_request_size_shows_what_compaction_saved(kb):
    state, messages, _, _ = await conversation(kb)
    compacted, full = request_size(state, messages)
    assert 0 < compacted < full
    assert request_size({}, []) == (0, 0)


def test_policy_not_registered_is_said_so():
    from haiku_tui.capabilities import ledger

    ns = ledger.new_namespace()
    ledger.begin_question(ns, 0, "q")
    (view,) = question_views({"rag": ns})
    assert view.policy.outcome == "not enforced" and view.policy.reason == "citation policy not registered"


def test_programs_the_analysis_capability_ran_are_listed_with_their_output():
    from haiku_tui.capabilities import ledger

    ns = ledger.new_namespace()
    record = ledger.begin_question(ns, 0, "how many?")
    record["executions"] = [{"code": "print(2)", "stdout": "2\n", "error": None, "success": True}]
    (view,) = question_views({"analysis": ns})
    assert [(p.code, p.stdout, p.error, p.success) for p in view.programs] == [("print(2)", "2\n", "", True)]
