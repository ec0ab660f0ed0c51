"""The extractive model quotes the sentence that answers, with the neighbour that continues it."""

from __future__ import annotations

from haiku_tui.agent import extractive as ex

GRAMMAR = (
    "[eeeeeeeeeeeeeeee] (rank 1 of 1)\n"
    'Source: "The if statement"\n'
    'if_stmt ::= "if" expression ":" suite ("elif" expression ":" suite)* ["else" ":" suite]\n\n'
    "It selects exactly one of the suites by evaluating the expressions one by one until one is true.\n"
    "Then that suite is executed and no other part of the statement runs.\n"
)

SCRATCH = (
    "[ffffffffffffffff] (rank 1 of 1)\n"
    'Source: "tempfile" › TemporaryDirectory\n'
    "Create and return a temporary directory for scratch files.\n"
    "This has the same behavior as mkdtemp but can be used as a context manager.\n"
    "The name of the directory is available as the name attribute.\n"
)


def test_grammar_lines_are_never_quoted_and_a_continuation_comes_along():
    quotes = ex.select("which suite of an if statement with elif runs", ex.parse_results(GRAMMAR))
    text = " ".join(q.sentence for q in quotes)
    assert "::=" not in text
    assert "It selects exactly one of the suites" in text


def test_a_sentence_that_continues_the_quoted_one_is_quoted_with_it():
    quotes = ex.select("how do I get a scratch directory", ex.parse_results(SCRATCH))
    assert [q.sentence for q in quotes][:2] == [
        "Create and return a temporary directory for scratch files.",
        "This has the same behavior as mkdtemp but can be used as a context manager.",
    ]
    assert all("name attribute" not in q.sentence for q in quotes)  # not a continuation: left out
    assert ex.continues("It terminates the loop.") and ex.continues("These values are false.")
    assert not ex.continues("Steep green tea for two minutes.")
