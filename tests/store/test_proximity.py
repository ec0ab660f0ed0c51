"""Term proximity: the question's word pairs, the window, their rarity, and a real knowledge base ranked by them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from haiku_tui.store import proximity, search
from haiku_tui.store.kb import KnowledgeBase
from haiku_tui.store.proximity import by_proximity, proximity_scores, query_pairs, term_places, together
from tests.kb_fixture import write_documents


def _row(id_: str, text: str) -> dict:
    return {"id": id_, "document_id": id_, "text": text}


def test_pairs_are_consecutive_content_terms_stemmed():
    assert query_pairs("how do I show a progress bar in the terminal") == [("progress", "bar"), ("bar", "terminal")]
    assert query_pairs("merge sorted lists") == [("merg", "sort"), ("sort", "list")]  # stemmed as sentence terms
    assert query_pairs("what is the error message of the error message") == [("error", "messag"), ("messag", "error")]
    assert query_pairs("bar bar") == [] and query_pairs("how do I") == [] and query_pairs("tea") == []


def test_places_count_every_word_and_stem_it():
    places = term_places("The progress of a Bars progress")
    assert places["progress"] == [1, 5] and places["bar"] == [4] and places["of"] == [2]


@pytest.mark.parametrize(
    ("first", "second", "window", "expected"),
    [
        ([0], [1], 1, True),
        ([0], [2], 1, False),
        ([5], [2], 3, True),  # either order
        ([5], [1], 3, False),
        ([0, 10], [5, 12], 2, True),  # the second places of both
        ([0, 10], [5, 13], 2, False),
        ([], [1], 3, False),
    ],
)
def test_together_within_the_window(first, second, window, expected):
    assert together(first, second, window) is expected


def test_scores_count_pairs_within_the_window_by_their_rarity(monkeypatch):
    monkeypatch.setattr(proximity, "WINDOW", 3)
    rows = [
        _row("adjacent", "A progress bar fills up."),
        _row("three", "Progress on the bar was slow."),  # three words apart: together
        _row("four", "Progress is on the bar now."),  # four apart: not
        _row("none", "Solar panels make electricity."),
        _row("other", "Bake the bread in a hot oven."),
    ]
    scores = proximity_scores("how do I show a progress bar", rows)
    n, held = len(rows), 2
    assert scores == pytest.approx([math.log((n - held + 0.5) / (held + 0.5))] * 2 + [0.0] * 3)
    assert [row["id"] for row in by_proximity("progress bar", rows)] == ["adjacent", "three"]
    monkeypatch.setattr(proximity, "WINDOW", 4)
    assert [row["id"] for row in by_proximity("progress bar", rows)] == []  # held by 3 of 5: says nothing
    assert [row["id"] for row in by_proximity("progress bar", rows + [_row(f"x{i}", "x") for i in range(3)])] == [
        "adjacent",
        "three",
        "four",
    ]


def test_a_rarer_pair_ranks_first():
    rows = [
        _row("both", "The context manager closes the file. An open file stays open."),
        _row("common", "A context manager is an object."),
        _row("also", "Every context manager has enter and exit."),
        _row("other", "Solar panels."),
        _row("more", "Bread needs flour."),
        _row("tea", "Tea leaves."),
        _row("last", "Snow on panels."),
    ]
    query = "does a context manager close an open file"
    assert query_pairs(query) == [("context", "manager"), ("manager", "clos"), ("clos", "open"), ("open", "fil")]
    scores = proximity_scores(query, rows)
    assert scores[0] > scores[1] == scores[2] > 0 == scores[3]  # "context manager": 3 of 7 hold it
    assert proximity_scores(query, rows[:-1])[1] == 0  # 3 of 6: no rarer than not
    assert [row["id"] for row in by_proximity(query, rows)] == ["both", "common", "also"]


def test_a_chunk_holding_the_words_together_outranks_one_scattering_them(tmp_path, monkeypatch):
    """Real LanceDB on disk and the built-in offline embedder: word matching alone cannot tell these apart."""
    docs = write_documents(tmp_path / "docs")
    (docs / "changelog.md").write_text(
        "# Changelog\n\nProgress report: the top menu bar was moved. Further progress was made on the tool bar, "
        "with new icons for opening, saving and printing files.\n",
        encoding="utf-8",
    )
    (docs / "widgets.md").write_text(
        "# Widgets\n\nA progress bar shows how much of a long task is done.\n", encoding="utf-8"
    )
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder="auto")
    kb.add([docs])
    question = "how do I show a progress bar"
    hits = kb.search(question, limit=2)
    assert [Path(h.path).stem for h in hits] == ["widgets", "changelog"] and hits[0].score > hits[1].score
    monkeypatch.setattr(search, "PROXIMITY_WEIGHT", 0.0)
    without = kb.search(question, limit=2)
    assert {Path(h.path).stem for h in without} == {"widgets", "changelog"}
    assert without[0].score == pytest.approx(without[1].score)  # a tie the pairs break
    kb.close()


def test_held_pairs_and_their_rarity_among_texts():
    pairs = query_pairs("progress bar terminal")
    held = [
        proximity.held_pairs(pairs, term_places(text))
        for text in (
            "a progress bar in the terminal",
            "the bar of progress",
            "a bar shows how far along all the work is, its progress in the terminal",
            "tea",
            "cups",
        )
    ]
    assert held[0] == {("progress", "bar"), ("bar", "terminal")}
    assert held[1] == {("progress", "bar")}  # either order, within the window
    assert held[2] == set()  # both words, too far apart
    weight = proximity.pair_weights(pairs, held)
    assert weight[("bar", "terminal")] == pytest.approx(math.log(4.5 / 1.5))  # one text of five holds it
    assert weight[("progress", "bar")] == pytest.approx(math.log(3.5 / 2.5))
    assert proximity.pair_weights(pairs, held[:2]) == {("progress", "bar"): 0.0, ("bar", "terminal"): 0.0}  # half hold
