"""Evidence compaction: what each request carries on the wire, and what history keeps."""

from __future__ import annotations

import copy

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.compaction import CAPSULE_HEADER, RECEIPT, build_capsule, compact_history
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.errors import EvidenceStateMissing
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
    assert earlier.startswith(CAPSULE_HEADER)
    full_text = deps.state["rag"]["citation_index"][cited]["text"]
    assert f"[{cited}] Source: " in earlier and full_text in earlier
    assert all(u not in wire_text(wire) for u in uncited)
    assert "[Cited for the earlier question: How do I keep a starter?]" in earlier


async def test_stored_history_is_untouched(kb):
    deps = Deps()
    r1, hits = await first_question(kb, deps)
    original = copy.deepcopy(r1.all_messages())
    script = Script(search("bicycle chain"), cite_top(), text("Second."))
    r2 = await agent_for(script, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    assert r2.all_messages()[: len(original)] == original
    assert all(h in search_returns(r2.all_messages())[0] for h in hits)


async def test_older_returns_get_receipts_and_the_newest_carries_the_capsule(kb):
    deps = Deps()
    r1, _ = await first_question(kb, deps)
    s2 = Script(search("tea temperature"), search("black tea"), cite_top(), text("Tea [2]."))
    r2 = await agent_for(s2, kb).run("Tea?", deps=deps, message_history=r1.all_messages())
    s3 = Script(text("Hi."))
    await agent_for(s3, kb).run("hello", deps=deps, message_history=r2.all_messages())
    returns = search_returns(s3.sent[0])
    assert returns[:2] == [RECEIPT, RECEIPT]
    assert returns[2].startswith(CAPSULE_HEADER)
    assert returns[2].index("Tea?") < returns[2].index("How do I keep a starter?")  # newest question first


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
    assert current[0] != RECEIPT and not current[0].startswith(CAPSULE_HEADER)


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
    capsule = search_returns(s3.sent[0])[-1]
    assert all(
        f"[{cid}]" in capsule
        for cid in ledger.cited_ids(deps.state, 0) + ledger.cited_ids(deps.state, len(r1.all_messages()))
    )


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
    before = copy.deepcopy(messages)
    out = compact_history(messages, boundary=3, owned_tools=frozenset({"rag_search"}), capsule=None)
    assert messages == before
    assert [p.content for p in out[2].parts] == [RECEIPT, "keep"]
    assert build_capsule({"rag": ledger.new_namespace()}, 3) is None


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


def _capsule_walking_everything(state: dict, boundary: int) -> str | None:
    """The capsule as built before the newest-first read: one pass over every record."""
    from haiku_tui.capabilities.evidence import source_label
    from haiku_tui.text import one_line

    prompts, owner = {}, {}
    for namespace in ledger.evidence_namespaces(state).values():
        for record in namespace["questions"]:
            if record["question"] < boundary:
                prompts.setdefault(record["question"], record["prompt"])
    for q in sorted(prompts):
        for chunk_id in ledger.cited_ids(state, q):
            owner[chunk_id] = q
    if not owner:
        return None
    owned: dict[int, list[str]] = {}
    for chunk_id, q in owner.items():
        owned.setdefault(q, []).append(chunk_id)
    blocks = [CAPSULE_HEADER]
    for q in sorted(owned, reverse=True):
        blocks.append(f"[Cited for the earlier question: {one_line(prompts[q], 120)}]")
        for chunk_id in sorted(owned[q]):
            entry = ledger.citation_for(state, chunk_id)
            blocks.append(
                f"[{chunk_id}] Source: {source_label(entry['title'], entry['headings'], entry['pages'])}\n"
                f"{entry['text']}"
            )
    return "\n\n".join(blocks)


@pytest.mark.parametrize("seed", range(6))
def test_the_capsule_and_what_was_cited_before_read_the_newest_questions_only(seed):
    from haiku_tui.capabilities.views import kept_in_full

    state = _long_ledger(600, seed)
    for boundary in (0, 1, 4, 301, 900, 1799, 5000):
        capsule = build_capsule(state, boundary)
        assert (capsule.text if capsule else None) == _capsule_walking_everything(state, boundary)
        walked = {c for q in range(boundary) for c in ledger.cited_ids(state, q)}
        assert kept_in_full(state, boundary) == walked
        assert ledger.cited_before(state, boundary) == bool(walked)
    for namespace in state.values():
        namespace["questions"] = _Counted(namespace["questions"])
    _Counted.reads = 0
    build_capsule(state, 5000), kept_in_full(state, 5000), ledger.cited_before(state, 5000)
    assert _Counted.reads < 900  # the three together, of 900 records: each back until every cited chunk was met


async def _three_questions_bounded(kb):
    """Two questions each citing one chunk, then a third run whose budget keeps only the newest chunk in full."""
    deps = Deps()
    r1, hits1 = await first_question(kb, deps)
    s2 = Script(search("bicycle chain"), cite_top(), text("Chain [2]."))
    r2 = await agent_for(s2, kb).run("And bicycles?", deps=deps, message_history=r1.all_messages())
    older, newer = hits1[0], ledger.cited_ids(deps.state, len(r1.all_messages()))[0]
    budget = len(deps.state["rag"]["citation_index"][newer]["text"])
    return deps, r2.all_messages(), older, newer, budget


async def test_a_bounded_capsule_keeps_the_newest_cited_chunks_in_full_and_names_older_ones(kb):
    deps, messages, older, newer, budget = await _three_questions_bounded(kb)
    script = Script(text("Hi."))
    bounded = Deps(state=deps.state, retained_chars=budget)
    await agent_for(script, kb).run("hello", deps=bounded, message_history=messages)
    capsule = search_returns(script.sent[0])[-1]
    index = deps.state["rag"]["citation_index"]
    assert capsule.startswith(CAPSULE_HEADER)
    assert index[newer]["text"] in capsule and "[Cited for the earlier question: And bicycles?]" in capsule
    assert index[older]["text"] not in capsule and "How do I keep a starter?" not in capsule
    receipts = capsule.split("[1 earlier cited chunk(s) not shown in full", 1)[1]
    assert f"[{older}] Source: " in receipts and f"[{newer}]" not in receipts
    assert len(capsule) < len(build_capsule(deps.state, len(messages)).text)


async def test_a_chunk_named_only_by_its_receipt_stays_citable(kb):
    deps, messages, older, _, budget = await _three_questions_bounded(kb)
    script = Script(cite(older), text("As before [1]."))
    bounded = Deps(state=deps.state, retained_chars=budget)
    await agent_for(script, kb).run("The starter again?", deps=bounded, message_history=messages)
    assert f"[{older}] Source: " in search_returns(script.sent[0])[-1] and older in ledger.cited_ids(
        deps.state, len(messages)
    )
    assert ledger.citation_status(deps.state, len(messages)) == "grounded"
    assert f"= {older}" in last_return(script.sent[1], "rag_cite")


async def test_no_budget_or_a_budget_that_holds_everything_keeps_every_cited_chunk_in_full(kb):
    deps, messages, older, newer, budget = await _three_questions_bounded(kb)
    unbounded = build_capsule(deps.state, len(messages))
    index = deps.state["rag"]["citation_index"]
    assert (unbounded.kept, unbounded.receipted) == (2, 0)
    assert index[older]["text"] in unbounded.text and index[newer]["text"] in unbounded.text
    whole = budget + len(index[older]["text"])
    assert build_capsule(deps.state, len(messages), 0) == unbounded == build_capsule(deps.state, len(messages), whole)
    assert build_capsule(deps.state, len(messages), whole - 1).receipted == 1
    script = Script(text("Hi."))
    await agent_for(script, kb).run("hello", deps=Deps(state=deps.state, retained_chars=0), message_history=messages)
    assert search_returns(script.sent[0])[-1] == unbounded.text


@pytest.mark.parametrize("seed", range(3))
def test_the_bound_keeps_a_newest_first_prefix_of_the_cited_chunks(seed):
    """Over a long ledger: the chunks kept in full are the most recently cited ones, as many as fit in the budget;
    every other cited chunk is a receipt line naming it, its text left out."""
    import re

    state = _long_ledger(600, seed)
    everything = build_capsule(state, 1799)
    order = re.findall(r"^\[([0-9a-f]{16})\] Source: ", everything.text, re.MULTILINE)  # newest question first
    for budget in (1, 24, 25, 100, 200, 10_000):
        capsule = build_capsule(state, 1799, budget)
        fits = sum(1 for i in range(len(order)) if 24 * (i + 1) <= budget)  # every text here is 24 characters
        assert (capsule.kept, capsule.receipted) == (fits, len(order) - fits)
        for chunk_id in order[:fits]:
            assert f"[{chunk_id}] Source: \"T\"\ntext of {chunk_id}" in capsule.text
        if capsule.receipted:
            receipts = capsule.text.split(f"[{capsule.receipted} earlier cited chunk(s) not shown in full", 1)[1]
            assert re.findall(r"^\[([0-9a-f]{16})\] Source: ", receipts, re.MULTILINE) == order[fits:]
            assert "text of" not in receipts
