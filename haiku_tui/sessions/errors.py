"""Session errors: each message says what is wrong and what (not) happened."""

from __future__ import annotations

from pathlib import Path


class SessionError(Exception):
    """Base class for every session-store error."""


class SessionNotFound(SessionError, KeyError):
    """No session with this id (or id prefix) exists in the store."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "session not found"


class AmbiguousSessionId(SessionError):
    """A session reference (id prefix or title) matches more than one session."""

    def __init__(self, message: str, candidates: tuple = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)
        """The ``SessionSummary`` rows the reference matched."""


class SessionExists(SessionError):
    """Importing with ``keep_id=True`` would replace a session that already exists."""


class StaleSession(SessionError):
    """The session changed (or was deleted) on disk since it was loaded; saving would lose that change."""


class SessionCorrupt(SessionError):
    """A stored session (or an imported file) is damaged: invalid JSON, bad checksum, failed validation."""


class UnsupportedSchema(SessionError):
    """A session or a sessions database uses a schema version this haiku-tui does not know."""


class SessionStoreUnavailable(SessionError):
    """The sessions database is intact but cannot be written (read-only, disk full) or read (I/O error)."""


class SessionStateError(SessionError, TypeError):
    """The state handed to ``Session.commit_run`` is not a plain JSON namespace map."""


def unavailable(path: Path, exc: Exception, doing: str) -> SessionStoreUnavailable | None:
    """The one-line error for a store that is intact but cannot be used now (None: not such a fault)."""
    text = str(exc).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        why = f"the sessions database {path} is read only"
    elif "disk is full" in text or "database or disk is full" in text:
        why = f"the disk holding {path} is full"
    elif "unable to open" in text or "disk i/o error" in text or "permission" in text:
        why = f"the sessions database {path} cannot be written or read ({exc})"
    else:
        return None
    return SessionStoreUnavailable(f"{why}; {doing} — free space or fix the permissions and try again")
