"""The wire inspector shows exactly the requests the model received, after compaction."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart
from pydantic_ai.usage import RequestUsage

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.compaction import DROPPED_HEADER
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.rag import create_capability as rag
from haiku_tui.capabilities.views import request_size
from haiku_tui.capabilities.wire import (
    CHARS_PER_TOKEN,
    Tokens,
    question_starts,
    response_tokens,
    session_sizes,
    session_tokens,
    wire_requests,
)
from tests.capabilities.scripts import Script, cite_top, load, search, text


def _dump(messages) -> list:
    """What the conversation carried: every prompt, answer, tool call and tool result, in order.

    Pydantic AI's own framing (instructions wrapped as context elements, tool-availability notes)
    is the model's rendering of the same records and is left out of the comparison.
    """
    data = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return [
        (part["part_kind"], part.get("content"), part.get("args"), part.get("tool_name"))
        for message in data
        for part in message["parts"]
        if part["part_kind"] in ("user-prompt", "tool-call", "tool-return", "text")
        and not str(part.get("content") or "").startswith("<system>")
    ]


async def _two_questions(kb):
    script = Script(load(), search("sourdough starter"), cite_top(), text("Feed it daily [1]."))
    deps = Deps()
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), compaction()])
    r1 = await agent.run("How do I keep a starter?", deps=deps)
    first_requests = len(script.sent)
    script.extend(search("bicycle chain"), cite_top(), text("Oil the chain [2]."))
    r2 = await agent.run("And bicycles?", deps=deps, message_history=r1.all_messages())
    return script, deps, r2.all_messages(), first_requests


async def test_inspector_requests_equal_what_the_function_model_received(kb):
    script, deps, messages, first = await _two_questions(kb)
    q1, q2 = question_starts(messages)
    shown = wire_requests(deps.state, messages, q2)
    received = script.sent[first:]
    assert len(shown) == len(received) == 3
    for request, sent in zip(shown, received):
        assert _dump(request.messages) == _dump(sent)
    assert len(wire_requests(deps.state, messages, q1)) == first


async def test_parts_are_labelled_and_earlier_history_folded(kb):
    _, deps, messages, _ = await _two_questions(kb)
    q2 = question_starts(messages)[1]
    last = wire_requests(deps.state, messages, q2)[-1]
    kinds = [p.kind for p in last.parts]
    assert "evidence retained" in kinds and "evidence current" in kinds and "prompt" in kinds and "tool call" in kinds
    assert all(p.folded for p in last.parts if p.kind == "answer" and "daily" in p.text)
    assert not any(p.folded for p in last.parts if p.kind == "evidence retained")
    assert last.chars < last.uncompacted_chars
    assert '"tool_name": "rag_search"' in last.as_json()


async def test_session_sizes_give_one_bar_per_question(kb):
    _, deps, messages, _ = await _two_questions(kb)
    sizes = session_sizes(deps.state, messages)
    assert [q for q, _, _ in sizes] == question_starts(messages)
    (_, sent1, full1), (_, sent2, full2) = sizes
    assert sent1 == full1 and sent2 < full2


async def test_tokens_are_estimated_from_the_request_characters_for_a_local_model_and_sum_over_the_session(kb):
    _, deps, messages, _ = await _two_questions(kb)
    q2 = question_starts(messages)[1]
    requests = wire_requests(deps.state, messages, q2)
    assert all(r.tokens.estimated and r.tokens.input == -(-r.chars // CHARS_PER_TOKEN) for r in requests)
    responses = [m for m in messages if isinstance(m, ModelResponse)]
    total = session_tokens(messages)
    assert total.estimated and total.input == sum(response_tokens(r).input for r in responses) > 0


def test_reported_usage_is_not_an_estimate():
    reported = ModelResponse(
        parts=[TextPart("hi")], usage=RequestUsage(input_tokens=120, output_tokens=7), provider_name="openai"
    )
    assert response_tokens(reported) == Tokens(120, 7, False)


async def test_a_windowed_run_keeps_absolute_identities_and_the_inspector_rebuilds_it(kb):
    """The host passes only the last question (history_offset): the wire view with the same window
    equals what the model received, the new question's identity is its index in the whole history,
    and evidence cited by a question outside the window still reaches the model in the capsule."""
    script, deps, messages, _ = await _two_questions(kb)
    q1, q2 = question_starts(messages)
    before = len(script.sent)
    script.extend(search("sourdough starter"), cite_top(), text("Again [1]."))
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), compaction()])
    windowed = Deps(state=deps.state, history_offset=q2)
    r3 = await agent.run("Once more?", deps=windowed, message_history=messages[q2:])
    whole = messages + r3.new_messages()
    q3 = question_starts(whole)[2]
    assert q3 == len(messages)
    assert windowed.state["rag"]["question"] == q3
    shown = wire_requests(windowed.state, whole, q3, window=1)
    received = script.sent[before:]
    assert len(shown) == len(received) == 3
    for request, sent in zip(shown, received):
        assert _dump(request.messages) == _dump(sent)
    assert not any(c == "How do I keep a starter?" for kind, c, _, _ in _dump(received[0]) if kind == "user-prompt")
    capsule = next(p.text for p in shown[0].parts if p.kind == "capsule")
    assert "starter" in capsule.lower()  # question 1 (outside the window) cited the sourdough chunk
    assert len(wire_requests(windowed.state, whole, q3)) == 3  # unwindowed view: same steps, longer requests


async def test_the_last_question_view_alone_equals_the_full_list_s_last(kb):
    from haiku_tui.capabilities.views import question_views

    _, deps, messages, _ = await _two_questions(kb)
    full = question_views(deps.state, messages)
    assert question_views(deps.state, messages, last=1) == full[-1:]
    assert question_views(deps.state, messages, last=5) == full


async def test_a_window_names_the_chunks_cited_before_it(kb):
    """The window holds only a question that did not search: the chunks cited before it lead the window's first
    request, named by id and source, and the inspector labels them as such."""
    script, deps, messages, _ = await _two_questions(kb)
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), compaction()])
    script.extend(text("Happy to help."))
    r3 = await agent.run("Thanks!", deps=deps, message_history=messages)
    messages = r3.all_messages()
    q1, q2, q3 = question_starts(messages)
    before = len(script.sent)
    script.extend(text("Feed it daily [1]; oil the chain [2]."))
    windowed = Deps(state=deps.state, history_offset=q3)
    r4 = await agent.run("Summarise?", deps=windowed, message_history=messages[q3:])
    received = script.sent[before:]
    prompts = [c for kind, c, _, _ in _dump(received[0]) if kind == "user-prompt"]
    cited = ledger.cited_ids(deps.state, q1) + ledger.cited_ids(deps.state, q2)
    assert prompts[0].startswith(DROPPED_HEADER) and all(f"[{c}] Source: " in prompts[0] for c in cited)
    assert prompts[1:] == ["Thanks!", "Summarise?"]
    whole = messages + r4.new_messages()
    shown = wire_requests(windowed.state, whole, question_starts(whole)[3], window=1)
    assert _dump(shown[0].messages) == _dump(received[0])
    assert [p.kind for p in shown[0].parts if p.kind != "instructions"][:2] == ["capsule", "prompt"]


async def test_the_inspector_rebuilds_the_recorded_start_whatever_the_window_now(kb):
    """A run given a window records where its history started: the inspector rebuilds every request part by part
    from that record, with the window it was given or another, and says how many chunks the window named."""
    script, deps, messages, _ = await _two_questions(kb)
    q1, q2 = question_starts(messages)
    before = len(script.sent)
    script.extend(search("sourdough starter"), cite_top(), text("Again [1]."))
    agent = Agent(script.model, deps_type=Deps, capabilities=[rag(kb=kb), compaction()])
    windowed = Deps(state=deps.state, history_offset=q2)
    r3 = await agent.run("Once more?", deps=windowed, message_history=messages[q2:])
    whole = messages + r3.new_messages()
    q3 = question_starts(whole)[2]
    received = script.sent[before:]
    for window in (1, 0, 5):
        shown = wire_requests(windowed.state, whole, q3, window=window)
        assert len(shown) == len(received) == 3
        for request, sent in zip(shown, received):
            assert _dump(request.messages) == _dump(sent)
    capsule = next(p for p in shown[0].parts if p.kind == "capsule")
    assert capsule.note.startswith(f"{len(ledger.cited_ids(deps.state, q1))} chunk(s) cited for questions")
    assert request_size(windowed.state, whole, window=0)[0] == request_size(windowed.state, whole, window=1)[0]


async def test_each_request_says_how_much_of_it_repeats_the_request_before(kb):
    """Within a question each request extends the one before; the next question's first request repeats the
    previous question's last up to that question's slot, which it rewrites once."""
    _, deps, messages, _ = await _two_questions(kb)
    q1, q2 = question_starts(messages)
    first, second = wire_requests(deps.state, messages, q1), wire_requests(deps.state, messages, q2)
    assert first[0].repeated == 0
    assert all(b.repeated >= sum(p.chars for p in a.parts) - 1 for a, b in zip(first[1:], first[2:]))
    assert 0 < second[0].repeated < second[0].chars
    assert all(b.repeated >= sum(p.chars for p in a.parts) - 1 for a, b in zip(second, second[1:]))


def test_cached_tokens_are_read_from_the_usage_the_server_reported():
    response = ModelResponse(
        parts=[TextPart("x")], usage=RequestUsage(input_tokens=900, output_tokens=5, cache_read_tokens=700),
        provider_name="openai",
    )
    assert response_tokens(response) == Tokens(900, 5, False, 700)
    assert (response_tokens(response) + Tokens(10, 1, False, 0)).cached == 700
