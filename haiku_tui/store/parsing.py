"""Turn files into structured text: a title plus blocks that carry their heading path.

Supported: Markdown (``.md``, ``.markdown``), plain text (``.txt``), reStructuredText (``.rst``),
HTML (``.html``, ``.htm``) and PDF (``.pdf``, text layer via pypdf). Every failure is a
:class:`ParseError` whose message is the one-line reason shown in ingest reports.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .errors import ParseError

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt", ".rst"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
PDF_SUFFIXES = frozenset({".pdf"})
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES | TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES


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


def source_type(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix == ".rst":
        return "rst"
    if suffix == ".txt":
        return "text"
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix in PDF_SUFFIXES:
        return "pdf"
    return None


def parse_bytes(path: Path, data: bytes) -> ParsedDocument:
    """Parse ``data`` (the content of ``path``) according to the file's suffix."""
    kind = source_type(path)
    if kind is None:
        raise ParseError(f"unsupported file type {path.suffix or '(no suffix)'!r}")
    if not data.strip():
        raise ParseError("empty file")
    if kind == "pdf":
        doc = _parse_pdf(data)
    else:
        text = _decode(data, html=kind == "html")
        if kind == "markdown":
            doc = _parse_markdown(text)
        elif kind == "html":
            doc = _parse_html(text)
        else:
            doc = _parse_underlined(text)
        doc.source_type = kind
    if not doc.title:
        doc.title = path.stem
    if not any(b.text.strip() for b in doc.blocks):
        if kind == "pdf":
            raise ParseError("PDF has no text layer (scanned images?); run OCR on it first")
        raise ParseError("no text found")
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


# ---------------------------------------------------------------------------------------------
# Markdown


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


