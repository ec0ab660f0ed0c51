"""The on-disk layout of the sessions database (schema 3): a session is a head row plus pieces.

* ``sessions``: the head, one row per session: metadata, the conversation without its messages, app data,
  revision, how many pieces it has, its checksum; and the columns ``sessions list`` reads.
* ``session_messages``: the messages, one row per save that added them (``start``, ``count``, a JSON array).
* ``session_state``: the state map in rows (:func:`payload.split_state`), each rewritten only when it changed;
  a question record's bulky details (search hits, programs) are rows of their own (kind ``detail``), so a
  partial load reads the record and leaves an older question's details unread (:func:`read_state`). Rows of
  schema 2 (a record with its details in one ``leaf`` row) read the same and are split by the session's next
  save.
* ``session_text``: what full-text search reads: a title row (``start`` -1) and one row per question (prompt
  and answer); the FTS5 table ``session_text_fts`` indexes it.

A save appends its run's message batch, rewrites the state rows that changed, and replaces the head: it costs
what the run added, not the session's length. Every piece has a SHA-256 checksum that a load verifies, and the
head counts the pieces, so a damaged, lost or extra row is refused rather than read. Pure SQL helpers: the
transactions, checks and error messages are :class:`~haiku_tui.sessions.store.SessionStore`'s.
"""

from __future__ import annotations

import gc
import json
import sqlite3
from typing import Any

from . import payload as _payload


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


FTS5 = _fts5_available()
"""True when this SQLite has FTS5 (else search falls back to ``LIKE``)."""

PARTS = "parts"
"""Head key holding ``{"messages": n, "message_rows": n, "state_rows": n}`` (absent in a whole payload)."""


def create_v1(conn: sqlite3.Connection) -> None:
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


def create_v2_tables(conn: sqlite3.Connection) -> None:
    """The piece tables (``sessions.body`` stays, empty: schema 1's whole-session search text)."""
    conn.execute("ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "CREATE TABLE session_messages (num INTEGER NOT NULL, start INTEGER NOT NULL, count INTEGER NOT NULL, "
        "data TEXT NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (num, start))"
    )
    conn.execute(
        "CREATE TABLE session_state (rid INTEGER PRIMARY KEY, num INTEGER NOT NULL, path TEXT NOT NULL, "
        "kind TEXT NOT NULL, data TEXT NOT NULL, checksum TEXT NOT NULL, UNIQUE (num, path))"
    )
    conn.execute(
        "CREATE TABLE session_text (tid INTEGER PRIMARY KEY, num INTEGER NOT NULL, start INTEGER NOT NULL, "
        "title TEXT NOT NULL, body TEXT NOT NULL)"
    )
    conn.execute("CREATE INDEX session_text_by_num ON session_text(num, start)")
    conn.execute("DROP TABLE IF EXISTS session_fts")  # schema 1's index over sessions.body
    conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('fts_stale', '1')")


STATE_KIND_INDEX = "CREATE INDEX IF NOT EXISTS session_state_by_kind ON session_state(num, kind)"
"""Schema 3: lets a partial load read a session's state rows but the question details, and count those,
without touching the details' pages."""

FTS_TABLE = "session_text_fts"
FTS_DDL = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(title, body, content='session_text', content_rowid='tid', "
    "tokenize='unicode61 remove_diacritics 2')"
)


class TextIndex:
    """``session_text`` rows and, when FTS5 is on, their full-text entries (kept in step by hand)."""

    def __init__(self, fts: bool) -> None:
        self.fts = fts

    def add(self, conn: sqlite3.Connection, num: int, start: int, title: str, body: str) -> None:
        tid = conn.execute(
            "INSERT INTO session_text(num, start, title, body) VALUES (?, ?, ?, ?)", (num, start, title, body)
        ).lastrowid
        if self.fts:
            conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, title, body) VALUES (?, ?, ?)", (tid, title, body))
        else:
            mark_fts_stale(conn)

    def remove(self, conn: sqlite3.Connection, num: int, *, from_start: int) -> None:
        """Drop the session's rows from ``from_start`` on (-1: all of them, the title row included)."""
        rows = conn.execute(
            "SELECT tid, title, body FROM session_text WHERE num=? AND start>=?", (num, from_start)
        ).fetchall()
        for tid, title, body in rows:
            if self.fts:
                conn.execute(
                    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, body) VALUES ('delete', ?, ?, ?)",
                    (tid, title, body),
                )
            conn.execute("DELETE FROM session_text WHERE tid=?", (tid,))
        if rows and not self.fts:
            mark_fts_stale(conn)

    def set_title(self, conn: sqlite3.Connection, num: int, title: str) -> None:
        row = conn.execute("SELECT title FROM session_text WHERE num=? AND start=-1", (num,)).fetchone()
        if row is not None and row[0] == title:
            return
        self.remove_title(conn, num)
        self.add(conn, num, -1, title, "")

    def remove_title(self, conn: sqlite3.Connection, num: int) -> None:
        row = conn.execute("SELECT tid, title FROM session_text WHERE num=? AND start=-1", (num,)).fetchone()
        if row is None:
            return
        if self.fts:
            conn.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, body) VALUES ('delete', ?, ?, '')", row
            )
        else:
            mark_fts_stale(conn)
        conn.execute("DELETE FROM session_text WHERE tid=?", (row[0],))


