"""Evidence compaction: earlier questions' evidence reaches the model as the cited text only.

Registering the capability is the only switch. On every model request it rewrites, on the wire
only, the evidence of earlier questions: each earlier question's slot (its evidence parts, found by
:func:`evidence_parts`) keeps the chunks that question cited in full, in its own place, and a receipt for
what it retrieved and did not cite. Stored history (``result.all_messages()``) keeps everything the run
gathered.

The layout is written for a model server's prompt cache (llama.cpp's KV cache, vLLM, OpenAI's and
Anthropic's prompt caches keep the prefix of the prompts they have seen). A slot is rewritten once, when its
question becomes earlier, and then never changes: its search results keep the cited blocks as they were sent
(:func:`slot_parts`; passages given search-first keep the cited passages, numbered as they were sent), and a
chunk an earlier slot of the same request already holds in full is named there ("cited again; its text is
above"), not moved. A host that passes a window of the history plans it with :func:`plan_start`, so what a
request carries stays bounded in steps: the history starts where the previous question's did (recorded in the
ledger) until the host's window passes it or the cited text since passes the host's bound
(``deps.retained_chars``); then it moves forward at once, to keep a quarter of each (:data:`STEP_KEEPS`). The
chunks cited before that start stay citable: the history's first request names them by id and source (by number
when the question is answered search-first), a list that also stays the same until the next step. The same bound
caps what an earlier answer carries (:func:`answer_budget`): a longer one is cut, on the wire only, with a line
saying so.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolReturnPart, UserPromptPart

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.errors import EvidenceStateMissing
from haiku_tui.capabilities.evidence import (
    RESULT_SEPARATOR,
    TEXT_ABOVE,
    discover,
    history_offset,
    question_in_progress,
    source_label,
)
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.store.records import chunk_label, page_range
from haiku_tui.text import one_line

COMPACTION_ID = "haiku-tui-compaction"

RECEIPT = (
    "[Evidence retrieved for an earlier question, no longer shown. "
    "It does not count as cited for the current question.]"
)
CITED_HEADER = (
    "[Evidence cited for an earlier question, kept in full so later questions can rely on it. "
    "Cite these chunk ids directly when you use them.]"
)
PASSAGES_CITED_HEADER = (
    "[Passages cited for an earlier question, kept in full so later questions can rely on them. "
    "Cite them by their numbers when you use them.]"
)
DROPPED_HEADER = "[Cited for questions no longer shown, to keep the request short:"
CITED_AGAIN = "cited again; its text is above"
KEPT_NOTE = (
    "[The results above were cited for this earlier question and are kept in full: cite their ids directly when you "
    "use them. Its other results are no longer shown; they do not count as cited for the current question.]"
)
PASSAGES_KEPT_NOTE = (
    "[The passages above were cited for this earlier question and are kept in full: cite them by their numbers when "
    "you use them. Its other passages are no longer shown.]"
)

STEP_KEEPS = 4
"""A step keeps a quarter of the host's window and of its bound: each step re-sends less, and they come further
apart (one in 30 questions of the bench, instead of two keeping half)."""

START_KEY = "window_start"
"""The key of a question record holding the first message its requests carried (:func:`plan_start`)."""


def retained_budget(ctx: RunContext[Any]) -> int:
    """Characters of earlier cited text the host lets a request keep in full (0: all of it)."""
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


def dropped_line(count: int, numbered: bool = False) -> str:
    """The line that introduces the chunks cited before a request's first question, named without their text
    (``numbered``: as passages, by their numbers, for questions answered search-first)."""
    if numbered:
        return f"{DROPPED_HEADER} {count} passage(s); they stay citable by these numbers.]"
    return f"{DROPPED_HEADER} {count} chunk(s); they stay citable by these ids; search again to read one.]"


# ---- where a request's history starts ---------------------------------------------------------------------


def recorded_start(state: dict[str, Any], question: int) -> int | None:
    """The first message ``question``'s requests carried, as compaction recorded it (None: not recorded)."""
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        if record is not None and isinstance(record.get(START_KEY), int):
            return record[START_KEY]
    return None


