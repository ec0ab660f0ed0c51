"""One shared list of hostile strings, and what "inert" means for text bound for a terminal.

Every surface that shows untrusted text (CLI lines, model errors, JSON output; screens, toasts
and exports once the lead extends it) is fed each of these and must show it inert.
"""

from __future__ import annotations

import re

HOSTILE: dict[str, str] = {
    "osc-title": "\x1b]2;PWNED\x07",
    "erase-screen": "\x1b[2J",
    "osc52-clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07",
    "c1-csi": "\x9b2J",
    "c1-osc": "\x9d0;PWNED\x9c",
    "dcs": "\x1bPq#0;2;0;0;0\x1b\\",
    "lone-esc": "tail\x1b",
    "markup": "[bold]x[/]",
    "click-markup": "[@click=app.quit]quit[/]",
    "bidi": "\u202egnp.exe\u202c",
}
"""Name → a string a document, model server or import could carry."""

MARKUP = {"markup", "click-markup"}
"""Entries that are harmless text on a plain terminal and must be shown literally, not stripped."""

_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def active_controls(text: str) -> list[str]:
    """Characters in ``text`` that a terminal would act on (newline and tab are plain layout)."""
    return _ACTIVE.findall(text)
