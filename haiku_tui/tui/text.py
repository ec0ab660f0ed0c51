"""Text from documents and models, made safe to show: pure helpers, no Textual import.

Nothing a document or a model wrote is ever parsed as Textual/Rich markup: the UI builds
``rich.text.Text`` objects (or Markdown sources for answers) from the strings below. Terminal
control characters are replaced by their visible Unicode "control pictures" (``ESC`` → ``␛``), so
``\\x1b[31m`` is shown literally as ``␛[31m`` instead of colouring the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from haiku_tui.text import MARKER as _CITE
from haiku_tui.text import control_pictures, one_line

if TYPE_CHECKING:
    from haiku_tui.capabilities.wire import Tokens

_PARTIAL_CITE = re.compile(r"\[\d{0,4}$")
_WORD = re.compile(r"\w+")
_SNAKE = re.compile(r"__|[^\W_]_[^\W_]")  # a dunder or an underscore inside a word: a source identifier
_INNER_STAR = re.compile(r"(?<=\w)\*{1,2}(?=\w)")  # a*b
_OPEN_STAR = re.compile(r"(?<![\w*\\])\*{1,2}(?=\w)(?!\w(?:[^*\n]*\S)?\*)")  # *args, **kwargs: nothing closes them
_PARTIAL_WORD = re.compile(r"[\w*]+$")
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


def link_citations(markdown: str, valid: Callable[[int], bool] | None = None, *, whole: bool = True) -> str:
    """Rewrite ``[n]`` markers in an answer into Markdown links ``[\\[n\\]](cite:n)``.

    Only numbers ``valid`` accepts become links (a marker naming no citation stays plain text);
    markers inside code spans and fenced blocks, and existing links (``[1](…)``), are left alone.
    Source identifiers outside code are kept as written (:func:`as_written`; ``whole``: the text holds its
    lines' ends, so a star can be known to open emphasis or not).
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
            pieces[i] = _CITE.sub(lambda m: _link(m, valid), as_written(pieces[i], whole=whole))
        out.append("`".join(pieces))
    return "\n".join(out)


def as_written(text: str, *, whole: bool = True) -> str:
    """Markdown prose with its source identifiers kept as written: the underscores of ``__init__``,
    ``x.__del__()`` or ``snake_case_name`` and the stars of ``a*b`` and (``whole``: ``text`` ends where its line
    does) of ``f(*args, **kwargs)`` are escaped, so they are never taken for emphasis; ``**bold**``,
    ``*words*`` and ``_words_`` stay emphasis."""
    text = _WORD.sub(lambda m: m.group().replace("_", "\\_") if _SNAKE.search(m.group()) else m.group(), text)
    stars = (_INNER_STAR, _OPEN_STAR) if whole else (_INNER_STAR,)
    for pattern in stars:
        text = pattern.sub(lambda m: "\\*" * len(m.group()), text)
    return text


def _link(match: re.Match[str], valid: Callable[[int], bool] | None) -> str:
    number = int(match.group(1))
    if valid is not None and not valid(number):
        return match.group()
    return f"[\\[{number}\\]]({cite_href(number)})"


class CitationStream:
    """Applies :func:`link_citations` to a streamed answer, fragment by fragment.

    A fragment ending inside a possible marker (``"… see [1"``), a word (``"__ini"``) or an inline code span
    is held back until the next one, so a marker split across chunks still becomes one link and an identifier
    is kept as written (:func:`as_written`; a star before a word is known to open emphasis or not only when its
    line is whole: the committed answer, drawn again, settles it). A line that may open a fenced block waits
    for its end. Lines are released as soon as they are complete, partial lines as soon as they cannot end in
    one of those.
    """

    def __init__(self, valid: Callable[[int], bool] | None = None) -> None:
        self.valid = valid
        self._pending = ""
        self._fenced = False

    def feed(self, fragment: str) -> str:
        """The Markdown to append for ``fragment`` (possibly empty when it is held back)."""
        self._pending += fragment
        pending = self._pending
        line = pending.rfind("\n") + 1
        held = _PARTIAL_CITE.search(pending, line) or _PARTIAL_WORD.search(pending, line)
        cut = held.start() if held else len(pending)
        if pending[line:].lstrip().startswith(("`", "~")):  # perhaps a fence: the whole line decides
            cut = line
        if not self._fenced and pending.count("`", line, cut) % 2:  # inside a code span: wait for its end
            cut = pending.rfind("`", line, cut)
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
                out.append(link_citations(part, self.valid, whole=False))
        return "\n".join(out)


def compact_number(value: int) -> str:
    """``12345`` → ``"12.3k"``; small numbers unchanged."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return str(value)


def tokens_text(tokens: Tokens) -> str:
    """``12k in / 800 out``, ``12k in (9k cached) / 800 out`` when the server read some from its prompt cache, with
    ``≈ … (estimated)`` when no provider reported usage."""
    cached = f" ({compact_number(tokens.cached)} cached)" if tokens.cached else ""
    text = f"{compact_number(tokens.input)} in{cached} / {compact_number(tokens.output)} out"
    return f"≈ {text} (estimated)" if tokens.estimated else text
