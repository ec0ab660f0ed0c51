"""HTML through the standard library's tolerant ``html.parser`` (title, headings, paragraphs, ``<pre>``)."""

from __future__ import annotations

from html.parser import HTMLParser

from ..errors import ParseError
from ..document import ParsedDocument, Sections

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
        self.sec = Sections()
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


def parse_html(text: str) -> ParsedDocument:
    parser = _HTMLToBlocks()
    try:
        parser.feed(text)
        parser.close()
    except Exception as exc:  # html.parser is lenient; be safe anyway
        raise ParseError(f"unreadable HTML ({exc})") from None
    parser._flush()
    title = " ".join("".join(parser.title_parts).split()) or parser.sec.first_h1 or ""
    return parser.sec.result(title, "html")
