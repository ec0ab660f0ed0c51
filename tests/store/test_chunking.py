"""Parsing and structure-following chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from haiku_tui.store.chunking import chunk_blocks, split_sentences
from haiku_tui.store.errors import ParseError
from haiku_tui.store.document import Block
from haiku_tui.store.parsing import parse_bytes

SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank."


def parse(name: str, text: str | bytes):
    data = text.encode() if isinstance(text, str) else text
    return parse_bytes(Path(name), data)


def test_markdown_headings_title_and_paragraphs():
    doc = parse(
        "guide.md",
        "---\ntags: [x]\n---\n# User guide\n\nIntro paragraph.\n\n## Install\n\nRun pip.\n\n### Linux\n\nUse "
        "apt.\n\n## Usage\n\nType things.\n",
    )
    assert doc.title == "User guide"
    assert [(b.headings, b.text) for b in doc.blocks] == [
        (("User guide",), "Intro paragraph."),
        (("User guide", "Install"), "Run pip."),
        (("User guide", "Install", "Linux"), "Use apt."),
        (("User guide", "Usage"), "Type things."),
    ]


def test_markdown_code_fence_is_not_a_heading():
    doc = parse("a.md", "# T\n\n```python\n# not a heading\nx = 1\n```\n\nAfter.\n")
    assert doc.blocks[0].kind == "code" and "# not a heading" in doc.blocks[0].text
    assert doc.blocks[0].headings == ("T",)


def test_title_falls_back_to_file_stem():
    assert parse("notes-2024.md", "Just text, no heading.\n").title == "notes-2024"
    assert parse("plain.txt", "Some words here.\n").title == "plain"


def test_rst_underlined_headings():
    doc = parse(
        "doc.rst",
        "=====\nTitle\n=====\n\nIntro.\n\nSection A\n---------\n\nText A.\n\n.. note::\n\n   A note "
        "body.\n\nSub\n~~~\n\nText sub.\n",
    )
    assert doc.title == "Title"
    heads = {b.text: b.headings for b in doc.blocks}
    assert heads["Text A."] == ("Title", "Section A")
    assert heads["Text sub."] == ("Title", "Section A", "Sub")


def test_html_structure_script_and_style_stripped():
    html = """<html><head><title>Page &amp; title</title><style>body{color:red}</style>
    <script>var secret = "do not index";</script></head><body>
    <h1>Main</h1><p>First <b>para</b>.</p><h2>Part two</h2><p>Second para.</p>
    <pre>code   keeps
  spacing</pre><ul><li>item one</li><li>item two</li></ul></body></html>"""
    doc = parse("page.html", html)
    assert doc.title == "Page & title"
    texts = [b.text for b in doc.blocks]
    assert "First para." in texts
    assert not any("do not index" in t or "color:red" in t for t in texts)
    second = next(b for b in doc.blocks if b.text == "Second para.")
    assert second.headings == ("Main", "Part two")
    code = next(b for b in doc.blocks if b.kind == "code")
    assert "code   keeps\n  spacing" in code.text
    assert "- item one" in texts


def test_html_title_falls_back_to_h1():
    assert parse("x.htm", "<h1>Heading one</h1><p>Body.</p>").title == "Heading one"


def test_sections_are_kept_apart_and_carry_heading_paths():
    blocks = [Block(("T", "A"), SENTENCE * 10), Block(("T", "B"), SENTENCE * 10)]
    chunks = chunk_blocks(blocks, target=1200)
    assert [c.headings for c in chunks] == [("T", "A"), ("T", "B")]


def test_size_budget_and_sentence_boundaries():
    para = " ".join(f"Sentence number {i} talks about solar panels and inverters." for i in range(120))
    chunks = chunk_blocks([Block(("Doc",), para)], target=1200)
    assert len(chunks) > 3
    assert all(len(c.text) <= 1800 for c in chunks)
    assert all(c.text.endswith(".") for c in chunks)  # never split mid-sentence
    assert all(c.headings == ("Doc",) for c in chunks)
    assert " ".join(c.text for c in chunks) == para


def test_paragraphs_packed_not_split():
    paras = [Block(("D",), f"Paragraph {i}. " + SENTENCE * 4) for i in range(10)]  # ~300 chars each
    chunks = chunk_blocks(paras, target=1200)
    for c in chunks:
        for piece in c.text.split("\n\n"):
            assert piece.startswith("Paragraph ")  # each paragraph intact
    assert all(len(c.text) <= 1200 for c in chunks)


def test_short_sections_merge_with_their_neighbour():
    blocks = [Block(("Guide",), "Short intro."), Block(("Guide", "Install"), SENTENCE * 8)]
    chunks = chunk_blocks(blocks, target=1200)
    assert len(chunks) == 1
    assert chunks[0].headings == ("Guide",)
    assert chunks[0].text.startswith("Short intro.\n\nInstall\n\n")


def test_giant_word_is_split():
    chunks = chunk_blocks([Block((), "x" * 5000)], target=1000)
    assert all(len(c.text) <= 1500 for c in chunks) and "".join(c.text for c in chunks) == "x" * 5000


def test_split_sentences():
    assert split_sentences('One. Two? "Three!" Four') == ["One.", "Two?", '"Three!"', "Four"]


def test_pdf_pages(pdf_bytes):
    data = pdf_bytes(
        [["Solar panels turn light into power.", "They work in winter."], ["Page two is about tea."]],
        title="Energy notes",
    )
    doc = parse("notes.pdf", data)
    assert doc.title == "Energy notes"
    assert [b.page for b in doc.blocks] == [1, 2]
    chunks = chunk_blocks(doc.blocks)
    assert chunks[0].pages == (1, 2)
    many = chunk_blocks([Block((), SENTENCE * 12, page=p) for p in (1, 2, 3)], target=1000)
    assert [c.pages for c in many] == [(1,), (2,), (3,)]


def test_pdf_without_text_layer(pdf_bytes):
    with pytest.raises(ParseError, match="no text layer"):
        parse("scan.pdf", pdf_bytes([[], []]))


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("bin.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "binary"),
        ("latin.txt", "café crème".encode("latin-1"), "not valid UTF-8"),
        ("empty.md", b"", "empty file"),
        ("blank.md", b"  \n\n\t\n", "empty file"),
        ("fake.pdf", b"hello, not a pdf", "not a PDF"),
        ("broken.pdf", b"%PDF-1.4\n garbage garbage", "PDF"),
        ("x.docx", b"PK\x03\x04", "unreadable DOCX"),
        ("x.psd", b"8BPS", "unsupported"),
    ],
)
def test_bad_inputs_raise_parse_error(name, data, reason):
    with pytest.raises(ParseError, match=reason):
        parse(name, data)


def test_utf16_with_bom_is_decoded():
    assert parse("u16.txt", "Hello wide world.".encode("utf-16")).blocks[0].text == "Hello wide world."
