"""Hybrid ranking past the fusion: best-sentence ranking and text repeated across documents."""

from __future__ import annotations

import pytest

import haiku_tui.store.sentences as sentences_module
from haiku_tui.store import search
from haiku_tui.store.kb import CHUNKS, KnowledgeBase
from haiku_tui.store.sentences import decode_sentence_terms, is_prose, sentence_terms, sentences
from tests.kb_fixture import write_documents


def _row(id_: str, doc: str, text: str, score: float = 1.0) -> dict:
    return {"id": id_, "document_id": doc, "text": text, "_relevance_score": score}


def test_best_sentence_share_rewards_one_sentence_holding_the_question():
    rows = [
        _row("scattered", "d1", "Green things grow. Tea is a drink. Steeping takes time. Water boils."),
        _row("together", "d2", "Green tea should steep for as long as three minutes. Black tea takes more."),
        _row("unrelated", "d3", "Solar panels make electricity from light."),
    ]
    shares = search.best_sentence_share("how long do I steep green tea", rows)
    assert shares[1] > shares[0] > shares[2] == 0.0
    assert shares[1] == 1.0  # one sentence holds every term of the question
    assert search.best_sentence_share("how do I", rows) == [0.0, 0.0, 0.0]  # no content terms


def test_hybrid_rankings_add_the_best_sentence_ranking_to_bm25_and_vectors():
    text = [
        _row("scattered", "d1", "Green things grow. Tea is a drink. Steeping takes time."),
        _row("none", "d3", "Solar panels."),
    ]
    vectors = [_row("together", "d2", "Green tea should steep for three minutes."), _row("scattered", "d1", "")]
    rankings, fused = search.hybrid_rankings("how long do I steep green tea", text, vectors, fetch=5)
    coverage = max(search.best_sentence_share("how long do I steep green tea", fused))
    assert 0.5 < coverage < 1.0  # no sentence holds "long"
    weights = [weight for _, weight in rankings]
    assert weights == [
        search.TEXT_WEIGHT * coverage,
        search.VECTOR_WEIGHT,
        search.SENTENCE_WEIGHT * coverage,
        search.PROXIMITY_WEIGHT,
    ]
    by_sentence = [row["id"] for row in rankings[2][0]]
    assert by_sentence == ["together", "scattered"]  # the chunk without any query term is left out
    assert [row["id"] for row in rankings[3][0]] == ["together"]  # "steep green" together ("green … tea" both do)
    assert fused[0]["id"] == "scattered"  # two rankings agree on it
    assert fused == search.fuse(rankings, reranking=2)


def test_a_chunk_the_sentence_ranking_leaves_out_counts_as_ranked_after_its_last():
    """Being among the chunks the sentence ranking re-orders is the other rankings' verdict, not a vote of its own."""
    a, b, c = _row("a", "d1", "x"), _row("b", "d2", "x"), _row("c", "d3", "x")
    rankings = [([a, b, c], 1.0), ([b, a], 1.0)]
    reranked = {row["id"]: row["_relevance_score"] for row in search.fuse(rankings, reranking=True)}
    k = search.RRF_K
    assert reranked["c"] == pytest.approx(1 / (k + 3) + 1 / (k + 3))  # as if third of the two the last ranking holds
    assert reranked["a"] == pytest.approx(1 / (k + 1) + 1 / (k + 2))
    plain = {row["id"]: row["_relevance_score"] for row in search.fuse(rankings)}
    assert plain["c"] == pytest.approx(1 / (k + 3))
    assert plain["a"] == reranked["a"] and plain["b"] == reranked["b"]


