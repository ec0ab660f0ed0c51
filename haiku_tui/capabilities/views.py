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
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.compaction import compact_history
from haiku_tui.capabilities.evidence import NO_RESULTS, RESULT_SEPARATOR
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.capabilities.policy import REDIRECT_TAG, enforcement, recorded_unbacked
from haiku_tui.capabilities.support import ClaimSupport, Embed, check_answer, citation_texts
from haiku_tui.store.records import chunk_label
from haiku_tui.text import one_line

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
    attributed: bool = False
    """The question's answer was tied to it by haiku-tui (attribution), not by the model's ``[n]``."""

    @property
    def label(self) -> str:
        """``Title › Heading › Sub`` (:func:`haiku_tui.store.records.chunk_label`)."""
        return chunk_label(self.title, self.headings)


StepKind = Literal["load", "search", "code", "cite", "redirect", "notice", "tool"]


@dataclass(frozen=True)
class Step:
    """One row of tool activity in the conversation pane (the same live and when a session is reopened)."""

    kind: StepKind
    text: str
    failed: bool = False


REDIRECT_STEP = Step("redirect", "citation policy: asked to declare what grounded the answer")
CAPABILITY_NAMES = {"haiku-tui-rag": "the knowledge-base tools", "haiku-tui-analysis": "the analysis tools"}


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
    unbacked: tuple[int, ...] = ()
    """Markers of the answer whose number no cite call gave (recorded by the policy)."""


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
    support: tuple[ClaimSupport, ...] = ()
    """Every cited claim of the answer scored against the chunk it cites (attributed ones too, ``by="haiku-tui"``)."""
    attributed: tuple[int, ...] = ()
    """Citation numbers haiku-tui attributed the answer's unmarked sentences to (search-first)."""
    unsupported: tuple[str, ...] = ()
    """Unmarked sentences of a search-first answer that match none of its passages."""
    searched_by: Literal["", "model", "haiku-tui"] = ""
    """Who searched the documents for this question (``""``: nobody)."""
    unconfirmed: tuple[int, ...] = ()
    """Markers of a search-first answer that back none of its sentences (so they ground nothing)."""
    echoed: bool = False
    """A search-first answer that wrote its request (instructions, passages) back instead of answering."""

    @property
    def badge(self) -> Badge:
        """The grounding badge on the answer."""
        return "violation" if self.policy.violation else self.policy.declaration

    @property
    def badge_note(self) -> str:
        """What the badge adds after the grounding: ``[3] unbacked`` when markers have nothing behind them."""
        return " ".join(f"[{n}]" for n in self.policy.unbacked) + " unbacked" if self.policy.unbacked else ""

    @property
    def grounding_note(self) -> str:
        """Why the answer is not grounded, as shown under it, in the app's badge and in exports ("" when it is)."""
        return grounding_note(self.badge, self.policy.unbacked, self.searched_by, self.unconfirmed, self.echoed)

    @property
    def unconfirmed_note(self) -> str:
        """What a grounded answer's markers that back none of its sentences ground: nothing ("" when none)."""
        return unconfirmed_note(self.badge, self.unconfirmed)

    @property
    def attribution_note(self) -> str:
        """``attributed by haiku-tui: [2] [4]`` when haiku-tui tied unmarked sentences to passages ("" otherwise)."""
        return "attributed by haiku-tui: " + " ".join(f"[{n}]" for n in self.attributed) if self.attributed else ""

    def weak(self) -> dict[int, list[ClaimSupport]]:
        """Citation number → its weakly supported claims (markers with no citation left out)."""
        out: dict[int, list[ClaimSupport]] = {}
        for claim in self.support:
            if claim.weak and claim.chunk_id is not None:
                out.setdefault(claim.number, []).append(claim)
        return out


