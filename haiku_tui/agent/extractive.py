"""``extractive``: the offline default model. No network, no weights, retrieval only.

A Pydantic AI ``FunctionModel`` that plays the part of a careful model with the RAG tools: it
loads the capability when it is deferred, searches for the question (a short follow-up that points back,
"and how long should I steep it?", together with the question before it), cites the chunks it
quotes and answers with the best-matching sentences, each followed by its ``[n]`` marker. Offered no
tools with passages in the question's request (search-first), it quotes those, marked with their numbers.
Greetings get a short reply without tools; a citation-policy redirect is answered by citing
and repeating the previous answer verbatim.

Every decision is made from the messages as the model receives them (rendered for the wire:
loaded instructions and retry feedback arrive as user parts), so it works the same under
``run``, ``run_stream_events`` and a resumed conversation. It keeps no state of its own.
"""

from __future__ import annotations

import functools
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

from haiku_tui.capabilities.evidence import RESULT_SEPARATOR, TEXT_ABOVE
from haiku_tui.capabilities.policy import REDIRECT_TAG
from haiku_tui.capabilities.rag import RAG_ID
from haiku_tui.capabilities.wire import estimated_tokens, message_chars
from haiku_tui.agent.quoting import Quote, Result, leaned_on, search_query, select
from haiku_tui.store.sentences import normal_word, words

MODEL_NAME = "extractive"

LOAD_TOOL = "load_capability"
SEARCH_TOOL = "rag_search"
CITE_TOOL = "rag_cite"
RETRY_TAG = "<pyai:retry_feedback>"

MAX_STEPS = 8
"""Model responses per question after which it answers with what it has (it never loops)."""
SEARCH_LIMIT = 10
STREAM_WORDS = 3
"""Words per streamed text chunk."""

FOOTER = "_Retrieval-only extractive answer: sentences quoted from your documents, no language model._"

# ---- text ---------------------------------------------------------------------------------

CHITCHAT = frozenset(
    """
    hi hello hey heya hiya howdy yo hallo hola greetings good morning afternoon evening day night
    thanks thank thankyou thx ty tysm cheers much lot so very a you all everyone folks there again
    bye goodbye see later ok okay k great cool nice awesome perfect lovely wonderful excellent
    fine how are doing is it going whats what up sup
    """.split()
)
THANKS = frozenset({"thanks", "thank", "thankyou", "thx", "ty", "tysm", "cheers"})
BYE = frozenset({"bye", "goodbye", "later", "night"})
ACK = frozenset(
    {"ok", "okay", "k", "great", "cool", "nice", "awesome", "perfect", "lovely", "wonderful", "excellent", "fine"}
)


def chitchat_kind(text: str) -> str | None:
    """``"greeting"``, ``"thanks"``, ``"bye"`` or ``"ack"`` for short chit-chat, else None."""
    tokens = [normal_word(w) for w in words(text)]
    if not tokens or len(tokens) > 6 or len(text) > 60:
        return None
    if not all(t in CHITCHAT for t in tokens):
        return None
    if any(t in THANKS for t in tokens):
        return "thanks"
    if any(t in BYE for t in tokens):
        return "bye"
    if all(t in ACK for t in tokens):
        return "ack"
    return "greeting"


REPLIES = {
    "greeting": (
        "Hello! Ask me a question about the documents in your knowledge base and I will answer "
        "with sentences quoted from them, each with its citation."
    ),
    "thanks": "You're welcome! Ask another question whenever you like.",
    "bye": "Goodbye! Your conversation is saved if you are using a session.",
    "ack": "Glad to help. Ask another question whenever you like.",
}

# ---- search results ----------------------------------------------------------------------

_BLOCK_HEAD = re.compile(r"^\[([0-9A-Za-z_-]+)\](?: \(rank (\d+) of (\d+)\))?[^\n]*$")


def parse_results(text: str) -> list[Result]:
    """Blocks ``[id] (rank i of n)`` / ``Source: …`` / text, separated by ``---`` lines."""
    out: list[Result] = []
    for block in text.split(RESULT_SEPARATOR):
        lines = block.strip("\n").split("\n")
        if not lines:
            continue
        head = _BLOCK_HEAD.match(lines[0].strip())
        if head is None:
            continue
        body = lines[1:]
        source = ""
        if body and body[0].startswith("Source:"):
            source = body[0][len("Source:") :].strip()
            body = body[1:]
        rank = int(head.group(2)) if head.group(2) else len(out) + 1
        out.append(Result(head.group(1), rank, source, "\n".join(body).strip()))
    return out


