"""Scripted FunctionModel helpers for capability tests: each step decides one model response."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from haiku_tui.capabilities.rag import RAG_ID

CHUNK_ID = re.compile(r"^\[([0-9a-f]{16})\]", re.MULTILINE)
Step = ModelResponse | Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def call(name: str, **args: Any) -> ModelResponse:
    """A response calling one tool."""
    return ModelResponse(parts=[ToolCallPart(name, args)])


def text(content: str) -> ModelResponse:
    """A final text response."""
    return ModelResponse(parts=[TextPart(content)])


def load() -> ModelResponse:
    """Load the RAG capability."""
    return call("load_capability", id=RAG_ID)


def search(query: str, limit: int | None = None) -> ModelResponse:
    return call("rag_search", query=query, **({} if limit is None else {"limit": limit}))


def cite(*ids: str) -> ModelResponse:
    return call("rag_cite", chunk_ids=list(ids))


def last_return(messages: list[ModelMessage], tool: str = "rag_search") -> str:
    """Content of the newest return of ``tool`` the model was sent."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, ToolReturnPart) and part.tool_name == tool:
                    return str(part.content)
    raise AssertionError(f"no {tool} return in the request")


def ids_in(content: str) -> list[str]:
    """Chunk ids at the start of result blocks, in rank order."""
    return CHUNK_ID.findall(content)


def newest_hits(messages: list[ModelMessage]) -> list[str]:
    """Chunk ids of the newest search return that listed any."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if (
                    isinstance(part, ToolReturnPart)
                    and part.tool_name.endswith("_search")
                    and ids_in(str(part.content))
                ):
                    return ids_in(str(part.content))
    raise AssertionError("no search results in the request")


def cite_top(n: int = 1) -> Step:
    """Cite the top ``n`` results of the newest search that found something."""
    return lambda messages, info: cite(*newest_hits(messages)[:n])


class Script:
    """A FunctionModel that plays ``steps`` in order and records every request it was sent."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.sent: list[list[ModelMessage]] = []
        self.infos: list[AgentInfo] = []

    def extend(self, *steps: Step) -> Script:
        self.steps.extend(steps)
        return self

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.sent.append(list(messages))
        self.infos.append(info)
        if not self.steps:
            raise AssertionError("the script ran out of steps")
        step = self.steps.pop(0)
        return step(messages, info) if callable(step) else step

    async def stream(self, messages: list[ModelMessage], info: AgentInfo):
        """The same script, streamed: text in two chunks, tool calls as deltas."""
        response = self(messages, info)
        texts = [p.content for p in response.parts if isinstance(p, TextPart)]
        calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
        if texts:
            whole = "".join(texts)
            yield whole[: len(whole) // 2]
            yield whole[len(whole) // 2 :]
        else:
            for i, part in enumerate(calls):
                yield {
                    i: DeltaToolCall(
                        name=part.tool_name, json_args=part.args_as_json_str(), tool_call_id=part.tool_call_id
                    )
                }

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self, stream_function=self.stream, model_name="script")

    def tools(self, request: int) -> list[str]:
        """Names of the function tools offered on request ``request`` (0-based)."""
        return [t.name for t in self.infos[request].function_tools]


def wire_text(messages: list[ModelMessage]) -> str:
    """Everything a request carried, as one string (for 'is X on the wire' assertions)."""
    out = []
    for message in messages:
        for part in message.parts:
            content = getattr(part, "content", None)
            if content is not None:
                out.append(str(content))
            args = getattr(part, "args", None)
            if args is not None:
                out.append(str(args))
    return "\n".join(out)


def sent_text(request: ModelRequest) -> str:
    """Everything one request carried as the model received it (capability parts rendered, e.g. ``<passages>``)."""
    out = []
    for part in request.parts:
        content = getattr(part, "content", "")
        if isinstance(content, list):
            content = "".join(getattr(c, "content", str(c)) for c in content)
        out.append(str(content))
    return "\n".join(out)
