"""Store errors: specific types whose messages say what to do."""

from __future__ import annotations

import os
import re


class StoreError(Exception):
    """Base class for knowledge-base errors (the message is one line, fit for a user)."""


class EmptyKnowledgeBase(StoreError):
    """The knowledge base is missing or holds no documents."""


class EmbedderMismatch(StoreError):
    """The configured embedder differs from the one the knowledge base was built with."""


class InvalidFilter(StoreError):
    """A document filter is not a valid SQL predicate over title/path/metadata."""


class ParseError(StoreError):
    """A file could not be turned into text (the message is the reason shown in reports)."""


class DamagedKnowledgeBase(StoreError):
    """A data file of the knowledge base is missing or unreadable (``haiku-tui doctor --repair``)."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what
        """``"is missing"`` or ``"is unreadable"``."""


class UnwritableKnowledgeBase(StoreError):
    """The knowledge base cannot be written: its disk is full or it is read-only (nothing was half-written)."""


DOCTOR_HINT = "run `haiku-tui doctor --repair` to rebuild it from the source files"
_MISSING_FILE = re.compile(r"Not found: (\S+?\.lance)(?=[,\s]|$)")
# What LanceDB says about a data, index or manifest file that is there but truncated or overwritten.
_UNREADABLE_FILE = re.compile(
    r"failed to fill whole buffer|does not appear to be a Lance file|does not have sufficient data|invalid magic"
)
_TABLE_DIR = re.compile(r"([^\s\"',]+?)/([^/\s\"',]+)\.lance/")  # <knowledge base>/<table>.lance/…


def damaged(exc: BaseException) -> DamagedKnowledgeBase | None:
    """The one-line :class:`DamagedKnowledgeBase` for a LanceDB error about a missing or unreadable data file,
    else None."""
    text = str(exc)
    missing = _MISSING_FILE.search(text)
    if missing is not None and "lance" in text.lower():
        what, about = "is missing", missing.group(1)
    elif _UNREADABLE_FILE.search(text):
        what, about = "is unreadable", text
    else:
        return None
    table = _TABLE_DIR.search(about)
    if table is None:
        return DamagedKnowledgeBase(f"the knowledge base is damaged (a data file {what}); {DOCTOR_HINT}", what)
    where = table.group(1)
    if not where.startswith("/") and os.path.isdir("/" + where):  # LanceDB drops a local path's leading slash
        where = "/" + where
    return DamagedKnowledgeBase(
        f"the knowledge base at {where} is damaged (a data file of its {table.group(2)} table {what}); {DOCTOR_HINT}",
        what,
    )


# OS error numbers LanceDB reports as "(os error N)": no space, quota exceeded; read-only, not permitted.
_FULL = (28, 122)
_READ_ONLY = (30, 13, 1)
_OS_ERROR = re.compile(r"\(os error (\d+)\)")
_AT_PATH = re.compile(r'at path "([^"]+?\.lance)/')


def unwritable(exc: BaseException, where: str | None = None) -> UnwritableKnowledgeBase | None:
    """The one-line :class:`UnwritableKnowledgeBase` for a write that failed on a full or read-only disk, else None.

    ``where`` names the knowledge base; without it the location is taken from the error when it has one.
    """
    number = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    if number is None:
        match = _OS_ERROR.search(str(exc))
        number = int(match.group(1)) if match else None
    if number not in (*_FULL, *_READ_ONLY):
        return None
    if where is None:
        at = _AT_PATH.search(str(exc))
        where = os.path.dirname(at.group(1)) if at else None
    place = f"the knowledge base at {where}" if where else "the knowledge base"
    if number in _FULL:
        return UnwritableKnowledgeBase(
            f"cannot write to {place}: the disk is full; free some space and run the command again "
            "(what was written before is kept)"
        )
    return UnwritableKnowledgeBase(
        f"cannot write to {place}: it is read-only or not permitted; check its permissions or choose another --db"
    )
