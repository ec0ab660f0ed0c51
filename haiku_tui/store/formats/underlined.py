"""reStructuredText and plain text: headings are underlined (optionally overlined) lines.

No maintained reST parser ships with the project's dependencies (docutils would be a new
dependency for a format whose structure these few rules already capture), so this stays a
small line scanner; every expression in it is linear.
"""

from __future__ import annotations

import re

from ..parsing import ParsedDocument, Sections

_ADORNMENT = re.compile(r"^([=\-~^\"'*+#:.`_])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\.\.\s+(?:[\w:-]+::.*|_[^:]*:.*|\|[^|]+\|.*)?$")


def parse_underlined(text: str) -> ParsedDocument:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sec = Sections()
    styles: list[tuple[str, bool]] = []
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            body = "\n".join(para)
            indented = all((not ln.strip()) or ln.startswith((" ", "\t")) for ln in para)
            sec.add(body, "code" if indented and len(para) > 1 and _looks_like_code(body) else "text")
            para.clear()

    def level_for(style: tuple[str, bool]) -> int:
        if style not in styles:
            styles.append(style)
        return styles.index(style) + 1

    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        # overline + title + underline
        if (
            _ADORNMENT.match(line)
            and not para
            and i + 2 < n
            and lines[i + 1].strip()
            and _ADORNMENT.match(lines[i + 2])
            and lines[i + 2].strip()[0] == stripped[0]
        ):
            sec.heading(level_for((stripped[0], True)), lines[i + 1].strip())
            i += 3
            continue
        # title + underline
        if (
            stripped
            and not _ADORNMENT.match(line)
            and not line.startswith((" ", "\t"))
            and not para
            and i + 1 < n
            and _ADORNMENT.match(lines[i + 1])
            and len(lines[i + 1].strip()) >= max(3, len(stripped) - 2)
        ):
            sec.heading(level_for((lines[i + 1].strip()[0], False)), stripped)
            i += 2
            continue
        if not stripped:
            flush()
        elif _DIRECTIVE.match(line):
            flush()
        elif _ADORNMENT.match(line) and not para:
            pass  # transition
        else:
            para.append(line.rstrip())
        i += 1
    flush()
    # the first adornment style seen is level 1, so the first heading is the title
    return sec.result(sec.first_h1 or "", "text")


def _looks_like_code(body: str) -> bool:
    return bool(re.search(r"::=|[{}();]|^\s*>>>|^\s*(def|class|import|for|if|return)\b", body, re.M))
