"""Errors the capabilities raise, each saying what the host should do."""

from __future__ import annotations


class CapabilityError(RuntimeError):
    """Base class for haiku-tui capability errors."""


class QuestionStateMissing(CapabilityError):
    """A run resumes a question but the host did not carry that question's state."""


class EvidenceStateMissing(CapabilityError):
    """Compaction found earlier evidence but no record of what that question cited."""


class HistoryRegression(CapabilityError, ValueError):
    """The history handed to a run is shorter than the one the carried state was recorded with."""
