"""Plain-text helpers every layer may use (stdlib only): one-line summaries and the one sanitiser
for terminal-bound text (screens, CLI lines, exports, JSON output).

Two treatments of untrusted text (documents, models, servers, imports):

* :func:`terminal_safe` removes escape sequences and control characters (CLI lines, file names);
* :func:`control_pictures` keeps them visible but inert (``ESC`` → ``␛``, C1 and bidi controls as
  ``\\x9b`` / ``\\u202e``), for panes and exports where the reader should see what was there.

Both cover 7-bit (``ESC ]``) and 8-bit (U+009D) introducers of OSC, CSI, DCS, APC, PM and SOS
strings, lone ``ESC``, C0 and C1 controls and the bidirectional overrides and isolates.
"""

from __future__ import annotations

import json
import re
from typing import Any

_BIDI = "\u202a-\u202e\u2066-\u2069"
_TERMINAL_CONTROL = re.compile(
    # String sequences: OSC (ESC ] / U+009D), DCS (ESC P / U+0090), SOS (ESC X / U+0098),
    # PM (ESC ^ / U+009E), APC (ESC _ / U+009F), up to BEL / ST (ESC \ or U+009C) or the end.
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI (colours, cursor movement, erase …)
    r"|\x1b[ -/]*[0-~]?"  # other escape sequences, and a lone ESC
    rf"|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]"  # remaining controls (newline and tab are kept)
)
_VISIBLE_CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_JSON_UNSAFE = re.compile(rf"[\x7f-\x9f{_BIDI}\u2028\u2029]")

MARKER = re.compile(r"(?<!\\)\[(\d{1,4})\](?![(:])")
"""A citation marker ``[n]`` in an answer (not an escaped ``\\[n]``, a link ``[n](…)`` or a reference ``[n]:``)."""

_CODE = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)|`[^`\n]*`", re.M | re.S)


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` on one line (whitespace collapsed), cut to ``limit`` characters with ``…``."""
    value = " ".join(str(text).split())
    if limit is not None and len(value) > limit:
        value = value[: max(0, limit - 1)].rstrip() + "…"
    return value


def terminal_safe(text: str) -> str:
    """Document, model or session text made safe to print: escape sequences and control characters removed."""
    return _TERMINAL_CONTROL.sub("", str(text))


def printable_line(text: str, limit: int | None = None) -> str:
    """:func:`terminal_safe` text on one line."""
    return one_line(terminal_safe(text), limit)


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC)
    if code == 0x7F:
        return "␡"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"  # C1 and bidi controls


def control_pictures(text: object) -> str:
    """``text`` with every control character except newline and tab made visible and inert.

    ``"\\r\\n"`` becomes ``"\\n"``; ``ESC`` becomes ``␛`` (so ``\\x1b[2J`` shows as ``␛[2J``), other C0
    characters their control pictures, C1 characters ``\\x9b``-style and bidi controls
    ``\\u202e``-style escapes.
    """
    value = "" if text is None else str(text)
    return _VISIBLE_CONTROL.sub(_picture, value.replace("\r\n", "\n"))


def json_dumps(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` for terminal-bound output: readable non-ASCII text, but C1 controls, bidi
    controls and line separators are ``\\u`` escapes (C0 controls always are), so printing the
    JSON never sends a control to the terminal; parsing it gives back the exact strings."""
    text = json.dumps(data, ensure_ascii=False, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def citation_markers(answer: str) -> list[int]:
    """The citation numbers an answer writes as ``[n]`` markers, in first-seen order.

    Markers inside code spans and fenced code blocks are not markers (they are shown as code).
    """
    prose = _CODE.sub(" ", str(answer))
    return list(dict.fromkeys(int(m.group(1)) for m in MARKER.finditer(prose)))
