"""Structure-following chunking: sections first, then paragraphs, then sentences, to a size budget.

* A chunk never mixes two sections, except that a short section is merged with the next one
  (the merged chunk keeps the common heading path and the inner heading as a line of text).
* Within a section, paragraphs are packed greedily up to ``target`` characters.
* A paragraph longer than ``max_chars`` is split between sentences; a sentence (or a code
  block line run) longer than that is split at whitespace as a last resort.
* PDF blocks carry page numbers; a chunk lists every page its text came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .document import Block

DEFAULT_TARGET = 1600
MIN_SECTION = 100  # sections shorter than this (a one-line intro) merge into the next one

_SENTENCE_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"'”’)\]]))\s+(?=[\"'“‘(\[]?[A-Z0-9])")


@dataclass(frozen=True)
class Chunk:
    headings: tuple[str, ...]
    text: str
    pages: tuple[int, ...] = ()


@dataclass
class _Piece:
    text: str
    pages: frozenset[int]
    kind: str


def chunk_blocks(
    blocks: Sequence[Block],
    *,
    target: int = DEFAULT_TARGET,
    max_chars: int | None = None,
    min_section: int = MIN_SECTION,
) -> list[Chunk]:
    """Chunk ``blocks`` (in document order) into :class:`Chunk` objects."""
    if max_chars is None:
        max_chars = int(target * 1.5)
    sections = _sections(blocks)
    chunks: list[Chunk] = []
    carry: tuple[tuple[str, ...], list[_Piece]] | None = None  # a short section waiting to merge
    for headings, pieces in sections:
        if carry is not None:
            carry_heads, carry_pieces = carry
            carry = None
            common = _common_prefix(carry_heads, headings)
            inner = headings[len(common) :]
            merged_size = (
                _size(carry_pieces) + _size(pieces) + sum(len(h) + 2 for h in inner + carry_heads[len(common) :])
            )
            if merged_size <= target and len(common) > 0:
                own = [_Piece(h, frozenset(), "heading") for h in carry_heads[len(common) :]]
                heading_lines = [_Piece(h, frozenset(), "heading") for h in inner]
                headings, pieces = common, own + carry_pieces + heading_lines + pieces
            else:
                chunks.extend(_pack(carry_heads, carry_pieces, target, max_chars))
        if _size(pieces) < min_section:
            carry = (headings, pieces)
            continue
        chunks.extend(_pack(headings, pieces, target, max_chars))
    if carry is not None:
        chunks.extend(_pack(carry[0], carry[1], target, max_chars))
    return chunks


def _sections(blocks: Iterable[Block]) -> list[tuple[tuple[str, ...], list[_Piece]]]:
    out: list[tuple[tuple[str, ...], list[_Piece]]] = []
    for block in blocks:
        piece = _Piece(block.text, frozenset({block.page}) if block.page is not None else frozenset(), block.kind)
        if out and out[-1][0] == block.headings:
            out[-1][1].append(piece)
        else:
            out.append((block.headings, [piece]))
    return out


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return a[:n]


def _size(pieces: Sequence[_Piece]) -> int:
    return sum(len(p.text) for p in pieces) + 2 * max(0, len(pieces) - 1)


def _pack(headings: tuple[str, ...], pieces: Sequence[_Piece], target: int, max_chars: int) -> list[Chunk]:
    units: list[_Piece] = []
    for piece in pieces:
        if len(piece.text) <= max_chars:
            units.append(piece)
        else:
            units.extend(_split_piece(piece, target, max_chars))
    chunks: list[Chunk] = []
    current: list[_Piece] = []
    size = 0
    for unit in units:
        extra = len(unit.text) + (2 if current else 0)
        # a heading line should stay with the text that follows it
        if current and size + extra > target and current[-1].kind != "heading":
            chunks.append(_make(headings, current))
            current, size = [], 0
            extra = len(unit.text)
        current.append(unit)
        size += extra
    if current:
        chunks.append(_make(headings, current))
    return chunks


def _make(headings: tuple[str, ...], pieces: Sequence[_Piece]) -> Chunk:
    pages: set[int] = set()
    for p in pieces:
        pages |= p.pages
    text = "\n\n".join(p.text for p in pieces)
    return Chunk(headings, text, tuple(sorted(pages)))


def _split_piece(piece: _Piece, target: int, max_chars: int) -> list[_Piece]:
    if piece.kind == "code":
        parts = _split_lines(piece.text, target, max_chars)
    else:
        parts = _split_sentences(piece.text, target, max_chars)
    return [_Piece(p, piece.pages, piece.kind) for p in parts if p.strip()]


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences (keeps the sentence's own punctuation)."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def _split_sentences(text: str, target: int, max_chars: int) -> list[str]:
    sentences = split_sentences(text)
    out: list[str] = []
    cur = ""
    for sentence in sentences:
        if len(sentence) > max_chars:
            if cur:
                out.append(cur)
                cur = ""
            out.extend(_split_words(sentence, target))
            continue
        candidate = f"{cur} {sentence}" if cur else sentence
        if len(candidate) > target and cur:
            out.append(cur)
            cur = sentence
        else:
            cur = candidate
    if cur:
        out.append(cur)
    return out


def _split_lines(text: str, target: int, max_chars: int) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for line in text.split("\n"):
        if len(line) > max_chars:
            if cur:
                out.append("\n".join(cur))
                cur, size = [], 0
            out.extend(_split_words(line, target))
            continue
        if cur and size + len(line) + 1 > target:
            out.append("\n".join(cur))
            cur, size = [], 0
        cur.append(line)
        size += len(line) + 1
    if cur:
        out.append("\n".join(cur))
    return out


def _split_words(text: str, target: int) -> list[str]:
    out: list[str] = []
    cur = ""
    for word in text.split():
        while len(word) > target:  # a giant token (base64, minified code)
            if cur:
                out.append(cur)
                cur = ""
            out.append(word[:target])
            word = word[target:]
        candidate = f"{cur} {word}" if cur else word
        if len(candidate) > target and cur:
            out.append(cur)
            cur = word
        else:
            cur = candidate
    if cur:
        out.append(cur)
    return out