def test_the_nearest_vector_chunk_is_not_outvoted_by_its_absence_from_the_sentence_ranking():
    """A chunk sharing no word with the question (found by vectors alone) against one BM25 found by a common word."""
    query = "how do I restart my script automatically when I save"
    common = _row("common", "d1", "Save the script as a file.")
    meaning = _row("meaning", "d2", "The command line reloads code when files change.")
    text, vectors = [common], [meaning]
    rankings, fused = search.hybrid_rankings(query, text, vectors, fetch=5)
    assert 1 / 3 < rankings[0][1] / search.TEXT_WEIGHT < 1 / 2  # two of four terms, in one sentence
    assert [row["id"] for row in rankings[2][0]] == ["common"]  # the sentence ranking holds only the word match
    assert [row["id"] for row in fused] == ["meaning", "common"]
    plain = search.fuse(rankings)
    assert [row["id"] for row in plain] == ["common", "meaning"]  # a presence bonus would have outvoted vectors


def test_word_matching_counts_as_much_as_the_question_its_best_sentence_holds(monkeypatch):
    """A chunk BM25 found only by a common word of the question yields to the nearest vector's chunk."""
    query = "how long should green tea steep"
    text = [_row("common", "d1", "Green walls line the hall.")]
    vectors = [_row("meaning", "d2", "Brew the leaves for three minutes.")]
    rankings, fused = search.hybrid_rankings(query, text, vectors, fetch=5)
    assert rankings[0][1] < 0.25 * search.TEXT_WEIGHT  # "green" is the commonest of the four terms
    assert [row["id"] for row in fused] == ["meaning", "common"]
    whole = [_row("whole", "d1", "Steep green tea for as long as three minutes.")]
    rankings, fused = search.hybrid_rankings(query, whole, vectors, fetch=5)
    assert rankings[0][1] == search.TEXT_WEIGHT and [row["id"] for row in fused] == ["whole", "meaning"]
    monkeypatch.setattr(search, "LEXICAL_BY_COVERAGE", False)
    _, fused = search.hybrid_rankings(query, text, vectors, fetch=5)
    assert [row["id"] for row in fused] == ["common", "meaning"]


class _Table:
    """What ``prefer_originals`` reads from a table: its version and each chunk's document."""

    def __init__(self, sizes: dict[str, int]):
        self.version = 1
        self._ids = [doc for doc, n in sizes.items() for _ in range(n)]

    def search(self):
        import pyarrow as pa

        table = pa.table({"document_id": self._ids})

        class _Q:
            def select(self, _cols):
                return self

            def limit(self, _n):
                return self

            def to_arrow(self):
                return table

        return _Q()


def test_repeated_text_goes_to_the_smaller_document():
    quoted = "The while statement is used for repeated execution as long as an expression is true and stops otherwise."
    rows = [
        _row("catchall", "big", f"Compound statements. {quoted} The for statement follows.", 0.9),
        _row("other", "mid", "Loops can also be written with recursion in a functional style of programming.", 0.5),
        _row("topic", "small", quoted, 0.4),
    ]
    table = _Table({"big": 40, "mid": 5, "small": 1})
    ordered = search.prefer_originals(table, rows)
    assert [r["id"] for r in ordered] == ["topic", "other", "catchall"]
    assert ordered[0]["_relevance_score"] == 0.9  # the topic takes the best score of the pair
    assert ordered[2]["_relevance_score"] == 0.9 * search.DUPLICATE_DECAY
    same_size = search.prefer_originals(_Table({"big": 1, "mid": 5, "small": 1}), rows)
    assert [r["id"] for r in same_size] == ["catchall", "other", "topic"]  # equal documents: neither is the copy


