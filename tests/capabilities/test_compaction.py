"""Evidence compaction: what each request carries on the wire, and what history keeps."""

from __future__ import annotations

import copy

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.compaction import (
    CITED_AGAIN,
    CITED_HEADER,
    DROPPED_HEADER,
    KEPT_NOTE,
    RECEIPT,
    compact_history,
    dropped_chunks,
    plan_start,
    record_start,
)
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.errors import EvidenceStateMissing
from haiku_tui.capabilities.evidence import RESULT_SEPARATOR, TEXT_ABOVE
from haiku_tui.capabilities.rag import create_capability as rag
from tests.capabilities.scripts import Script, cite, cite_top, ids_in, last_return, load, search, text, wire_text


def agent_for(script: Script, kb, *, compact: bool = True) -> Agent:
    capabilities = [rag(kb=kb), compaction()] if compact else [rag(kb=kb)]
    return Agent(script.model, deps_type=Deps, capabilities=capabilities)


async def first_question(kb, deps: Deps, *, n_cited: int = 1, query: str = "sourdough starter", compact: bool = True):
    steps = [load(), search(query), cite_top(n_cited) if n_cited else cite(), text("First answer [1].")]
    script = Script(*steps)
    result = await agent_for(script, kb, compact=compact).run("How do I keep a starter?", deps=deps)
    return result, ids_in(last_return(script.sent[2]))


def search_returns(messages) -> list[str]:
    return [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "rag_search"
    ]


