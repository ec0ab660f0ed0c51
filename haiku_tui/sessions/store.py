"""``SessionStore``: sessions in SQLite (stdlib ``sqlite3``), one row per session, one transaction per save.

Durability and concurrency:

* WAL journal, ``synchronous=FULL``, ``busy_timeout``: a kill at any moment leaves the last committed
  version of every session; readers never block the writer; two app instances share the file safely.
* Every write is ``BEGIN IMMEDIATE`` … ``COMMIT``: the row (payload + checksum + indexed columns) and its
  full-text entry change together or not at all.
* Optimistic concurrency: a session remembers the revision (and checksum) it was loaded at; a save whose
  revision no longer matches the row raises ``StaleSession`` and writes nothing.
* The stored row is checked before it is replaced: a damaged row (checksum mismatch, invalid JSON) or one
  written by a newer schema is never overwritten.

The low-level path (:meth:`SessionStore.read_payload`, :meth:`SessionStore.write_payload`) moves raw JSON
payloads and does not import Pydantic AI.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import payload as _payload
from .errors import (
    AmbiguousSessionId,
    SessionCorrupt,
    SessionExists,
    SessionNotFound,
    StaleSession,
    UnsupportedSchema,
)
from .scrub import needs_scrub, scrub_json, scrub_location, scrub_text

if TYPE_CHECKING:
    from .model import Session

DB_SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of the sessions database this haiku-tui writes."""


