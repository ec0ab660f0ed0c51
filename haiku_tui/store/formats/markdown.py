"""Markdown through markdown-it-py's block token stream (CommonMark plus tables).

Only block structure comes from markdown-it (its inline rules are off: they are quadratic on
inputs such as ``[a`` repeated); heading text is cleaned by ``Sections`` in linear time.
Package READMEs are often reStructuredText in a Markdown file: its ``~~~``/``^^^``-underlined and
overlined headings (which CommonMark reads as code fences or paragraphs) become ATX headings first.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..document import ParsedDocument, Sections
from .underlined import HeadingLevels, heading_at

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_REST_ADORNMENTS = frozenset("=-~^\"'*+#:")  # not ` . _: in Markdown those are fences, ellipses, rules

_CONTAINERS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


def _strip_front_matter(text: str) -> str:
    if not text.startswith("---"):
        return text
    lines = text.split("\n", 200)
    if lines[0].strip() != "---":
        return text
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[i + 1 :])
    return text


def _rest_headings(text: str) -> str:
    """``text`` with reST section headings written as ATX headings (levels in order of first use, as
    reST does) when it has any that CommonMark lacks (not ``=``/``-`` underlines); else ``text``."""
    lines = text.split("\n")
    found: dict[int, tuple[tuple[str, bool], str, int]] = {}
    fence = ""  # the open code fence's marker
    after_blank = True
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence:
            mark = line.strip()
            if mark.startswith(fence) and not mark.strip(fence[0]):
                fence = ""
            i += 1
            continue
        heading = heading_at(lines, i) if after_blank else None
        if heading:
            (char, over), title, taken = heading
            setext = char in "=-" and not over
            closed = i + taken == len(lines) or not lines[i + taken].strip()  # a code fence opens on content
            if char in _REST_ADORNMENTS and (setext or closed) and not (over and len(line.strip()) < len(title)):
                found[i] = heading
                i += taken
                continue
        opener = _FENCE.match(line)
        fence = opener.group(1) if opener else ""
        after_blank = not line.strip()
        i += 1
    if all(char in "=-" and not over for (char, over), _, _ in found.values()):
        return text
    level_for = HeadingLevels()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i in found:
            style, title, taken = found[i]
            out.append("#" * min(level_for(style), 6) + " " + title)
            i += taken
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def parse_markdown(text: str) -> ParsedDocument:
    text = _strip_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))
    tokens = _parser().parse(_rest_headings(text))
    sec = Sections()
    lines: list[str] = []  # the current paragraph, or a whole top-level list/quote/table
    depth = 0  # open lists, quotes and tables
    heading_level: int | None = None
    row: list[str] | None = None  # cells of the current table row
    in_cell = False
    bullet = ""  # "- " before the first line of a list item

    def flush() -> None:
        if lines:
            sec.add("\n".join(lines))
            lines.clear()

    for tok in tokens:
        kind = tok.type
        if kind == "heading_open":
            flush()
            heading_level = int(tok.tag[1])
        elif kind == "heading_close":
            heading_level = None
        elif kind == "inline":
            if in_cell and row is not None:
                row.append(" ".join(tok.content.split()))
            elif heading_level is not None and not depth:
                sec.heading(heading_level, tok.content)
            else:
                lines.append(bullet + tok.content)
                bullet = ""
        elif kind in _CONTAINERS:
            if not depth:
                flush()
            depth += 1
        elif kind.endswith("_close") and kind[: -len("close")] + "open" in _CONTAINERS:
            depth -= 1
            if not depth:
                flush()
        elif kind == "list_item_open":
            bullet = (tok.info + tok.markup + " ") if tok.info else tok.markup + " "
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            lines.append(" | ".join(row))
            row = None
        elif kind in ("th_open", "td_open"):
            in_cell = True
        elif kind in ("th_close", "td_close"):
            in_cell = False
        elif kind == "paragraph_close" and not depth:
            flush()
        elif kind in ("fence", "code_block"):
            if depth:
                lines.append(tok.content.rstrip("\n"))
            else:
                flush()
                sec.add(tok.content, "code")
        elif kind == "html_block" and not tok.content.lstrip().startswith("<!--"):
            lines.append(tok.content.strip())
            if not depth:
                flush()
    flush()
    return sec.result(sec.first_h1 or "", "markdown")
