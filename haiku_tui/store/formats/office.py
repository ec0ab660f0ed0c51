"""Word, PowerPoint, Excel, EPUB and CSV through markitdown's converters, as Markdown.

The Markdown then goes through :func:`~haiku_tui.store.formats.markdown.parse_markdown`, so
these documents get the same heading-structured blocks (a Word "Heading 2" becomes ``##``, each
slide and sheet a heading). markitdown is imported only here, in the parse worker process.
"""

from __future__ import annotations

import io
import zipfile

from ..errors import ParseError
from ..document import ParsedDocument

# suffix -> (markitdown converter class, source type)
CONVERTERS = {
    ".docx": ("DocxConverter", "docx"),
    ".pptx": ("PptxConverter", "pptx"),
    ".xlsx": ("XlsxConverter", "xlsx"),
    ".epub": ("EpubConverter", "epub"),
    ".csv": ("CsvConverter", "csv"),
}


UNPACKED_PER_CHAR = 20
"""Bytes a zipped format (.docx .pptx .xlsx .epub) may unpack to per character of the text limit: its XML,
styles and images are much larger than its text, but an archive that unpacks far beyond is a zip bomb."""


def parse_office(suffix: str, data: bytes, max_chars: int) -> ParsedDocument:
    from .markdown import parse_markdown

    name, kind = CONVERTERS[suffix]
    if suffix != ".csv":
        _check_unpacked_size(data, max_chars * UNPACKED_PER_CHAR)
    try:
        import markitdown.converters as converters
        from markitdown import StreamInfo
    except ImportError:
        raise ParseError(f"{suffix} files need markitdown: pip install 'markitdown[docx,pptx,xlsx]'") from None
    converter = getattr(converters, name)()
    info = StreamInfo(extension=suffix, charset="utf-8" if suffix == ".csv" else None)
    try:
        result = converter.convert(io.BytesIO(data), info)
    except Exception as exc:  # each converter raises its own library's errors
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
        raise ParseError(f"unreadable {suffix[1:].upper()} file ({reason})") from None
    doc = parse_markdown(result.markdown or "")
    doc.source_type = kind
    if result.title:
        doc.title = " ".join(str(result.title).split())
    return doc


def _check_unpacked_size(data: bytes, limit: int) -> None:
    """Refuse an archive whose members unpack to more than ``limit`` bytes, before anything is unpacked."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a zip: the converter says what is wrong with it
    if unpacked > limit:
        raise ParseError(
            f"unpacks to {unpacked / 1e6:,.0f} MB, over the {limit / 1e6:,.0f} MB limit (a zip bomb?); "
            "limit HAIKU_TUI_MAX_TEXT_MB"
        )
