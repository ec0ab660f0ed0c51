"""Exports: full-fidelity JSON and a readable Markdown transcript.

The Markdown transcript needs, per question, its grounding outcome and the sources its answer cited.
Those come from the capability state; :func:`answer_records` is the *only* place that reads it (through
the ledger's pure functions), so adapting to a change of the state shape is one edit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import payload as _payload
from haiku_tui.store.records import chunk_label, page_range
from haiku_tui.text import terminal_safe

from .scrub import scrub_json

if TYPE_CHECKING:
    from .model import Session

OUTCOMES = ("grounded", "ungrounded", "missing", "violation")
_OUTCOME_TEXT = {
    "grounded": "grounded",
    "ungrounded": "ungrounded — the answer declared that it cites no knowledge-base evidence",
    "missing": "missing — the answer declared nothing",
    "violation": "violation — the answer ended undeclared although the citation policy asked for a declaration",
}


@dataclass
class Source:
    """One cited chunk, as the transcript lists it."""

    index: int | None  # the stable citation number [n]
    chunk_id: str
    title: str
    headings: list[str]
    pages: list[int]
    path: str
    attributed: bool = False
    """haiku-tui tied the answer to it (search-first attribution), not the model's ``[n]``."""

    @property
    def label(self) -> str:
        return chunk_label(self.title, self.headings) or self.path or self.chunk_id


@dataclass
class AnswerRecord:
    """What the state says about one question: its ledger identity, outcome and cited sources."""

    question: Any  # the ledger's question identity (used for review marks), or None if not recorded
    outcome: str
    sources: list[Source] = field(default_factory=list)
    searched_by: str = ""
    """Who searched the documents for it: ``"haiku-tui"`` (search-first), ``"model"`` or ``""`` (nobody)."""
    unsupported: list[str] = field(default_factory=list)
    """Unmarked sentences of a search-first answer that match none of its passages."""
    unconfirmed: list[int] = field(default_factory=list)
    """Markers of a search-first answer that back none of its sentences."""
    echoed: bool = False
    """A search-first answer that wrote its request back instead of answering."""
    asked_again: list[str] = field(default_factory=list)
    """Why the question was asked again (search-first, or with fewer earlier questions), in order."""


def answer_records(state: dict[str, Any], turns: list[_payload.Turn]) -> list[AnswerRecord]:
    """One ``AnswerRecord`` per turn, read from the state map: the single dependency on its shape.

    Uses the ledger's pure functions (``haiku_tui.capabilities.ledger``): a question's identity is the
    number of messages in history when it was asked, i.e. the index of the turn's first message; a turn
    the ledger does not know by that identity is matched by its prompt. A turn with no record, or a state
    the ledger cannot read, is reported as ``missing`` with no sources (the export never fails on state).
    """
    from haiku_tui.capabilities import ledger

    try:
        prompts: dict[Any, str] = {}
        for namespace in ledger.evidence_namespaces(state).values():
            for record in namespace.get("questions") or []:
                if isinstance(record, dict) and "question" in record:
                    prompts.setdefault(record["question"], str(record.get("prompt", "")))
        violations = set(_hashable(v) for v in ledger.violations(state))
    except Exception:  # a damaged or foreign state must not break an export
        prompts, violations = {}, set()

    used: set[Any] = set()
    out: list[AnswerRecord] = []
    for turn in turns:
        question: Any = turn.first_message if turn.first_message in prompts else None
        if question is None or question in used:
            question = next(
                (q for q, p in prompts.items() if q not in used and p.strip() == turn.prompt.strip()), None
            )
        if question is None:
            out.append(AnswerRecord(None, "missing"))
            continue
        used.add(question)
        try:
            outcome = "violation" if _hashable(question) in violations else ledger.citation_status(state, question)
            searched_by = ledger.searched_by(state, question)
            unconfirmed = ledger.unconfirmed(state, question)
            echoed = ledger.echoed(state, question)
            asked_again = ledger.asked_again(state, question)
            attributed = set(ledger.attributed_ids(state, question))
            declared = set(ledger.cited_ids(state, question))
            unsupported = [
                str(a.get("sentence", ""))
                for a in ledger.attribution(state, question)
                if a.get("chunk_id") not in declared
            ]
            sources = []
            for chunk_id in ledger.cited_ids(state, question):
                entry = ledger.citation_for(state, chunk_id) or {}
                raw_index = entry.get("index")
                sources.append(
                    Source(
                        index=raw_index if isinstance(raw_index, int) else None,
                        chunk_id=chunk_id,
                        title=str(entry.get("title") or ""),
                        headings=[str(h) for h in entry.get("headings") or []],
                        pages=[p for p in entry.get("pages") or [] if isinstance(p, int)],
                        path=str(entry.get("path") or ""),
                        attributed=chunk_id in attributed,
                    )
                )
        except Exception:
            outcome, sources, searched_by, unsupported, unconfirmed, echoed, asked_again = (
                "missing", [], "", [], [], False, []
            )
        if outcome not in OUTCOMES:
            outcome = "missing"
        sources.sort(key=lambda s: (s.index is None, s.index or 0))
        out.append(
            AnswerRecord(question, outcome, sources, searched_by, unsupported, unconfirmed, echoed, asked_again)
        )
    return out


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (int, str, float, bool, type(None))) else json.dumps(value, sort_keys=True)


