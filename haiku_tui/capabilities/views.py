"""What the panes show, derived by pure functions from the state map and the message history.

Nothing here touches a database, a model or Textual: the conversation, evidence and policy panes,
the Markdown export and the status bar are all drawn from :func:`question_views` and
:func:`request_size`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.compaction import build_capsule, compact_history
from haiku_tui.capabilities.policy import REDIRECT_TAG, enforcement

ItemStatus = Literal["current", "cited", "retained", "receipted"]
Outcome = Literal["not enforced", "grounded", "ungrounded", "missing", "redirected", "violation"]
Badge = Literal["grounded", "ungrounded", "missing", "violation"]


@dataclass(frozen=True)
class EvidenceItem:
    """One retrieved chunk as the evidence pane lists it."""

    chunk_id: str
    capability: str
    query: str
    rank: int
    score: float
    title: str
    headings: tuple[str, ...]
    pages: tuple[int, ...]
    path: str
    snippet: str
    status: ItemStatus
    citation: int | None
    """Conversation-wide citation number when the chunk has been cited by any question."""

    @property
    def label(self) -> str:
        """``Title › Heading › Sub`` (a first heading that repeats the title is shown once)."""
        headings = self.headings[1:] if self.headings[:1] == (self.title,) else self.headings
        return " › ".join([self.title, *headings])


@dataclass(frozen=True)
class Step:
    """One row of tool activity in the conversation pane."""

    kind: Literal["load", "search", "code", "cite", "redirect", "tool"]
    text: str


@dataclass(frozen=True)
class Program:
    """A program the analysis capability ran for a question, with what it printed."""

    code: str
    stdout: str
    error: str
    success: bool


@dataclass(frozen=True)
class PolicyView:
    """One line of the policy log."""

    enforced: bool
    reason: str
    redirect_asked: bool
    declaration: ledger.CitationStatus
    violation: bool
    outcome: Outcome


@dataclass(frozen=True)
class QuestionView:
    """Everything the panes show about one question."""

    question: int
    number: int
    prompt: str
    answer: str
    steps: tuple[Step, ...]
    items: tuple[EvidenceItem, ...]
    citations: tuple[int, ...]
    """Citation numbers this question's answer declared."""
    policy: PolicyView
    latest: bool
    programs: tuple[Program, ...] = ()

    @property
    def badge(self) -> Badge:
        """The grounding badge on the answer."""
        return "violation" if self.policy.violation else self.policy.declaration


def question_ids(state: dict[str, Any]) -> list[int]:
    """Every question identity recorded in any evidence namespace, in order."""
    return sorted({r["question"] for ns in ledger.evidence_namespaces(state).values() for r in ns["questions"]})


def _retained(state: dict[str, Any], latest: int) -> set[str]:
    return {cid for q in question_ids(state) if q < latest for cid in ledger.cited_ids(state, q)}


def _items(state: dict[str, Any], question: int, latest: int, retained: set[str], compaction: bool) -> list[EvidenceItem]:
    cited_now = set(ledger.cited_ids(state, question))
    items: list[EvidenceItem] = []
    seen: set[tuple[str, str]] = set()
    for namespace_key, namespace in ledger.evidence_namespaces(state).items():
        record = ledger.find_question(namespace, question)
        if record is None:
            continue
        for search in record["searches"]:
            for hit in search["hits"]:
                key = (namespace_key, hit["chunk_id"])
                if key in seen:
                    continue
                seen.add(key)
                entry = ledger.citation_for(state, hit["chunk_id"])
                if question == latest:
                    status: ItemStatus = "cited" if hit["chunk_id"] in cited_now else "current"
                elif compaction:
                    status = "retained" if hit["chunk_id"] in retained else "receipted"
                else:
                    status = "cited" if hit["chunk_id"] in cited_now else "current"
                items.append(
                    EvidenceItem(
                        chunk_id=hit["chunk_id"],
                        capability=namespace_key,
                        query=search["query"],
                        rank=hit["rank"],
                        score=hit["score"],
                        title=hit["title"],
                        headings=tuple(hit["headings"]),
                        pages=tuple(hit["pages"]),
                        path=hit["path"],
                        snippet=hit["snippet"],
                        status=status,
                        citation=entry["index"] if entry else None,
                    )
                )
    return items


def _programs(state: dict[str, Any], question: int) -> tuple[Program, ...]:
    out = []
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        for run in (record or {}).get("executions", []):
            out.append(Program(run.get("code", ""), run.get("stdout", ""), run.get("error") or "", bool(run.get("success"))))
    return tuple(out)


def _spans(messages: list[ModelMessage], questions: list[int]) -> dict[int, list[ModelMessage]]:
    bounds = questions + [len(messages)]
    return {q: messages[q : bounds[i + 1]] for i, q in enumerate(questions)}


