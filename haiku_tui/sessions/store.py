"""``SessionStore``: sessions in SQLite (stdlib ``sqlite3``), one transaction per save, appended per run.

Durability and concurrency:

* WAL journal, ``synchronous=FULL``, ``busy_timeout``: a kill at any moment leaves the last committed
  version of every session; readers never block the writer; two app instances share the file safely.
* Every write is ``BEGIN IMMEDIATE`` … ``COMMIT``: the head row, the pieces a save adds or changes and
  their full-text entries change together or not at all (layout: :mod:`haiku_tui.sessions.layout`).
* A save writes what changed since the copy was loaded or saved: the run's new messages as one batch,
  the state rows that differ, and the head. Load reads and checks every piece (a partial load, every piece it
  reads, and the counts of the rest).
* Optimistic concurrency: a session remembers the revision (and head checksum) it was loaded at; a save
  whose revision no longer matches the row raises ``StaleSession`` and writes nothing.
* Stored pieces are checked before they are replaced: a damaged row (checksum mismatch, invalid JSON) or one
  written by a newer schema is never overwritten.
* A database of an older layout is migrated on first open, in one transaction, after a backup copy
  ``sessions.db.v<N>-backup`` beside it; a newer one is refused.

The low-level path (:meth:`SessionStore.read_payload`, :meth:`SessionStore.write_payload`) moves whole JSON
payloads and does not import Pydantic AI.
"""

from __future__ import annotations

import json
import operator
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from haiku_tui.text import one_line

from . import layout
from . import payload as _payload
from .errors import (
    AmbiguousSessionId,
    SessionCorrupt,
    SessionExists,
    SessionNotFound,
    SessionStoreUnavailable,
    StaleSession,
    UnsupportedSchema,
    unavailable,
)
from .migrate import migrate
from .pieces import Change, PieceWriter, head_of
from .reader import PieceReader
from .scrub import scrub_location, scrub_text
from .search import like_escape, search_sessions

if TYPE_CHECKING:
    from .model import Session


_SUMMARY_COLUMNS = (
    "id, title, model, db, created_at, updated_at, revision, schema_version, questions, citations, messages"
)


@dataclass(frozen=True)
class SessionSummary:
    """A row of the sessions list (read from indexed columns; no payload is parsed)."""

    id: str
    title: str
    model: str | None
    db: str | None
    created_at: str
    updated_at: str
    revision: int
    schema_version: int
    questions: int
    citations: int
    messages: int

    @property
    def supported(self) -> bool:
        """False for a session written by a newer haiku-tui (it is listed but cannot be opened)."""
        return self.schema_version <= _payload.SCHEMA_VERSION


@dataclass(frozen=True)
class SessionHit:
    """A full-text search result: the session and a snippet around the match."""

    session: SessionSummary
    snippet: str


@dataclass(frozen=True)
class SessionPeek:
    """The newest questions of a session, read without loading it whole (to show its last answer at once).

    ``messages`` (validated Pydantic AI messages) are the last runs' messages; ``first_message`` is the index
    of ``messages[0]`` in the whole history (a question's ledger identity is its first message's index).
    ``state`` is the state map, the details of questions before ``first_message`` unread (``payload.UNREAD``);
    ``app_data`` the app's data."""

    summary: SessionSummary
    messages: list[Any]
    first_message: int
    state: dict[str, Any]
    app_data: dict[str, Any]