def _quote(text: str) -> str:
    return "\n".join(("> " + line) if line else ">" for line in text.strip().splitlines()) or ">"


def file_name(title: str, session_id: str, kind: str) -> str:
    """The file an export is written to inside a folder: ``<title-slug>-<id prefix>.<md|json>``."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].rstrip("-") or "session"
    return f"{slug}-{session_id[:8]}.{kind}"


def to_markdown(session: Session) -> str:
    """The session as Markdown: title, then per question the question, the answer (``[n]`` markers as
    written), its grounding outcome, the numbered sources it cited and their review marks.

    Escape sequences and control characters in any of it are removed (``cat`` of the file never acts)."""
    return terminal_safe(_markdown(session))


def _markdown(session: Session) -> str:
    turns = session.turns()
    records = answer_records(session.state, turns)
    marks, _ = session.review_marks()
    from haiku_tui.capabilities.policy import recorded_unbacked
    from haiku_tui.capabilities.support import check_answer, citation_texts, support_lines
    from haiku_tui.capabilities.views import grounding_note, unconfirmed_note

    cited, unbacked = citation_texts(session.state), recorded_unbacked(session.state)
    lines = [f"# {session.title}", ""]
    facts = [f"session `{session.id}`"]
    if session.model:
        facts.append(f"model `{session.model}`")
    if session.db:
        facts.append(f"knowledge base `{session.db}`")
    facts += [f"created {session.created_at}", f"updated {session.updated_at}"]
    lines += ["*" + " · ".join(facts) + "*", ""]
    if not turns:
        lines += ["*(no questions yet)*", ""]
    for turn, record in zip(turns, records):
        lines += [f"## Question {turn.number}", "", _quote(turn.prompt), ""]
        lines += [turn.answer.strip() if turn.answer.strip() else "*(no answer)*", ""]
        lines += [f"**Grounding:** {_OUTCOME_TEXT[record.outcome]}", ""]
        for line in record.asked_again:
            lines += [f"*{' '.join(line.split())}*", ""]
        # markers the answer's own question left unbacked stay unbacked, whatever a later question registers
        own = unbacked.get(record.question, []) if isinstance(record.question, int) else []
        badge = "violation" if record.outcome == "violation" else record.outcome
        note = grounding_note(badge, own, record.searched_by, record.unconfirmed, record.echoed)
        note = note or unconfirmed_note(badge, record.unconfirmed)
        if record.question is not None and note:
            lines += [f"*{note}*", ""]
        if record.unsupported:
            lines += ["**Unsupported:** these sentences match none of the passages haiku-tui found", ""]
            lines += [f"- {' '.join(s.split())[:300]}" for s in record.unsupported] + [""]
        if own:
            lines += [
                f"**Unbacked:** {' '.join(f'[{n}]' for n in own)} (no citation of this answer has the number)",
                "",
            ]
        backed = {n: c for n, c in cited.items() if n not in own} if own else cited
        if weak := support_lines(check_answer(turn.answer, session.state, cited=backed)):
            lines += [*weak, ""]
        if record.sources:
            lines += ["**Sources**", ""]
            for source in record.sources:
                parts = [f"[{source.index}]" if source.index is not None else "[?]", source.label]
                if source.pages:
                    parts.append("— " + page_range(source.pages))
                if source.path:
                    parts.append(f"— `{source.path}`")
                if source.attributed:
                    parts.append("— *attributed by haiku-tui*")
                mark = marks.get(record.question, {}).get(source.chunk_id) if isinstance(record.question, int) else None
                if mark:
                    parts.append(f"— *review: {mark.text}*")
                lines.append("- " + " ".join(parts))
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def to_json(session: Session) -> str:
    """Full-fidelity JSON: format, schema version, id, metadata, conversation, whole state, app data."""
    data = scrub_json(session.to_payload())
    data["exported_at"] = _payload.now_iso()
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    # C0 controls are escaped by json; C1 (U+0080-U+009F, e.g. CSI U+009B) are not: they only occur in strings
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_C1 = re.compile("[\u0080-\u009f]")
