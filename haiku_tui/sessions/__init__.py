"""Durable sessions: the Pydantic AI ``Conversation`` + the whole ``deps.state`` map + app data + metadata,
in SQLite at ``locations.sessions_db_path()``.

Typical host loop::

    store = SessionStore()
    session = store.load(session_id)                  # or store.new(model=..., db=...)
    deps = session.deps()                             # Deps on a *copy* of the committed state
    result = await agent.run(prompt, deps=deps, conversation=session.conversation)
    session.commit_run(result, deps.state)            # only after a completed run: both or neither
    store.save(session)                               # one transaction; StaleSession if changed elsewhere

A failed or cancelled run is never committed, so the session (and the store) stay as they were.

Names are imported lazily so ``haiku_tui.sessions.store`` (the raw-payload path) starts without Pydantic AI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    AmbiguousSessionId,
    SessionCorrupt,
    SessionError,
    SessionExists,
    SessionNotFound,
    SessionStateError,
    SessionStoreUnavailable,
    StaleSession,
    UnsupportedSchema,
)

if TYPE_CHECKING:
    from .export import answer_records, to_json, to_markdown
    from .model import REVIEW_MARKS, Session
    from .payload import SCHEMA_VERSION
    from .migrate import DB_SCHEMA_VERSION
    from .store import SessionHit, SessionPeek, SessionStore, SessionSummary

_LAZY = {
    "Session": "model",
    "REVIEW_MARKS": "model",
    "SessionStore": "store",
    "SessionSummary": "store",
    "SessionHit": "store",
    "SessionPeek": "store",
    "DB_SCHEMA_VERSION": "migrate",
    "SCHEMA_VERSION": "payload",
    "to_markdown": "export",
    "to_json": "export",
    "answer_records": "export",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'haiku_tui.sessions' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AmbiguousSessionId",
    "DB_SCHEMA_VERSION",
    "REVIEW_MARKS",
    "SCHEMA_VERSION",
    "Session",
    "SessionCorrupt",
    "SessionError",
    "SessionExists",
    "SessionHit",
    "SessionNotFound",
    "SessionPeek",
    "SessionStateError",
    "SessionStoreUnavailable",
    "SessionStore",
    "SessionSummary",
    "StaleSession",
    "UnsupportedSchema",
    "answer_records",
    "to_json",
    "to_markdown",
]