class SessionStore:
    """Durable sessions in one SQLite file (default ``locations.sessions_db_path()``)."""

    def __init__(self, path: str | Path | None = None, *, timeout: float = 10.0) -> None:
        if path is None:
            from haiku_tui import locations

            path = locations.sessions_db_path()
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionStoreUnavailable(
                f"cannot create the sessions folder {self.path.parent} ({exc.strerror or exc}); nothing was saved"
            ) from None
        self._lock = threading.RLock()
        self._text = layout.TextIndex(False)
        self._reader = PieceReader(self.path)
        try:
            self._conn = sqlite3.connect(
                str(self.path), timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise unavailable(self.path, exc, "nothing was saved") or SessionCorrupt(
                f"cannot open the sessions database {self.path}: {exc}"
            ) from None
        try:
            self._conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            migrate(self.path, self._conn, self._write, self._reader, self._pieces())
            self._setup_fts()
        except (UnsupportedSchema, SessionStoreUnavailable):
            self._conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise unavailable(self.path, exc, "nothing was saved") or SessionCorrupt(
                f"{self.path} is not a usable sessions database ({exc}); nothing was changed — move it aside "
                "to start a new one"
            ) from None

    # -- connection plumbing -----------------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front (``BEGIN IMMEDIATE``) so ``busy_timeout`` applies.

        A read-only file or a full disk becomes ``SessionStoreUnavailable`` (nothing was saved)."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                except BaseException:
                    if self._conn.in_transaction:  # SQLite may have rolled back itself (disk full)
                        self._conn.execute("ROLLBACK")
                    raise
                else:
                    self._conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise unavailable(self.path, exc, "nothing was saved") or exc from None

    def _setup_fts(self) -> None:
        """Full-text index when SQLite has FTS5 (else search falls back to LIKE); rebuilt if it went stale."""
        with self._lock:
            has_table = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name=?", (layout.FTS_TABLE,)
            ).fetchone() is not None
            stale = self._conn.execute("SELECT value FROM store_meta WHERE key='fts_stale'").fetchone() is not None
        if not layout.FTS5:
            return
        if not has_table or stale:
            with self._write() as conn:
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name=?", (layout.FTS_TABLE,)).fetchone() is None:
                    conn.execute(layout.FTS_DDL)
                conn.execute(f"INSERT INTO {layout.FTS_TABLE}({layout.FTS_TABLE}) VALUES('rebuild')")
                conn.execute("DELETE FROM store_meta WHERE key='fts_stale'")
        self._text = layout.TextIndex(True)

    # -- checks on stored rows ------------------------------------------------------------------------------

    def _pieces(self) -> PieceWriter:
        return PieceWriter(self._text, self._reader.damaged)

    def _check_overwritable(self, session_id: str, text: str, stored_checksum: str, schema_version: int) -> None:
        """Refuse to replace a damaged head or one written by a newer schema (cheap when the row is sound)."""
        if _payload.checksum(text) != stored_checksum:
            self._reader.parse_head(session_id, text, stored_checksum)  # raises with the precise reason
        if schema_version > _payload.SCHEMA_VERSION:
            raise UnsupportedSchema(
                f"session {session_id!r} was written with session schema version {schema_version} by a newer "
                f"haiku-tui (this one knows up to {_payload.SCHEMA_VERSION}); refusing to overwrite it; nothing was "
                "saved"
            )

    # -- low-level path: whole payloads ----------------------------------------------------------------------------

    def read_payload(self, session_id: str) -> tuple[dict[str, Any], str]:
        """The stored payload of a session (checked, upgraded) and its head checksum, without Pydantic validation."""
        with self._lock:
            tail = self._reader.read(self._conn, session_id)
        return tail.data, tail.checksum


    def write_payload(
        self,
        data: dict[str, Any],
        *,
        expected_revision: int,
        expected_checksum: str | None = None,
        touch: bool = True,
        create_only: bool = False,
    ) -> tuple[int, str]:
        """Write a whole payload in one transaction if the stored row is still at ``expected_revision``.

        ``expected_revision`` 0 means "a new session" (the id must not exist yet). When ``expected_checksum``
        is given, the stored row must also still have that checksum. The payload is scrubbed of secrets, its
        ``revision`` set to ``expected_revision + 1`` (and ``metadata.updated_at`` to now when ``touch``).
        Messages the store already holds are kept, not rewritten. Returns ``(new_revision, checksum)``.

        Raises ``StaleSession`` (changed or deleted since loaded), ``SessionExists`` (``create_only`` and the id
        exists), ``SessionCorrupt`` / ``UnsupportedSchema`` (the stored row is damaged or newer: never
        overwritten), ``SessionStoreUnavailable`` (read-only, disk full). On any error nothing is written.
        """
        data = _payload.upgrade(dict(data), where=f"session {data.get('id')!r}")
        change = Change(head_of(data), data["conversation"].get("messages") or [], None, data["state"])
        return self._commit(change, expected_revision, expected_checksum, touch=touch, create_only=create_only)

    def _commit(
        self,
        change: Change,
        expected_revision: int,
        expected_checksum: str | None,
        *,
        touch: bool = True,
        create_only: bool = False,
    ) -> tuple[int, str]:
        head = change.head
        session_id = head["id"]
        if not isinstance(session_id, str) or not _payload.valid_id(session_id):
            raise ValueError(f"invalid session id {session_id!r} (use 1-64 letters, digits, '-' or '_')")
        metadata = dict(head["metadata"])
        metadata["model"] = scrub_location(metadata.get("model"))
        metadata["db"] = scrub_location(metadata.get("db"))
        if touch or not metadata.get("updated_at"):
            metadata["updated_at"] = _payload.now_iso()
        metadata.setdefault("created_at", metadata["updated_at"])
        head["metadata"] = metadata
        head["format"] = _payload.FORMAT
        head["schema_version"] = _payload.SCHEMA_VERSION
        new_revision = expected_revision + 1
        head["revision"] = new_revision
        with self._write() as conn:
            row = conn.execute(
                "SELECT num, revision, schema_version, payload, checksum, messages, turns FROM sessions WHERE id=?",
                (session_id,),
            ).fetchone()
            if row is None:
                if expected_revision != 0:
                    raise StaleSession(
                        f"session {session_id!r} was deleted (in another window or by a command) since it was "
                        "loaded; nothing was saved"
                    )
                num = conn.execute(
                    "INSERT INTO sessions (id, revision, schema_version, title, created_at, updated_at, payload, "
                    "checksum) VALUES (?, 0, ?, '', '', '', '', '')",
                    (session_id, _payload.SCHEMA_VERSION),
                ).lastrowid
                stored = None
            else:
                num, stored_revision, stored_schema, stored_text, stored_checksum, stored_messages, stored_turns = row
                if create_only:
                    raise SessionExists(
                        f"a session with id {session_id!r} already exists in {self.path}; nothing was changed"
                    )
                self._check_overwritable(session_id, stored_text, stored_checksum, stored_schema)
                if expected_revision == 0 or stored_revision != expected_revision:
                    raise StaleSession(
                        f"session {session_id!r} was saved elsewhere since it was loaded (stored revision "
                        f"{stored_revision}, this copy continues revision {expected_revision}); nothing was saved — "
                        "reopen the session to continue from the newer version"
                    )
                if expected_checksum is not None and stored_checksum != expected_checksum:
                    raise StaleSession(
                        f"session {session_id!r} was changed outside haiku-tui since it was loaded (same revision, "
                        "different content); nothing was saved — reopen the session"
                    )
                stored = (stored_messages, stored_turns, json.loads(stored_text).get(layout.PARTS))
            checksum = self._pieces().store(conn, num, change, stored=stored)
        return new_revision, checksum

    # -- sessions ---------------------------------------------------------------------------------------------

    def new(
        self,
        *,
        title: str | None = None,
        model: str | None = None,
        db: str | None = None,
        app_data: dict[str, Any] | None = None,
    ) -> Session:
        """A new, unsaved session (revision 0): it enters the store with its first ``save``."""
        from .model import Session

        session = Session(model=model, db=db, app_data=app_data)
        if title:
            session.rename(title)
        return session

    def save(self, session: Session) -> Session:
        """Write what the session committed since it was loaded or saved, in one transaction.

        Call it after :meth:`Session.commit_run` (i.e. after a completed run) or after changing app data or
        metadata. Only the run's new messages and the changed state rows are written. Raises ``StaleSession`` if
        the stored session changed since this copy was loaded or saved, ``SessionCorrupt`` / ``UnsupportedSchema``
        if the stored row must not be overwritten, ``SessionStoreUnavailable`` if the store cannot be written.
        """
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        messages = session.conversation.messages
        saved = session.saved_messages
        base: int | None = None
        new = messages
        if saved is not None and len(messages) >= len(saved) and all(map(operator.is_, messages, saved)):
            base, new = session.first_message + len(saved), messages[len(saved):]
        elif session.first_message:
            raise ValueError(
                "this partial session's earlier messages were replaced since it was loaded; nothing was saved"
            )
        change = Change(
            _session_head(session),
            ModelMessagesTypeAdapter.dump_python(list(new), mode="json"),
            base,
            session.state,
            session.saved_rows,
        )
        revision, checksum = self._commit(change, session.revision, session.stored_checksum)
        session.revision = revision
        session.stored_checksum = checksum
        session.saved_messages = tuple(messages)
        session.saved_rows = change.known
        session.dirty = False
        return session

    def peek(self, ref: str, *, runs: int = 3) -> SessionPeek:
        """The session's state and its last ``runs`` message batches (one per saved run), checked and validated,
        without reading or validating the rest of its history: constant time in the session's length but for
        the state. Raises like :meth:`load`."""
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        import haiku_tui.capabilities.parts  # noqa: F401 - loads haiku-tui's parts as their classes

        summary = self.find(ref)
        with self._lock:
            tail = self._reader.read(self._conn, summary.id, runs)
        try:
            validated = ModelMessagesTypeAdapter.validate_python(tail.data["conversation"]["messages"])
        except Exception as exc:  # pydantic.ValidationError: a damaged row, reported as such
            raise self._reader.damaged(
                summary.id, f"its newest messages failed validation ({one_line(exc, 160)})"
            ) from None
        return SessionPeek(summary, validated, tail.first, tail.data["state"], tail.data["app_data"])

    def load(self, ref: str, *, questions: int | None = None) -> Session:
        """Open a session (``ref``: an id, a unique id prefix or an exact title, see :meth:`find`). Raises
        ``SessionNotFound``, ``AmbiguousSessionId``, ``SessionCorrupt`` or ``UnsupportedSchema`` (nothing is
        changed).

        ``questions``: read only the newest runs' messages, enough to hold ``questions`` + 1 questions — what a
        run given a window of ``questions`` needs (:meth:`Session.window`), and the state without the details
        (search hits, programs) of the questions before them: those stay unread (``payload.UNREAD``) and their
        rows untouched by later saves. The session is then partial (:attr:`Session.first_message`): it runs,
        commits and saves like a whole one at a cost that does not grow with its history. None or 0: everything."""
        from haiku_tui.capabilities.wire import question_starts

        from .model import Session

        session_id = self.resolve(ref)
        runs = questions + 1 if questions else None
        while True:
            with self._lock:
                tail = self._reader.read(self._conn, session_id, runs)
            session = Session.from_payload(tail.data, where=f"session {session_id!r} in {self.path}")
            if tail.whole or runs is None or len(question_starts(session.conversation.messages)) > (questions or 0):
                break
            runs *= 2  # runs without a question of their own (resumed ones): read further back
        session.first_message = tail.first
        session.stored_checksum = tail.checksum
        # a row not yet in pieces (kept whole by the migration) is written whole by its next save
        session.saved_messages = tuple(session.conversation.messages) if tail.known is not None else None
        session.saved_rows = tail.known
        return session

    open = load
    """Alias: open (resume) a session."""

    def find(self, ref: str) -> SessionSummary:
        """The session a reference names: an exact id, a unique id prefix, or an exact title (case and spacing
        ignored). Raises ``SessionNotFound``, or ``AmbiguousSessionId`` listing the candidates."""
        key = " ".join(str(ref).split())
        if not key:
            raise SessionNotFound("no session named '' (give an id, an id prefix or a title)")
        escaped = like_escape(key)
        with self._lock:
            exact = self._conn.execute(f"SELECT {_SUMMARY_COLUMNS} FROM sessions WHERE id=?", (key,)).fetchone()
            if exact is not None:
                return SessionSummary(*exact)
            by_id = self._conn.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY updated_at DESC LIMIT 6",
                (escaped + "%",),
            ).fetchall()
            by_title = [] if by_id else [
                row for row in self._conn.execute(
                    f"SELECT {_SUMMARY_COLUMNS} FROM sessions ORDER BY updated_at DESC"
                ) if " ".join(row[1].split()).casefold() == key.casefold()
            ]
        matches = [SessionSummary(*row) for row in by_id or by_title]
        if not matches:
            raise SessionNotFound(
                f"no session {key!r} (by id, id prefix or title) in {self.path}; see `haiku-tui sessions list`"
            )
        if len(matches) > 1:
            listed = "; ".join(f"{m.id} {m.title!r}" for m in matches[:5])
            raise AmbiguousSessionId(
                f"{key!r} names {'more than 5' if len(matches) > 5 else len(matches)} sessions ({listed}); "
                "use one of their ids",
                matches,
            )
        return matches[0]

    def resolve(self, ref: str) -> str:
        """The full id of the session ``ref`` names (see :meth:`find`)."""
        return self.find(ref).id

    def exists(self, session_id: str) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is not None

    def list(self, *, limit: int | None = None) -> list[SessionSummary]:
        """Sessions, most recently updated first."""
        sql = f"SELECT {_SUMMARY_COLUMNS} FROM sessions ORDER BY updated_at DESC, num DESC"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (max(0, int(limit)),)
        with self._lock:
            return [SessionSummary(*row) for row in self._conn.execute(sql, params)]

    def recent_prompts(self, *, sessions: int = 20, exclude: str | None = None, per_session: int = 200) -> list[str]:
        """The questions of the ``sessions`` most recently updated sessions (but ``exclude``), oldest first, at
        most ``per_session`` newest of each: read from the question records in SQL, never a whole session
        (a history convenience: a damaged row only drops out)."""
        sql = (
            "SELECT json_extract(st.data, '$.prompt') FROM session_state st WHERE st.num=? AND st.kind IN ('leaf', "
            "'record') "
            "AND st.path LIKE '[%,\"questions\",%]' AND json_valid(st.data) "
            "AND json_type(st.data, '$.prompt')='text' ORDER BY json_extract(st.data, '$.question') DESC LIMIT ?"
        )
        prompts: list[str] = []
        with self._lock:
            rows = self._conn.execute(
                "SELECT num, id FROM sessions ORDER BY updated_at DESC, num DESC LIMIT ?", (sessions + 1,)
            ).fetchall()
            for num, session_id in reversed(rows):
                if session_id != exclude:
                    prompts += [p for (p,) in self._conn.execute(sql, (num, per_session)).fetchall()][::-1]
        return prompts

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])

    def search(self, query: str, *, limit: int = 20, mark: tuple[str, str] = ("**", "**")) -> list[SessionHit]:
        """Full-text search over titles, questions and answers of every session (all words must match somewhere
        in the session; each word also matches as a prefix). Best matches first; FTS5 when available, else
        ``LIKE``."""
        with self._lock:
            found = search_sessions(self._conn, self._text.fts, query, limit=limit, mark=mark)
            hits = []
            for num, snippet in found:
                row = self._conn.execute(f"SELECT {_SUMMARY_COLUMNS} FROM sessions WHERE num=?", (num,)).fetchone()
                summary = SessionSummary(*row)
                hits.append(SessionHit(summary, snippet or summary.title))
        return hits

    def rename(self, session: Session | str, title: str) -> str:
        """Give a session a title by hand (a manual title always wins over the automatic one).

        With a ``Session`` the copy is renamed and saved (``StaleSession`` rules apply); with a reference the
        stored session is renamed in one transaction. Returns the title as stored.
        """
        from .model import Session

        if isinstance(session, Session):
            session.rename(title)
            self.save(session)
            return session.title
        text = _payload.clean_title(title)
        if not text:
            raise ValueError("a session title cannot be empty")
        session_id = self.resolve(session)
        data, checksum = self.read_payload(session_id)
        data["metadata"]["title"] = text
        data["metadata"]["title_manual"] = True
        self.write_payload(data, expected_revision=data["revision"], expected_checksum=checksum, touch=False)
        return scrub_text(text)

    def delete(self, session: Session | str) -> bool:
        """Delete a session (even a damaged one). Returns False when it did not exist."""
        session_id = getattr(session, "id", session)
        with self._write() as conn:
            row = conn.execute("SELECT num FROM sessions WHERE id=?", (session_id,)).fetchone()
            if row is None:
                return False
            num = row[0]
            self._text.remove(conn, num, from_start=-1)
            conn.execute("DELETE FROM session_messages WHERE num=?", (num,))
            conn.execute("DELETE FROM session_state WHERE num=?", (num,))
            conn.execute("DELETE FROM sessions WHERE num=?", (num,))
        return True

    # -- export / import -------------------------------------------------------------------------------------

    def export_json(self, session_id: str) -> str:
        """Full-fidelity JSON (schema version, metadata, conversation, state, app data), re-importable."""
        from .export import to_json

        return to_json(self.load(session_id))

    def export_markdown(self, session_id: str) -> str:
        """A readable transcript: questions, answers with ``[n]`` markers, grounding, sources, review marks."""
        from .export import to_markdown

        return to_markdown(self.load(session_id))

    def import_json(self, text: str | bytes, *, keep_id: bool = False) -> Session:
        """Import an exported session. It gets a new id unless ``keep_id`` (then ``SessionExists`` if taken).

        Everything it brings is validated first (conversation, state, app data). Raises ``SessionCorrupt`` (not
        JSON / not a session / fails validation) or ``UnsupportedSchema``.
        """
        from .model import Session, new_session_id
        from .validate import check_import

        try:
            data = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
        except UnicodeDecodeError:
            raise SessionCorrupt(
                "the file is not UTF-8 text (a session export is UTF-8 JSON); nothing was imported"
            ) from None
        except ValueError as exc:
            raise SessionCorrupt(f"the file is not valid JSON ({exc}); nothing was imported") from None
        if not isinstance(data, dict) or data.get("format", _payload.FORMAT) != _payload.FORMAT:
            raise SessionCorrupt("the file is not a haiku-tui session export; nothing was imported")
        data.pop("exported_at", None)
        data = _payload.upgrade(data, where="the imported session")
        check_import(data)
        session = Session.from_payload(data, where="the imported session")
        if not keep_id:
            session.id = new_session_id()
        elif not _payload.valid_id(session.id):
            raise SessionCorrupt(f"the imported session has an invalid id {session.id!r}; nothing was imported")
        session.revision = 0
        session.stored_checksum = None
        revision, checksum = self.write_payload(
            session.to_payload(), expected_revision=0, touch=False, create_only=True
        )
        session.revision, session.stored_checksum, session.dirty = revision, checksum, False
        session.saved_messages = tuple(session.conversation.messages)
        return session


def _session_head(session: Session) -> dict[str, Any]:
    """The head of a session's payload, built without serializing its messages."""
    return head_of(session.to_payload(messages=False))
