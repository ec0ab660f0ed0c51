"""reStructuredText and plain text: headings are underlined (optionally overlined) lines.

No maintained reST parser ships with the project's dependencies (docutils would be a new
dependency for a format whose structure these few rules already capture), so this stays a
small line scanner; every expression in it is linear.
"""

from __future__ import annotations

import re

from ..document import ParsedDocument, Sections

ADORNMENT = re.compile(r"^([=\-~^\"'*+#:.`_])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\.\.\s+(?:[\w:-]+::.*|_[^:]*:.*|\|[^|]+\|.*)?$")


def heading_at(lines: list[str], i: int) -> tuple[tuple[str, bool], str, int] | None:
    """The heading starting at ``lines[i]`` (which must not continue a paragraph), if any:
    its style (adornment character, overlined), its title and the number of lines it takes."""
    line = lines[i]
    stripped = line.strip()
    n = len(lines)
    if ADORNMENT.match(line):  # overline + title + underline
        if (
            i + 2 < n
            and lines[i + 1].strip()
            and ADORNMENT.match(lines[i + 2])
            and lines[i + 2].strip()[0] == stripped[0]
        ):
            return (stripped[0], True), lines[i + 1].strip(), 3
        return None
    if (  # title + underline
        stripped
        and not line.startswith((" ", "\t"))
        and i + 1 < n
        and ADORNMENT.match(lines[i + 1])
        and len(lines[i + 1].strip()) >= max(3, len(stripped) - 2)
    ):
        return (lines[i + 1].strip()[0], False), stripped, 2
    return None


class HeadingLevels:
    """reST heading levels: the first adornment style seen is level 1, the next new one level 2…"""

    def __init__(self) -> None:
        self.styles: list[tuple[str, bool]] = []

    def __call__(self, style: tuple[str, bool]) -> int:
        if style not in self.styles:
            self.styles.append(style)
        return self.styles.index(style) + 1


def parse_underlined(text: str) -> ParsedDocument:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sec = Sections()
    level_for = HeadingLevels()
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            body = "\n".join(para)
            indented = all((not ln.strip()) or ln.startswith((" ", "\t")) for ln in para)
            sec.add(body, "code" if indented and len(para) > 1 and _looks_like_code(body) else "text")
            para.clear()

    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        found = None if para else heading_at(lines, i)
        if found:
            style, title, taken = found
            sec.heading(level_for(style), title)
            i += taken
            continue
        if not stripped or _DIRECTIVE.match(line):
            flush()
        elif ADORNMENT.match(line) and not para:
            pass  # transition
        else:
            para.append(line.rstrip())
        i += 1
    flush()
    # the first adornment style seen is level 1, so the first heading is the title
    return sec.result(sec.first_h1 or "", "text")


def _looks_like_code(body: str) -> bool:
    return bool(re.search(r"::=|[{}();]|^\s*>>>|^\s*(def|class|import|for|if|return)\b", body, re.M))