@functools.lru_cache(maxsize=2)  # the question being answered (its cite step, then its answer)
def _select(question: str, results: tuple[Result, ...], context: str = "") -> list[Quote]:
    """:func:`select` once per question and results: choosing what to cite and answering use the same quotes."""
    return select(question, list(results), context=context)


_REGISTERED = re.compile(r"\[(\d+)\] = ([0-9A-Za-z_-]+)")


def parse_citations(text: str) -> dict[str, int]:
    """``Registered N citation(s): [1] = <id>, [3] = <id>.`` → ``{id: number}``."""
    return {cid: int(number) for number, cid in _REGISTERED.findall(text)}


def compose(quotes: list[Quote], numbers: dict[str, int]) -> str:
    """The answer: each quoted sentence followed by its marker, then the retrieval-only note."""
    body = " ".join(f"{q.sentence} [{numbers[q.chunk_id]}]" if q.chunk_id in numbers else q.sentence for q in quotes)
    return f"{body}\n\n{FOOTER}"


def nothing_found(question: str) -> str:
    topic = " ".join(question.split())
    if len(topic) > 80:
        topic = topic[:79] + "…"
    return f"The knowledge base has nothing on this: no passage I found answers “{topic}”.\n\n{FOOTER}"


# ---- reading the conversation -------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return " ".join(item for item in content if isinstance(item, str))
    try:
        return json.dumps(content, default=str)
    except (TypeError, ValueError):
        return str(content)


def _is_human(part: Any) -> bool:
    if not isinstance(part, UserPromptPart):
        return False
    text = _content_text(part.content).strip()
    return bool(text) and not text.startswith("<system>") and RETRY_TAG not in text and REDIRECT_TAG not in text


@dataclass
class Event:
    kind: str  # "call" | "return" | "retry" | "redirect" | "text"
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    content: str = ""


@dataclass
class Turn:
    """The current question and everything that happened since it was asked."""

    question: str
    events: list[Event]
    responses: int
    previous: str = ""
    """The question asked before this one in the conversation the model was given ("" when none)."""
    passages: str | None = None
    """The numbered passages the question's request carries when it is answered search-first (no tools)."""
    shown: dict[str, str] = field(default_factory=dict)
    """The text of each result block the conversation shows in full, by chunk id (a later result repeating one
    says its text is above: :data:`~haiku_tui.capabilities.evidence.TEXT_ABOVE`)."""

    def calls(self, tool: str) -> list[Event]:
        return [e for e in self.events if e.kind == "call" and e.tool == tool]

    def returns(self, tool: str) -> list[Event]:
        return [e for e in self.events if e.kind == "return" and e.tool == tool]

    def last_redirect(self) -> int | None:
        idx = [i for i, e in enumerate(self.events) if e.kind == "redirect"]
        return idx[-1] if idx else None


def read_turn(messages: list[ModelMessage]) -> Turn:
    """Find the latest question the user asked and collect what followed it."""
    start = None
    question = previous = ""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, ModelRequest):
            humans = [p for p in message.parts if _is_human(p)]
            if humans and start is None:
                start, question = i, _content_text(humans[-1].content)
            elif humans:
                previous = _content_text(humans[-1].content)
                break
    events: list[Event] = []
    responses = 0
    last_call: str | None = None
    for message in messages[(start if start is not None else 0) :]:
        if isinstance(message, ModelResponse):
            responses += 1
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    args = part.args_as_dict() if part.args else {}
                    events.append(Event("call", part.tool_name, args))
                    last_call = part.tool_name
                elif isinstance(part, TextPart) and part.content.strip():
                    events.append(Event("text", content=part.content))
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    continue
                kind = getattr(part, "part_kind", "")
                text = _content_text(getattr(part, "content", ""))
                outcome = getattr(part, "outcome", "success")
                if kind == "retry-prompt" or outcome == "retried" or RETRY_TAG in text:
                    events.append(Event("retry", getattr(part, "tool_name", None) or last_call, content=text))
                elif kind == "tool-return" or (hasattr(part, "tool_call_id") and hasattr(part, "tool_name")):
                    # a failed tool (ToolFailed: budget spent, empty knowledge base) returns no results
                    content = text if outcome == "success" else ""
                    events.append(Event("return", getattr(part, "tool_name", None), content=content))
                elif REDIRECT_TAG in text:
                    events.append(Event("redirect", content=text))
    passages = _passages(messages[start]) if start is not None else None
    shown = {
        r.chunk_id: r.text
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if getattr(part, "part_kind", "") == "tool-return"
        for r in parse_results(_content_text(part.content))
        if r.text and r.text != TEXT_ABOVE
    }
    return Turn(question, events, responses, previous, passages, shown)


