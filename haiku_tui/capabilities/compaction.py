"""Evidence compaction: earlier questions' evidence reaches the model as the cited text only.

Registering the capability is the only switch. On every model request it rewrites, on the wire
only, the results of evidence tools from earlier questions: the cited chunks are kept in full,
grouped by the question that cited them, and everything else becomes a short receipt. Stored
history (``result.all_messages()``) keeps everything the run gathered.

A host may bound the cited text kept in full (``deps.retained_chars``, see :func:`retained_budget`): the
chunks cited most recently are kept in full up to that many characters, older ones are named by a receipt
line (id and source) and stay citable by their ids. The same bound caps what an earlier answer carries
(:func:`answer_budget`): a longer one is cut, on the wire only, with a line saying so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolReturnPart, UserPromptPart

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.errors import EvidenceStateMissing
from haiku_tui.capabilities.evidence import discover, history_offset, question_in_progress, source_label
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.text import one_line

COMPACTION_ID = "haiku-tui-compaction"

RECEIPT = (
    "[Evidence retrieved for an earlier question, no longer shown. "
    "It does not count as cited for the current question.]"
)
CAPSULE_HEADER = (
    "[Evidence cited earlier in this conversation, kept in full so later questions can rely on it. "
    "Cite these chunk ids directly when you use them.]"
)


def retained_budget(ctx: RunContext[Any]) -> int:
    """Characters of earlier cited text the host lets the capsule keep in full (0: all of it)."""
    budget = getattr(ctx.deps, "retained_chars", 0)
    return budget if isinstance(budget, int) and budget > 0 else 0


def answer_budget(retained: int) -> int:
    """Characters an earlier answer carries in later requests, for a host bound of ``retained`` (0: no bound)."""
    return max(2_000, retained // 4) if retained > 0 else 0


ANSWER_CUT = "[… answer cut to {kept} of {total} characters, to keep the request short]"
ANSWER_CUT_PATTERN = re.compile(r"\[… answer cut to (\d+) of (\d+) characters, to keep the request short\]\Z")


def cut_answer(text: str, limit: int) -> str:
    """``text`` kept to its first ``limit`` characters, with a line saying how much was cut (``limit`` 0: whole)."""
    if not limit or len(text) <= limit:
        return text
    return text[:limit] + "\n\n" + ANSWER_CUT.format(kept=limit, total=len(text))


@dataclass(frozen=True)
class Capsule:
    """The evidence cited before a question: its text, and how many chunks it keeps in full or names by receipt."""

    text: str
    kept: int
    receipted: int

    @property
    def note(self) -> str:
        """What a bounded capsule left out, for the wire inspector (``""`` when it keeps every cited chunk in full)."""
        if not self.receipted:
            return ""
        return f"{self.kept} cited chunk(s) in full; {self.receipted} earlier cited chunk(s) not shown in full"


def receipts_line(count: int) -> str:
    """The line that introduces the cited chunks a bounded capsule names without their text."""
    return (
        f"[{count} earlier cited chunk(s) not shown in full, to keep the request short. "
        "They stay citable by these ids; search again to read one.]"
    )


def build_capsule(state: dict[str, Any], boundary: int, budget: int = 0) -> Capsule | None:
    """The capsule of every chunk cited before ``boundary``, or None if none was.

    Each chunk appears once, under the most recent earlier question that cited it; groups run
    newest question first. The ledger is read from the newest question back, until every chunk of
    the citation indexes has its question: a long session's older records are not walked.
    ``budget`` (characters, 0: no bound): the newest chunks are kept in full while their texts fit in
    it; from the first that does not, every older chunk is a receipt line naming its id and source.
    """
    chunks = ledger.retained(state, boundary, budget)
    if not chunks:
        return None
    blocks, receipts, kept, heading = [CAPSULE_HEADER], [], 0, None
    for q, chunk_id, full in chunks:
        entry = ledger.citation_for(state, chunk_id)
        if entry is None:
            raise ValueError(f"chunk {chunk_id} is cited but missing from every citation index")
        source = f"[{chunk_id}] Source: {source_label(entry['title'], entry['headings'], entry['pages'])}"
        if not full:
            receipts.append(source)
            continue
        if heading != q:
            heading = q
            blocks.append(f"[Cited for the earlier question: {one_line(ledger.prompt_of(state, q), 120)}]")
        blocks.append(f"{source}\n{entry['text']}")
        kept += 1
    if receipts:
        blocks += [receipts_line(len(receipts)), "\n".join(receipts)]
    return Capsule("\n\n".join(blocks), kept, len(receipts))


def evidence_returns(messages: list[ModelMessage], boundary: int, owned_tools: frozenset[str]) -> list[tuple[int, int]]:
    """(message, part) positions of evidence before ``boundary``: evidence tool results, and the passages a
    question answered search-first was given (:class:`~haiku_tui.capabilities.parts.PassagesPart`)."""
    return [
        (i, j)
        for i, message in enumerate(messages[:boundary])
        if isinstance(message, ModelRequest)
        for j, part in enumerate(message.parts)
        if (isinstance(part, ToolReturnPart) and part.tool_name in owned_tools) or isinstance(part, PassagesPart)
    ]


def compact_history(
    messages: list[ModelMessage],
    *,
    boundary: int,
    owned_tools: frozenset[str],
    capsule: Capsule | None,
    answer_chars: int = 0,
) -> list[ModelMessage]:
    """A copy of ``messages`` with earlier evidence replaced: the newest return carries the capsule
    (or, when there is none, the first earlier request does); earlier answers longer than
    ``answer_chars`` (0: no bound) are cut (:func:`cut_answer`).

    Returns are rewritten, never removed, so every call keeps its return; messages from
    ``boundary`` on (the current question) and everything else are untouched.
    """
    return _cut_answers(_compact_evidence(messages, boundary, owned_tools, capsule), boundary, answer_chars)


def _cut_answers(messages: list[ModelMessage], boundary: int, limit: int) -> list[ModelMessage]:
    if not limit:
        return messages
    out = list(messages)
    for i, message in enumerate(out[:boundary]):
        if isinstance(message, ModelResponse) and any(
            isinstance(p, TextPart) and len(p.content) > limit for p in message.parts
        ):
            parts = [
                replace(p, content=cut_answer(p.content, limit)) if isinstance(p, TextPart) else p
                for p in message.parts
            ]
            out[i] = replace(message, parts=parts)
    return out


def _compact_evidence(
    messages: list[ModelMessage], boundary: int, owned_tools: frozenset[str], capsule: Capsule | None
) -> list[ModelMessage]:
    positions = evidence_returns(messages, boundary, owned_tools)
    if not positions:
        return _capsule_up_front(messages, boundary, capsule)
    carrier = positions[-1]
    by_message: dict[int, dict[int, str]] = {}
    for i, j in positions:
        by_message.setdefault(i, {})[j] = capsule.text if (i, j) == carrier and capsule else RECEIPT
    out = list(messages)
    for i, replacements in by_message.items():
        message = out[i]
        assert isinstance(message, ModelRequest)
        parts = [replace(p, content=replacements[j]) if j in replacements else p for j, p in enumerate(message.parts)]
        out[i] = replace(message, parts=parts)
    return out


def _capsule_up_front(messages: list[ModelMessage], boundary: int, capsule: Capsule | None) -> list[ModelMessage]:
    """Without an earlier evidence return to carry it (a host passed only questions that did not
    search), the capsule leads the first earlier request as a prompt part of its own."""
    out = list(messages)
    first = next((i for i, m in enumerate(out[:boundary]) if isinstance(m, ModelRequest)), None)
    if capsule and first is not None:
        message = out[first]
        assert isinstance(message, ModelRequest)
        out[first] = replace(message, parts=[UserPromptPart(capsule.text), *message.parts])
    return out


@dataclass
class _Compacted:
    """One run's compacted history before its question: reused while the run's earlier messages stay the same."""

    source: list[ModelMessage]
    compacted: list[ModelMessage]


@dataclass
class EvidenceCompactionCapability(AbstractCapability[Any]):
    """Shrinks each request to the evidence earlier questions cited; no tools, no configuration (a host's
    bound on the cited text kept in full arrives with the run's deps, like its history window)."""

    _cache: dict[int, _Compacted] | None = None

    async def for_run(self, ctx: RunContext[Any]) -> EvidenceCompactionCapability:
        return EvidenceCompactionCapability(id=self.id, _cache={})

    async def prepare_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        evidence = discover(ctx)
        boundary = question_in_progress(evidence)
        if not evidence or not boundary:
            return request_context
        messages = request_context.messages
        local = max(0, boundary - history_offset(ctx))  # the host may have passed a window of the history
        cache = self._cache if self._cache is not None else {}
        hit = cache.get(boundary)
        if hit is None or len(messages) < local or any(a is not b for a, b in zip(hit.source, messages)):
            compacted = self._compact(evidence, messages[:local], boundary, retained_budget(ctx))
            hit = cache[boundary] = _Compacted(messages[:local], compacted)
        request_context.messages = hit.compacted + list(messages[local:])
        return request_context

    @staticmethod
    def _compact(evidence: list[Any], earlier: list[ModelMessage], boundary: int, budget: int) -> list[ModelMessage]:
        """The messages before the question in progress, compacted (the same for every step of a run)."""
        for capability in evidence:
            if not capability.state_carried and evidence_returns(earlier, len(earlier), capability.evidence_tool_names):
                raise EvidenceStateMissing(
                    f"Compaction found {capability.search_tool} results from an earlier question, but "
                    f"deps.state[{capability.namespace!r}] holds no record of what that question cited. "
                    "Carry the whole deps.state between runs alongside the message history."
                )
        owned = frozenset().union(*(c.evidence_tool_names for c in evidence))
        capsule = build_capsule(evidence[0].state, boundary, budget)
        return compact_history(
            earlier, boundary=len(earlier), owned_tools=owned, capsule=capsule, answer_chars=answer_budget(budget)
        )


def create_capability() -> EvidenceCompactionCapability:
    """Build the compaction capability (registering it is the only switch)."""
    return EvidenceCompactionCapability(id=COMPACTION_ID)