def grounding_note(
    badge: str,
    unbacked: tuple[int, ...] | list[int],
    searched_by: str,
    unconfirmed: tuple[int, ...] | list[int] = (),
    echoed: bool = False,
) -> str:
    """Why an answer with grounding ``badge`` is not grounded, in one line ("" when it is grounded): its markers
    with nothing behind them, markers that back none of its sentences (``unconfirmed``), or who searched
    (``searched_by``: ``"haiku-tui"``, ``"model"`` or ``""``); ``echoed``: the answer wrote its request back."""
    if badge == "grounded":
        return ""
    if echoed:
        return "not grounded: the model wrote back its instructions or passages instead of answering"
    if unbacked:
        return f"not grounded: no passage carries {' '.join(f'[{n}]' for n in unbacked)}"
    if unconfirmed:
        marks = " ".join(f"[{n}]" for n in unconfirmed)
        return f"not grounded: no sentence of the answer is backed by the passage it marks ({marks})"
    if searched_by == "haiku-tui":
        return "not grounded: the answer draws on none of the passages haiku-tui found"
    if searched_by == "model":
        return "not grounded: the model searched your documents but cited nothing"
    return "not grounded: the model answered without searching your documents"


def unconfirmed_note(badge: str, unconfirmed: tuple[int, ...] | list[int]) -> str:
    """``[2] backs none of the answer's sentences`` for a grounded answer's markers that ground nothing (a
    not-grounded answer says so in :func:`grounding_note`), "" when there are none."""
    if badge != "grounded" or not unconfirmed:
        return ""
    marks = " ".join(f"[{n}]" for n in unconfirmed)
    return f"{marks} {'backs' if len(unconfirmed) == 1 else 'back'} none of the answer's sentences"


def citations_by_number(state: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Citation number → citation entry (chunk id, title, headings, pages, path, text), every namespace."""
    return {
        entry["index"]: entry
        for namespace in ledger.evidence_namespaces(state).values()
        for entry in namespace["citation_index"].values()
    }


def question_ids(state: dict[str, Any]) -> list[int]:
    """Every question identity recorded in any evidence namespace, in order."""
    return sorted({r["question"] for ns in ledger.evidence_namespaces(state).values() for r in ns["questions"]})


def kept_in_full(state: dict[str, Any], latest: int, budget: int = 0, offset: int = 0) -> frozenset[str]:
    """Chunks cited before ``latest`` that its requests carry in full: those cited by the questions from where
    they start (as compaction recorded it, else planned for a host window from message ``offset`` and the bound
    ``budget``, 0: none); an earlier question's other items reach them as receipts."""
    from haiku_tui.capabilities.compaction import held_in_full, plan_start, recorded_start

    start = recorded_start(state, latest)
    return held_in_full(state, latest, plan_start(state, latest, offset, budget) if start is None else start)


def _items(
    state: dict[str, Any], question: int, latest: int, retained: frozenset[str], compaction: bool
) -> list[EvidenceItem]:
    cited_now = set(ledger.cited_ids(state, question))
    attributed = set(ledger.attributed_ids(state, question))
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
                        attributed=hit["chunk_id"] in attributed,
                    )
                )
    return items


def _programs(state: dict[str, Any], question: int) -> tuple[Program, ...]:
    out = []
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        for run in (record or {}).get("executions", []):
            out.append(
                Program(run.get("code", ""), run.get("stdout", ""), run.get("error") or "", bool(run.get("success")))
            )
    return tuple(out)


def _spans(messages: list[ModelMessage], questions: list[int], offset: int = 0) -> dict[int, list[ModelMessage]]:
    """Each question's messages (``messages[0]`` is message ``offset`` of the history; earlier ones: none)."""
    bounds = questions + [offset + len(messages)]
    return {q: messages[max(0, q - offset) : max(0, bounds[i + 1] - offset)] for i, q in enumerate(questions)}


def query_shown(query: str, prompt: str) -> tuple[str, bool]:
    """What a search of question ``prompt`` shows of its ``query``, and whether it was searched with the question
    before: a short follow-up is searched together with it, so such a search shows the question as the user asked
    it; any other query (a model's own wording) shows as it was searched."""
    query, prompt = " ".join(query.split()), " ".join(prompt.split())
    if prompt and query.startswith(prompt + " "):
        return prompt, True
    return query, False


