"""Store errors: specific types whose messages say what to do."""

from __future__ import annotations


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
