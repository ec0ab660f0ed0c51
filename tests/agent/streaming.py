"""Run an agent with ``run_stream_events`` and collect what a streaming host would show."""

from __future__ import annotations

from typing import Any

from pydantic_ai import AgentRunResultEvent
from pydantic_ai.messages import (
    FunctionToolCallEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
)


async def stream_run(agent: Any, prompt: str, deps: Any) -> tuple[list[str], list[str], Any]:
    """(text chunks as streamed, names of the tools called in order, the run result)."""
    chunks: list[str] = []
    tools: list[str] = []
    result = None
    async with agent.run_stream_events(prompt, deps=deps) as events:
        async for event in events:
            if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                chunks.append(event.part.content)
            elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                chunks.append(event.delta.content_delta)
            elif isinstance(event, FunctionToolCallEvent):
                tools.append(event.part.tool_name)
            elif isinstance(event, AgentRunResultEvent):
                result = event.result
    assert result is not None, "run_stream_events ended without a result"
    return chunks, tools, result