def _create_v1(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE sessions (
            num INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            revision INTEGER NOT NULL,
            schema_version INTEGER NOT NULL,
            title TEXT NOT NULL,
            model TEXT,
            db TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            questions INTEGER NOT NULL DEFAULT 0,
            citations INTEGER NOT NULL DEFAULT 0,
            messages INTEGER NOT NULL DEFAULT 0,
            body TEXT NOT NULL DEFAULT '',
            payload TEXT NOT NULL,
            checksum TEXT NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX sessions_by_updated ON sessions(updated_at)")
    conn.execute("CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT)")


# Database migrations: version N -> function upgrading an N database to N+1 (run inside one transaction).
DB_MIGRATIONS = {0: _create_v1}

_FTS_DDL = (
    "CREATE VIRTUAL TABLE session_fts USING fts5(title, body, content='sessions', content_rowid='num', "
    "tokenize='unicode61 remove_diacritics 2')"
)
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
class SearchHit:
    """A full-text search result: the session and a snippet around the match."""

    session: SessionSummary
    snippet: str


def _fts5_available() -> bool:
    try:
        probe = sqlite3.connect(":memory:")
        try:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
        finally:
            probe.close()
        return True
    except sqlite3.Error:
        return False


_FTS5 = _fts5_available()


class SessionStore:
    """Durable sessions in one SQLite file (default ``locations.sessions_db_path()``)."""

    def __init__(self, path: str | Path | None = None, *, timeout: float = 10.0) -> None:
        if path is None:
            from haiku_tui import locations

            path = locations.sessions_db_path()
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._fts = False
        try:
            self._conn = sqlite3.connect(
                str(self.path), timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise SessionCorrupt(f"cannot open the sessions database {self.path}: {exc}") from None
        try:
            self._conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._migrate()
            self._setup_fts()
        except UnsupportedSchema:
            self._conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise SessionCorrupt(
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
        """One write transaction, taken up front (``BEGIN IMMEDIATE``) so ``busy_timeout`` applies."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def _user_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _check_db_version(self, version: int) -> None:
        if version > DB_SCHEMA_VERSION:
            raise UnsupportedSchema(
                f"the sessions database {self.path} has schema version {version}, but this haiku-tui knows up to "
                f"{DB_SCHEMA_VERSION} (it was written by a newer haiku-tui); nothing was changed — upgrade haiku-tui"
            )

    def _migrate(self) -> None:
        self._check_db_version(self._user_version())
        if self._user_version() == DB_SCHEMA_VERSION:
            return
        with self._write() as conn:
            version = self._user_version()  # another process may have migrated meanwhile
            self._check_db_version(version)
            while version < DB_SCHEMA_VERSION:
                DB_MIGRATIONS[version](conn)
                version += 1
            conn.execute(f"PRAGMA user_version={DB_SCHEMA_VERSION}")

    def _setup_fts(self) -> None:
        """Full-text index when SQLite has FTS5 (else search falls back to LIKE); rebuilt if it went stale."""
        with self._lock:
            has_table = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name='session_fts'"
            ).fetchone() is not None
            stale = self._conn.execute("SELECT value FROM store_meta WHERE key='fts_stale'").fetchone() is not None
        if not _FTS5:
            return
        if has_table and not stale:
            self._fts = True
            return
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name='session_fts'").fetchone() is None:
                conn.execute(_FTS_DDL)
            conn.execute("INSERT INTO session_fts(session_fts) VALUES('rebuild')")
            conn.execute("DELETE FROM store_meta WHERE key='fts_stale'")
        self._fts = True

    # -- checks on stored rows ------------------------------------------------------------------------------

    def _verify_row(self, session_id: str, text: str, stored_checksum: str) -> dict[str, Any]:
        """Parse and check a stored payload; raise ``SessionCorrupt`` / ``UnsupportedSchema`` (nothing changes)."""
        where = f"session {session_id!r} in {self.path}"
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SessionCorrupt(
                f"{where} is corrupt: its stored JSON is invalid ({exc}); nothing was changed — "
                f"delete it with `haiku-tui sessions delete {session_id}`"
            ) from None
        if _payload.checksum(text) != stored_checksum:
            raise SessionCorrupt(
                f"{where} is corrupt: its content does not match its checksum (changed outside haiku-tui or "
                "damaged on disk); nothing was changed"
            )
        data = _payload.upgrade(data, where=where)
        if data.get("id") != session_id:
            raise SessionCorrupt(f"{where} is corrupt: it holds session {data.get('id')!r}; nothing was changed")
        return data

    def _check_overwritable(self, session_id: str, text: str, stored_checksum: str, schema_version: int) -> None:
        """Refuse to replace a damaged row or one written by a newer schema (cheap when the row is sound)."""
        if _payload.checksum(text) != stored_checksum:
            self._verify_row(session_id, text, stored_checksum)  # raises with the precise reason
            raise SessionCorrupt(f"session {session_id!r} is corrupt; nothing was changed")  # pragma: no cover
        if schema_version > _payload.SCHEMA_VERSION:
            raise UnsupportedSchema(
                f"session {session_id!r} was written with session schema version {schema_version} by a newer "
                f"haiku-tui (this one knows up to {_payload.SCHEMA_VERSION}); refusing to overwrite it; nothing was saved"
            )

    # -- low-level path: raw payloads ----------------------------------------------------------------------------

    def read_payload(self, session_id: str) -> tuple[dict[str, Any], str]:
        """The stored payload of a session (checked, upgraded) and its checksum, without Pydantic validation."""
        with self._lock:
            row = self._conn.execute(
                "SELECT revision, payload, checksum FROM sessions WHERE id=?", (session_id,)
            ).fetchone()
        if row is None:
            raise SessionNotFound(f"no session {session_id!r} in {self.path}")
        revision, text, stored_checksum = row
        data = self._verify_row(session_id, text, stored_checksum)
        if data.get("revision") != revision:
            raise SessionCorrupt(
                f"session {session_id!r} is corrupt: payload revision {data.get('revision')!r} does not match "
                f"the row's {revision}; nothing was changed"
            )
        return data, stored_checksum

    def write_payload(
        self,
        data: dict[str, Any],
        *,
        expected_revision: int,
        expected_checksum: str | None = None,
        touch: bool = True,
        create_only: bool = False,
    ) -> tuple[int, str]:
        """Write a payload in one transaction if the stored row is still at ``expected_revision``.

        ``expected_revision`` 0 means "a new session" (the id must not exist yet). When ``expected_checksum``
        is given, the stored row must also still have that checksum. The payload is scrubbed of secrets, its
        ``revision`` set to ``expected_revision + 1`` (and ``metadata.updated_at`` to now when ``touch``).
        Returns ``(new_revision, checksum)``.

        Raises ``StaleSession`` (changed or deleted since loaded), ``SessionExists`` (``create_only`` and the id
        exists), ``SessionCorrupt`` / ``UnsupportedSchema`` (the stored row is damaged or newer: never
        overwritten). On any error nothing is written.
        """
        data = _payload.upgrade(dict(data), where=f"session {data.get('id')!r}")
        session_id = data["id"]
        if not _payload.valid_id(session_id):
            raise ValueError(f"invalid session id {session_id!r} (use 1-64 letters, digits, '-' or '_')")
        metadata = dict(data["metadata"])
        metadata["model"] = scrub_location(metadata.get("model"))
        metadata["db"] = scrub_location(metadata.get("db"))
        if touch or not metadata.get("updated_at"):
            metadata["updated_at"] = _payload.now_iso()
        metadata.setdefault("created_at", metadata["updated_at"])
        data["metadata"] = metadata
        data["format"] = _payload.FORMAT
        data["schema_version"] = _payload.SCHEMA_VERSION
        new_revision = expected_revision + 1
        data["revision"] = new_revision
        text = _payload.dumps(data)
        if needs_scrub(text):  # one regex pass over the whole payload; the walk only when something may match
            data = scrub_json(data)
            text = _payload.dumps(data)
        digest = _payload.digest(data)
        new_checksum = _payload.checksum(text)
        row_values = (
            new_revision,
            _payload.SCHEMA_VERSION,
            digest.title,
            metadata.get("model"),
            metadata.get("db"),
            str(metadata["created_at"]),
            str(metadata["updated_at"]),
            digest.questions,
            digest.citations,
            digest.messages,
            digest.body,
            text,
            new_checksum,
        )
        with self._write() as conn:
            row = conn.execute(
                "SELECT num, revision, schema_version, payload, checksum, title, body FROM sessions WHERE id=?",
                (session_id,),
            ).fetchone()
            if row is None:
                if expected_revision != 0:
                    raise StaleSession(
                        f"session {session_id!r} was deleted (in another window or by a command) since it was "
                        "loaded; nothing was saved"
                    )
                cursor = conn.execute(
                    "INSERT INTO sessions (revision, schema_version, title, model, db, created_at, updated_at, "
                    "questions, citations, messages, body, payload, checksum, id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row_values, session_id),
                )
                num = cursor.lastrowid
            else:
                num, stored_revision, stored_schema, stored_text, stored_checksum, old_title, old_body = row
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
                conn.execute(
                    "UPDATE sessions SET revision=?, schema_version=?, title=?, model=?, db=?, created_at=?, "
                    "updated_at=?, questions=?, citations=?, messages=?, body=?, payload=?, checksum=? WHERE num=?",
                    (*row_values, num),
                )
                self._unindex(conn, num, old_title, old_body)
            self._index(conn, num, digest.title, digest.body)
        return new_revision, new_checksum

    def _index(self, conn: sqlite3.Connection, num: int, title: str, body: str) -> None:
        if self._fts:
            conn.execute("INSERT INTO session_fts(rowid, title, body) VALUES (?, ?, ?)", (num, title, body))
        else:
            self._mark_fts_stale(conn)

    def _unindex(self, conn: sqlite3.Connection, num: int, title: str, body: str) -> None:
        if self._fts:
            conn.execute(
                "INSERT INTO session_fts(session_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)",
                (num, title, body),
            )
        else:
            self._mark_fts_stale(conn)

    def _mark_fts_stale(self, conn: sqlite3.Connection) -> None:
        # An index made by an FTS5-enabled SQLite is now behind; the next FTS5-enabled open rebuilds it.
        conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('fts_stale', '1')")

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
        """Write the session's committed conversation, state, app data and metadata in one transaction.

        Call it after :meth:`Session.commit_run` (i.e. after a completed run) or after changing app data or
        metadata. Raises ``StaleSession`` if the stored session changed since this copy was loaded or saved,
        ``SessionCorrupt`` / ``UnsupportedSchema`` if the stored row must not be overwritten.
        """
        revision, checksum = self.write_payload(
            session.to_payload(),
            expected_revision=session.revision,
            expected_checksum=session._stored_checksum,
        )
        session.revision = revision
        session._stored_checksum = checksum
        session.dirty = False
        return session

    def load(self, session_id: str) -> Session:
        """Open a session (``session_id`` may be a unique prefix). Raises ``SessionNotFound``,
        ``AmbiguousSessionId``, ``SessionCorrupt`` or ``UnsupportedSchema`` (nothing is changed)."""
        from .model import Session

        session_id = self.resolve(session_id)
        data, checksum = self.read_payload(session_id)
        session = Session.from_payload(data, where=f"session {session_id!r} in {self.path}")
        session._stored_checksum = checksum
        return session

    open = load
    """Alias: open (resume) a session."""

    def resolve(self, id_or_prefix: str) -> str:
        """The full id of the session ``id_or_prefix`` names (an exact id or a unique prefix)."""
        key = str(id_or_prefix).strip()
        with self._lock:
            if self._conn.execute("SELECT 1 FROM sessions WHERE id=?", (key,)).fetchone():
                return key
            escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self._conn.execute(
                "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 3", (escaped + "%",)
            ).fetchall()
        if not key or not rows:
            raise SessionNotFound(f"no session {key!r} in {self.path} (see `haiku-tui sessions list`)")
        if len(rows) > 1:
            raise AmbiguousSessionId(f"{key!r} matches more than one session; type more of its id")
        return rows[0][0]

    def exists(self, session_id: str) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is not None

    def list(self, *, limit: int | None = None) -> list[SessionSummary]:
        """Sessions, most recently updated first."""
        sql = f"SELECT {_SUMMARY_COLUMNS} FROM sessions ORDER BY updated_at DESC, num DESC"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (int(limit),)
        with self._lock:
            return [SessionSummary(*row) for row in self._conn.execute(sql, params)]

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])

    def search(self, query: str, *, limit: int = 20, mark: tuple[str, str] = ("**", "**")) -> list[SearchHit]:
        """Full-text search over titles, questions and answers of every session (all words must match;
        each word also matches as a prefix). Best matches first; FTS5 when available, else ``LIKE``."""
        terms = [t for t in str(query).split() if any(ch.isalnum() for ch in t)]
        if not terms:
            return []
        if self._fts:
            match = " ".join('"' + t.replace('"', '""') + '"*' for t in terms)
            # FTS5 ranks; the snippet is cut in Python (FTS5's snippet() re-tokenizes the whole body: slow on
            # long sessions).
            sql = (
                f"SELECT {', '.join('s.' + c.strip() for c in _SUMMARY_COLUMNS.split(','))}, s.body "
                "FROM session_fts JOIN sessions s ON s.num = session_fts.rowid "
                "WHERE session_fts MATCH ? ORDER BY bm25(session_fts, 5.0, 1.0) LIMIT ?"
            )
            try:
                with self._lock:
                    rows = self._conn.execute(sql, (match, int(limit))).fetchall()
                return [SearchHit(SessionSummary(*row[:-1]), _like_snippet(row[-1], row[1], terms, mark)) for row in rows]
            except sqlite3.OperationalError:
                pass  # fall back to LIKE
        clauses, params = [], []
        for term in terms:
            pattern = "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            clauses.append("(title LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')")
            params += [pattern, pattern]
        sql = (
            f"SELECT {_SUMMARY_COLUMNS}, body FROM sessions WHERE {' AND '.join(clauses)} "
            "ORDER BY updated_at DESC LIMIT ?"
        )
        with self._lock:
            rows = self._conn.execute(sql, (*params, int(limit))).fetchall()
        return [SearchHit(SessionSummary(*row[:-1]), _like_snippet(row[-1], row[1], terms, mark)) for row in rows]

    def rename(self, session: Session | str, title: str) -> str:
        """Give a session a title by hand (a manual title always wins over the automatic one).

        With a ``Session`` the copy is renamed and saved (``StaleSession`` rules apply); with an id the stored
        session is renamed in one transaction. Returns the title as stored.
        """
        from .model import Session

        if isinstance(session, Session):
            session.rename(title)
            self.save(session)
            return session.title
        text = " ".join(str(title).split())[:200]
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
            row = conn.execute("SELECT num, title, body FROM sessions WHERE id=?", (session_id,)).fetchone()
            if row is None:
                return False
            conn.execute("DELETE FROM sessions WHERE num=?", (row[0],))
            self._unindex(conn, *row)
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

        Raises ``SessionCorrupt`` (not JSON / not a session / fails validation) or ``UnsupportedSchema``.
        """
        from .model import Session, new_session_id

        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SessionCorrupt(f"the file is not valid JSON ({exc}); nothing was imported") from None
        if not isinstance(data, dict) or data.get("format", _payload.FORMAT) != _payload.FORMAT:
            raise SessionCorrupt("the file is not a haiku-tui session export; nothing was imported")
        data.pop("exported_at", None)
        session = Session.from_payload(data, where="the imported session")
        if not keep_id:
            session.id = new_session_id()
        elif not _payload.valid_id(session.id):
            raise SessionCorrupt(f"the imported session has an invalid id {session.id!r}; nothing was imported")
        session.revision = 0
        session._stored_checksum = None
        revision, checksum = self.write_payload(
            session.to_payload(), expected_revision=0, touch=False, create_only=True
        )
        session.revision, session._stored_checksum, session.dirty = revision, checksum, False
        return session


def _like_snippet(body: str, title: str, terms: list[str], mark: tuple[str, str], width: int = 60) -> str:
    """A snippet around the first matching term (LIKE fallback)."""
    lower = body.lower()
    for term in terms:
        at = lower.find(term.lower())
        if at >= 0:
            start, end = max(0, at - width), min(len(body), at + len(term) + width)
            text = (
                body[start:at] + mark[0] + body[at : at + len(term)] + mark[1] + body[at + len(term) : end]
            )
            return ("…" if start else "") + " ".join(text.split()) + ("…" if end < len(body) else "")
    return title
