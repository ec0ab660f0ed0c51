"""``Session``: one conversation with its whole state, as the host holds it between runs.

The session keeps the *last committed* conversation and state. A run works on copies
(:meth:`Session.deps` / :meth:`Session.working_state`); only :meth:`Session.commit_run` — called by
the host after a run completed — replaces both together. A run that fails or is cancelled is simply
never committed, so history and state stay as they were, and :meth:`SessionStore.save` (called after
``commit_run``) writes nothing for it.
"""

from __future__ import annotations

import secrets as _random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import pydantic
from pydantic_ai import Conversation, ConversationTypeAdapter

import haiku_tui.capabilities.parts  # noqa: F401 - saved histories load haiku-tui's parts as their classes

from . import payload as _payload
from .runstate import committed, json_copy, run_copy
from .errors import SessionCorrupt, SessionStateError
from .scrub import scrub_location, scrub_text

if TYPE_CHECKING:
    from haiku_tui.capabilities import Deps



class ReviewMark(StrEnum):
    """A citation review mark, kept in ``app_data["reviews"][str(question)][chunk_id]``."""

    SUPPORTS = "supports"
    DOES_NOT_SUPPORT = "does_not_support"
    UNSURE = "unsure"

    @property
    def text(self) -> str:
        """``"does not support"``."""
        return self.value.replace("_", " ")

    @property
    def symbol(self) -> str:
        return {"supports": "✓", "does_not_support": "✗", "unsure": "?"}[self.value]


REVIEW_MARKS = tuple(mark.value for mark in ReviewMark)

_KNOWN_METADATA = ("title", "title_manual", "model", "db", "created_at", "updated_at")
_KNOWN_TOP = ("format", "schema_version", "id", "revision", "metadata", "conversation", "state", "app_data")


def new_session_id() -> str:
    """A fresh session id: 12 lowercase hex characters (short enough to type, prefix-matchable)."""
    return _random.token_hex(6)