def record_start(state: dict[str, Any], question: int, start: int) -> None:
    """Record ``start`` on ``question``'s records, for the questions that follow (:func:`plan_start`)."""
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        if record is not None:
            record[START_KEY] = start


def _kept_chars(state: dict[str, Any], cited: dict[str, None], records: list[dict[str, Any]]) -> int:
    """Characters the chunks newly cited by one question add to ``cited`` (which it updates)."""
    added = 0
    for chunk_id in ledger.current_ids(records):
        if chunk_id not in cited:
            cited[chunk_id] = None
            entry = ledger.citation_for(state, chunk_id)
            added += len(entry["text"]) if entry else 0
    return added


def plan_start(state: dict[str, Any], question: int, offset: int = 0, budget: int = 0) -> int:
    """The first message of ``question``'s requests: where the previous question's history started, unless
    that is before ``offset`` (the host's window passed it) or the text the questions since then cited passes
    ``budget`` (characters, 0: no bound). Then it moves forward at once, to the oldest question after which
    at most a quarter of the host's window of questions (when that passed it) and of the budget remain.

    A pure function of the ledger, so consecutive questions agree and a session opened partially plans the
    same start; the question's own start is recorded (:func:`record_start`) for the next one.
    """
    earlier: list[tuple[int, list[dict[str, Any]]]] = []  # newest first, down to the host's window
    for q, records in ledger.newest_first(state, question):
        if q < offset:
            break
        earlier.append((q, records))
    previous = recorded_start(state, earlier[0][0]) if earlier else None
    start = offset if previous is None else previous
    cited: dict[str, None] = {}
    kept = sum(_kept_chars(state, cited, records) for q, records in earlier if q >= start)
    counted = start < offset
    if not counted and not (budget and kept > budget):
        return max(start, offset)
    most = max(1, len(earlier) // STEP_KEEPS) if counted else len(earlier)
    cited, kept, chosen = {}, 0, question
    for count, (q, records) in enumerate(earlier, start=1):
        kept += _kept_chars(state, cited, records)
        if count > most or (budget and kept > budget // STEP_KEEPS and (count > 1 or kept > budget)):
            break
        chosen = q
    return chosen


# ---- the slots ----------------------------------------------------------------------------------------------


def is_evidence_part(part: Any, owned_tools: frozenset[str]) -> bool:
    """True for a part of a question's messages that holds its evidence: a result of an evidence tool, or the
    passages a question answered search-first was given (:class:`~haiku_tui.capabilities.parts.PassagesPart`)."""
    return (isinstance(part, ToolReturnPart) and part.tool_name in owned_tools) or isinstance(part, PassagesPart)


def evidence_parts(messages: list[ModelMessage], boundary: int, owned_tools: frozenset[str]) -> list[tuple[int, int]]:
    """(message, part) positions of the evidence parts before ``boundary`` (:func:`is_evidence_part`)."""
    return [
        (i, j)
        for i, message in enumerate(messages[:boundary])
        if isinstance(message, ModelRequest)
        for j, part in enumerate(message.parts)
        if is_evidence_part(part, owned_tools)
    ]


def _source(state: dict[str, Any], chunk_id: str, numbered: bool = False) -> tuple[str, str]:
    """``[id] Source: …`` (``numbered``: ``[n] Title › heading``, as a passage is shown) and a cited chunk's text."""
    entry = ledger.citation_for(state, chunk_id)
    if entry is None:
        raise ValueError(f"chunk {chunk_id} is cited but missing from every citation index")
    if numbered:
        pages = page_range(entry["pages"])
        label = chunk_label(entry["title"], entry["headings"]) + (f" ({pages})" if pages else "")
        return f"[{entry['index']}] {label}", entry["text"].strip()
    return f"[{chunk_id}] Source: {source_label(entry['title'], entry['headings'], entry['pages'])}", entry["text"]


BLOCK_ID = re.compile(r"\[([0-9a-f]{16})\]")
LABEL = re.compile(r"\[(\d+)\]")


def _blocks(content: str) -> list[tuple[str, str]]:
    """(chunk id, block) of each result block of an evidence part ([] when it is not made of them)."""
    blocks = content.split(RESULT_SEPARATOR)
    found = [(m.group(1), block) for block in blocks if (m := BLOCK_ID.match(block))]
    return found if len(found) == len(blocks) else []


def passages_record(state: dict[str, Any], question: int) -> dict[str, Any] | None:
    """The record of ``question`` if it was answered search-first (its numbered passages), else None."""
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        if record is not None and record.get("passage_sources"):
            return record
    return None


def _passage_blocks(record: dict[str, Any], content: str) -> list[tuple[str, str]]:
    """(chunk id, passage) of each numbered passage of ``content``, cut at the source lines ``record`` holds, in
    order ([] when they are not all found)."""
    starts, at = [], 0
    for source in record["passage_sources"]:
        at = content.find(source + "\n", at)
        if at < 0 or (at and content[at - 2 : at] != "\n\n"):
            return []
        starts.append(at)
    ends = [s - 2 for s in starts[1:]] + [len(content)]
    labels = [m.group(1) if (m := LABEL.match(s)) else "" for s in record["passage_sources"]]
    return [(record["passages"].get(n, ""), content[s:e]) for n, s, e in zip(labels, starts, ends)]


def slot_parts(state: dict[str, Any], question: int, contents: list[str], held: set[str]) -> list[str]:
    """What an earlier question's evidence parts (``contents``, in order) become: each keeps the result blocks (or
    numbered passages, search-first) the question cited as they were sent, so a prompt cache keeps them, then
    :data:`KEPT_NOTE` (:data:`PASSAGES_KEPT_NOTE`); one that kept none is :data:`RECEIPT`. A cited chunk an earlier
    slot of the request holds (``held``, which this updates) is named there instead; one cited but in none of its
    parts (cited from text shown before, or from evidence not made of blocks) is added to the last part, with its
    text from the citation index."""
    cited = ledger.cited_ids(state, question)
    record = passages_record(state, question)
    numbered = record is not None
    placed: set[str] = set()
    out = []
    for content in contents:
        blocks = _blocks(content) or (_passage_blocks(record, content) if record else [])
        kept = []
        for chunk_id, block in blocks:
            if chunk_id in cited and chunk_id not in placed:
                if chunk_id in held:
                    block = _again(state, chunk_id, numbered)
                elif block.endswith(TEXT_ABOVE):  # sent short, its text held by a slot a step has since dropped
                    block = "{}\n{}".format(*_source(state, chunk_id))
                kept.append(block)
                placed.add(chunk_id)
        joined = ("\n\n" if numbered else RESULT_SEPARATOR).join(kept)
        out.append(joined + "\n\n" + (PASSAGES_KEPT_NOTE if numbered else KEPT_NOTE) if kept else RECEIPT)
    rest = [c for c in sorted(cited) if c not in placed]
    if rest and out:
        blocks = [
            _again(state, c, numbered) if c in held else "{}\n{}".format(*_source(state, c, numbered)) for c in rest
        ]
        lead = [] if out[-1] == RECEIPT else [out[-1].removesuffix(KEPT_NOTE).removesuffix(PASSAGES_KEPT_NOTE).rstrip()]
        if numbered:  # the question follows its passages
            out[-1] = "\n\n".join([*lead, PASSAGES_CITED_HEADER, *blocks, PASSAGES_KEPT_NOTE])
        else:
            asked = f"[Cited for the earlier question: {one_line(ledger.prompt_of(state, question), 120)}]"
            out[-1] = "\n\n".join([*lead, CITED_HEADER, asked, *blocks, RECEIPT])
    if out:
        held.update(cited)
    return out


def _again(state: dict[str, Any], chunk_id: str, numbered: bool = False) -> str:
    return f"{_source(state, chunk_id, numbered)[0]} — {CITED_AGAIN}."


def dropped_chunks(state: dict[str, Any], start: int) -> list[str]:
    """Every chunk cited before question ``start``, once, newest citation first (ids in order within one)."""
    seen: set[str] = set()
    out: list[str] = []
    for _, records in ledger.until_all_cited(state, start, seen):
        for chunk_id in sorted(ledger.current_ids(records)):
            if chunk_id not in seen:
                seen.add(chunk_id)
                out.append(chunk_id)
    return out


def dropped_text(state: dict[str, Any], start: int, numbered: bool = False) -> str:
    """The list that names the chunks cited before ``start`` ("" when none was); ``numbered``: by their numbers, as
    passages, for a question answered search-first."""
    ids = dropped_chunks(state, start)
    if not ids:
        return ""
    return "\n\n".join([dropped_line(len(ids), numbered), "\n".join(_source(state, c, numbered)[0] for c in ids)])


def compact_history(
    messages: list[ModelMessage],
    *,
    state: dict[str, Any],
    boundary: int,
    owned_tools: frozenset[str],
    start: int = 0,
    offset: int = 0,
    answer_chars: int = 0,
) -> list[ModelMessage]:
    """The request's history: ``messages`` (``messages[0]`` is message ``offset`` of the whole history) from
    message ``start`` on, the earlier questions' (before ``boundary``) evidence parts rewritten into their
    slots (:func:`slot_parts`; a question's other evidence parts become :data:`RECEIPT`), the chunks cited
    before ``start`` named ahead of its first question (:func:`dropped_text`), earlier answers longer than
    ``answer_chars`` (0: no bound) cut (:func:`cut_answer`).

    Parts are rewritten, never removed, so every call keeps its return; the questions before ``start`` go
    whole; messages from ``boundary`` on (the current question) are untouched.
    """
    local = max(0, boundary - offset)
    earlier = list(messages[max(0, start - offset) : local])
    first = max(start, offset)
    out = _cut_answers(_slots(earlier, state, first, boundary, owned_tools), answer_chars) + list(messages[local:])
    text = dropped_text(state, first, passages_record(state, boundary) is not None)
    if text and out and isinstance(out[0], ModelRequest):  # the history's first request, else the question's own
        stamp = next((p.timestamp for p in out[0].parts if isinstance(p, UserPromptPart)), None)
        named = UserPromptPart(text) if stamp is None else UserPromptPart(text, timestamp=stamp)  # the same each time
        out[0] = replace(out[0], parts=[named, *out[0].parts])
    return out


def _slots(
    messages: list[ModelMessage], state: dict[str, Any], first: int, boundary: int, owned_tools: frozenset[str]
) -> list[ModelMessage]:
    """``messages`` (from message ``first``) with each earlier question's evidence parts rewritten: its last one
    carries its slot, the others a receipt."""
    positions = evidence_parts(messages, len(messages), owned_tools)
    if not positions:
        return messages
    questions = sorted(q for q, _ in _until(state, boundary, first))
    owned: dict[int, list[tuple[int, int]]] = {}  # question -> its evidence parts, in order
    for i, j in positions:
        at = bisect_right(questions, first + i) - 1
        owned.setdefault(questions[at] if at >= 0 else -1, []).append((i, j))
    replacements: dict[int, dict[int, str]] = {i: {j: RECEIPT} for i, j in positions}
    held: set[str] = set()
    for q in questions:
        where = owned.get(q, [])
        contents = [str(getattr(messages[i].parts[j], "content", "")) for i, j in where]
        for (i, j), text in zip(where, slot_parts(state, q, contents, held)):
            replacements[i][j] = text
    out = list(messages)
    for i, parts in replacements.items():
        message = out[i]
        assert isinstance(message, ModelRequest)
        rewritten = [replace(p, content=parts[j]) if j in parts else p for j, p in enumerate(message.parts)]
        out[i] = replace(message, parts=rewritten)
    return out


def _until(state: dict[str, Any], boundary: int, first: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """The questions from ``first`` to ``boundary`` (excluded), newest first."""
    out = []
    for q, records in ledger.newest_first(state, boundary):
        if q < first:
            break
        out.append((q, records))
    return out


def _cut_answers(messages: list[ModelMessage], limit: int) -> list[ModelMessage]:
    if not limit:
        return messages
    out = list(messages)
    for i, message in enumerate(out):
        if isinstance(message, ModelResponse) and any(
            isinstance(p, TextPart) and len(p.content) > limit for p in message.parts
        ):
            parts = [
                replace(p, content=cut_answer(p.content, limit)) if isinstance(p, TextPart) else p
                for p in message.parts
            ]
            out[i] = replace(message, parts=parts)
    return out


def held_in_full(state: dict[str, Any], question: int, start: int) -> frozenset[str]:
    """Chunks ``question``'s requests carry in full: those cited by the questions from ``start`` on."""
    return frozenset(c for _, records in _until(state, question, start) for c in ledger.current_ids(records))


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

    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        """Load again, from code, an evidence capability the previous question had loaded whose load the history
        this run was given leaves out (a host's window): its tools and instructions stay the same from request to
        request, as Pydantic AI's own compaction strategies record a load they remove."""
        active = getattr(ctx, "active_capability_ids", None)
        for capability in discover(ctx) if active is not None else []:
            if capability.defer_loading is not True or capability.id in active or capability.question is None:
                continue
            records = capability.record.get("questions", [])
            at = bisect_left(records, capability.question, key=lambda r: r["question"])
            if at and records[at - 1].get("requests"):
                ctx.load_capability(capability.id)
        return request_context

    async def prepare_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        evidence = discover(ctx)
        boundary = question_in_progress(evidence)
        if not evidence or not boundary:
            return request_context
        messages = request_context.messages
        offset = history_offset(ctx)  # the host may have passed a window of the history
        local = max(0, boundary - offset) + 1  # the earlier messages and the question's own first request
        cache = self._cache if self._cache is not None else {}
        hit = cache.get(boundary)
        if hit is None or len(messages) < local or any(a is not b for a, b in zip(hit.source, messages)):
            compacted = self._compact(evidence, messages[:local], boundary, offset, retained_budget(ctx))
            hit = cache[boundary] = _Compacted(messages[:local], compacted)
        request_context.messages = hit.compacted + list(messages[local:])
        return request_context

    @staticmethod
    def _compact(
        evidence: list[Any], messages: list[ModelMessage], boundary: int, offset: int, budget: int
    ) -> list[ModelMessage]:
        """The messages before the question in progress, compacted, and its first request (the same for every step of
        a run); where the host's history starts is recorded for the questions that follow (:func:`plan_start`)."""
        local = max(0, boundary - offset)
        for capability in evidence:
            if not capability.state_carried and evidence_parts(messages, local, capability.evidence_tool_names):
                raise EvidenceStateMissing(
                    f"Compaction found {capability.search_tool} results from an earlier question, but "
                    f"deps.state[{capability.namespace!r}] holds no record of what that question cited. "
                    "Carry the whole deps.state between runs alongside the message history."
                )
        owned = frozenset().union(*(c.evidence_tool_names for c in evidence))
        state = evidence[0].state
        record_start(state, boundary, offset)
        return compact_history(
            messages, state=state, boundary=boundary, owned_tools=owned, start=offset, offset=offset,
            answer_chars=answer_budget(budget),
        )


def create_capability() -> EvidenceCompactionCapability:
    """Build the compaction capability (registering it is the only switch)."""
    return EvidenceCompactionCapability(id=COMPACTION_ID)
