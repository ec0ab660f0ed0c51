"""Reading a session's pieces and checking them: the whole session, or its state and newest runs.

Every piece read is checked against its checksum and the head's counts first; a damaged, lost or extra
row is refused (``SessionCorrupt``), never read (the layout: :mod:`haiku_tui.sessions.layout`). The store
holds the lock and the connection; these are the reads it makes under them.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import layout
from . import payload as _payload
from .errors import SessionCorrupt, SessionNotFound


@dataclass
class Tail:
    """A session's head (state included), the rows of its state as read, and its newest message batches."""

    data: dict[str, Any]
    """The payload with ``conversation.messages`` holding only the batches read (JSON, checked)."""
    checksum: str
    known: dict[str, _payload.StateRow] | None
    first: int
    """Index in the whole history of the first message read."""
    whole: bool
    """True when every message was read."""


class PieceReader:
    """Checked reads of one sessions database (``path`` names it in messages)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def damaged(self, session_id: str, why: str) -> SessionCorrupt:
        return SessionCorrupt(
            f"session {session_id!r} in {self.path} is corrupt: {why} (changed outside haiku-tui or damaged on "
            f"disk); nothing was changed — delete it with `haiku-tui sessions delete {session_id}`"
        )

    def parse_head(self, session_id: str, text: str, stored_checksum: str) -> dict[str, Any]:
        """Parse and check a stored head row; raise ``SessionCorrupt`` (nothing changes)."""
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
        return data

    def upgrade(self, data: Any, session_id: str) -> dict[str, Any]:
        where = f"session {session_id!r} in {self.path}"
        data = _payload.upgrade(data, where=where)
        if data.get("id") != session_id:
            raise SessionCorrupt(f"{where} is corrupt: it holds session {data.get('id')!r}; nothing was changed")
        return data

    def read(self, conn: sqlite3.Connection, session_id: str, runs: int | None = None) -> Tail:
        """The session's payload (checked, upgraded) with every message, or with its newest ``runs`` message
        batches only (one batch per saved run; the state then leaves the details of the questions before them
        unread, :func:`layout.read_state`)."""
        row = conn.execute(
            "SELECT num, revision, payload, checksum FROM sessions WHERE id=?", (session_id,)
        ).fetchone()
        if row is None:
            raise SessionNotFound(f"no session {session_id!r} in {self.path}")
        num, revision, text, stored_checksum = row
        data = self.parse_head(session_id, text, stored_checksum)
        parts = data.pop(layout.PARTS, None) if isinstance(data, dict) else None
        known, first, whole = None, 0, True
        if isinstance(parts, dict) and isinstance(data.get("conversation"), dict):
            if runs is None:
                messages = layout.message_rows(conn, num)
                why = layout.check_messages(messages, parts)
            else:
                messages = conn.execute(
                    "SELECT start, count, data, checksum FROM session_messages WHERE num=? ORDER BY start DESC LIMIT ?",
                    (num, max(1, int(runs))),
                ).fetchall()[::-1]
                first = messages[0][0] if messages else 0
                whole = first == 0
                why = _check_tail(messages, parts)
            if why:
                raise self.damaged(session_id, why)
            why, data["state"], known = layout.read_state(conn, num, parts, None if runs is None else first)
            if why:
                raise self.damaged(session_id, why)
            data["conversation"]["messages"] = layout.join_messages(messages)
        data = self.upgrade(data, session_id)
        if data.get("revision") != revision:
            raise SessionCorrupt(
                f"session {session_id!r} is corrupt: payload revision {data.get('revision')!r} does not match "
                f"the row's {revision}; nothing was changed"
            )
        return Tail(data, stored_checksum, known, first, whole)


def _check_tail(rows: list[tuple[int, int, str, str]], parts: dict[str, Any]) -> str | None:
    """Why the newest message batches do not end where the head counts or do not match their checksums."""
    for start, _count, data, stored in rows:
        if _payload.checksum(data) != stored:
            return f"its message batch at {start} does not match its checksum"
    for (start, count, _, _), (following, _, _, _) in zip(rows, rows[1:]):
        if start + count != following:
            return f"its messages from {start + count} are missing"
    end = rows[-1][0] + rows[-1][1] if rows else 0
    if end != parts.get("messages"):
        return f"it has {end} message(s) where its head counts {parts.get('messages')}"
    return None
