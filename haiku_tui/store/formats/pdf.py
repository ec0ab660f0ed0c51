"""PDF through pypdf's text layer; every block keeps its page number for citations."""

from __future__ import annotations

import io
import re

from ..errors import ParseError
from ..limits import too_much_text
from ..document import ParsedDocument, Sections

def parse_pdf(data: bytes, max_chars: int | None = None) -> ParsedDocument:
    """The text layer of a PDF, page by page; more than ``max_chars`` characters is a :class:`ParseError`."""
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
            sec = Sections()
            pages = len(reader.pages)
            total = 0
            for number, page in enumerate(reader.pages, start=1):
                try:
                    text = page.extract_text() or ""
                except Exception:
                    text = ""
                total += len(text)
                if max_chars is not None and total > max_chars:
                    raise ParseError(too_much_text(max_chars))
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
