"""The bundled user guide: present, well-formed Markdown, and the demo knowledge base answers from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import haiku_tui

GUIDE = Path(haiku_tui.__file__).parent / "guide"
FILES = sorted(GUIDE.glob("*.md"))


def test_guide_has_five_to_nine_pages():
    assert 5 <= len(FILES) <= 9, [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_page_is_markdown_with_one_h1(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.split()) > 150, f"{path.name} is too short to teach anything"
    h1 = [line for line in text.splitlines() if re.match(r"^# \S", line)]
    assert len(h1) == 1 and text.startswith(h1[0]), f"{path.name} must open with its one H1"
    assert re.search(r"^## \S", text, re.M), f"{path.name} has no sections"
    assert text.endswith("\n") and "\t" not in text


def test_guide_covers_the_topics():
    titles = {p.read_text(encoding="utf-8").splitlines()[0][2:] for p in FILES}
    for topic in ("Getting started", "Sessions", "The knowledge base", "Models", "Keyboard reference",
                  "The citation policy", "The evidence pane and compaction", "Measuring your knowledge base"):
        assert topic in titles, topic


@pytest.fixture(scope="module")
def guide_kb(tmp_path_factory):
    from haiku_tui.store import KnowledgeBase

    kb = KnowledgeBase.open(str(tmp_path_factory.mktemp("guide") / "guide.lancedb"))
    report = kb.add([GUIDE])
    assert not report.failed and len(report.added) == len(FILES)
    yield kb
    kb.close()


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("how do I add a folder", "The knowledge base"),
        ("how do I export a session to Markdown", "Sessions"),
        ("what does a receipted chunk mean", "The evidence pane and compaction"),
        ("what is the difference between ungrounded and missing", "The citation policy"),
        ("how do I use a local model server", "Models"),
        ("which key opens the command palette", {"Keyboard reference", "Getting started"}),
        ("how do I check that my questions still find their sources", "Measuring your knowledge base"),
    ],
)
def test_questions_find_the_right_page_first(guide_kb, question, title):
    """The first hit is a page that answers (the palette key is stated on two pages)."""
    hits = guide_kb.search(question, limit=3)
    titles = title if isinstance(title, set) else {title}
    assert hits and hits[0].title in titles, [(h.title, h.headings) for h in hits]


def test_add_folder_answer_is_a_quotable_sentence(guide_kb):
    hit = guide_kb.search("how do I add a folder", limit=1)[0]
    assert "To add a folder, run `haiku-tui add PATH`" in hit.text