_PASSAGES = re.compile(r"<passages>\n?(.*?)\n?</passages>", re.S)
_PASSAGE_HEAD = re.compile(r"^\[(\d+)\] (.+)$", re.M)


def _passages(message: ModelMessage) -> str | None:
    """The ``<passages>`` frame of a question's request (search-first), as the model received it."""
    for part in message.parts:
        content = getattr(part, "content", None)
        if isinstance(content, list):
            pieces = [getattr(item, "content", item) for item in content]
            if (found := _PASSAGES.search("".join(p for p in pieces if isinstance(p, str)))) is not None:
                return found.group(1)
    return None


def parse_passages(text: str) -> list[Result]:
    """Search-first passages, ``[n] Title › heading`` then the text, as results whose id is their number."""
    heads = list(_PASSAGE_HEAD.finditer(text))
    ends = [head.start() for head in heads[1:]] + [len(text)]
    return [
        Result(head.group(1), rank, head.group(2), text[head.end() : end].strip())
        for rank, (head, end) in enumerate(zip(heads, ends), start=1)
    ]


# ---- deciding -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Say:
    text: str


Action = Call | Say


def _need_tool(tool: str, tools: set[str], turn: Turn) -> Action | None:
    """Load the capability when ``tool`` is hidden behind it (once per question), else None."""
    if tool in tools:
        return None
    if LOAD_TOOL in tools and not turn.calls(LOAD_TOOL):
        return Call(LOAD_TOOL, {"id": RAG_ID})
    return None


def decide(messages: list[ModelMessage], tools: Iterable[str]) -> Action:
    """The next step, from the conversation and the tools on offer."""
    available = set(tools)
    turn = read_turn(messages)
    question = turn.question

    # A citation-policy redirect: declare, then repeat the previous answer verbatim.
    redirect = turn.last_redirect()
    if redirect is not None:
        before = [e for e in turn.events[:redirect] if e.kind == "text"]
        previous = before[-1].content if before else ""
        after = turn.events[redirect + 1 :]
        cited = any(e.kind == "call" and e.tool == CITE_TOOL for e in after)
        if not cited and turn.responses < MAX_STEPS:
            if CITE_TOOL in available:
                return Call(CITE_TOOL, {"chunk_ids": []})
            load = _need_tool(CITE_TOOL, available, turn)
            if load is not None:
                return load
        return Say(previous or REPLIES["ack"])

    if turn.responses >= MAX_STEPS:
        return Say(nothing_found(question))

    # Greetings, thanks and short chit-chat: no tools.
    kind = chitchat_kind(question)
    if kind is not None and not any(e.kind == "call" for e in turn.events):
        return Say(REPLIES[kind])

    # Feedback from a failed call.
    last = turn.events[-1] if turn.events else None
    if last is not None and last.kind == "retry":
        if last.tool == CITE_TOOL:
            if any(not c.args.get("chunk_ids") for c in turn.calls(CITE_TOOL)) or CITE_TOOL not in available:
                return Say(nothing_found(question))
            return Call(CITE_TOOL, {"chunk_ids": []})
        if last.tool == LOAD_TOOL and SEARCH_TOOL not in available:
            return Say(nothing_found(question))

    # Search-first: no tools, the passages came with the question; quote them with their numbers.
    if turn.passages is not None and not available:
        passages = parse_passages(turn.passages)
        quotes = _select(question, tuple(passages), leaned_on(question, turn.previous))
        numbers = {p.chunk_id: int(p.chunk_id) for p in passages}
        return Say(compose(quotes, numbers) if quotes else nothing_found(question))

    # 1. Search (loading the capability first when it is deferred).
    if not turn.calls(SEARCH_TOOL):
        load = _need_tool(SEARCH_TOOL, available, turn)
        if load is not None:
            return load
        if SEARCH_TOOL not in available:
            return Say(
                "The knowledge-base tools are not available in this conversation, so I cannot answer "
                f"from your documents.\n\n{FOOTER}"
            )
        return Call(SEARCH_TOOL, {"query": search_query(question, turn.previous), "limit": SEARCH_LIMIT})

    # 2. Choose the sentences and cite their chunks.
    results: list[Result] = []
    for ret in turn.returns(SEARCH_TOOL):
        known = {r.chunk_id for r in results}
        results.extend(
            replace(r, text=turn.shown.get(r.chunk_id, "")) if r.text == TEXT_ABOVE else r
            for r in parse_results(ret.content)
            if r.chunk_id not in known
        )
    quotes = _select(question, tuple(results), leaned_on(question, turn.previous))
    cite_returns = turn.returns(CITE_TOOL)
    if not cite_returns:
        if CITE_TOOL not in available:
            return Say(compose(quotes, {}) if quotes else nothing_found(question))
        ids = list(dict.fromkeys(q.chunk_id for q in quotes))
        return Call(CITE_TOOL, {"chunk_ids": ids})

    # 3. Answer with the numbers the cite tool gave.
    numbers: dict[str, int] = {}
    for ret in cite_returns:
        numbers.update(parse_citations(ret.content))
    quoted = [q for q in quotes if q.chunk_id in numbers]
    if not quoted:
        return Say(nothing_found(question))
    return Say(compose(quoted, numbers))


