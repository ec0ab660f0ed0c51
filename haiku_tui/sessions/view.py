"""What the screens show about a session, computed once per load and updated per commit, never per redraw.

:func:`conversation_view` builds the whole :class:`ConversationView` (a load); :func:`commit_view` updates
one after a commit by rebuilding only the views the commit can change — the new questions, the previous
latest one, and older ones whose evidence items, citations or cited claims involve a chunk the commit
cited or whose citation entry it replaced (their "retained" mark, citation number or support score) — so
the cost of an answer does not grow with the session. Both give what a full rebuild gives (tested).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.capabilities.wire import Tokens

    from .model import ReviewMark, Session
    from .store import SessionPeek


@dataclass(frozen=True)
class ConversationView:
    """Everything the screens show about a committed session, computed once per load or commit."""

    questions: tuple[QuestionView, ...] = ()
    citations: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Citation number → citation entry (``chunk_id``, ``title``, ``headings``, ``pages``, ``path``, ``text``)."""
    reviews: dict[int, dict[str, ReviewMark]] = field(default_factory=dict)
    """Question → chunk id → review mark."""
    request_size: tuple[int, int] | None = None
    """Characters of the latest question's requests (compacted, full); None before the first answer."""
    tokens: Tokens | None = None
    """Input and output tokens of every request of the session (estimated when no provider reported them)."""
    messages: int = 0
    """Messages in the session's history when the view was computed (a commit's new ones follow)."""
    kept: frozenset[str] = frozenset()
    """Chunks cited earlier that the latest question's requests carry in full (items marked "retained")."""

    @property
    def citation_ids(self) -> dict[int, str]:
        """Citation number → chunk id."""
        return {number: entry["chunk_id"] for number, entry in self.citations.items()}

    def question(self, question: int | None) -> QuestionView | None:
        return next((v for v in self.questions if v.question == question), None)

    def label(self, chunk_id: str) -> str:
        """``Title › heading`` of a cited or retrieved chunk (its id when unknown)."""
        from haiku_tui.store.records import chunk_label

        for entry in self.citations.values():
            if entry["chunk_id"] == chunk_id:
                return chunk_label(entry.get("title") or "", entry.get("headings") or ())
        for view in self.questions:
            for item in view.items:
                if item.chunk_id == chunk_id:
                    return item.label
        return chunk_id


def _size(session: Session, questions: tuple[QuestionView, ...], window: int, retained: int) -> tuple[int, int] | None:
    from haiku_tui.capabilities.views import request_size

    messages = session.conversation.messages
    if not (questions and messages):
        return None
    return request_size(session.state, messages, window=window, offset=session.first_message, retained=retained)


def conversation_view(
    session: Session, *, compaction: bool = True, window: int = 0, retained: int = 0
) -> tuple[ConversationView, str | None]:
    """The view of a session's committed state, and a one-line notice about data that was ignored.
    ``window``: the questions a run is given, ``retained``: the bound on cited text in full it plans with (the
    request size counts what the latest one sent)."""
    from haiku_tui.capabilities.views import citations_by_number, question_views
    from haiku_tui.capabilities.wire import session_tokens

    state, messages = session.state, session.conversation.messages
    offset = session.first_message
    questions = tuple(question_views(state, messages, compaction=compaction, offset=offset, retained_chars=retained))
    reviews, notice = session.review_marks()
    tokens = session_tokens(messages) if messages else None
    size = _size(session, questions, window, retained)
    kept = _kept(state, [v.question for v in questions], compaction, retained)
    view = ConversationView(questions, citations_by_number(state), reviews, size, tokens, session.message_count, kept)
    return view, notice


def _kept(state: dict[str, Any], ids: list[int], compaction: bool, retained: int) -> frozenset[str]:
    """What the latest question (of ``ids``) carries in full of the chunks cited before it."""
    from haiku_tui.capabilities.views import kept_in_full

    return kept_in_full(state, ids[-1], retained) if compaction and ids else frozenset()


def commit_view(
    view: ConversationView, session: Session, *, compaction: bool = True, window: int = 0, retained: int = 0
) -> tuple[ConversationView, str | None]:
    """``view`` (of ``session`` before a commit) updated to the session after it: only the question views the
    commit can change are rebuilt, the request size is the latest question's and the tokens a running total.
    Falls back to :func:`conversation_view` when the questions are not the earlier ones plus new ones."""
    from haiku_tui.capabilities import ledger
    from haiku_tui.capabilities.views import citations_by_number, question_ids, question_views
    from haiku_tui.capabilities.wire import session_tokens

    state, messages, first = session.state, session.conversation.messages, session.first_message
    ids = question_ids(state)
    old = view.questions
    if not old or ids[: len(old)] != [v.question for v in old] or view.messages < first or view.tokens is None:
        return conversation_view(session, compaction=compaction, window=window, retained=retained)
    if (ledger.POLICY_KEY in state) != (old[0].policy.reason != "citation policy not registered"):
        return conversation_view(
            session, compaction=compaction, window=window, retained=retained
        )  # the policy came or went
    citations = citations_by_number(state)
    numbers = {n for n, entry in citations.items() if view.citations.get(n) is not entry}  # new or replaced
    chunks = {citations[n]["chunk_id"] for n in numbers}
    kept = _kept(state, ids, compaction, retained)
    chunks |= (
        kept ^ view.kept
    )  # chunks whose items turn "retained" (cited before the newest) or, past the bound, receipts
    rebuild = set(ids[len(old) - 1 :])
    if numbers or chunks:
        for v in old[:-1]:
            if (
                not numbers.isdisjoint(v.citations)
                or any(claim.number in numbers for claim in v.support)
                or any(item.chunk_id in chunks for item in v.items)
            ):
                rebuild.add(v.question)
    fresh = {
        v.question: v
        for v in question_views(
            state, messages, compaction=compaction, offset=first, only=rebuild, retained_chars=retained
        )
    }
    questions = tuple(fresh.get(v.question, v) for v in old) + tuple(fresh[q] for q in ids[len(old) :] if q in fresh)
    reviews, notice = session.review_marks()
    added = messages[max(0, view.messages - first) :]
    tokens = view.tokens + session_tokens(added)
    size = _size(session, questions, window, retained)
    return ConversationView(questions, citations, reviews, size, tokens, session.message_count, kept), notice


def peek_view(peek: SessionPeek, *, compaction: bool = True) -> ConversationView:
    """The view of a session's newest questions from :meth:`SessionStore.peek` (its state and last runs):
    what the screen shows while the whole session loads. Numbers are the questions' numbers in the session;
    an item's "retained" mark only counts the peeked questions until the whole session replaces this view."""
    from haiku_tui.capabilities import ledger
    from haiku_tui.capabilities.views import citations_by_number, question_ids, question_views

    first = peek.first_message
    older = sum(1 for q in question_ids(peek.state) if q < first)
    state = dict(peek.state)
    for key, namespace in ledger.evidence_namespaces(peek.state).items():
        state[key] = {**namespace, "questions": [r for r in namespace["questions"] if r["question"] >= first]}
    views = question_views(state, peek.messages, compaction=compaction, offset=first)
    questions = tuple(dataclasses.replace(v, number=v.number + older) for v in views)
    return ConversationView(questions, citations_by_number(peek.state))
