"""Opening an older sessions database: a backup copy beside it, then one transaction up to the current schema.

A kill at any moment leaves either the old schema (the next open migrates again) or the new one, never a mix;
a database of a newer schema is refused untouched.

Schema 3 keeps a question record's bulky details (search hits, programs) in state rows of their own, which a
haiku-tui of schema 2 could not join: so the number changes, and older versions refuse the file cleanly. The
step itself only adds the index partial loads read through: a schema-2 row (a record with its details in one
row) reads the same, and the session's next save writes it in the new layout.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from . import layout
from .errors import SessionCorrupt, UnsupportedSchema

if TYPE_CHECKING:
    from .pieces import PieceWriter
    from .reader import PieceReader

DB_SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of the sessions database this haiku-tui writes."""


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _check(path: Path, version: int) -> None:
    if version > DB_SCHEMA_VERSION:
        raise UnsupportedSchema(
            f"the sessions database {path} has schema version {version}, but this haiku-tui knows up to "
            f"{DB_SCHEMA_VERSION} (it was written by a newer haiku-tui); nothing was changed — upgrade haiku-tui"
        )


def migrate(
    path: Path,
    conn: sqlite3.Connection,
    write: Callable[[], AbstractContextManager[sqlite3.Connection]],
    reader: PieceReader,
    pieces: PieceWriter,
) -> None:
    """Bring the database at ``path`` (open as ``conn``) to :data:`DB_SCHEMA_VERSION`, creating it when empty.

    ``write`` opens one write transaction on ``conn``; ``reader`` checks and upgrades the rows of schema 1,
    ``pieces`` writes them in the current layout."""
    version = _version(conn)
    _check(path, version)
    if version == DB_SCHEMA_VERSION:
        return
    if version > 0:
        backup(path, conn, version)
    with write() as conn:
        version = _version(conn)  # another process may have migrated meanwhile
        _check(path, version)
        if version == 0:
            layout.create_v1(conn)
            version = 1
        if version == 1:
            _v1_to_v2(conn, reader, pieces)
            version = 2
        if version == 2:
            conn.execute(layout.STATE_KIND_INDEX)  # schema 3: question details in rows of their own (see below)
        conn.execute(f"PRAGMA user_version={DB_SCHEMA_VERSION}")


def backup(path: Path, conn: sqlite3.Connection, version: int) -> None:
    """Copy the database ``conn`` has open at ``path`` (consistently, WAL included) to ``<name>.v<version>-backup``."""
    target = path.with_name(f"{path.name}.v{version}-backup")
    partial = target.with_name(target.name + ".partial")
    copy = sqlite3.connect(str(partial))
    try:
        conn.backup(copy)
    finally:
        copy.close()
    os.replace(partial, target)


def _v1_to_v2(conn: sqlite3.Connection, reader: PieceReader, pieces: PieceWriter) -> None:
    """Split every schema-1 session (one whole payload per row) into head and pieces.

    A row that fails its checks or cannot be split is left as it was: a damaged one stays refused (and
    deletable), a sound one is still read whole and is split by its next save."""
    from .pieces import Change, head_of

    layout.create_v2_tables(conn)
    rows = conn.execute("SELECT num, id, payload, checksum FROM sessions").fetchall()
    for num, session_id, text, stored_checksum in rows:
        try:
            data = reader.upgrade(reader.parse_head(session_id, text, stored_checksum), session_id)
        except (SessionCorrupt, UnsupportedSchema):
            continue
        conn.execute("SAVEPOINT session_row")
        try:
            messages = data["conversation"].get("messages") or []
            pieces.store(conn, num, Change(head_of(data), messages, 0, data["state"]), stored=None)
            conn.execute("UPDATE sessions SET body='' WHERE num=?", (num,))
        except (KeyError, TypeError, ValueError, AttributeError):
            conn.execute("ROLLBACK TO session_row")
        conn.execute("RELEASE session_row")