def test_catch_all_page_does_not_outrank_the_page_it_quotes(tmp_path, monkeypatch):
    topic = "Slicing a list selects a range of items between two positions, start included and stop excluded."
    more = "A part of a list between two positions is a new list; get it with a slice of the list."
    filler = "\n\n".join(
        f"## Section {i}\n\nSection {i} describes another feature of the language at length." for i in range(30)
    )
    (tmp_path / "slicing.md").write_text(f"# Slicing\n\n{topic}\n", encoding="utf-8")
    (tmp_path / "everything.md").write_text(
        f"# Everything\n\n## Slicing\n\n{topic} {more}\n\n{filler}\n", encoding="utf-8"
    )
    question = "how do I get part of a list between two positions"
    with KnowledgeBase.open(tmp_path / "kb.lancedb", embedder="auto") as kb:
        kb.add([tmp_path / "slicing.md", tmp_path / "everything.md"])
        monkeypatch.setattr(search, "DUPLICATE_DECAY", 1.0)
        assert kb.search(question, limit=2)[0].title == "Everything"  # the copy matches more of the question
        monkeypatch.undo()
        assert [h.title for h in kb.search(question, limit=2)] == ["Slicing", "Everything"]


def test_sentences_drop_grammar_drawings_and_code_runs():
    text = (
        'if_stmt ::= "if" expression ":" suite ("elif" expression ":" suite)*\n\n'
        "It selects exactly one of the suites by evaluating the expressions one by one.\n\n"
        ". ├── a.txt └── b ├── c.txt\n\n"
        "x = f(a[0], b[1:2]) + {k: v}  # (x) => y\n"
    )
    assert sentences(text) == ["It selects exactly one of the suites by evaluating the expressions one by one."]
    assert is_prose("Press Ctrl+T to show or hide the evidence pane.")
    assert not is_prose("chain(p, q, ...) --> p0, p1, ... plast, q0, q1, ...")


QUESTIONS = [
    "do solar panels work in winter",
    "how often do I feed a starter in the fridge",
    "green tea water temperature",
]


def test_sentence_terms_are_stored_at_ingest_and_read_by_the_ranking(tmp_path, monkeypatch):
    with KnowledgeBase.open(tmp_path / "kb.lancedb", embedder="auto") as kb:
        kb.add([write_documents(tmp_path / "docs")])
        rows = kb.storage.table(CHUNKS).search().select(["text", search.SENTENCE_TERMS_COLUMN]).limit(None).to_list()
        assert rows and all(
            decode_sentence_terms(r[search.SENTENCE_TERMS_COLUMN]) == sentence_terms(r["text"]) for r in rows
        )
        ranked = [[h.chunk_id for h in kb.search(q, limit=5)] for q in QUESTIONS]
        search.clear_chunk_caches()
        with monkeypatch.context() as m:  # a cold search reads the stored terms: the text is not analysed
            m.setattr(sentences_module, "sentence_terms", lambda text: pytest.fail("sentence terms computed at search"))
            assert [[h.chunk_id for h in kb.search(q, limit=5)] for q in QUESTIONS] == ranked


def test_a_base_without_stored_sentence_terms_ranks_the_same_and_gets_them_with_vectors(tmp_path):
    docs = write_documents(tmp_path / "docs")
    with KnowledgeBase.open(tmp_path / "hybrid.lancedb", embedder="auto") as kb:
        kb.add([docs])
        ranked = [[h.chunk_id for h in kb.search(q, limit=5)] for q in QUESTIONS]
        kb.storage.table(CHUNKS).drop_columns([search.SENTENCE_TERMS_COLUMN])  # as a base from before the column
        search.clear_chunk_caches()
        assert [[h.chunk_id for h in kb.search(q, limit=5)] for q in QUESTIONS] == ranked
        extra = tmp_path / "more" / "kettles.md"
        extra.parent.mkdir()
        extra.write_text("# Kettles\n\nA kettle switches itself off when the water boils.\n", encoding="utf-8")
        assert len(kb.add([extra]).added) == 1  # adding to the older base writes its columns only
        assert "kettle" in kb.search("does the kettle turn itself off", limit=1)[0].text.lower()
    with KnowledgeBase.open(tmp_path / "full-text.lancedb", embedder="none") as kb:
        kb.add([docs])
        kb.storage.table(CHUNKS).drop_columns([search.SENTENCE_TERMS_COLUMN])
        kb.add_vectors()
        assert search.SENTENCE_TERMS_COLUMN in kb.storage.table(CHUNKS).schema.names
