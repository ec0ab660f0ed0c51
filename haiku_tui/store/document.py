"""A parsed document: a title plus blocks that carry their heading path, and the heading tracker every
format in ``store/formats/`` fills it with."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Block:
    """A paragraph (``kind="text"``) or a preformatted block (``kind="code"``) under a heading path."""

    headings: tuple[str, ...]
    text: str
    kind: str = "text"
    page: int | None = None


@dataclass
class ParsedDocument:
    title: str
    blocks: list[Block]
    source_type: str
    metadata: dict[str, Any] = field(default_factory=dict)


_IMAGE = re.compile(r"!\[([^\[\]]*)\]\([^()\s]*\)")
_LINK = re.compile(r"\[([^\[\]]*)\]\([^()\s]*\)")
_EMPHASIS = re.compile(r"[*_`]+")


def clean_heading(text: str) -> str:
    """Heading text without image/link syntax and emphasis marks, on one line (linear time)."""
    text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))
    return " ".join(_EMPHASIS.sub("", text).split())


class Sections:
    """Tracks the heading stack and collects blocks (shared by every format)."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, str]] = []
        self.blocks: list[Block] = []
        self.headings: list[tuple[str, ...]] = []
        self.first_h1: str | None = None

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.stack)

    def heading(self, level: int, text: str) -> None:
        text = clean_heading(text)
        if not text:
            return
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, text))
        self.headings.append(self.path)

    def add(self, text: str, kind: str = "text", page: int | None = None) -> None:
        text = text.strip() if kind == "text" else text.strip("\n")
        if text.strip():
            self.blocks.append(Block(self.path, text, kind, page))

    def result(self, title: str, source_type: str) -> ParsedDocument:
        """The document; an outline with headings but no body keeps its headings as its text."""
        blocks = self.blocks or [Block(path, path[-1]) for path in self.headings]
        return ParsedDocument(title=title, blocks=blocks, source_type=source_type)
