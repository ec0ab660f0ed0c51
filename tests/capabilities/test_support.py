"""Claim support check: sentences with [n] scored against the chunk they cite."""

from __future__ import annotations

from haiku_tui.capabilities.support import check_answer, claims, support_score, windows

CHUNK_BREAK = (
    '"break" may only occur syntactically nested in a "for" or "while" loop. It terminates the nearest '
    'enclosing loop, skipping the optional "else" clause if the loop has one.'
)
CHUNK_PASS = '"pass" is a null operation — when it is executed, nothing happens. It is useful as a placeholder.'


def _state() -> dict:
    return {
        "rag": {
            "citation_index": {
                "aaaa": {"index": 1, "chunk_id": "aaaa", "text": CHUNK_BREAK},
                "bbbb": {"index": 2, "chunk_id": "bbbb", "text": CHUNK_PASS},
            },
            "questions": [],
        }
    }


def test_claims_split_sentences_and_keep_their_numbers():
    answer = (
        "Break ends the nearest loop [1]. It skips the else clause.[1][2]\n\nNo citation here. Pass does nothing [2]."
    )
    assert claims(answer) == [
        ("Break ends the nearest loop.", (1,)),
        ("It skips the else clause.", (1, 2)),
        ("Pass does nothing.", (2,)),
    ]


def test_right_citation_scores_higher_than_a_swapped_one():
    claim = "A break statement ends the enclosing loop and skips its else clause."
    right = support_score(claim, CHUNK_BREAK)[2]
    swapped = support_score(claim, CHUNK_PASS)[2]
    assert right > 0.5 > swapped


def test_check_answer_flags_weak_and_unbacked_claims():
    answer = (
        "Break terminates the nearest enclosing loop [1]. Break terminates the nearest enclosing loop [2]. Also [7]."
    )
    results = check_answer(answer, _state())
    by_number = {r.number: r for r in results}
    assert not by_number[1].weak and by_number[1].chunk_id == "aaaa"
    assert by_number[2].weak and by_number[2].chunk_id == "bbbb"
    assert by_number[7].chunk_id is None and by_number[7].weak


def test_embedding_similarity_is_combined_when_given():
    def embed(texts):
        return [[1.0, 0.0] if "loop" in t else [0.0, 1.0] for t in texts]

    lexical, semantic, score = support_score("Break ends loops.", CHUNK_BREAK, embed)
    assert semantic == 1.0 and lexical < score


def test_windows_pair_each_sentence_with_the_next_and_grow_to_hold_a_long_claim():
    text = "One two. Three four. Five six seven. Eight."
    assert windows(text) == ["One two. Three four.", "Three four. Five six seven.", "Five six seven. Eight."]
    assert windows(text, words=6) == [
        "One two. Three four. Five six seven.",
        "Three four. Five six seven. Eight.",
        "Five six seven. Eight.",  # the last window holds what is left
    ]
    assert windows("Only one sentence here.", words=50) == ["Only one sentence here."]
