"""Plain-text helpers every layer may use (stdlib only): one-line summaries, terminal-safe output."""

from __future__ import annotations

import re

_TERMINAL_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (window title, hyperlinks …)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement …)
    r"|\x1b[@-_]"  # other escape sequences
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # remaining control characters (newline and tab are kept)
)


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` on one line (whitespace collapsed), cut to ``limit`` characters with ``…``."""
    value = " ".join(str(text).split())
    if limit is not None and len(value) > limit:
        value = value[: max(0, limit - 1)].rstrip() + "…"
    return value


def terminal_safe(text: str) -> str:
    """Document, model or session text made safe to print: escape sequences and control characters removed."""
    return _TERMINAL_CONTROL.sub("", text)


def printable_line(text: str, limit: int | None = None) -> str:
    """:func:`terminal_safe` text on one line."""
    return one_line(terminal_safe(text), limit)
