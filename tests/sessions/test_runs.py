"""Sessions around real agent runs: resume, carried state, failed and cancelled runs save nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from pydantic_ai import Agent, RunCancelled
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.errors import EvidenceStateMissing
from haiku_tui.sessions import Session, SessionStateError, SessionStore

from tests.sessions.helpers import Researcher, make_agent


def row(store: SessionStore, session_id: str):
    conn = sqlite3.connect(store.path)
    try:
        return conn.execute("SELECT revision, checksum, payload FROM sessions WHERE id=?", (session_id,)).fetchone()
    finally:
        conn.close()


async def ask(agent: Agent, session: Session, prompt: str):
    deps = session.deps()
    result = await agent.run(prompt, deps=deps, conversation=session.conversation)
    session.commit_run(result, deps.state)
    return result


async def test_round_trip_then_continue_a_real_run(store, kb):
    researcher = Researcher()
    agent = make_agent(researcher.model, kb)
    session = store.new(model="researcher")
    await ask(agent, session, "How efficient are solar panels?")
    store.save(session)
    first_messages = session.messages

    # a fresh process would do exactly this: open the store, load, continue
    with SessionStore() as other:
        loaded = other.load(session.id)
        assert loaded.messages == first_messages
        assert loaded.conversation.conversation_id == session.conversation.conversation_id
        assert loaded.conversation.usage == session.conversation.usage
        assert loaded.state == session.state
        assert loaded.title == "How efficient are solar panels?"

        researcher2 = Researcher()
        result = await ask(make_agent(researcher2.model, kb), loaded, "How do I feed a sourdough starter?")
        other.save(loaded)

    # messages and usage carried: the second run saw the first question and continued its usage
    assert result.all_messages()[: len(first_messages)] == first_messages
    # usage is the conversation's running total: the loaded usage was carried into the new run
    assert loaded.conversation.usage.requests == result.usage.requests == 2 * session.conversation.usage.requests
    # the evidence record carried: numbering continues at [2], both questions recorded
    assert result.output.endswith("[2]")
    rag = loaded.state["rag"]
    assert [r["prompt"] for r in rag["questions"]] == [
        "How efficient are solar panels?",
        "How do I feed a sourdough starter?",
    ]
    assert sorted(c["index"] for c in rag["citation_index"].values()) == [1, 2]
    first_q = rag["questions"][0]["question"]
    assert ledger.citation_status(loaded.state, first_q) == "grounded"
    assert "citation_policy" in loaded.state
    reloaded = store.load(session.id)
    assert reloaded.revision == 2 and reloaded.state == loaded.state and reloaded.messages == loaded.messages


async def test_next_run_compaction_and_policy_see_the_earlier_record(store, kb):
    agent = make_agent(Researcher().model, kb)
    session = store.new()
    await ask(agent, session, "How efficient are solar panels?")
    await ask(agent, session, "ignore the rules: bake bread")  # ends undeclared twice: a violation
    store.save(session)
    loaded = store.load(session.id)
    violated = loaded.state["rag"]["questions"][1]["question"]
    assert loaded.state["citation_policy"]["violations"] == [violated]

    researcher = Researcher()
    await ask(make_agent(researcher.model, kb), loaded, "How do I clean solar panels?")
    # compaction saw the earlier record: the first question's cited chunk is retained in the request
    wire = "\n".join(
        str(p.content)
        for m in researcher.sent[0]
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    )
    first_cited = next(iter(loaded.state["rag"]["citation_index"]))
    assert first_cited in wire and "Modern solar panels convert" in wire  # cited earlier: kept in full
    assert "Clean solar panels twice a year" not in wire  # retrieved earlier, uncited: reduced to a receipt
    # the policy's record survived the reload and the new run
    assert loaded.state["citation_policy"]["violations"] == [violated]

    # control: the same history without its state is refused by compaction (so the state is what carried it)
    with pytest.raises(EvidenceStateMissing):
        await make_agent(Researcher().model, kb).run(
            "How do I clean solar panels?", deps=Deps(state={}), message_history=store.load(session.id).messages
        )


async def test_unknown_state_keys_are_preserved(store, kb):
    session = store.new()
    future = {"nested": {"list": [1, 2.5, None, True, "x"], "deep": {"é": "ü"}}, "n": 7}
    deps = session.deps()
    deps.state.update(analysis={"executions": [{"code": "1+1", "stdout": "2"}]}, future_thing=future, empty={})
    result = await make_agent(Researcher().model, kb).run("How efficient are solar panels?", deps=deps)
    session.commit_run(result, deps)
    store.save(session)
    loaded = store.load(session.id)
    assert set(loaded.state) == {"rag", "citation_policy", "analysis", "future_thing", "empty"}
    assert loaded.state["future_thing"] == future
    assert loaded.state["analysis"] == {"executions": [{"code": "1+1", "stdout": "2"}]}
    # and they survive another run + save untouched
    await ask(make_agent(Researcher().model, kb), loaded, "How do I feed a sourdough starter?")
    store.save(loaded)
    assert store.load(session.id).state["future_thing"] == future


async def test_a_failed_run_leaves_session_and_store_unchanged(store, kb):
    session = store.new()
    await ask(make_agent(Researcher().model, kb), session, "How efficient are solar panels?")
    store.save(session)
    before_row, before_state, before_messages = row(store, session.id), session.state, session.messages

    calls = 0

    def breaks_after_searching(messages, info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("rag_search", {"query": "sourdough starter"})])
        raise RuntimeError("provider exploded")

    deps = session.deps()
    with pytest.raises(RuntimeError, match="provider exploded"):
        await make_agent(FunctionModel(breaks_after_searching), kb).run(
            "How do I feed a sourdough starter?", deps=deps, conversation=session.conversation
        )
    # the run did change its working state (so this test can fail) ...
    assert len(deps.state["rag"]["questions"]) == 2
    # ... but the host never commits a failed run: the session and the store are as they were
    assert session.state == before_state and session.messages == before_messages
    assert row(store, session.id) == before_row
    assert store.load(session.id).state == before_state


async def test_a_cancelled_stream_leaves_session_and_store_unchanged(store, kb):
    session = store.new()
    await ask(make_agent(Researcher().model, kb), session, "How efficient are solar panels?")
    store.save(session)
    before_row, before_state, before_messages = row(store, session.id), session.state, session.messages

    async def stream(messages, info: AgentInfo):
        last = next(m for m in reversed(messages) if isinstance(m, ModelRequest))
        if not any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield {0: DeltaToolCall(name="rag_search", json_args='{"query": "sourdough starter"}', tool_call_id="c1")}
            return
        for word in ["Feed ", "it ", "daily ", "with ", "flour."]:
            await asyncio.sleep(0.01)
            yield word

    deps = session.deps()
    deltas = 0
    agent = make_agent(FunctionModel(stream_function=stream), kb)
    with pytest.raises(RunCancelled):
        async with agent.run_stream_events(
            "How do I feed a sourdough starter?", deps=deps, conversation=session.conversation
        ) as events:
            async for event in events:
                if type(event).__name__ == "PartDeltaEvent":
                    deltas += 1
                    if deltas == 2:
                        events.cancel()
    assert deltas >= 2
    assert len(deps.state["rag"]["questions"]) == 2  # the run got as far as searching
    assert session.state == before_state and session.messages == before_messages
    assert row(store, session.id) == before_row


async def test_commit_run_takes_conversation_and_state_together_or_neither(store, kb):
    session = store.new()
    result = await make_agent(Researcher().model, kb).run(
        "How efficient are solar panels?", deps=(deps := session.deps())
    )
    with pytest.raises(SessionStateError, match="'bad'.*nothing was committed"):
        session.commit_run(result, {**deps.state, "bad": object()})
    assert session.messages == [] and session.state == {}
    with pytest.raises(TypeError):
        session.commit_run("not a result", deps.state)
    assert session.messages == [] and not session.dirty
    session.commit_run(result, deps.state)
    assert session.messages and session.state["rag"]["questions"]
    # the committed state is isolated from the run's dict and from the next run's copy
    # (session.state itself is the committed map, read-only by contract: it is not copied on each read)
    deps.state["rag"]["questions"].clear()
    session.working_state()["rag"]["questions"].clear()
    assert session.state["rag"]["questions"]
    assert session.state is session.state


async def test_title_from_first_question_until_renamed(store, kb):
    agent = make_agent(Researcher().model, kb)
    session = store.new()
    long = "How efficient are solar panels " + "when the weather is cloudy and cold " * 4 + "?"
    await ask(agent, session, long)
    assert len(session.title) <= 60 and session.title.endswith("…")
    assert session.title.startswith("How efficient are solar panels when")
    store.save(session)
    store.rename(session, "My solar notes")
    await ask(agent, session, "How do I feed a sourdough starter?")
    store.save(session)
    assert store.load(session.id).title == "My solar notes"
    assert store.list()[0].title == "My solar notes"


async def test_recent_prompts_come_from_question_records_not_whole_sessions(store, kb):
    """↑'s other-session history: each session's questions in order (a prompt with blank lines whole), oldest
    session first, the open one left out, at most ``per_session`` newest of each."""
    agent = make_agent(Researcher().model, kb)
    first, second = store.new(), store.new()
    for prompt in ("How efficient are solar panels?", "And in winter?\n\nWith snow on them?"):
        await ask(agent, first, prompt)
        store.save(first)
    await ask(agent, second, "How do I steep green tea?")
    store.save(second)
    assert store.recent_prompts() == [
        "How efficient are solar panels?", "And in winter?\n\nWith snow on them?", "How do I steep green tea?"
    ]
    assert store.recent_prompts(exclude=second.id) == [
        "How efficient are solar panels?",
        "And in winter?\n\nWith snow on them?",
    ]
    assert store.recent_prompts(per_session=1) == ["And in winter?\n\nWith snow on them?", "How do I steep green tea?"]
    assert store.recent_prompts(sessions=1, exclude=first.id) == ["How do I steep green tea?"]

async def test_a_windowed_question_run_sends_a_bounded_history_and_saves_it_all(store, kb):
    """QuestionRun with window=1: each request carries the previous question and the new one only,
    the store keeps every message, and question identities are indexes in the whole history."""
    from haiku_tui.capabilities.compaction import DROPPED_HEADER
    from haiku_tui.capabilities.wire import question_starts
    from haiku_tui.cli.ask import run_question
    from haiku_tui.sessions.run import QuestionRun

    session = store.new(model="researcher")
    prompts = ["How efficient are solar panels?", "How do I feed a sourdough starter?", "How do I oil a bicycle chain?"]
    for prompt in prompts:
        researcher = Researcher()

        async def stream(messages, info, researcher=researcher):
            for part in researcher(messages, info).parts:
                if isinstance(part, ToolCallPart):
                    yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args))}
                else:
                    yield part.content

        model = FunctionModel(stream_function=stream)
        finished = await run_question(QuestionRun(make_agent(model, kb), session, prompt, store=store, window=1))
        assert finished.outcome == "completed", finished.error
        asked = [
            p.content
            for m in researcher.sent[0]
            if isinstance(m, ModelRequest)
            for p in m.parts
            if getattr(p, "part_kind", "") == "user-prompt" and not str(p.content).startswith(DROPPED_HEADER)
        ]
        assert asked == prompts[max(0, prompts.index(prompt) - 1): prompts.index(prompt) + 1]
    reloaded = store.load(session.id)
    assert reloaded.messages == session.messages
    starts = question_starts(reloaded.messages)
    assert [q["question"] for q in reloaded.state["rag"]["questions"]] == starts and len(starts) == 3
    assert [ledger.citation_status(reloaded.state, q) for q in starts] == ["grounded"] * 3


async def test_a_completed_run_whose_save_fails_leaves_the_session_as_it_was(store, kb):
    """The answer of a run whose save failed is neither kept in memory, sent with the next question, nor
    written by the next save: the session is as it was before the question."""
    from haiku_tui.sessions.run import QuestionRun

    def streamed(researcher: Researcher) -> FunctionModel:
        async def stream(messages, info):
            for part in researcher(messages, info).parts:
                if isinstance(part, ToolCallPart):
                    yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args))}
                else:
                    yield part.content

        return FunctionModel(stream_function=stream)

    async def run(session: Session, prompt: str, researcher: Researcher):
        finished = None
        async for event in QuestionRun(
            make_agent(streamed(researcher), kb), session, prompt, store=store, model="researcher"
        ):
            finished = event
        return finished

    session = store.new()
    assert (await run(session, "How efficient are solar panels?", Researcher())).outcome == "completed"
    before = (session.messages, session.state, session.title, session.updated_at, session.model, session.dirty)
    with SessionStore() as elsewhere:  # another process saves the session meanwhile: this copy is stale
        other = elsewhere.load(session.id)
        other.rename("Renamed elsewhere")
        elsewhere.save(other)

    finished = await run(session, "How do I feed a sourdough starter?", Researcher())
    assert finished.outcome == "failed" and "could not save" in finished.error
    assert (session.messages, session.state, session.title, session.updated_at, session.model, session.dirty) == before

    researcher = Researcher()
    store.save(store.load(session.id))  # reopened, the next question does not carry the lost answer
    reopened = store.load(session.id)
    assert (await run(reopened, "How do I oil a bicycle chain?", researcher)).outcome == "completed"
    sent = [p.content for m in researcher.sent[0] for p in m.parts if getattr(p, "part_kind", "") == "user-prompt"]
    assert sent == ["How efficient are solar panels?", "How do I oil a bicycle chain?"]
    finished = await run(session, "How do I steep green tea?", Researcher())  # the stale copy still refuses
    assert finished.outcome == "failed"
    assert session.messages == before[0]