def _searched(args: dict[str, Any], prompt: str) -> str:
    """``“query”`` of a search row (``“and at night?” with the question before`` for a combined one)."""
    shown, combined = query_shown(str(args.get("query", "")), prompt)
    return f"“{one_line(shown, 120)}”" + (" with the question before" if combined else "")


def retry_reason(errors: Any) -> str:
    """Why a tool call was sent back to the model (Pydantic's error dicts, or a retry message), in plain words."""
    if isinstance(errors, str):
        return "no such tool" if errors.startswith("Unknown tool name") else one_line(errors, 160)
    items = [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []
    if not items:
        return one_line(str(errors), 160)
    if any(e.get("type") == "json_invalid" for e in items):
        return "arguments that are not valid JSON"
    wrong = ", ".join(f"{'.'.join(map(str, e.get('loc') or ())) or 'arguments'}: {e.get('msg', '')}" for e in items[:3])
    return f"arguments it does not accept ({one_line(wrong, 120)})"


def _readable_args(call: ToolCallPart) -> bool:
    if not isinstance(call.args, str) or not call.args.strip():
        return True
    try:
        return isinstance(json.loads(call.args), dict)
    except ValueError:
        return False


def call_step(call: ToolCallPart, prompt: str = "") -> Step:
    """The row of a tool call that is still running (``prompt``: the question it serves)."""
    name = call.tool_name
    if not _readable_args(call):
        return Step("tool", f"calling {name} (arguments that are not valid JSON)")
    args = call.args_as_dict()
    if name == "load_capability":
        return Step("load", f"loading {CAPABILITY_NAMES.get(args.get('id', ''), args.get('id', 'a capability'))}")
    if name.endswith("_search"):
        return Step("search", f"searching {_searched(args, prompt)}")
    if name.endswith("_execute_code"):
        return Step("code", f"running a program: {_first_line(args.get('code', ''))}")
    if name.endswith("_cite"):
        ids = args.get("chunk_ids") or []
        return Step("cite", f"citing {len(ids)} chunk(s)" if ids else "declaring the answer ungrounded")
    return Step("tool", f"calling {name}")


def result_step(
    call: ToolCallPart, result: ToolReturnPart | RetryPromptPart, state: dict[str, Any], prompt: str = ""
) -> Step:
    """The row of a finished tool call, from its call, its result, the state it left and the question it serves.

    The app uses it live (with the run's working state) and :func:`question_views` when a session
    is reopened (with the committed state), so both show the same rows.
    """
    name = call.tool_name
    if isinstance(result, RetryPromptPart) or getattr(result, "outcome", "success") == "retried":
        return Step("notice", f"{name} failed: {retry_reason(result.content)}", failed=True)
    content = result.content if isinstance(result.content, str) else str(result.content)
    if getattr(result, "outcome", "success") != "success":
        return Step("notice", f"{name} failed: {one_line(content, 160)}", failed=True)
    args = call.args_as_dict()
    if name == "load_capability":
        return Step("load", f"loaded {CAPABILITY_NAMES.get(args.get('id', ''), args.get('id', 'a capability'))}")
    if name.endswith("_search"):
        hits = 0 if content.strip() == NO_RESULTS else content.count(RESULT_SEPARATOR) + 1
        return Step("search", f"searched {_searched(args, prompt)} → {hits} result(s)")
    if name.endswith("_execute_code"):
        return Step("code", f"ran a program: {_first_line(args.get('code', ''))}")
    if name.endswith("_cite"):
        numbers = _cited_numbers(state, [str(c) for c in args.get("chunk_ids") or []])
        if numbers:
            return Step("cite", "cited " + " ".join(f"[{n}]" for n in numbers))
        return Step("cite", "declared the answer ungrounded (cited nothing)")
    return Step("tool", f"called {name}")


def _first_line(code: Any) -> str:
    return one_line(next((line for line in str(code).splitlines() if line.strip()), ""), 80)


def _cited_numbers(state: dict[str, Any], chunk_ids: list[str]) -> list[int]:
    """Citation numbers of the chunks a cite call named, from the state's citation index."""
    numbers = []
    for raw in chunk_ids:
        entry = ledger.citation_for(state, raw.strip().strip("[]()<>`'\" ").lower())
        if entry is not None and entry["index"] not in numbers:
            numbers.append(entry["index"])
    return numbers


def host_step(query: str, found: int, prompt: str = "") -> Step:
    """The row of haiku-tui's own search for a question answered search-first (live and reopened alike)."""
    return Step("search", f"haiku-tui searched {_searched({'query': query}, prompt)} → {found} passage(s)")


def reroute_step(line: str) -> Step:
    """The row saying why a question was asked again (live and reopened alike)."""
    return Step("notice", f"{line[:1].upper()}{line[1:]}.")


def host_search_step(state: dict[str, Any], question: int, prompt: str = "") -> Step | None:
    """:func:`host_step` of ``question``'s search-first search in ``state`` (None: haiku-tui did not search)."""
    for namespace in ledger.evidence_namespaces(state).values():
        record = ledger.find_question(namespace, question)
        for search in (record or {}).get("searches", ()):
            if search.get("by") == "haiku-tui":
                return host_step(search["query"], len(search["hits"]), prompt)
    return None


def is_redirect(part: Any) -> bool:
    """True for the citation policy's request to declare what grounded the answer."""
    return not isinstance(part, (ToolReturnPart, RetryPromptPart)) and REDIRECT_TAG in str(getattr(part, "content", ""))


def _steps(messages: list[ModelMessage], state: dict[str, Any], prompt: str, question: int) -> list[Step]:
    results = {
        part.tool_call_id: part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, (ToolReturnPart, RetryPromptPart)) and part.tool_call_id
    }
    steps = [reroute_step(line) for line in ledger.asked_again(state, question)]
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    result = results.get(part.tool_call_id)
                    steps.append(
                        result_step(part, result, state, prompt) if result is not None else call_step(part, prompt)
                    )
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, PassagesPart):
                    steps.append(host_step(part.query, part.found, prompt))
                elif is_redirect(part):
                    steps.append(REDIRECT_STEP)
    return steps


