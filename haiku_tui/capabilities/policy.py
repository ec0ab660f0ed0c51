"""The citation policy: every answer that has something to declare must declare its grounding.

When an enforced question ends undeclared, the model is asked once to record what grounded the
answer it already gave (not to change it). If the cite tool is gone by then, or the question
finishes undeclared anyway, the question is recorded in ``deps.state["citation_policy"]``.

Markers with nothing behind them: an answer that writes ``[n]`` for a number no cite call gave
(e.g. quoting a document that contains ``[2]``) has those numbers recorded under
``deps.state["citation_policy"]["unbacked"]`` (question → numbers), for the policy log, the
answer's badge and ``ask --json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.evidence import EvidenceCapability, discover, history_offset, question_in_progress
from haiku_tui.text import citation_markers

POLICY_ID = "haiku-tui-citation-policy"
REDIRECT_TAG = "[haiku-tui/citation-redirect]"
REDIRECT = (
    "You answered without registering citations. This asks you to record what grounded the answer you "
    "already gave; it is not a request to change that answer, and not a sign that it was wrong. Call the "
    "cite tool with the chunk ids that support it, or with an empty list if no knowledge-base evidence "
    f"does. Then repeat your answer exactly as you gave it. {REDIRECT_TAG}"
)


@dataclass
class CitationPolicyState:
    """The policy's namespace of ``deps.state``: questions that ended undeclared, and the markers
    of each question's answer that no cite call gave."""

    violations: list[int] = field(default_factory=list)
    unbacked: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, state: dict[str, Any]) -> CitationPolicyState:
        """The policy state recorded in a state map (empty when the policy never ran)."""
        return cls(violations=ledger.violations(state), unbacked=recorded_unbacked(state))


def given_numbers(state: dict[str, Any]) -> set[int]:
    """Every citation number a cite call gave in this conversation (any evidence capability)."""
    return {c["index"] for ns in ledger.evidence_namespaces(state).values() for c in ns["citation_index"].values()}


def unbacked_markers(answer: str, state: dict[str, Any]) -> list[int]:
    """The ``[n]`` markers of ``answer`` (outside code) whose number no cite call gave, in order."""
    given = given_numbers(state)
    return [n for n in citation_markers(answer) if n not in given]


def recorded_unbacked(state: dict[str, Any]) -> dict[int, list[int]]:
    """Question → unbacked marker numbers, as the policy recorded them (malformed entries skipped)."""
    recorded = state.get(ledger.POLICY_KEY, {}).get("unbacked", {})
    out: dict[int, list[int]] = {}
    if isinstance(recorded, dict):
        for question, numbers in recorded.items():
            if str(question).isdigit() and isinstance(numbers, list):
                out[int(question)] = [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]
    return out


def ends_question(response: ModelResponse, output_tools: list[Any]) -> bool:
    """A response ends the question when it calls no tool, or when it calls an output tool."""
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    names = {t.name for t in output_tools}
    return not calls or any(call.tool_name in names for call in calls)


def redirect_asked(messages: list[ModelMessage], question: int, offset: int = 0) -> bool:
    """True when the redirect was already asked for ``question`` (found by its tag, not wording).

    ``question`` is the absolute index of its prompt; ``messages`` leave out the first ``offset``
    messages of the history (a host passing a window of it).
    """
    return any(
        isinstance(part, UserPromptPart) and REDIRECT_TAG in str(part.content)
        for message in messages[max(0, question - offset) :]
        if isinstance(message, ModelRequest)
        for part in message.parts
    )


def enforcement(state: dict[str, Any], question: int, *, cited_before: bool | None = None) -> tuple[bool, str]:
    """Whether ``question`` must declare its grounding, and why (as shown in the policy log).

    ``cited_before`` may be passed when the caller already knows it (the views compute it once).
    """
    if ledger.has_evidence(state, question):
        return True, "this question retrieved evidence"
    if ledger.cited_before(state, question) if cited_before is None else cited_before:
        return True, "the conversation has cited evidence before"
    return False, "no evidence retrieved and nothing cited yet"


@dataclass
class CitationPolicyCapability(AbstractCapability[Any]):
    """Requires a declaration (grounded or ungrounded) from every enforced answer; no tools, no config."""

    _asked: bool = False

    async def for_run(self, ctx: RunContext[Any]) -> CitationPolicyCapability:
        return CitationPolicyCapability(id=self.id)

    async def before_run(self, ctx: RunContext[Any]) -> None:
        state = getattr(ctx.deps, "state", None)
        if isinstance(state, dict):
            state.setdefault(ledger.POLICY_KEY, {"violations": []})

    def _decision(self, ctx: RunContext[Any]) -> tuple[list[EvidenceCapability], int, dict[str, Any]] | None:
        """The evidence capabilities, question and state when the question must still declare."""
        evidence = discover(ctx)
        question = question_in_progress(evidence)
        if question is None:
            return None
        state = evidence[0].state
        enforced, _ = enforcement(state, question)
        if not enforced or ledger.citation_status(state, question) != "missing":
            return None
        return evidence, question, state

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        if not ends_question(response, request_context.model_request_parameters.output_tools):
            return response
        decision = self._decision(ctx)
        if decision is None:
            return response
        evidence, question, state = decision
        if self._asked or redirect_asked(ctx.messages, question, history_offset(ctx)):
            return response  # asked once already: after_run records the violation
        if any(c.cite_available for c in evidence):
            self._asked = True
            ctx.enqueue(REDIRECT, priority="when_idle")
        else:
            _record_violation(ctx, state, question)
        return response

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        from pydantic_ai import DeferredToolRequests

        if isinstance(result.output, DeferredToolRequests):
            return result
        decision = self._decision(ctx)
        if decision is not None:
            _, question, state = decision
            _record_violation(ctx, state, question)
        evidence = discover(ctx)
        question = question_in_progress(evidence)
        if question is not None and isinstance(result.output, str):
            unbacked = unbacked_markers(result.output, evidence[0].state)
            if unbacked:
                _policy_namespace(ctx, evidence[0].state).setdefault("unbacked", {})[str(question)] = unbacked
        return result


def _policy_namespace(ctx: RunContext[Any], state: dict[str, Any]) -> dict[str, Any]:
    outer = getattr(ctx.deps, "state", None)
    target = outer if isinstance(outer, dict) else state
    return target.setdefault(ledger.POLICY_KEY, {"violations": []})


def _record_violation(ctx: RunContext[Any], state: dict[str, Any], question: int) -> None:
    violations = _policy_namespace(ctx, state).setdefault("violations", [])
    if question not in violations:
        violations.append(question)


def create_capability() -> CitationPolicyCapability:
    """Build the citation policy capability (registering it is the only switch)."""
    return CitationPolicyCapability(id=POLICY_ID)
