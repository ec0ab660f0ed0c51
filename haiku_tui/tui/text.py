"""Text from documents and models, made safe to show: pure helpers, no Textual import.

Nothing a document or a model wrote is ever parsed as Textual/Rich markup: the UI builds
``rich.text.Text`` objects (or Markdown sources for answers) from the strings below. Terminal
control characters are replaced by their visible Unicode "control pictures" (``ESC`` → ``␛``), so
``\\x1b[31m`` is shown literally as ``␛[31m`` instead of colouring the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from haiku_tui.text import MARKER as _CITE
from haiku_tui.text import control_pictures, one_line

_PARTIAL_CITE = re.compile(r"\[\d{0,4}$")
CITE_SCHEME = "cite:"


def clean(text: object) -> str:
    """``text`` with every control character except newline and tab made visible and inert
    (:func:`haiku_tui.text.control_pictures`: ``ESC`` → ``␛``, C1 and bidi controls as escapes)."""
    return control_pictures(text)


def clean_line(text: object, limit: int | None = None) -> str:
    """:func:`clean` text through :func:`haiku_tui.text.one_line` (for a screen: controls made visible)."""
    return one_line(clean(text), limit)


def cite_href(number: int) -> str:
    """The private link target of citation marker ``[number]``."""
    return f"{CITE_SCHEME}{number}"


def parse_cite_href(href: str) -> int | None:
    """The citation number of a ``cite:n`` link, else ``None`` (any other link is not ours)."""
    if not href.startswith(CITE_SCHEME):
        return None
    number = href[len(CITE_SCHEME) :]
    return int(number) if number.isdigit() else None


def link_citations(markdown: str, valid: Callable[[int], bool] | None = None) -> str:
    """Rewrite ``[n]`` markers in an answer into Markdown links ``[\\[n\\]](cite:n)``.

    Only numbers ``valid`` accepts become links (a marker naming no citation stays plain text);
    markers inside code spans and fenced blocks, and existing links (``[1](…)``), are left alone.
    Control characters are made visible first.
    """
    text = clean(markdown)
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fenced = not fenced
            out.append(line)
            continue
        if fenced or line.startswith("    ") and not stripped.startswith(("-", "*", "+")):
            out.append(line)
            continue
        pieces = line.split("`")
        for i in range(0, len(pieces), 2):  # even pieces are outside code spans
            pieces[i] = _CITE.sub(lambda m: _link(m, valid), pieces[i])
        out.append("`".join(pieces))
    return "\n".join(out)


def _link(match: re.Match[str], valid: Callable[[int], bool] | None) -> str:
    number = int(match.group(1))
    if valid is not None and not valid(number):
        return match.group()
    return f"[\\[{number}\\]]({cite_href(number)})"


class CitationStream:
    """Applies :func:`link_citations` to a streamed answer, fragment by fragment.

    A fragment ending inside a possible marker (``"… see [1"``) is held back until the next one,
    so a marker split across chunks still becomes one link. Lines are released as soon as they
    are complete, partial lines as soon as they cannot end in a marker.
    """

    def __init__(self, valid: Callable[[int], bool] | None = None) -> None:
        self.valid = valid
        self._pending = ""
        self._fenced = False

    def feed(self, fragment: str) -> str:
        """The Markdown to append for ``fragment`` (possibly empty when it is held back)."""
        self._pending += fragment
        held = _PARTIAL_CITE.search(self._pending)
        cut = held.start() if held else len(self._pending)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return self._convert(ready)

    def flush(self) -> str:
        """Whatever was held back, converted."""
        ready, self._pending = self._pending, ""
        return self._convert(ready)

    def _convert(self, text: str) -> str:
        if not text:
            return ""
        # Fence state is tracked per fragment; a marker inside a fenced block stays plain text.
        parts = text.split("\n")
        out = []
        for part in parts:
            stripped = part.lstrip()
            if stripped.startswith(("```", "~~~")):
                self._fenced = not self._fenced
                out.append(clean(part))
            elif self._fenced:
                out.append(clean(part))
            else:
                out.append(link_citations(part, self.valid))
        return "\n".join(out)


def compact_number(value: int) -> str:
    """``12345`` → ``"12.3k"``; small numbers unchanged."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return str(value)
