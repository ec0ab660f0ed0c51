"""A chunk's place in its source file, for opening the source at a citation."""

from __future__ import annotations

from haiku_tui.store.locate import chunk_location, find_line
from haiku_tui.store.records import ChunkRecord


def _chunk(path, text, pages=()):
    return ChunkRecord("c1", "d1", "T", str(path), (), tuple(pages), 0, text)


def test_find_line_ignores_rewrapped_whitespace():
    source = "# Title\n\nintro line\n\nThe cheese is\n  aged for   two\nyears in caves.\n"
    assert find_line(source, "The cheese is aged for two years in caves.") == 5
    assert find_line(source, "nothing like this at all here") is None


def test_chunk_location_gives_line_page_or_missing(tmp_path):
    md = tmp_path / "notes.md"
    md.write_text("# Notes\n\nfirst\n\nsecond paragraph about rennet and milk\n", encoding="utf-8")
    assert chunk_location(_chunk(md, "second paragraph about rennet and milk")).line == 5
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    assert chunk_location(_chunk(pdf, "x", pages=(3, 4))).page == 3
    gone = chunk_location(_chunk(tmp_path / "gone.md", "x"))
    assert not gone.exists and gone.line is None
