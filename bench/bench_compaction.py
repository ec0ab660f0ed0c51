"""Request size per turn with and without evidence compaction, over the pydoc corpus.

A scripted model asks 20 questions in one conversation: each question searches (limit 5),
cites the top hit, and answers. Measured per turn: the characters of the last request of that
question as the model received it (the whole wire transcript), and a token estimate (chars / 4).

    python -m bench.bench_compaction
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

from bench.corpora.pydoc import write_corpus
from bench.sets.pydoc_questions import DEV, HELD_OUT
from haiku_tui.capabilities import Deps
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.policy import create_capability as policy
from haiku_tui.capabilities.rag import create_capability as rag
from haiku_tui.store import KnowledgeBase

QUESTIONS = [q for q, _ in DEV + HELD_OUT][:20]


def wire_chars(messages) -> int:
    total = 0
    for message in messages:
        for part in message.parts:
            content = getattr(part, "content", None)
            if content is not None:
                total += len(str(content))
            args = getattr(part, "args", None)
            if args is not None:
                total += len(str(args))
    return total


class Scripted:
    """Search the question, cite the top hit, answer; records the size of every request."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, messages, info) -> ModelResponse:
        self.sizes.append(wire_chars(messages))
        last = messages[-1].parts
        returns = [p for p in last if isinstance(p, ToolReturnPart)]
        if not returns:
            question = str(last[-1].content)
            return ModelResponse(parts=[ToolCallPart("rag_search", {"query": question, "limit": 5})])
        if returns[0].tool_name == "rag_search":
            first = str(returns[0].content).split("]", 1)[0].lstrip("[")
            return ModelResponse(parts=[ToolCallPart("rag_cite", {"chunk_ids": [first]})])
        return ModelResponse(parts=[TextPart("An answer grounded in the cited chunk [1].")])


async def conversation(kb: KnowledgeBase, compact: bool) -> list[int]:
    model = Scripted()
    capabilities = [rag(kb=kb, defer_loading=False), policy()] + ([compaction()] if compact else [])
    agent = Agent(FunctionModel(model), deps_type=Deps, capabilities=capabilities)
    deps, history, per_turn = Deps(), [], []
    for question in QUESTIONS:
        before = len(model.sizes)
        result = await agent.run(question, deps=deps, message_history=history)
        history = result.all_messages()
        per_turn.append(max(model.sizes[before:]))
    return per_turn


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_corpus(Path(tmp) / "corpus")
        kb = KnowledgeBase.open(str(Path(tmp) / "kb.lancedb"))
        kb.add(files)
        plain = asyncio.run(conversation(kb, compact=False))
        compacted = asyncio.run(conversation(kb, compact=True))
    print("| turn | without compaction (chars / ~tokens) | with compaction (chars / ~tokens) | ratio |")
    print("|---:|---:|---:|---:|")
    for turn, (a, b) in enumerate(zip(plain, compacted, strict=True), start=1):
        print(f"| {turn} | {a:,} / {a // 4:,} | {b:,} / {b // 4:,} | {b / a:.2f} |")
    print(f"\nAt turn {len(plain)}: compaction sends {compacted[-1] / plain[-1]:.2f}× the characters "
          f"({plain[-1] / compacted[-1]:.1f}× smaller).")


if __name__ == "__main__":
    main()