def _steps(messages: list[ModelMessage]) -> list[Step]:
    steps: list[Step] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if not isinstance(part, ToolCallPart):
                    continue
                args = part.args_as_dict()
                if part.tool_name == "load_capability":
                    steps.append(Step("load", f"loaded {args.get('id', '?')}"))
                elif part.tool_name.endswith("_search"):
                    steps.append(Step("search", f"searched “{args.get('query', '')}”"))
                elif part.tool_name.endswith("_execute_code"):
                    first = next((line for line in str(args.get("code", "")).splitlines() if line.strip()), "")
                    steps.append(Step("code", f"ran a program: {first[:80]}"))
                elif part.tool_name.endswith("_cite"):
                    ids = args.get("chunk_ids") or []
                    steps.append(Step("cite", f"cited {len(ids)} chunk(s)" if ids else "declared ungrounded (cited [])"))
                else:
                    steps.append(Step("tool", f"called {part.tool_name}"))
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and REDIRECT_TAG in str(part.content):
                    steps.append(Step("redirect", "asked to declare what grounded the answer"))
    return steps


def _answer(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                return text
    return ""


def _citations(state: dict[str, Any], question: int) -> tuple[int, ...]:
    numbers = [e["index"] for cid in ledger.cited_ids(state, question) if (e := ledger.citation_for(state, cid))]
    return tuple(sorted(numbers))


def _policy(
    state: dict[str, Any], question: int, messages: list[ModelMessage], policy_active: bool, cited_before: bool
) -> PolicyView:
    enforced, reason = enforcement(state, question, cited_before=cited_before)
    asked = any(s.kind == "redirect" for s in _steps(messages))
    declaration = ledger.citation_status(state, question)
    violation = question in ledger.violations(state)
    outcome: Outcome
    if violation:
        outcome = "violation"
    elif asked:
        outcome = "redirected"
    elif declaration != "missing":
        outcome = declaration
    elif not enforced or not policy_active:
        outcome = "not enforced"
    else:
        outcome = "missing"
    if not policy_active:
        enforced, reason = False, "citation policy not registered"
    return PolicyView(enforced, reason, asked, declaration, violation, outcome)


def question_views(
    state: dict[str, Any], messages: list[ModelMessage] = (), *, compaction: bool = True
) -> list[QuestionView]:
    """One view per question, oldest first (the evidence pane shows them newest first)."""
    questions = question_ids(state)
    if not questions:
        return []
    latest = questions[-1]
    spans = _spans(list(messages), questions)
    policy_active = ledger.POLICY_KEY in state
    retained = _retained(state, latest)
    cited_so_far = False
    views = []
    for number, q in enumerate(questions, start=1):
        span = spans.get(q, [])
        prompt = next(
            (r["prompt"] for ns in ledger.evidence_namespaces(state).values() if (r := ledger.find_question(ns, q))), ""
        )
        views.append(
            QuestionView(
                question=q,
                number=number,
                prompt=prompt,
                answer=_answer(span),
                steps=tuple(_steps(span)),
                items=tuple(_items(state, q, latest, retained, compaction)),
                citations=_citations(state, q),
                policy=_policy(state, q, span, policy_active, cited_so_far),
                latest=q == latest,
                programs=_programs(state, q),
            )
        )
        cited_so_far = cited_so_far or bool(views[-1].citations)
    return views


def _message_chars(messages: list[ModelMessage]) -> int:
    total = 0
    for message in messages:
        for part in message.parts:
            if isinstance(part, (TextPart, UserPromptPart)):
                total += len(str(part.content))
            elif isinstance(part, ToolReturnPart):
                content = part.content
                total += len(content if isinstance(content, str) else json.dumps(content, default=str))
            elif isinstance(part, ToolCallPart):
                total += len(part.args_as_json_str())
            elif hasattr(part, "content"):
                total += len(str(part.content))
    return total


def request_size(state: dict[str, Any], messages: list[ModelMessage]) -> tuple[int, int]:
    """Characters the latest question's requests carry (with compaction, without it).

    Measured as the history up to the latest question plus that question's messages, the
    earlier evidence compacted exactly as the compaction capability would on the wire.
    """
    messages = list(messages)
    questions = question_ids(state)
    full = _message_chars(messages)
    if not questions or not questions[-1]:
        return full, full
    boundary = questions[-1]
    owned = frozenset(
        f"{key}_{tool}" for key in ledger.evidence_namespaces(state) for tool in ("search", "execute_code")
    )
    compacted = compact_history(messages, boundary=boundary, owned_tools=owned, capsule=build_capsule(state, boundary))
    return _message_chars(compacted), full
