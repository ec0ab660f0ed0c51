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


class UnwritableKnowledgeBase(StoreError):
    """The knowledge base cannot be written: its disk is full or it is read-only (nothing was half-written)."""


DOCTOR_HINT = "run `haiku-tui doctor --repair` to rebuild it from the source files"
_MISSING_FILE = re.compile(r"Not found: (\S+?\.lance)(?=[,\s]|$)")


def damaged(exc: BaseException) -> DamagedKnowledgeBase | None:
    """The one-line :class:`DamagedKnowledgeBase` for a LanceDB error about a missing data file, else None."""
    text = str(exc)
    match = _MISSING_FILE.search(text)
    if match is None or "lance" not in text.lower():
        return None
    table = os.path.basename(os.path.dirname(os.path.dirname(match.group(1)))).removesuffix(".lance")
    where = os.path.dirname(os.path.dirname(os.path.dirname(match.group(1))))
    return DamagedKnowledgeBase(
        f"the knowledge base at {where} is damaged (a data file of its {table} table is missing); {DOCTOR_HINT}"
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
