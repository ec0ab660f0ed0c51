"""Turn files into structured text: a title plus blocks that carry their heading path.

Supported: Markdown, plain text, reStructuredText, HTML, PDF (with page numbers) and, through
markitdown, Word, PowerPoint, Excel, EPUB and CSV. Each family lives in ``store/formats/``.
Every failure is a :class:`ParseError` whose message is the one-line reason shown in reports.
"""

from __future__ import annotations

import re
from pathlib import Path

from .document import ParsedDocument
from .errors import ParseError
from .limits import IngestLimits, check_chars, too_much_text

# suffix -> source type
SOURCE_TYPES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".rst": "rst",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".epub": "epub",
    ".csv": "csv",
}
SUPPORTED_SUFFIXES = frozenset(SOURCE_TYPES)
# Formats whose parsers may be slow on hostile input: parsed in a worker process with a deadline.
WORKER_SUFFIXES = frozenset({".pdf", ".docx", ".pptx", ".xlsx", ".epub", ".csv"})


def source_type(path: Path) -> str | None:
    return SOURCE_TYPES.get(path.suffix.lower())


def parse_bytes(path: Path, data: bytes, limits: IngestLimits | None = None) -> ParsedDocument:
    """Parse ``data`` (the content of ``path``) according to the file's suffix, in this process."""
    limits = limits or IngestLimits()
    suffix = path.suffix.lower()
    kind = SOURCE_TYPES.get(suffix)
    if kind is None:
        raise ParseError(f"unsupported file type {path.suffix or '(no suffix)'!r}")
    if not data.strip():
        raise ParseError("empty file")
    if kind == "pdf":
        from .formats.pdf import parse_pdf

        doc = parse_pdf(data, limits.max_chars)
    elif suffix in WORKER_SUFFIXES:
        from .formats.office import parse_office

        doc = parse_office(suffix, data, limits.max_chars)
    else:
        text = check_chars(_decode(data, html=kind == "html"), limits)
        if kind == "markdown":
            from .formats.markdown import parse_markdown

            doc = parse_markdown(text)
        elif kind == "html":
            from .formats.html import parse_html

            doc = parse_html(text)
        else:
            from .formats.underlined import parse_underlined

            doc = parse_underlined(text)
        doc.source_type = kind
    if not doc.title:
        doc.title = path.stem
    if not any(b.text.strip() for b in doc.blocks):
        if kind == "pdf":
            raise ParseError("PDF has no text layer (scanned images?); run OCR on it first")
        raise ParseError("no text found")
    if sum(len(b.text) for b in doc.blocks) > limits.max_chars:
        raise ParseError(too_much_text(limits.max_chars))
    return doc


# ---------------------------------------------------------------------------------------------
# decoding


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.I)


def _decode(data: bytes, *, html: bool = False) -> str:
    text = _decode_bytes(data, html=html)
    sample = text[:8192]
    if "\x00" in sample or sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\f\x1b") > len(sample) // 10:
        raise ParseError("binary file (control characters), not text")
    return text


def _decode_bytes(data: bytes, *, html: bool = False) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ParseError(f"undecodable UTF-16 text ({exc.reason})") from None
    if b"\x00" in data[:8192]:
        raise ParseError("binary file (contains NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if html:
            match = _META_CHARSET.search(data[:4096])
            if match and match.group(1).lower() not in (b"utf-8", b"utf8"):
                try:
                    return data.decode(match.group(1).decode("ascii"))
                except (LookupError, UnicodeDecodeError):
                    pass
        raise ParseError(f"not valid UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