async def test_earlier_evidence_becomes_a_receipt_except_the_cited_text_kept_in_full(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    cited, uncited = hits[0], hits[1:]
    script = Script(search("bicycle chain"), cite_top(), text("Second [2]."))
    await agent_for(script, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    wire = script.sent[0]
    (earlier,) = search_returns(wire[: len(r1.all_messages())])
    (stored,) = search_returns(r1.all_messages())
    block = next(b for b in stored.split(RESULT_SEPARATOR) if b.startswith(f"[{cited}]"))
    assert earlier == block + "\n\n" + KEPT_NOTE  # the cited block as it was sent, then what became of the rest
    full_text = deps.state["rag"]["citation_index"][cited]["text"]
    assert f"[{cited}] (rank " in earlier and full_text in earlier
    assert all(u not in wire_text(wire) for u in uncited)


async def test_stored_history_is_untouched(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    original = copy.deepcopy(r1.all_messages())
    script = Script(search("bicycle chain"), cite_top(), text("Second."))
    r2 = await agent_for(script, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    assert r2.all_messages()[: len(original)] == original
    assert all(h in search_returns(r2.all_messages())[0] for h in hits)


async def test_each_earlier_question_s_last_return_carries_its_slot_and_its_others_are_receipts(kb):
    deps = Deps()
    r1, _ = await first_question(kb, deps)
    s2 = Script(search("tea temperature"), search("black tea"), cite_top(), text("Tea [2]."))
    r2 = await agent_for(s2, kb).run("Tea?", deps=deps, message_history=r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=deps, message_history=r2.all_messages())
    returns = search_returns(s3.sent[0])
    (cited1,), (cited2,) = ledger.cited_ids(deps.state, 0), ledger.cited_ids(deps.state, len(r1.all_messages()))
    assert returns[0].startswith(f"[{cited1}] (rank ") and returns[0].endswith(KEPT_NOTE)
    holders = [r for r in returns[1:] if f"[{cited2}]" in r]
    assert len(holders) == 1 and holders[0].endswith(KEPT_NOTE)  # the first of its results that held it
    assert [r for r in returns[1:] if r not in holders] == [RECEIPT]


async def test_a_slot_is_written_once_and_later_questions_add_to_the_end(kb):
    """Question 1's slot is the same text in question 2's and question 3's requests: what a prompt cache keeps."""
    deps = Deps()
    r1, _ = await first_question(kb, deps)
    s2 = Script(search("bicycle chain"), cite_top(), text("Chain [2]."))
    r2 = await agent_for(s2, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=deps, message_history=r2.all_messages())
    assert search_returns(s2.sent[0])[0] == search_returns(s3.sent[0])[0]
    q1_wire = s2.sent[-1][: len(r1.all_messages())]
    assert _dump_parts(q1_wire) == _dump_parts(s3.sent[0][: len(r1.all_messages())])


def _dump_parts(messages) -> list[str]:
    return [str(getattr(p, "content", "")) for m in messages for p in m.parts]


async def test_a_chunk_cited_again_is_named_where_an_earlier_slot_holds_its_text(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    s2 = Script(search("sourdough starter"), cite(hits[0]), text("Again [1]."))
    r2 = await agent_for(s2, kb).run("The starter again?", deps=deps, message_history=r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=deps, message_history=r2.all_messages())
    first, second = search_returns(s3.sent[0])
    full_text = deps.state["rag"]["citation_index"][hits[0]]["text"]
    assert full_text in first and full_text not in second
    assert f"[{hits[0]}] Source: " in second and CITED_AGAIN in second


async def test_a_result_the_request_holds_in_full_says_its_text_is_above_until_a_step_drops_it(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    s2 = Script(search("sourdough starter"), cite(hits[0]), text("Again [1]."))
    r2 = await agent_for(s2, kb).run("The starter again?", deps=deps, message_history=r1.all_messages())
    returned = last_return(s2.sent[1])  # the second question's search result, as the model read it
    full_text = deps.state["rag"]["citation_index"][hits[0]]["text"]
    assert f"[{hits[0]}] (rank 1 of" in returned and TEXT_ABOVE in returned and full_text not in returned
    others = [t for cid, t in ((h["chunk_id"], h["snippet"]) for h in ledger.find_question(
        deps.state["rag"], len(r1.all_messages()))["searches"][0]["hits"]) if cid != hits[0]]
    assert others and all(" ".join(t.removesuffix("…").split()[:6]) in " ".join(returned.split()) for t in others)
    # a history that leaves out the first question: the second one's slot carries the text again
    messages, q2 = r2.all_messages(), len(r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=Deps(state=deps.state, history_offset=q2), message_history=messages[q2:])
    (second,) = search_returns(s3.sent[0])
    assert full_text in second and TEXT_ABOVE not in second


async def test_nothing_cited_earlier_leaves_only_receipts(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps, n_cited=0)
    script = Script(text("Hi."))
    await agent_for(script, kb).run("hello", deps=deps, message_history=r1.all_messages())
    assert search_returns(script.sent[0]) == [RECEIPT]


async def test_call_return_pairs_stay_valid_and_the_current_question_is_untouched(kb):
    deps = Deps()
    r1, _ = await first_question(kb, deps)
    script = Script(search("bicycle chain"), cite_top(), text("Second."))
    await agent_for(script, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    wire = script.sent[-1]
    calls = [
        p.tool_call_id for m in wire if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]
    returns = [
        p.tool_call_id for m in wire if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)
    ]
    assert calls == returns
    current = search_returns(wire[len(r1.all_messages()) :])
    assert current[0] != RECEIPT and not current[0].startswith(CITED_HEADER)


async def test_cited_evidence_stays_citable_by_the_same_chunk_ids(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    script = Script(cite(hits[0]), text("As before [1]."))
    await agent_for(script, kb).run("Say again?", deps=deps, message_history=r1.all_messages())
    q2 = len(r1.all_messages())
    assert ledger.citation_status(deps.state, q2) == "grounded"
    assert "Registered 1 citation(s): [1] = " + hits[0] in last_return(script.sent[1], "rag_cite")


async def test_without_the_capability_the_transcript_reaches_the_model_untouched(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps, compact=False)
    script = Script(text("Hi."))
    await agent_for(script, kb, compact=False).run("hello", deps=deps, message_history=r1.all_messages())
    assert search_returns(script.sent[0]) == search_returns(r1.all_messages())
    assert all(h in search_returns(script.sent[0])[0] for h in hits)


async def test_refuses_when_earlier_evidence_has_no_record_of_what_was_cited(kb):
    r1, _ = await first_question(kb, Deps())
    script = Script(text("Hi."))
    with pytest.raises(EvidenceStateMissing, match="holds no record of what that question cited"):
        await agent_for(script, kb).run("hello", deps=Deps(), message_history=r1.all_messages())


async def test_a_question_that_cited_nothing_is_not_mistaken_for_missing_state(kb):
    deps = Deps()
    r1, _ = await first_question(kb, deps, n_cited=0)
    assert deps.state["rag"]["questions"][0]["declaration"]["chunk_ids"] == []
    script = Script(text("Hi."))
    assert (await agent_for(script, kb).run("hello", deps=deps, message_history=r1.all_messages())).output == "Hi."


async def test_retained_evidence_grows_it_does_not_vanish(kb):
    """Compaction reduces what a request carries; cited text from every earlier question stays."""
    deps = Deps()
    r1, hits1 = await first_question(kb, deps)
    s2 = Script(search("bicycle brakes"), cite_top(), text("B [2]."))
    r2 = await agent_for(s2, kb).run("Brakes?", deps=deps, message_history=r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=deps, message_history=r2.all_messages())
    sent = "\n".join(search_returns(s3.sent[0]))
    index = deps.state["rag"]["citation_index"]
    cited = ledger.cited_ids(deps.state, 0) + ledger.cited_ids(deps.state, len(r1.all_messages()))
    assert cited and all(f"[{cid}]" in sent and index[cid]["text"] in sent for cid in cited)


def test_compact_history_is_pure_and_leaves_other_tools_alone():
    messages = [
        ModelRequest(parts=[]),
        ModelResponse(
            parts=[
                ToolCallPart("rag_search", {"query": "x"}, tool_call_id="a"),
                ToolCallPart("other", {}, tool_call_id="b"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("rag_search", "hits", tool_call_id="a"),
                ToolReturnPart("other", "keep", tool_call_id="b"),
            ]
        ),
    ]
    state = {"rag": ledger.new_namespace()}
    ledger.begin_question(state["rag"], 0, "x")
    before = copy.deepcopy(messages)
    out = compact_history(messages, state=state, boundary=3, owned_tools=frozenset({"rag_search"}))
    assert messages == before
    assert [p.content for p in out[2].parts] == [RECEIPT, "keep"]
    assert dropped_chunks(state, 3) == []


class _Counted(list):
    """A ledger's records that count how many of them are read."""

    reads = 0

    def __getitem__(self, index):
        _Counted.reads += 1
        return super().__getitem__(index)


def _long_ledger(questions: int, seed: int) -> dict:
    """Two evidence namespaces over ``questions`` questions citing (again and again) a few of 12 chunks, some
    questions with superseded declarations, some asked of one namespace only."""
    import random

    rng = random.Random(seed)
    chunks = [f"{i:016x}" for i in range(12)]
    state = {"rag": ledger.new_namespace(), "analysis": ledger.new_namespace()}
    for q in range(0, questions * 3, 3):
        for name in ("rag", "analysis") if q % 2 else ("rag",):
            record = ledger.begin_question(state[name], q, f"question {q}")
            ledger.note_evidence(record, q)
            cited = rng.sample(chunks[: 3 + q % 9], rng.randint(0, 2))
            ledger.declare(record, cited, q + 1)
            if rng.random() < 0.2:
                ledger.note_evidence(record, q + 2)  # newer evidence: the declaration above is superseded
            for chunk_id in cited:
                state[name]["citation_index"].setdefault(chunk_id, {
                    "index": len(state[name]["citation_index"]) + 1, "chunk_id": chunk_id, "title": "T",
                    "headings": [], "pages": [], "text": f"text of {chunk_id}",
                })
    return state


@pytest.mark.parametrize("seed", range(6))
def test_what_was_cited_before_a_start_reads_the_newest_questions_only(seed):
    from haiku_tui.capabilities.views import kept_in_full

    state = _long_ledger(600, seed)
    for boundary in (0, 1, 4, 301, 900, 1799, 5000):
        walked = {c for q in range(boundary) for c in ledger.cited_ids(state, q)}
        dropped = dropped_chunks(state, boundary)
        assert len(dropped) == len(set(dropped)) and set(dropped) == walked
        assert kept_in_full(state, boundary) == walked  # no start recorded, no window: everything from the start
        assert ledger.cited_before(state, boundary) == bool(walked)
    for namespace in state.values():
        namespace["questions"] = _Counted(namespace["questions"])
    _Counted.reads = 0
    dropped_chunks(state, 5000), ledger.cited_before(state, 5000)
    assert _Counted.reads < 600  # back until every cited chunk was met, of 900 records


def _distinct_ledger(questions: int, chars: int = 100) -> tuple[dict, list[int]]:
    """``questions`` questions three messages apart, each citing one chunk of its own of ``chars`` characters."""
    state = {"rag": ledger.new_namespace()}
    starts = [3 * q for q in range(questions)]
    for q in starts:
        record = ledger.begin_question(state["rag"], q, f"question {q}")
        ledger.note_evidence(record, q)
        chunk_id = f"{q:016x}"
        ledger.declare(record, [chunk_id], q + 1)
        state["rag"]["citation_index"][chunk_id] = {
            "index": q + 1, "chunk_id": chunk_id, "title": "T", "headings": [], "pages": [], "text": "x" * chars,
        }
    return state, starts


def _host_starts(state: dict, starts: list[int], window: int, budget: int) -> list[int]:
    """Each question's start as a host planning its window with compaction's rule (and recording it) gets it."""
    from haiku_tui.capabilities.wire import window_start

    out = []
    for q in starts:
        start = plan_start(state, q, window_start(starts, q, window), budget)
        record_start(state, q, start)
        out.append(start)
    return out


def test_the_window_moves_in_steps_that_keep_a_quarter_of_it():
    state, starts = _distinct_ledger(45)
    planned = _host_starts(state, starts, 20, 0)
    earlier = [starts.index(q) - starts.index(s) for q, s in zip(starts, planned)]
    assert earlier[:21] == list(range(21))  # the whole history while the window holds it
    assert earlier[21] == 5 and max(earlier) <= 20  # then a quarter of it, growing again until the window is passed
    steps = [i for i in range(1, len(planned)) if planned[i] != planned[i - 1]]
    assert steps == [21, 37]
    assert planned == sorted(planned)


def test_the_cited_text_bound_moves_the_window_in_steps_too():
    state, starts = _distinct_ledger(40, chars=100)
    planned = _host_starts(state, starts, 0, 800)
    kept = [starts.index(q) - starts.index(s) for q, s in zip(starts, planned)]  # one 100-char chunk per question
    assert max(kept) * 100 <= 800
    steps = [i for i in range(1, len(planned)) if planned[i] != planned[i - 1]]
    assert steps and all(kept[i] * 100 <= 200 for i in steps)  # a step keeps at most a quarter of the bound
    assert all(b - a >= 4 for a, b in zip(steps, steps[1:]))  # and the questions between steps keep their start


def test_a_resumed_or_partial_session_plans_the_same_start():
    """The rule reads the previous question's recorded start, so any host computing it for the same question agrees."""
    state, starts = _distinct_ledger(30)
    planned = _host_starts(state, starts, 20, 0)
    from haiku_tui.capabilities.wire import window_start

    again = [plan_start(state, q, window_start(starts, q, 20), 0) for q in starts]
    assert again == planned


async def test_a_chunk_cited_before_the_window_is_named_and_stays_citable(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    s2 = Script(search("bicycle chain"), cite_top(), text("Chain [2]."))
    r2 = await agent_for(s2, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    messages, q2 = r2.all_messages(), len(r1.all_messages())
    older = ledger.cited_ids(deps.state, 0)[0]
    script = Script(cite(older), text("As before [1]."))
    windowed = Deps(state=deps.state, history_offset=q2)
    await agent_for(script, kb).run("The starter again?", deps=windowed, message_history=messages[q2:])
    first = script.sent[0][0].parts[0]
    assert str(first.content).startswith(DROPPED_HEADER) and f"[{older}] Source: " in str(first.content)
    assert deps.state["rag"]["citation_index"][older]["text"] not in str(first.content)
    assert ledger.citation_status(deps.state, len(messages)) == "grounded"
    assert f"= {older}" in last_return(script.sent[1], "rag_cite")


async def test_a_window_that_leaves_out_the_load_keeps_the_tools_from_the_first_request(kb):
    """The previous question had loaded the RAG capability; a run whose history no longer holds that load offers its
    tools from its first request (loaded again from code, in the question's own request), as the run before did."""
    deps = Deps()
    r1, _ = await first_question(kb, deps)
    s2 = Script(search("bicycle chain"), cite_top(), text("Chain [2]."))
    r2 = await agent_for(s2, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    messages, q2 = r2.all_messages(), len(r1.all_messages())
    s3 = Script(search("tea"), cite_top(), text("Tea [3]."))
    r3 = await agent_for(s3, kb).run(
        "Tea?", deps=Deps(state=deps.state, history_offset=q2), message_history=messages[q2:]
    )
    assert "rag_search" in s3.tools(0) and s3.tools(0) == s2.tools(len(s2.infos) - 1)
    assert not any(p.part_kind == "tool-call" and p.tool_name == "load_capability" for m in r3.new_messages()
                   for p in m.parts)
