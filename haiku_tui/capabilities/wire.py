"""The wire inspector's data: every model request of a question as it was sent, after compaction.

Rebuilt from the stored history and the state map with compaction's own rewrite
(:func:`~haiku_tui.capabilities.compaction.compact_history`), so what is shown is what the model
received, not a second implementation of it. Pure: no I/O, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic_ai.messages import (
    CapabilityPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.compaction import (
    ANSWER_CUT_PATTERN,
    CAPSULE_HEADER,
    RECEIPT,
    answer_budget,
    build_capsule,
    compact_history,
)
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.capabilities.policy import REDIRECT_TAG

PartKind = Literal[
    "instructions", "prompt", "answer", "thinking", "tool call", "tool result", "retry",
    "evidence current", "evidence retained", "evidence receipted", "capsule",
]  # fmt: skip


@dataclass(frozen=True)
class WirePart:
    """One labelled part of a request: what it is, its size in characters, and its text."""

    kind: PartKind
    chars: int
    text: str
    folded: bool  # unchanged history from before this question
    note: str = ""
    """What a bounded capsule left out (:attr:`~haiku_tui.capabilities.compaction.Capsule.note`), or how
    much of an over-long earlier answer was sent (``"answer cut to N of M characters"``)."""


@dataclass(frozen=True)
class WireRequest:
    """One model request of a question: its parts in order, and its size with and without compaction."""

    number: int  # 1-based within the question
    parts: tuple[WirePart, ...]
    chars: int
    uncompacted_chars: int
    messages: tuple[ModelMessage, ...]
    tokens: Tokens

    def as_json(self) -> str:
        """The request's messages as Pydantic AI's JSON (for copying)."""
        return ModelMessagesTypeAdapter.dump_json(list(self.messages), indent=2).decode()


@dataclass(frozen=True)
class Tokens:
    """Input and output tokens; ``estimated`` when no provider reported them (a local model)."""

    input: int = 0
    output: int = 0
    estimated: bool = False

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(self.input + other.input, self.output + other.output, self.estimated or other.estimated)


def response_tokens(response: ModelResponse) -> Tokens:
    """What the provider reported for one response; else the model's estimate (the extractive model's: from
    the characters it was sent, :func:`estimated_tokens`)."""
    usage = response.usage
    reported = response.provider_name is not None and (usage.input_tokens or usage.output_tokens)
    return Tokens(usage.input_tokens, usage.output_tokens, not reported)


def session_tokens(messages: list[ModelMessage]) -> Tokens:
    """Tokens of every request in ``messages``, summed."""
    total = Tokens()
    for message in messages:
        if isinstance(message, ModelResponse):
            total += response_tokens(message)
    return total


def evidence_tools(state: dict[str, Any]) -> frozenset[str]:
    """Tool names whose results are evidence, for every evidence namespace in ``state``."""
    return frozenset(
        f"{key}_{tool}" for key in ledger.evidence_namespaces(state) for tool in ("search", "execute_code")
    )


def _text(part: Any) -> str:
    if isinstance(part, ToolCallPart):
        return f"{part.tool_name}({part.args_as_json_str()})"
    if isinstance(part, RetryPromptPart):
        return part.model_response()
    return str(getattr(part, "content", ""))


_KINDS: tuple[tuple[type, PartKind], ...] = (
    (SystemPromptPart, "instructions"),
    (UserPromptPart, "prompt"),
    (RetryPromptPart, "retry"),
    (ToolCallPart, "tool call"),
    (ThinkingPart, "thinking"),
    (TextPart, "answer"),
)


def _kind(part: Any, *, current: bool, evidence: frozenset[str]) -> PartKind:
    if (
        not current
        and isinstance(part, (UserPromptPart, ToolReturnPart, PassagesPart))
        and str(part.content).startswith(CAPSULE_HEADER)
    ):
        return "capsule"
    for cls, kind in _KINDS:
        if isinstance(part, cls):
            return kind
    if isinstance(part, PassagesPart):  # the passages a question answered search-first was given
        if current:
            return "evidence current"
        return "evidence receipted" if str(part.content) == RECEIPT else "evidence retained"
    if isinstance(part, CapabilityPart):  # a capability's own words (a budget notice) or data it attached
        return "instructions" if part.rendering.voice == "instruction" else "prompt"
    if isinstance(part, ToolReturnPart) and part.tool_name in evidence:
        if current:
            return "evidence current"
        return "evidence receipted" if str(part.content) == RECEIPT else "evidence retained"
    return "tool result"


CHARS_PER_TOKEN = 4
"""Characters per token for an estimate where no provider counts them (prose and JSON average about four)."""


def estimated_tokens(chars: int) -> int:
    """Tokens in ``chars`` characters, estimated where no provider counts them (:data:`CHARS_PER_TOKEN`)."""
    return -(-chars // CHARS_PER_TOKEN)


def message_chars(messages: list[ModelMessage]) -> int:
    """Characters of ``messages`` as a request carries them: instructions, prompts, tool calls and results."""
    total = 0
    for message in messages:
        total += len(getattr(message, "instructions", None) or "")
        total += sum(len(_text(p)) for p in message.parts)
    return total


def question_starts(messages: list[ModelMessage]) -> list[int]:
    """Identity of every question in ``messages``: the index of the request carrying its prompt."""
    return [
        i
        for i, message in enumerate(messages)
        if isinstance(message, ModelRequest)
        and any(isinstance(p, UserPromptPart) and REDIRECT_TAG not in str(p.content) for p in message.parts)
    ]


def window_start(starts: list[int], question: int, window: int) -> int:
    """First message a host passing ``question`` plus the ``window`` questions before it sends (0: all).

    ``starts`` are :func:`question_starts` of the history; ``window`` 0 means the whole history.
    """
    if window <= 0:
        return 0
    earlier = [q for q in starts if q < question]
    return earlier[-window] if len(earlier) > window else 0


def wire_requests(
    state: dict[str, Any],
    messages: list[ModelMessage],
    question: int,
    *,
    compaction: bool = True,
    window: int = 0,
    retained: int = 0,
) -> list[WireRequest]:
    """Every model request made while answering ``question``, as the model received it.

    ``question`` is the question's identity (messages in history when it was asked); each
    :class:`ModelResponse` of that question answers the request made of everything before it.
    Pydantic AI frames instructions and tool announcements per provider on top of these messages;
    the parts, their order and their content are what this shows. ``window``: the host passed only
    that many earlier questions (0: all), see :func:`window_start`; ``retained``: the characters of
    earlier cited text it let the capsule keep in full (``Deps.retained_chars``, 0: all).
    """
    starts = question_starts(messages)
    start = window_start(starts, question, window)
    later = [q for q in starts if q > question]
    span = range(question, min(later, default=len(messages)))
    evidence = evidence_tools(state)
    capsule = build_capsule(state, question, retained) if compaction else None
    note = capsule.note if capsule else ""
    out: list[WireRequest] = []
    for index in span:
        if not isinstance(messages[index], ModelResponse):
            continue
        sent = _in_scope(messages[start:index])
        local = question - start
        wire = (
            compact_history(
                sent, boundary=local, owned_tools=evidence, capsule=capsule, answer_chars=answer_budget(retained)
            )
            if compaction
            else sent
        )
        parts: list[WirePart] = []
        for position, message in enumerate(wire):
            current = position >= local
            if isinstance(message, ModelRequest) and message.instructions:
                parts.append(WirePart("instructions", len(message.instructions), message.instructions, not current))
            for part in message.parts:
                text = _text(part)
                kind = _kind(part, current=current, evidence=evidence)
                folded = not current and kind not in ("capsule", "evidence receipted", "evidence retained")
                parts.append(WirePart(kind, len(text), text, folded, _note(kind, text, note)))
        response = messages[index]
        assert isinstance(response, ModelResponse)
        chars, tokens = message_chars(wire), response_tokens(response)
        if tokens.estimated:  # no provider counted them: the input from the request's characters, as shown
            tokens = Tokens(estimated_tokens(chars), tokens.output, True)
        out.append(WireRequest(len(out) + 1, tuple(parts), chars, message_chars(sent), tuple(wire), tokens))
    return out


def _in_scope(messages: list[ModelMessage]) -> list[ModelMessage]:
    """``messages`` as the next request shows them: request-scoped parts (a budget notice) only in the request
    they were made for, the one after the last response. Emptied requests stay, so positions keep."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, ModelResponse)), default=-1)
    return [
        replace(m, parts=[p for p in m.parts if getattr(p, "scope", None) != "request"])
        if i < last and isinstance(m, ModelRequest) and any(getattr(p, "scope", None) == "request" for p in m.parts)
        else m
        for i, m in enumerate(messages)
    ]


