"""Writing a session's pieces inside the store's transaction: append the new messages, rewrite the changed
state rows, then the head (the layout is described in :mod:`haiku_tui.sessions.layout`)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from . import layout
from . import payload as _payload
from .errors import SessionCorrupt, StaleSession
from .scrub import is_secret_key, needs_scrub, scrub_json


@dataclass
class Change:
    """What a write brings: the head (payload without messages and state), messages, the state map.

    ``base`` is how many stored messages the write keeps (``messages`` are those after them); None when the
    caller does not know (``messages`` is then the whole list and the store finds the common prefix).
    ``known``: the state rows as this copy last read or wrote them (unchanged rows are skipped cheaply).
    """

    head: dict[str, Any]
    messages: list[dict[str, Any]]
    base: int | None
    state: dict[str, Any]
    known: dict[str, _payload.StateRow] | None = None


class PieceWriter:
    """Writes one session's pieces on a connection already inside a write transaction."""

    def __init__(self, text: layout.TextIndex, damaged: Callable[[str, str], SessionCorrupt]) -> None:
        self._text = text
        self._damaged = damaged

    def store(
        self, conn: sqlite3.Connection, num: int, change: Change, *, stored: tuple[int, int, Any] | None
    ) -> str:
        """Append the new messages, rewrite the changed state rows, then the head and its columns."""
        session_id = change.head["id"]
        stored_count, stored_turns, parts = stored if stored is not None else (0, 0, None)
        whole_row = stored is not None and not isinstance(parts, dict)  # a schema-1 style row: no pieces yet
        base, messages = change.base, change.messages
        message_rows = int(parts.get("message_rows", 0)) if isinstance(parts, dict) else 0
        if base is None or base != stored_count or whole_row:
            base, messages = self._common_prefix(conn, num, session_id, change, stored_count, parts)
        if base == 0 and message_rows:
            conn.execute("DELETE FROM session_messages WHERE num=?", (num,))
            self._text.remove(conn, num, from_start=0)
            message_rows, stored_turns = 0, 0
        turns = stored_turns
        start = base
        for batch in _by_run(messages):  # one batch per run: peek reads the newest runs alone
            text = _payload.dumps(batch)
            if needs_scrub(text):
                batch = scrub_json(batch)
                text = _payload.dumps(batch)
            conn.execute(
                "INSERT INTO session_messages(num, start, count, data, checksum) VALUES (?, ?, ?, ?, ?)",
                (num, start, len(batch), text, _payload.checksum(text)),
            )
            message_rows += 1
            for turn in _payload.turns_from_messages(batch):
                self._text.add(conn, num, start + turn.first_message, "", _payload.turn_text(turn))
                turns += 1
            start += len(batch)
        state_rows = self._store_state(conn, num, session_id, change)

        head = scrub_json(change.head) if needs_scrub(_payload.dumps(change.head)) else change.head
        metadata = head["metadata"]
        title = str(metadata.get("title") or _payload.DEFAULT_TITLE)
        total = base + len(messages)
        head[layout.PARTS] = {"messages": total, "message_rows": message_rows, "state_rows": state_rows}
        text = _payload.dumps(head)
        checksum = _payload.checksum(text)
        conn.execute(
            "UPDATE sessions SET revision=?, schema_version=?, title=?, model=?, db=?, created_at=?, updated_at=?, "
            "questions=?, citations=?, messages=?, turns=?, payload=?, checksum=? WHERE num=?",
            (
                head["revision"], head["schema_version"], title, metadata.get("model"), metadata.get("db"),
                str(metadata["created_at"]), str(metadata["updated_at"]),
                _payload.question_count(change.state, turns), _payload.citation_count(change.state),
                total, turns, text, checksum, num,
            ),
        )
        self._text.set_title(conn, num, title)
        return checksum

    def _common_prefix(
        self, conn: sqlite3.Connection, num: int, session_id: str, change: Change, stored_count: int, parts: Any
    ) -> tuple[int, list[dict[str, Any]]]:
        """``(base, new messages)`` for a write that did not say which messages are new: the stored messages it
        repeats are kept; if it changes any of them, all are rewritten (after checking the stored ones)."""
        if not isinstance(parts, dict):  # a whole (schema-1 style) row: written whole, in pieces
            if change.base not in (None, 0):
                raise StaleSession(f"session {session_id!r} changed since it was loaded; nothing was saved — reopen it")
            return 0, change.messages
        rows = layout.message_rows(conn, num)
        why = layout.check_messages(rows, parts)
        if why:
            raise self._damaged(session_id, why)
        if change.base is not None:  # the caller's copy continues another stored version: cannot append
            raise StaleSession(f"session {session_id!r} changed since it was loaded; nothing was saved — reopen it")
        stored = layout.join_messages(rows)
        if change.messages[:stored_count] == stored:
            return stored_count, change.messages[stored_count:]
        return 0, change.messages

    def _store_state(self, conn: sqlite3.Connection, num: int, session_id: str, change: Change) -> int:
        """Rewrite the state rows that differ from the stored ones (checking each before replacing it).

        With ``change.known`` (the rows as this copy last read or wrote them: what the store holds, since the
        head's revision and checksum matched) only the rows that differ from it are read and written — rows a
        run left alone compare by identity, so the cost is what the run changed. Without it every stored row
        is compared. ``change.known`` becomes the rows as now stored."""
        known = change.known
        if known is None:
            stored = {
                path: (rid, kind, checksum)
                for rid, path, kind, checksum in conn.execute(
                    "SELECT rid, path, kind, checksum FROM session_state WHERE num=?", (num,)
                )
            }
        written: dict[str, _payload.StateRow] = {}
        rows = _payload.split_state(change.state)
        for path, row in rows.items():
            kind, value = row
            if known is not None:
                if known.get(path) == row:  # identical values: no serialization, no read
                    written[path] = row  # the state's own objects: compared by identity next time
                    continue
                found = conn.execute(
                    "SELECT rid, kind, checksum FROM session_state WHERE num=? AND path=?", (num, path)
                ).fetchone()
                old = None if found is None else (found[0], found[1], found[2])
            else:
                old = stored.pop(path, None)
            text = ""
            if kind not in ("dict", "list"):
                if value is _payload.UNREAD:
                    raise ValueError(
                        f"state row {path} of this partial session was not read but changed place; nothing was "
                        "saved — open the session whole"
                    )
                body = _payload.row_value(kind, value)
                text = _payload.dumps(body)
                if needs_scrub(text) or (isinstance(value, str) and is_secret_key(str(json.loads(path)[-1]))):
                    key = str(json.loads(path)[-1])
                    text = _payload.dumps(scrub_json({key: body})[key])
                    row = (kind, json.loads(text))
            checksum = _payload.checksum(text)
            written[path] = row
            if old is None:
                conn.execute(
                    "INSERT INTO session_state(num, path, kind, data, checksum) VALUES (?, ?, ?, ?, ?)",
                    (num, path, kind, text, checksum),
                )
            elif old[1:] != (kind, checksum):
                self._check_state_row(conn, session_id, old[0])
                conn.execute(
                    "UPDATE session_state SET kind=?, data=?, checksum=? WHERE rid=?", (kind, text, checksum, old[0])
                )
        if known is not None:
            gone = [
                found[0]
                for path in known.keys() - rows.keys()
                if (
                    found := conn.execute(
                        "SELECT rid FROM session_state WHERE num=? AND path=?", (num, path)
                    ).fetchone()
                )
            ]
        else:
            gone = [rid for rid, _kind, _checksum in stored.values()]
        for rid in gone:
            self._check_state_row(conn, session_id, rid)
            conn.execute("DELETE FROM session_state WHERE rid=?", (rid,))
        change.known = written
        return len(rows)

    def _check_state_row(self, conn: sqlite3.Connection, session_id: str, rid: int) -> None:
        path, data, checksum = conn.execute(
            "SELECT path, data, checksum FROM session_state WHERE rid=?", (rid,)
        ).fetchone()
        if _payload.checksum(data) != checksum:
            raise self._damaged(session_id, f"its state row {path} does not match its checksum")


def _by_run(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive messages grouped by their ``run_id`` (messages without one join the batch before them)."""
    batches: list[list[dict[str, Any]]] = []
    current: Any = object()
    for message in messages:
        run_id = message.get("run_id") if isinstance(message, dict) else None
        if not batches or (run_id is not None and run_id != current):
            batches.append([])
            current = run_id
        batches[-1].append(message)
    return batches


def head_of(data: dict[str, Any]) -> dict[str, Any]:
    """A payload without its messages and state (they are stored as pieces)."""
    head = {k: v for k, v in data.items() if k not in ("state", layout.PARTS)}
    head["conversation"] = {k: v for k, v in data["conversation"].items() if k != "messages"}
    head["state"] = {}
    return head
