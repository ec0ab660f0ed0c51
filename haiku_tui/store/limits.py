"""Bounds on the work one file may cost an ingest, in one place.

* ``max_bytes``: the file on disk (``add --max-size``);
* ``max_chars``: the text extracted from it (a small PDF can decode to gigabytes);
* ``max_seconds``: wall time to parse it. Formats whose parsers can be slow on hostile input
  (PDF and the office formats) are parsed in a worker process that is killed at the deadline;
  the text formats use linear-time parsers and are bounded by size alone.

Defaults can be changed with ``HAIKU_TUI_MAX_PARSE_SECONDS`` and ``HAIKU_TUI_MAX_TEXT_MB``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import ParseError

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_CHARS = 10_000_000
DEFAULT_MAX_SECONDS = 30.0


@dataclass(frozen=True)
class IngestLimits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_chars: int = DEFAULT_MAX_CHARS
    max_seconds: float = DEFAULT_MAX_SECONDS

    @classmethod
    def from_env(cls, max_bytes: int = DEFAULT_MAX_BYTES) -> IngestLimits:
        """Defaults, overridden by ``HAIKU_TUI_MAX_PARSE_SECONDS`` / ``HAIKU_TUI_MAX_TEXT_MB`` when valid."""
        seconds = _positive(os.environ.get("HAIKU_TUI_MAX_PARSE_SECONDS"))
        text_mb = _positive(os.environ.get("HAIKU_TUI_MAX_TEXT_MB"))
        return cls(
            max_bytes=max_bytes,
            max_chars=int(text_mb * 1_000_000) if text_mb else DEFAULT_MAX_CHARS,
            max_seconds=seconds or DEFAULT_MAX_SECONDS,
        )


def too_much_text(max_chars: int) -> str:
    return f"too much text (over {max_chars:,} characters extracted; limit HAIKU_TUI_MAX_TEXT_MB)"


def too_slow(seconds: float) -> str:
    return f"too slow to parse (over {seconds:g} s; limit HAIKU_TUI_MAX_PARSE_SECONDS)"


def check_chars(text: str, limits: IngestLimits) -> str:
    if len(text) > limits.max_chars:
        raise ParseError(too_much_text(limits.max_chars))
    return text


def _positive(value: str | None) -> float | None:
    try:
        number = float(value) if value else None
    except ValueError:
        return None
    return number if number and number > 0 else None