def _first_prompt(messages: list[Any]) -> list[Any]:
    """The first message carrying a user prompt (what the automatic title is made from), as a list."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    for message in messages:
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return [message]
    return []


class Session:
    """A durable conversation: ``Conversation`` + the whole ``deps.state`` map + ``app_data`` + metadata."""

    def __init__(
        self,
        *,
        id: str | None = None,
        conversation: Conversation | None = None,
        state: dict[str, Any] | None = None,
        app_data: dict[str, Any] | None = None,
        title: str | None = None,
        title_manual: bool = False,
        model: str | None = None,
        db: str | None = None,
        created_at: str | None = None,
        updated_at: str | None = None,
    ) -> None:
        self.id: str = id or new_session_id()
        self._conversation: Conversation = conversation if conversation is not None else Conversation()
        self._state: dict[str, Any] = json_copy(state or {}, "state")
        self.app_data: dict[str, Any] = app_data if app_data is not None else {}
        """The app's own per-session data (e.g. ``{"reviews": {...}}``); plain JSON, saved with the session."""
        self.title_manual = bool(title_manual)
        self.title: str = title or _payload.DEFAULT_TITLE
        self._model = scrub_location(model)
        self._db = scrub_location(db)
        now = _payload.now_iso()
        self.created_at: str = created_at or now
        self.updated_at: str = updated_at or self.created_at
        self.revision: int = 0
        """Stored revision this copy continues (0: never saved). Advanced by ``SessionStore.save``."""
        self.schema_version: int = _payload.SCHEMA_VERSION
        self.stored_checksum: str | None = None
        """The store's bookkeeping (``SessionStore``): the checksum of the stored copy this one continues, the
        messages it last saved (the next save appends what follows them) and the state rows it knows."""
        self.saved_messages: tuple[Any, ...] | None = None
        self.saved_rows: Any = None
        self._extra_metadata: dict[str, Any] = {}
        self._extra_top: dict[str, Any] = {}
        self._first = 0
        self.dirty = False
        """True when something was committed since the last save."""

    # -- metadata ----------------------------------------------------------------------------------------

    @property
    def model(self) -> str | None:
        """The model this session runs with, stored without credentials."""
        return self._model

    @model.setter
    def model(self, value: str | None) -> None:
        self._model = scrub_location(value)
        self.dirty = True

    @property
    def db(self) -> str | None:
        """The knowledge-base location, stored without URL userinfo or query tokens."""
        return self._db

    @db.setter
    def db(self, value: str | None) -> None:
        self._db = scrub_location(value)
        self.dirty = True

    def rename(self, title: str) -> None:
        """Set a title by hand; from then on it is never replaced by the automatic one."""
        text = _payload.clean_title(title)
        if not text:
            raise ValueError("a session title cannot be empty")
        self.title = text
        self.title_manual = True
        self.dirty = True

    # -- the committed conversation and state ----------------------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        """The last committed ``Conversation``: pass it as ``agent.run(..., conversation=session.conversation)``.

        Treat it as read-only (a run does not change the conversation it is given; it returns a new one).
        """
        return self._conversation

    @property
    def messages(self) -> list[Any]:
        """A copy of the committed message list (from :attr:`first_message` on)."""
        return list(self._conversation.messages)

    @property
    def first_message(self) -> int:
        """Index in the whole history of ``messages[0]``: 0, unless the session was opened partially
        (:meth:`SessionStore.load` with ``questions``: the newest questions only, enough to run, commit and
        save; a partial session cannot be exported or listed as turns)."""
        return self._first

    @first_message.setter
    def first_message(self, index: int) -> None:
        """Set by :meth:`SessionStore.load` on a session it opened partially."""
        self._first = index

    @property
    def message_count(self) -> int:
        """Messages in the whole history (a new question's identity)."""
        return self._first + len(self._conversation.messages)

    @property
    def state(self) -> dict[str, Any]:
        """The committed state namespace map. Treat it as read-only (it is not copied on each read):
        a run works on :meth:`deps`, and only :meth:`commit_run` replaces it."""
        return self._state

    def working_state(self) -> dict[str, Any]:
        """A copy of the committed state for a new run (what a run may change, :func:`runstate.run_copy`); hand it
        back to :meth:`commit_run` if the run completes."""
        return run_copy(self._state)

    def deps(self, history_offset: int = 0, retained_chars: int = 0) -> Deps:
        """``Deps(state=...)`` for the next run, on a copy of the committed state; ``history_offset``: the
        messages left out of the run's conversation (see :meth:`window`); ``retained_chars``: earlier cited
        text its requests carry in full (0: all, see :class:`~haiku_tui.capabilities.Deps`)."""
        from haiku_tui.capabilities import Deps

        return Deps(state=self.working_state(), history_offset=history_offset, retained_chars=retained_chars)

    def window(self, questions: int, retained: int = 0) -> tuple[Conversation, int]:
        """The conversation to hand a run that sees at most the last ``questions`` questions (0: all), and
        how many messages it leaves out: pass that to :meth:`deps` and :meth:`commit_run`.

        Pydantic AI walks the whole history on every request, so a bounded window keeps a turn's cost
        flat; earlier cited evidence still reaches the model through compaction (chunks cited before the
        window are named by id). The window moves in steps (compaction's ``plan_start``): it starts where the
        previous question's did until ``questions`` or the cited text bound ``retained`` (characters, 0: none)
        is passed, then keeps a quarter of each, so most questions' requests start as the one before did (what a
        model server's prompt cache reuses). The stored history keeps everything.
        """
        from haiku_tui.capabilities.compaction import plan_start
        from haiku_tui.capabilities.wire import question_starts, window_start

        messages, first = self._conversation.messages, self._first
        starts: list[int] = []
        low = len(messages)
        while questions > 0 and low > 0 and len(starts) <= questions:  # from the end: the window's questions only
            high, low = low, max(0, low - 8 * (questions + 1))
            starts[:0] = [low + i for i in question_starts(messages[low:high])]
        start = window_start(starts, len(messages), questions)
        if first and not start:
            raise ValueError(
                f"this session was opened with its newest {len(starts)} question(s) only, fewer than the window "
                f"of {questions or 'every'} question(s); open it whole"
            )
        start = plan_start(self._state, self.message_count, first + start, retained) - first
        if not start:
            return self._conversation, 0
        return replace(self._conversation, messages=list(messages[start:])), first + start

    @property
    def document_filter(self) -> str | None:
        """The document filter every evidence capability applies to its searches (None: all documents)."""
        from haiku_tui.capabilities import ledger

        filters = [ns.get("document_filter") for ns in ledger.evidence_namespaces(self._state).values()]
        return next((f for f in filters if f), None)

    def set_document_filter(self, value: str | None) -> None:
        """Restrict later searches to documents matching ``value`` (an SQL predicate); None clears it.

        Written into every evidence namespace of the committed state (creating the RAG one for a new
        session), so the next run's capabilities search with it.
        """
        from haiku_tui.capabilities import ledger

        value = (value or "").strip() or None
        namespaces = ledger.evidence_namespaces(self._state) or {
            "rag": self._state.setdefault("rag", ledger.new_namespace())
        }
        for namespace in namespaces.values():
            namespace["document_filter"] = value
        self.updated_at = _payload.now_iso()
        self.dirty = True

    def commit_run(self, result: Any, state: Any, history_offset: int = 0) -> None:
        """Take a *completed* run's conversation and its state together.

        ``result`` is the run result (anything with ``.conversation``, e.g. ``AgentRunResult`` or the
        ``run_stream_events`` handle's ``.result``) or a ``Conversation``; ``state`` is the run's
        ``deps.state`` (or the ``Deps`` itself). Both are validated before anything changes: a state that is
        not plain JSON raises ``SessionStateError`` and leaves the session as it was. ``history_offset``: the
        run was given a :meth:`window`; the messages it left out are kept in front of the run's.
        """
        conversation = getattr(result, "conversation", result)
        if not isinstance(conversation, Conversation):
            raise TypeError(
                f"commit_run needs a run result or a Conversation, not {type(result).__name__}; nothing was committed"
            )
        state = getattr(state, "state", state)
        if not isinstance(state, dict):
            raise SessionStateError(
                f"commit_run needs the run's state map (a dict), not {type(state).__name__}; nothing was committed"
            )
        if self._conversation.messages and conversation.conversation_id != self._conversation.conversation_id:
            raise ValueError(
                "commit_run got a different conversation (its conversation_id does not match this session's); "
                "nothing was committed"
            )
        kept = history_offset - self._first
        if kept < 0:
            raise ValueError(
                f"commit_run got a run that saw messages from {history_offset}, before this partial session's "
                f"first message {self._first}; nothing was committed"
            )
        new_state = committed(self._state, state)
        if kept:
            conversation = replace(
                conversation, messages=self._conversation.messages[:kept] + list(conversation.messages)
            )
        self._conversation = conversation
        self._state = new_state
        if (
            not self.title_manual and not self._first
        ):  # a partial session keeps its title: its first question is not held
            first = _payload.turns_from_messages(
                ConversationTypeAdapter.dump_python(
                    replace(conversation, messages=_first_prompt(conversation.messages)), mode="json"
                )["messages"]
            )
            if first:
                self.title = _payload.make_title(scrub_text(first[0].prompt))
        self.updated_at = _payload.now_iso()
        self.dirty = True

    @contextmanager
    def undone_on_error(self) -> Iterator[None]:
        """Undo what the block commits (:meth:`commit_run`, the model, the knowledge base) when it raises: a run
        committed but not saved leaves the session as it was before the question."""
        kept = (self._conversation, self._state, self.title, self.updated_at, self._model, self._db, self.dirty)
        try:
            yield
        except BaseException:
            self._conversation, self._state, self.title, self.updated_at, self._model, self._db, self.dirty = kept
            raise

    # -- reading ----------------------------------------------------------------------------------------------

    def messages_json(self) -> list[dict[str, Any]]:
        """The committed messages in their stored JSON form (a partial session refuses: ``ValueError``)."""
        self._whole("its messages")
        return ConversationTypeAdapter.dump_python(self._conversation, mode="json")["messages"]

    def _whole(self, what: str) -> None:
        if self._first:
            raise ValueError(f"this session was opened partially (from message {self._first}): {what} need it whole")

    def turns(self) -> list[_payload.Turn]:
        """The questions asked so far, each with the answer its run ended with."""
        return _payload.turns_from_messages(self.messages_json())

    @property
    def question_count(self) -> int:
        return _payload.question_count(self._state, self.turns())

    @property
    def citation_count(self) -> int:
        return _payload.citation_count(self._state)

    # -- the question box's draft (app data) ---------------------------------------------------------------

    @property
    def draft(self) -> str:
        """What the question box held when the app quit (a question being answered then, or typed), else ``""``."""
        draft = self.app_data.get("draft")
        return draft if isinstance(draft, str) else ""

    @draft.setter
    def draft(self, text: str) -> None:
        if text != self.draft:
            if text:
                self.app_data["draft"] = text
            else:
                self.app_data.pop("draft", None)
            self.dirty = True

    # -- citation review marks (app data) ------------------------------------------------------------------

    def set_review(self, question: int, chunk_id: str, mark: str | None) -> None:
        """Mark a citation ``supports`` / ``does_not_support`` / ``unsure`` (``None`` clears the mark)."""
        if mark is not None and mark not in REVIEW_MARKS:
            raise ValueError(f"unknown review mark {mark!r}; use one of {', '.join(REVIEW_MARKS)}")
        if not isinstance(self.app_data.get("reviews"), dict):
            self.app_data["reviews"] = {}
        reviews = self.app_data.setdefault("reviews", {})
        marks = reviews.get(str(question))
        if not isinstance(marks, dict):
            marks = reviews[str(question)] = {}
        if mark is None:
            marks.pop(chunk_id, None)
            if not marks:
                reviews.pop(str(question), None)
        else:
            marks[chunk_id] = mark
        self.dirty = True

    def review_marks(self) -> tuple[dict[int, dict[str, ReviewMark]], str | None]:
        """The review marks by question and chunk id, and a one-line notice when some were malformed
        (those are ignored, never fatal: ``app_data`` may come from another version or a hand edit)."""
        reviews = self.app_data.get("reviews", {})
        marks: dict[int, dict[str, ReviewMark]] = {}
        bad = 0
        if not isinstance(reviews, dict):
            return {}, "the session's review marks are malformed and were ignored"
        for question, by_chunk in reviews.items():
            if not (isinstance(question, str) and question.isdigit() and isinstance(by_chunk, dict)):
                bad += 1
                continue
            for chunk_id, mark in by_chunk.items():
                if isinstance(mark, str) and mark in REVIEW_MARKS:
                    marks.setdefault(int(question), {})[str(chunk_id)] = ReviewMark(mark)
                else:
                    bad += 1
        return marks, f"{bad} malformed review mark(s) in this session were ignored" if bad else None

    # -- payload ----------------------------------------------------------------------------------------------

    def to_payload(self, *, messages: bool = True) -> dict[str, Any]:
        """The full-fidelity JSON form (what is stored and exported). Secrets are scrubbed by the store on write.

        ``messages=False`` leaves the conversation's messages out (the store appends them per run)."""
        if messages:
            self._whole("its full payload")
        metadata = dict(self._extra_metadata)
        metadata.update(
            title=self.title,
            title_manual=self.title_manual,
            model=self._model,
            db=self._db,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )
        payload = dict(self._extra_top)
        payload.update(
            format=_payload.FORMAT,
            schema_version=_payload.SCHEMA_VERSION,
            id=self.id,
            revision=self.revision,
            metadata=metadata,
            conversation=ConversationTypeAdapter.dump_python(
                self._conversation if messages else replace(self._conversation, messages=[]), mode="json"
            ),
            state=self._state,
            app_data=self.app_data,
        )
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any], *, where: str | None = None) -> Session:
        """Build a session from a payload (upgraded to the current schema first).

        Raises ``UnsupportedSchema`` for an unknown version and ``SessionCorrupt`` when the payload fails
        validation.
        """
        if where is None:
            where = f"session {payload.get('id')!r}" if isinstance(payload, dict) else "session"
        payload = _payload.upgrade(payload, where=where)
        try:
            conversation = ConversationTypeAdapter.validate_python(payload["conversation"])
        except pydantic.ValidationError as exc:
            first = exc.errors()[0] if exc.errors() else {}
            loc = ".".join(str(p) for p in first.get("loc", ()))
            raise SessionCorrupt(
                f"{where}: the stored conversation failed validation ({exc.error_count()} error(s), first at "
                f"{loc or '?'}: {first.get('msg', exc)}); nothing was changed"
            ) from None
        meta = payload["metadata"]
        try:
            session = cls(
                id=payload["id"],
                conversation=conversation,
                app_data=payload["app_data"],
                title=_payload.clean_title(meta.get("title") or "") or _payload.DEFAULT_TITLE,
                title_manual=bool(meta.get("title_manual", False)),
                model=meta.get("model"),
                db=meta.get("db"),
                created_at=meta.get("created_at"),
                updated_at=meta.get("updated_at"),
            )
        except SessionStateError as exc:
            raise SessionCorrupt(f"{where}: {exc}") from None
        session._state = payload["state"]  # freshly parsed JSON: already a private plain-JSON copy
        revision = payload.get("revision", 0)
        session.revision = revision if isinstance(revision, int) and revision >= 0 else 0
        session._extra_metadata = {k: v for k, v in meta.items() if k not in _KNOWN_METADATA}
        session._extra_top = {k: v for k, v in payload.items() if k not in _KNOWN_TOP}
        return session

    def __repr__(self) -> str:
        return (
            f"Session(id={self.id!r}, title={self.title!r}, revision={self.revision}, "
            f"messages={len(self._conversation.messages)}, state_keys={sorted(self._state)})"
        )