# ---- the model ----------------------------------------------------------------------------


def _call_id() -> str:
    return f"extractive_{uuid.uuid4().hex[:16]}"


def _tool_names(info: AgentInfo) -> list[str]:
    return [t.name for t in info.function_tools]


def _estimate(messages: list[ModelMessage]) -> int:
    return estimated_tokens(message_chars(messages))


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The non-streamed response (its usage estimated from characters, as :class:`ExtractiveModel` does)."""
    action = decide(messages, _tool_names(info))
    part = (
        ToolCallPart(action.tool, action.args, tool_call_id=_call_id())
        if isinstance(action, Call)
        else TextPart(action.text)
    )
    response = ModelResponse(parts=[part], model_name=MODEL_NAME)
    response.usage = RequestUsage(input_tokens=_estimate(messages), output_tokens=_estimate([response]))
    return response


def text_chunks(text: str, size: int = STREAM_WORDS) -> list[str]:
    """Split text into small chunks that concatenate back to it exactly."""
    pieces = re.findall(r"\S+\s*|\s+", text)
    return ["".join(pieces[i : i + size]) for i in range(0, len(pieces), size)] or [text]


async def stream_respond(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """The streamed response: a tool call in one delta, or text in small chunks."""
    action = decide(messages, _tool_names(info))
    if isinstance(action, Call):
        yield {0: DeltaToolCall(name=action.tool, json_args=json.dumps(action.args), tool_call_id=_call_id())}
        return
    for chunk in text_chunks(action.text):
        yield chunk


class ExtractiveModel(FunctionModel):
    """The function model whose input tokens are estimated from the characters of each request it receives
    (``capabilities.wire.estimated_tokens``, as the wire inspector estimates), not Pydantic AI's flat guess of
    50 per streamed request; the output is Pydantic AI's count of the streamed words. No provider reports
    them, so they stay marked estimated."""

    @asynccontextmanager
    async def request_stream(self, messages: list[ModelMessage], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with super().request_stream(messages, *args, **kwargs) as response:
            # replaces the flat estimate the function model's stream starts from (before any output is counted)
            response._add_usage(RequestUsage(input_tokens=_estimate(messages)), reported=False, cumulative=True)
            yield response


def extractive_model() -> FunctionModel:
    """A fresh ``extractive`` model (stateless; safe to share)."""
    return ExtractiveModel(respond, stream_function=stream_respond, model_name=MODEL_NAME)
