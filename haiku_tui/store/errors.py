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