def _answer(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                return text
    return ""


def _attribution(
    state: dict[str, Any], question: int
) -> tuple[tuple[int, ...], tuple[str, ...], tuple[ClaimSupport, ...]]:
    """A search-first answer's attributed citation numbers, its unsupported sentences, and its attributed
    sentences as claims (``by="haiku-tui"``), from the question's record."""
    records = ledger.attribution(state, question)
    if not records:
        return (), (), ()
    declared, only = set(ledger.cited_ids(state, question)), set(ledger.attributed_ids(state, question))
    numbers: dict[int, None] = {}
    unsupported: list[str] = []
    claims: list[ClaimSupport] = []
    for item in records:
        entry = ledger.citation_for(state, item["chunk_id"]) if item.get("chunk_id") else None
        if entry is None or item["chunk_id"] not in declared:
            unsupported.append(item["sentence"])
            continue
        if item["chunk_id"] in only:
            numbers[entry["index"]] = None
        score = float(item.get("score") or 0.0)
        claims.append(
            ClaimSupport(item["sentence"], entry["index"], item["chunk_id"], score, None, score, False, "haiku-tui")
        )
    return tuple(sorted(numbers)), tuple(unsupported), tuple(claims)


def _citations(state: dict[str, Any], question: int) -> tuple[int, ...]:
    numbers = [e["index"] for cid in ledger.cited_ids(state, question) if (e := ledger.citation_for(state, cid))]
    return tuple(sorted(numbers))


def _policy(
    state: dict[str, Any], question: int, messages: list[ModelMessage], policy_active: bool, cited_before: bool
) -> PolicyView:
    enforced, reason = enforcement(state, question, cited_before=cited_before)
    asked = any(is_redirect(p) for m in messages if isinstance(m, ModelRequest) for p in m.parts)
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
    unbacked = tuple(recorded_unbacked(state).get(question, ()))
    return PolicyView(enforced, reason, asked, declaration, violation, outcome, unbacked)


def question_views(
    state: dict[str, Any],
    messages: list[ModelMessage] = (),
    *,
    compaction: bool = True,
    embed: Embed | None = None,
    last: int = 0,
    offset: int = 0,
    only: set[int] | None = None,
    retained_chars: int = 0,
) -> list[QuestionView]:
    """One view per question, oldest first (the evidence pane shows them newest first).

    Claim support is lexical unless ``embed`` (the offline embedder) is given. ``last``: only the
    views of the last that many questions (0: all); a report of the newest question needs one, and
    the work then does not grow with the history. ``only``: the views of these questions (identities)
    alone, numbered as in the whole list. ``messages[0]`` is message ``offset`` of the history (a
    session holding its newest messages only). ``retained_chars``: the host's bound on the cited text its
    requests keep in full (0: none): items cited before the latest question's window are marked as receipts.
    """
    questions = question_ids(state)
    if not questions:
        return []
    latest = questions[-1]
    first = max(0, len(questions) - last) if last > 0 else 0
    if only is not None:
        first = next((i for i, q in enumerate(questions) if q in only), len(questions))
    spans = _spans(messages if isinstance(messages, list) else list(messages), questions[first:], offset)
    policy_active = ledger.POLICY_KEY in state
    retained = kept_in_full(state, latest, retained_chars) if compaction and questions[first:-1] else frozenset()
    cited_so_far = any(_citations(state, q) for q in questions[:first])
    texts = citation_texts(state)
    views = []
    for number, q in enumerate(questions[first:], start=first + 1):
        if only is not None and q not in only:
            cited_so_far = cited_so_far or bool(_citations(state, q))  # short-circuits once something was cited
            continue
        span = spans.get(q, [])
        answer = _answer(span)
        prompt = ledger.prompt_of(state, q)
        attributed, unsupported, support = _attribution(state, q)
        views.append(
            QuestionView(
                question=q,
                number=number,
                prompt=prompt,
                answer=answer,
                steps=tuple(_steps(span, state, prompt, q)),
                items=tuple(_items(state, q, latest, retained, compaction)),
                citations=_citations(state, q),
                policy=_policy(state, q, span, policy_active, cited_so_far),
                latest=q == latest,
                programs=_programs(state, q),
                support=tuple(check_answer(answer, state, embed=embed, cited=texts)) + support,
                attributed=attributed,
                unsupported=unsupported,
                searched_by=ledger.searched_by(state, q),  # type: ignore[arg-type]
                unconfirmed=tuple(ledger.unconfirmed(state, q)),
                echoed=ledger.echoed(state, q),
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


def request_size(
    state: dict[str, Any], messages: list[ModelMessage], *, window: int = 0, offset: int = 0, retained: int = 0
) -> tuple[int, int]:
    """Characters the latest question's last request carries (with compaction, without it).

    Measured as the history the run was given — the ``window`` questions before the latest one (0: all,
    see :func:`~haiku_tui.capabilities.wire.window_start`) — plus that question's messages, the earlier
    evidence compacted exactly as the compaction capability would on the wire. ``messages[0]`` is message
    ``offset`` of the history; only the window is read, so the cost does not grow with the session.
    ``retained``: the host's bound on earlier cited text in full (``Deps.retained_chars``, 0: all), for a question
    whose start was not recorded.
    """
    from haiku_tui.capabilities.wire import request_start

    questions = question_ids(state)
    if not questions or not questions[-1]:
        full = _message_chars(list(messages))
        return full, full
    latest = questions[-1]
    start = max(request_start(state, questions, latest, window=window, retained=retained), offset)
    sent = list(messages[start - offset :])
    owned = frozenset(
        f"{key}_{tool}" for key in ledger.evidence_namespaces(state) for tool in ("search", "execute_code")
    )
    compacted = compact_history(sent, state=state, boundary=latest, owned_tools=owned, start=start, offset=start)
    return _message_chars(compacted), _message_chars(sent)


def weak_claims(view: QuestionView) -> list[ClaimSupport]:
    """The answer's claims flagged "weak support", markers with no citation behind them included."""
    return [claim for claim in view.support if claim.weak]