def mark_fts_stale(conn: sqlite3.Connection) -> None:
    """An index made by an FTS5-enabled SQLite is now behind; the next FTS5-enabled open rebuilds it."""
    conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('fts_stale', '1')")


# -- reading pieces ---------------------------------------------------------------------------------------------


def message_rows(conn: sqlite3.Connection, num: int) -> list[tuple[int, int, str, str]]:
    """``(start, count, data, checksum)`` of a session's message batches, in order."""
    return conn.execute(
        "SELECT start, count, data, checksum FROM session_messages WHERE num=? ORDER BY start", (num,)
    ).fetchall()


def state_rows(conn: sqlite3.Connection, num: int, *, details: bool = True) -> list[tuple[str, str, str, str]]:
    """``(path, kind, data, checksum)`` of a session's state rows, in stored order (without the question
    records' details when not ``details``)."""
    return conn.execute(
        "SELECT path, kind, data, checksum FROM session_state WHERE num=?"
        + ("" if details else " AND kind IN ('dict', 'list', 'leaf', 'record')") + " ORDER BY rid",
        (num,),
    ).fetchall()


def check_messages(rows: list[tuple[int, int, str, str]], parts: dict[str, Any]) -> str | None:
    """Why the message batches do not match the head's counts and their checksums (None: they do)."""
    if len(rows) != parts.get("message_rows"):
        return f"it has {len(rows)} message batch(es) where its head counts {parts.get('message_rows')}"
    expected = 0
    for start, count, data, stored in rows:
        if start != expected:
            return f"its messages from {expected} are missing"
        if _payload.checksum(data) != stored:
            return f"its message batch at {start} does not match its checksum"
        expected += count
    if expected != parts.get("messages"):
        return f"it has {expected} message(s) where its head counts {parts.get('messages')}"
    return None


def check_state(rows: list[tuple[str, str, str, str]], parts: dict[str, Any]) -> str | None:
    """Why the state rows do not match the head's count and their checksums (None: they do)."""
    if len(rows) != parts.get("state_rows"):
        return f"it has {len(rows)} state row(s) where its head counts {parts.get('state_rows')}"
    for path, _kind, data, stored in rows:
        if _payload.checksum(data) != stored:
            return f"its state row {path} does not match its checksum"
    return None


