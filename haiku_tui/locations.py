"""Where haiku-tui keeps its files: one place, created on demand."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "haiku-tui"
DB_ENV = "HAIKU_RAG_DB"
DATA_DIR_ENV = "HAIKU_TUI_DATA_DIR"


def data_dir(create: bool = True) -> Path:
    """The platform data directory (``HAIKU_TUI_DATA_DIR`` overrides it, e.g. in tests)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_NAME))
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def default_db_path() -> Path:
    """``<data dir>/haiku.rag.lancedb``."""
    return data_dir() / "haiku.rag.lancedb"


def resolve_db(db: str | os.PathLike[str] | None = None) -> str:
    """Resolve a knowledge base location: argument, then ``HAIKU_RAG_DB``, then the default.

    LanceDB URIs (``s3://``, ``gs://``, ``az://``, ``db://`` …) are returned unchanged; paths are
    expanded and made absolute.
    """
    value = str(db) if db is not None else os.environ.get(DB_ENV) or None
    if value is None:
        return str(default_db_path())
    if is_uri(value):
        return value
    return str(Path(value).expanduser().resolve())


def is_uri(value: str) -> bool:
    """True for a LanceDB URI with a scheme (``s3://bucket/kb``), false for a local path."""
    scheme, sep, _ = value.partition("://")
    return bool(sep) and scheme.isalnum() and len(scheme) > 1


def sessions_db_path() -> Path:
    """``<data dir>/sessions.db``, next to the default knowledge base."""
    return data_dir() / "sessions.db"
