"""Helpers for the session tests: a tiny in-memory knowledge base and a scripted FunctionModel that
drive the real RAG / compaction / policy capabilities."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from haiku_tui.capabilities import Deps
from haiku_tui.store.records import ChunkRecord, SearchHit


@dataclass(frozen=True)
class _Chunk:
    chunk_id: str
    title: str
    path: str
    headings: tuple[str, ...]
    pages: tuple[int, ...]
    text: str


CHUNKS = [
    _Chunk("a1b2c3d4e5f60718", "Solar Guide", "docs/solar.md", ("Panels", "Efficiency"), (3, 4),
           "Modern solar panels convert about twenty percent of sunlight into electricity."),
    _Chunk("b2c3d4e5f6071829", "Solar Guide", "docs/solar.md", ("Panels", "Cleaning"), (7,),
           "Clean solar panels twice a year with soft water."),
    _Chunk("c3d4e5f60718293a", "Bread Book", "docs/bread.pdf", ("Starter",), (12,),
           "Feed a sourdough starter daily with equal weights of flour and water."),
    _Chunk("d4e5f60718293a4b", "Bread Book", "docs/bread.pdf", ("Baking",), (30, 31),
           "Bake sourdough bread at a high temperature with steam."),
]


class FakeKB:
    """Word-overlap search over four chunks: the two methods the RAG capability uses."""

    def search(self, query: str, *, limit: int = 5, filter: str | None = None) -> list[SearchHit]:
        words = set(re.findall(r"\w+", query.lower()))
        scored = []
        for order, chunk in enumerate(CHUNKS):
            score = len(words & set(re.findall(r"\w+", chunk.text.lower())))
            if score:
                scored.append((score, order, chunk))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [
            SearchHit(c.chunk_id, "doc-" + c.title[:4].lower(), c.title, c.path, c.headings, c.pages, order, c.text,
                      float(score), rank)
            for rank, (score, order, c) in enumerate(scored[:limit], start=1)
        ]

    def get_chunks(self, chunk_ids) -> dict[str, ChunkRecord]:
        by_id = {c.chunk_id: (i, c) for i, c in enumerate(CHUNKS)}
        return {
            cid: ChunkRecord(cid, "doc-" + c.title[:4].lower(), c.title, c.path, c.headings, c.pages, i, c.text)
            for cid in chunk_ids
            if cid in by_id
            for i, c in [by_id[cid]]
        }


REDIRECT = "[haiku-tui/citation-redirect]"


def _last_request(messages) -> ModelRequest:
    return next(m for m in reversed(messages) if isinstance(m, ModelRequest))


def _prompt(messages) -> str:
    """The user's newest question: not a redirect, nor the application's words as the model sees them."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if (
                    isinstance(part, UserPromptPart)
                    and isinstance(part.content, str)
                    and REDIRECT not in part.content
                    and not part.content.startswith("<system>")
                ):
                    return part.content
    return ""


class Researcher:
    """A scripted model: search for the question, cite the top hit, answer with the [n] it was given.

    Questions containing "nothing" cite [] (ungrounded); "skip" answers without declaring and then answers the
    policy's redirect by citing [] (ungrounded); "ignore" answers without declaring and ignores the redirect
    (a violation). It records the requests it was sent.
    """

    def __init__(self) -> None:
        self.sent: list[list] = []

    def __call__(self, messages, info: AgentInfo) -> ModelResponse:
        self.sent.append(list(messages))
        last = _last_request(messages)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        prompt = _prompt(messages)
        if not returns:
            if REDIRECT in str([p.content for p in last.parts if isinstance(p, UserPromptPart)]):
                if "ignore" in prompt:
                    return ModelResponse(parts=[TextPart(f"Answer to {prompt!r}, still undeclared.")])
                return ModelResponse(parts=[ToolCallPart("rag_cite", {"chunk_ids": []})])
            return ModelResponse(parts=[ToolCallPart("rag_search", {"query": prompt})])
        ret = returns[-1]
        if ret.tool_name == "rag_search":
            if "skip" in prompt or "ignore" in prompt:
                return ModelResponse(parts=[TextPart(f"Answer to {prompt!r} without a declaration.")])
            ids = re.findall(r"^\[([0-9a-f]{16})\]", str(ret.content), re.MULTILINE)
            return ModelResponse(
                parts=[ToolCallPart("rag_cite", {"chunk_ids": [] if "nothing" in prompt else ids[:1]})]
            )
        if ret.tool_name == "rag_cite":
            numbers = re.findall(r"\[(\d+)\]", str(ret.content))
            markers = "".join(f"[{n}]" for n in numbers)
            return ModelResponse(parts=[TextPart(f"Answer to {prompt!r} {markers}".strip())])
        return ModelResponse(parts=[TextPart("done")])

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self, model_name="researcher")


def make_agent(model, kb, *, compaction: bool = True, policy: bool = True) -> Agent:
    from haiku_tui.capabilities.compaction import create_capability as compaction_cap
    from haiku_tui.capabilities.policy import create_capability as policy_cap
    from haiku_tui.capabilities.rag import create_capability as rag

    caps = [rag(kb=kb, defer_loading=False)]
    if compaction:
        caps.append(compaction_cap())
    if policy:
        caps.append(policy_cap())
    return Agent(model, deps_type=Deps, capabilities=caps)