def parse(text: str) -> Any:
    """``json.loads`` of a large stored text with the cyclic garbage collector paused: parsing megabytes
    allocates hundreds of thousands of containers, and the collections they trigger (which find nothing:
    fresh JSON has no cycles) cost as much as the parse itself."""
    if not gc.isenabled():
        return json.loads(text)
    gc.disable()
    try:
        return json.loads(text)
    finally:
        gc.enable()


def join_messages(rows: list[tuple[int, int, str, str]]) -> list[dict[str, Any]]:
    """The message list of checked batches (one JSON parse)."""
    inner = [data[1:-1] for _, count, data, _ in rows if count]
    return parse("[" + ",".join(inner) + "]")


def join_state_rows(rows: list[tuple[str, str, str, str]]) -> tuple[dict[str, Any], dict[str, _payload.StateRow]]:
    """The state map of checked rows, and the rows as ``split_state`` gives them (later saves compare with them).

    Both share the parsed values: the session's committed state is only ever replaced (``commit_run``), not
    changed in place, so what the rows say stays what the store holds. One JSON parse for all rows."""
    values = parse("[" + ",".join(data if kind not in ("dict", "list") else "null" for _, kind, data, _ in rows) + "]")
    known = {path: (kind, value) for (path, kind, _, _), value in zip(rows, values)}
    return _payload.join_state([(path, kind, value) for path, (kind, value) in known.items()]), known


def read_state(
    conn: sqlite3.Connection, num: int, parts: dict[str, Any], since: int | None = None
) -> tuple[str | None, dict[str, Any], dict[str, _payload.StateRow]]:
    """``(why it is damaged or None, state, rows)`` of a session's state rows, checked.

    ``since``: the details of question records before that question (and not their namespace's latest) are
    left unread — :data:`payload.UNREAD` in the state and in the rows, so a save leaves their rows as they are.
    """
    if since is None:
        rows = state_rows(conn, num)
        why = check_state(rows, parts)
        return (why, {}, {}) if why else (None, *join_state_rows(rows))
    rows = state_rows(conn, num, details=False)
    details = conn.execute("SELECT COUNT(*) FROM session_state WHERE num=? AND kind='detail'", (num,)).fetchone()[0]
    why = check_state(rows, {"state_rows": parts.get("state_rows", 0) - details})
    if why:
        return why, {}, {}
    state, known = join_state_rows(rows)
    wanted: dict[str, tuple[dict[str, Any], str]] = {}
    unread: dict[str, tuple[dict[str, Any], str]] = {}
    records = [
        (path, record) for path, (kind, record) in known.items() if kind == "record" and isinstance(record, dict)
    ]
    latest = set({path[: path.rindex(",")]: path for path, _ in records}.values())  # each list's last record
    for path, record in records:
        question = record.get("question")
        keep = not isinstance(question, int) or question >= since or path in latest
        for detail in _payload.DETAILS:
            if detail in record:
                (wanted if keep else unread)[f'{path[:-1]},"{detail}"]'] = (record, detail)
    if len(wanted) + len(unread) != details:
        return f"it has {details} question detail row(s) where its records name {len(wanted) + len(unread)}", {}, {}
    found = conn.execute(
        "SELECT path, kind, data, checksum FROM session_state WHERE num=? AND kind='detail' AND path IN "
        "(SELECT value FROM json_each(?))",
        (num, json.dumps(list(wanted))),
    ).fetchall() if wanted else []
    why = check_state(found, {"state_rows": len(wanted)})
    if why or {path for path, *_ in found} != wanted.keys():
        return why or "its question detail rows do not match their records", {}, {}
    values = parse("[" + ",".join(data for _, _, data, _ in found) + "]")
    for (path, kind, _, _), value in zip(found, values):
        record, detail = wanted[path]
        record[detail] = value
        known[path] = (kind, value)
    for path, (record, detail) in unread.items():
        record[detail] = _payload.UNREAD
        known[path] = ("detail", _payload.UNREAD)
    return None, state, known
