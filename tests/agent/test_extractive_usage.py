"""The extractive model's token estimate: from the characters of each request it receives, 4 per token."""

from __future__ import annotations

from pydantic_ai.messages import ModelResponse

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.agent.extractive import ExtractiveModel, respond, stream_respond
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.wire import CHARS_PER_TOKEN, message_chars, question_starts, session_tokens, wire_requests
from tests.agent.streaming import stream_run


def _spying_model(received: list) -> ExtractiveModel:
    async def spy(messages, info):
        received.append(list(messages))
        async for item in stream_respond(messages, info):
            yield item

    return ExtractiveModel(respond, stream_function=spy, model_name="extractive")


async def test_streamed_requests_count_the_characters_they_carry(small_kb):
    received: list = []
    agent = build_agent(AgentConfig(), kb=small_kb, model=_spying_model(received))
    deps = Deps()
    _, _, first = await stream_run(agent, "How do I feed a sourdough starter?", deps)
    responses = [m for m in first.all_messages() if isinstance(m, ModelResponse)]
    assert len(responses) == len(received) >= 3
    for response, messages in zip(responses, received):
        chars = message_chars(messages)
        assert response.usage.input_tokens == -(-chars // CHARS_PER_TOKEN) > 50
    # the requests grow as results come in, and so does the estimate (Pydantic AI's stream guess was a flat 50)
    inputs = [r.usage.input_tokens for r in responses]
    assert inputs == sorted(inputs) and inputs[-1] > inputs[0]
    total = session_tokens(first.all_messages())
    assert total.estimated and total.input == sum(inputs)


async def test_the_wire_inspector_estimates_each_request_from_its_characters(small_kb):
    agent = build_agent(AgentConfig(), kb=small_kb)
    deps = Deps()
    first = await agent.run("How do I feed a sourdough starter?", deps=deps)  # the non-streamed path estimates too
    result = await agent.run("And a bicycle chain?", deps=deps, message_history=first.all_messages())
    messages = result.all_messages()
    requests = wire_requests(deps.state, messages, question_starts(messages)[-1])
    assert requests and all(r.tokens.estimated and r.tokens.input == -(-r.chars // CHARS_PER_TOKEN) for r in requests)
    responses = [m for m in messages if isinstance(m, ModelResponse)]
    assert all(r.usage.input_tokens > 50 and r.usage.output_tokens > 0 for r in responses)