def _note(kind: PartKind, text: str, capsule_note: str) -> str:
    if kind == "capsule":
        return capsule_note
    if kind == "answer" and (cut := ANSWER_CUT_PATTERN.search(text)):
        return f"answer cut to {cut.group(1)} of {cut.group(2)} characters"
    return ""


def session_sizes(
    state: dict[str, Any], messages: list[ModelMessage], *, window: int = 0, retained: int = 0
) -> list[tuple[int, int, int]]:
    """``(question, chars sent, chars without compaction)`` of each question's largest request."""
    out = []
    for question in question_starts(messages):
        requests = wire_requests(state, messages, question, window=window, retained=retained)
        if requests:
            out.append((question, max(r.chars for r in requests), max(r.uncompacted_chars for r in requests)))
    return out


EARLIER_EVIDENCE = frozenset({"capsule", "evidence receipted", "evidence retained"})
"""Kinds of the earlier questions' evidence as a request carries it (not unchanged: compaction rewrote it)."""


def earlier_history(request: WireRequest) -> list[WirePart]:
    """The parts of ``request`` from before its question, in order: the unchanged history and, where they sit in
    it, the receipts, retained results and capsule its earlier evidence became."""
    return [p for p in request.parts if p.folded or p.kind in EARLIER_EVIDENCE]


def capsule_entries(state: dict[str, Any], question: int, retained: int = 0) -> list[tuple[str, str]]:
    """The chunks the capsule before ``question`` carries (``retained``: its bound, as for :func:`wire_requests`),
    newest first: ``("retained", "[id] Source: …")`` for one kept in full, ``("receipt", …)`` for one named only."""
    from haiku_tui.capabilities.evidence import source_label

    entries = []
    for _, chunk_id, full in ledger.retained(state, question, retained):
        entry = ledger.citation_for(state, chunk_id) or {}
        label = source_label(entry.get("title", ""), entry.get("headings", []), entry.get("pages", []))
        entries.append(("retained" if full else "receipt", f"[{chunk_id}] Source: {label}"))
    return entries
