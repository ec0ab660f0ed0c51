"""Formats: Markdown through markdown-it (linear on hostile input), office files through markitdown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from haiku_tui.store import KnowledgeBase, ParseError
from haiku_tui.store.parsing import parse_bytes
from tests.store.office_files import docx_bytes, epub_bytes


@pytest.mark.parametrize(
    "heading",
    [
        "# a" + " " * 200_000 + "b",  # 40 KB of spaces took 8.5-16 s with the old regular expression
        "# " + " " * 200_000,
        "# " + "[a" * 40_000,  # 7.8 s with the old regular expression
        "# " + "![a](" * 40_000,
    ],
)
def test_hostile_markdown_headings_parse_fast(heading):
    started = time.perf_counter()
    doc = parse_bytes(Path("evil.md"), (heading + "\n\nBody text.\n").encode())
    assert time.perf_counter() - started < 1.0
    assert doc.blocks[0].text == "Body text."


def test_markdown_structure_from_the_token_stream():
    text = (
        "---\ntitle: front matter\n---\n"
        "Teapots\n=======\n\nIntro with **bold** and [a link](http://x).\n\n"
        "## Cleaning `pots`\n\n- rinse\n- dry\n\n  more about drying\n\n"
        "```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "### Deep\n\n> quoted line\n"
    )
    doc = parse_bytes(Path("t.md"), text.encode())
    assert doc.title == "Teapots"
    by_text = {b.text: b for b in doc.blocks}
    assert by_text["Intro with **bold** and [a link](http://x)."].headings == ("Teapots",)
    assert by_text["- rinse\n- dry\nmore about drying"].headings == ("Teapots", "Cleaning pots")
    assert by_text["print('hi')"].kind == "code"
    assert "a | b\n1 | 2" in by_text
    assert by_text["quoted line"].headings == ("Teapots", "Cleaning pots", "Deep")
    assert not any("front matter" in b.text for b in doc.blocks)


def test_heading_only_markdown_keeps_its_headings_as_text(tmp_path):
    (tmp_path / "outline.md").write_text("# Plan\n## Phase one\n## Phase two\n")
    kb = KnowledgeBase.open(tmp_path / "kb")
    report = kb.add([tmp_path / "outline.md"])
    assert not report.failed and len(report.added) == 1
    assert "Phase two" in kb.search("phase two")[0].text


def test_docx_ingests_with_its_heading_path(tmp_path):
    (tmp_path / "manual.docx").write_bytes(
        docx_bytes(
            [
                ("Heading1", "Teapot Manual"),
                (None, "This manual covers teapots and their care. " * 40),
                ("Heading2", "Descaling"),
                (None, "Soak the kettle in citric acid for an hour. " + "Then rinse it well. " * 40),
            ]
        )
    )
    kb = KnowledgeBase.open(tmp_path / "kb")
    report = kb.add([tmp_path])
    assert not report.failed and report.added[0].metadata["source_type"] == "docx"
    hit = kb.search("citric acid")[0]
    assert hit.headings == ("Teapot Manual", "Descaling") and "citric acid" in hit.text
    assert hit.label() == "Teapot Manual › Descaling"


def test_csv_becomes_a_table_block(tmp_path):
    doc = parse_bytes(Path("people.csv"), b"name,role\nAda,engineer\nGrace,admiral\n")
    assert doc.source_type == "csv" and "Grace | admiral" in doc.blocks[0].text


def test_broken_office_file_is_one_line(tmp_path):
    with pytest.raises(ParseError, match=r"^unreadable XLSX file \(.*\)$"):
        parse_bytes(Path("bad.xlsx"), b"PK\x03\x04 not really a zip")


def test_xlsx_sheets_and_pptx_slides_become_sections():
    import io

    from openpyxl import Workbook
    from pptx import Presentation

    book = Workbook()
    book.active.title = "Prices"
    book.active.append(["item", "price"])
    book.active.append(["tea", 3])
    book.create_sheet("Stock").append(["kettle", 7])
    buf = io.BytesIO()
    book.save(buf)
    doc = parse_bytes(Path("shop.xlsx"), buf.getvalue())
    assert [(b.headings, b.text.splitlines()[-1]) for b in doc.blocks] == [
        (("Prices",), "tea | 3"),
        (("Stock",), "kettle | 7"),
    ]

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Brewing"
    slide.placeholders[1].text = "Steep for three minutes."
    buf = io.BytesIO()
    deck.save(buf)
    doc = parse_bytes(Path("talk.pptx"), buf.getvalue())
    assert doc.source_type == "pptx"
    assert [(b.headings, b.text) for b in doc.blocks] == [(("Brewing",), "Steep for three minutes.")]


def test_epub_chapters_keep_their_headings():
    doc = parse_bytes(Path("tea.epub"), epub_bytes("Tea Book", "<h1>Green tea</h1><p>Brew at eighty degrees.</p>"))
    assert doc.title == "Tea Book" and doc.source_type == "epub"
    assert (("Green tea",), "Brew at eighty degrees.") in [(b.headings, b.text) for b in doc.blocks]


def test_restructuredtext_headings_in_a_markdown_file_start_sections():
    # package READMEs are often reST in a .md file: "~~~~" underlines are code fences to CommonMark,
    # which made tqdm's whole README one "Installation" section
    text = (
        "# tqdm\n\n"
        "=====\nIntro\n=====\n\nA fast progress bar.\n\n"
        "Installation\n------------\n\n"
        "Latest PyPI stable release\n~~~~~~~~~~~~~~~~~~~~~~~~~~\n\nRun pip install tqdm.\n\n"
        "Latest Conda release\n~~~~~~~~~~~~~~~~~~~~\n\nUse conda instead.\n\n"
        "Usage\n-----\n\nWrap any iterable.\n\n"
        "Parameters\n^^^^^^^^^^\n\nTakes an iterable.\n\n"
        "```\ncode line\n-----\n```\n\n"
        "~~~\nfenced = 1\n~~~\n"
    )
    doc = parse_bytes(Path("tqdm.md"), text.encode())
    heads = {b.text: b.headings for b in doc.blocks}
    assert heads["A fast progress bar."] == ("Intro",)
    assert heads["Run pip install tqdm."] == ("Intro", "Installation", "Latest PyPI stable release")
    assert heads["Use conda instead."] == ("Intro", "Installation", "Latest Conda release")
    assert heads["Takes an iterable."] == ("Intro", "Usage", "Parameters")
    # code fences keep their content, adornment-like lines included
    assert heads["code line\n-----"] == heads["fenced = 1"] == ("Intro", "Usage", "Parameters")


def test_markdown_setext_headings_keep_their_commonmark_levels():
    text = "Guide\n=====\n\nIntro.\n\n## Keys\n\nPress F1.\n\nMore\n----\n\nText.\n\n~~~\nx = 1\n~~~\n"
    doc = parse_bytes(Path("g.md"), text.encode())
    heads = {b.text: b.headings for b in doc.blocks}
    assert heads["Press F1."] == ("Guide", "Keys")
    assert heads["Text."] == ("Guide", "More")
    assert next(b for b in doc.blocks if b.text == "x = 1").kind == "code"