class _Sections:
    """Tracks the heading stack and collects blocks."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, str]] = []
        self.blocks: list[Block] = []
        self.first_h1: str | None = None
        self.first_heading: str | None = None

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.stack)

    def heading(self, level: int, text: str) -> None:
        text = _clean_inline(text)
        if not text:
            return
        if self.first_heading is None:
            self.first_heading = text
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, text))

    def add(self, text: str, kind: str = "text", page: int | None = None) -> None:
        if kind == "text":
            text = text.strip()
        else:
            text = text.strip("\n")
        if text.strip():
            self.blocks.append(Block(self.path, text, kind, page))


def _clean_inline(text: str) -> str:
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)  # images
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # links
    text = re.sub(r"[*_`]+", "", text)
    return " ".join(text.split())


def _parse_markdown(text: str) -> ParsedDocument:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # YAML front matter
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                lines = lines[i + 1 :]
                break
    sec = _Sections()
    para: list[str] = []
    fence: str | None = None
    code: list[str] = []

    def flush() -> None:
        if para:
            sec.add("\n".join(para))
            para.clear()

    for line in lines:
        if fence is not None:
            if line.strip().startswith(fence):
                sec.add("\n".join(code), "code")
                code.clear()
                fence = None
            else:
                code.append(line)
            continue
        m = _FENCE.match(line)
        if m:
            flush()
            fence = m.group(1)[0] * 3
            code = []
            continue
        m = _ATX.match(line)
        if m:
            flush()
            sec.heading(len(m.group(1)), m.group(2) or "")
            continue
        if _SETEXT.match(line) and len(para) == 1 and para[0].strip():
            heading = para.pop()
            sec.heading(1 if line.strip()[0] == "=" else 2, heading)
            continue
        if not line.strip():
            flush()
            continue
        if re.match(r"^ {0,3}(\*\s*){3,}$|^ {0,3}(-\s*){3,}$|^ {0,3}(_\s*){3,}$", line) and not para:
            continue  # thematic break
        if line.lstrip().startswith("<!--") and line.rstrip().endswith("-->"):
            continue
        para.append(line.rstrip())
    flush()
    if fence is not None and code:
        sec.add("\n".join(code), "code")
    title = sec.first_h1 or ""
    return ParsedDocument(title=title, blocks=sec.blocks, source_type="markdown")


# ---------------------------------------------------------------------------------------------
# reStructuredText and plain text (headings are underlined, optionally overlined)

_ADORNMENT = re.compile(r"^([=\-~^\"'*+#:.`_])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\.\.\s+(?:[\w:-]+::.*|_[^:]*:.*|\|[^|]+\|.*)?$")


def _parse_underlined(text: str) -> ParsedDocument:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sec = _Sections()
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
    return ParsedDocument(title=sec.first_h1 or "", blocks=sec.blocks, source_type="text")


def _looks_like_code(body: str) -> bool:
    return bool(re.search(r"::=|[{}();]|^\s*>>>|^\s*(def|class|import|for|if|return)\b", body, re.M))


# ---------------------------------------------------------------------------------------------
# HTML

_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK_TAGS = frozenset(
    {
        "p", "div", "section", "article", "main", "aside", "header", "footer", "nav", "ul", "ol", "li",
        "dl", "dt", "dd", "table", "thead", "tbody", "tr", "td", "th", "blockquote", "figure",
        "figcaption", "form", "fieldset", "br", "hr", "address", "details", "summary", "caption",
        "body", "html",
    }
)
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "wbr"})


class _HTMLToBlocks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sec = _Sections()
        self.buf: list[str] = []
        self.skip = 0
        self.in_title = False
        self.title_parts: list[str] = []
        self.heading_level: int | None = None
        self.heading_parts: list[str] = []
        self.pre = 0

    def _flush(self) -> None:
        if not self.buf:
            return
        raw = "".join(self.buf)
        self.buf.clear()
        if self.pre:
            self.sec.add(raw, "code")
        else:
            self.sec.add(" ".join(raw.split()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            if tag not in _VOID:
                self.skip += 1
            return
        if self.skip:
            return
        if tag == "title":
            self.in_title = True
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self.heading_level = int(tag[1])
            self.heading_parts = []
        elif tag == "pre":
            self._flush()
            self.pre += 1
        elif tag in _BLOCK_TAGS and not self.pre:
            self._flush()
            if tag == "li":
                self.buf.append("- ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr") and not self.skip:
            if self.pre:
                self.buf.append("\n")
            else:
                self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            if self.skip:
                self.skip -= 1
            return
        if self.skip:
            return
        if tag == "title":
            self.in_title = False
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self.heading_level is not None:
            self.sec.heading(self.heading_level, "".join(self.heading_parts))
            self.heading_level = None
        elif tag == "pre" and self.pre:
            self._flush()
            self.pre -= 1
        elif tag in _BLOCK_TAGS and not self.pre:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title_parts.append(data)
        elif self.heading_level is not None:
            self.heading_parts.append(data)
        else:
            self.buf.append(data)


def _parse_html(text: str) -> ParsedDocument:
    parser = _HTMLToBlocks()
    try:
        parser.feed(text)
        parser.close()
    except Exception as exc:  # html.parser is lenient; be safe anyway
        raise ParseError(f"unreadable HTML ({exc})") from None
    parser._flush()
    title = " ".join("".join(parser.title_parts).split()) or parser.sec.first_h1 or ""
    return ParsedDocument(title=title, blocks=parser.sec.blocks, source_type="html")


# ---------------------------------------------------------------------------------------------
# PDF


def _parse_pdf(data: bytes) -> ParsedDocument:
    if not data.lstrip()[:5] == b"%PDF-":
        raise ParseError("not a PDF file (missing %PDF- header)")
    import logging

    from pypdf import PdfReader

    logger = logging.getLogger("pypdf")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    reader.decrypt("")
                except Exception:
                    raise ParseError("encrypted PDF (password required)") from None
            title = ""
            try:
                meta = reader.metadata
                if meta is not None and meta.title:
                    title = " ".join(str(meta.title).split())
            except Exception:
                title = ""
            sec = _Sections()
            pages = len(reader.pages)
            for number, page in enumerate(reader.pages, start=1):
                try:
                    text = page.extract_text() or ""
                except Exception:
                    text = ""
                for para in _pdf_paragraphs(text):
                    sec.add(para, "text", page=number)
        except ParseError:
            raise
        except Exception as exc:
            raise ParseError(f"unreadable PDF ({type(exc).__name__}: {exc})".replace("\n", " ")[:200]) from None
    finally:
        logger.setLevel(previous)
    return ParsedDocument(title=title, blocks=sec.blocks, source_type="pdf", metadata={"pages": pages})


def _pdf_paragraphs(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # hyphenated line breaks
    paragraphs = re.split(r"\n\s*\n", text)
    out = []
    for para in paragraphs:
        joined = " ".join(para.split())
        if joined:
            out.append(joined)
    return out
