"""Attribution of unmarked sentences: light rewordings as small models write them are tied to their passage, and
the same words saying something else (a number, a negation, a name changed) are not."""

from __future__ import annotations

import pytest

from haiku_tui.capabilities.attribution import (
    attribute,
    attribute_sentence,
    identifiers,
    numbers,
    polarity_agrees,
    score,
    without_lead_in,
)

TYRES = (
    "Check the tyre pressure before every ride. Pump road tyres to 6 bar and mountain bike tyres to 2 bar. "
    "Do not ride on a tyre that is cut; replace it first. The chain needs a drop of oil every 300 km."
)
FILES = (
    "The loader reads the settings file once at start-up. If the file is missing, load_settings raises "
    "FileNotFoundError and the app keeps its defaults. A malformed file is never overwritten."
)
KETTLE = "Descale the kettle every month with a cup of vinegar. Rinse it twice with clean water afterwards."
PASSAGES = {1: ("tyres", TYRES), 2: ("files", FILES), 3: ("kettle", KETTLE)}


@pytest.mark.parametrize(
    ("sentence", "chunk"),
    [
        ("According to the passage, you should pump road tyres to 6 bar and mountain bike tyres to 2 bar.", "tyres"),
        ("Pump road tyres 6 bar and mountain bike tyres 2 bar.", "tyres"),  # articles and prepositions dropped
        ("For safety, do not ride on a tyre that is cut and replace it first.", "tyres"),  # question first
        ("The answer is that the chain needs a drop of oil every 300 km.", "tyres"),
        ("If the settings file is missing, load_settings raises FileNotFoundError and keeps the defaults.", "files"),
        ("You should descale the kettle every month with a cup of vinegar and rinse it twice.", "kettle"),  # joined
        ("Rinse the kettle twice with clean water afterwards.", "kettle"),  # "it" swapped for its noun
    ],
)
def test_a_lightly_reworded_sentence_is_attributed_to_its_passage(sentence, chunk):
    found = attribute_sentence(sentence, PASSAGES)
    assert found.chunk_id == chunk and found.label == {"tyres": 1, "files": 2, "kettle": 3}[chunk]
    assert found.score > 0


@pytest.mark.parametrize(
    "sentence",
    [
        "According to the passage, you should pump road tyres to 8 bar and mountain bike tyres to 2 bar.",  # number
        "Rinse the kettle three times with clean water after you descale it every month.",  # number word
        "The kettle should be rinsed once with clean water after descaling.",  # "twice" → "once"
        "You can ride on a tyre that is cut and replace it later.",  # negation dropped
        "A malformed settings file is overwritten by the loader.",  # negation dropped
        "The loader never reads the settings file at start-up.",  # negation added
        "If the settings file is missing, load_settings raises PermissionError and keeps the defaults.",  # name
        "Most laptops sold today have at least eight gigabytes of memory.",  # unrelated
    ],
)
def test_the_same_words_saying_something_else_are_not_attributed(sentence):
    found = attribute_sentence(sentence, PASSAGES)
    assert (found.label, found.chunk_id, found.score) == (None, None, 0.0)


def test_the_scores_of_a_reworded_sentence_and_of_its_contradiction():
    reworded = score("You should pump road tyres to 6 bar.", TYRES)
    assert reworded.coverage == 1.0 and reworded.pairs == 1.0 and reworded.agrees
    assert 0 < reworded.fourgrams < 1  # "you should pump road" is not in the passage
    assert not score("You should pump road tyres to 9 bar.", TYRES).agrees
    assert score("Pump tyres road to 6 bar.", TYRES).pairs < 1  # the content words' order is part of what is said


def test_lead_ins_are_dropped_but_the_claim_is_kept():
    assert without_lead_in("According to the passage, the answer is that pass does nothing.") == "pass does nothing."
    assert without_lead_in("Based on the documents: you should know that it ends.") == "it ends."
    assert without_lead_in("In the loop, break ends it.") == "In the loop, break ends it."


def test_numbers_are_read_as_words_and_digits_but_not_inside_names():
    assert numbers("Add 50 g twice, then two more; expression1 is a name.") == {"50", "2"}
    assert numbers("0.0 to a negative power") == {"0.0"}


def test_polarity_follows_the_words_a_negation_reaches():
    assert polarity_agrees("It is not saved.", "A cancelled answer is not saved, so the session stays.")
    assert not polarity_agrees("It is saved.", "A cancelled answer is not saved.")
    assert not polarity_agrees("It is not saved.", "A cancelled answer is saved.")
    # a word stated elsewhere in the window is not taken for negated: "saved" is both here
    assert polarity_agrees("Each answer is saved.", "Each answer is saved. A cancelled answer is not saved.")
    # a negation ends with its clause: "the session" is stated, whatever the articles around it
    assert polarity_agrees("It is not saved and the session stays.", "It is not saved, so the session stays.")
    terse = "If argument does not have proper type, it fails."
    assert polarity_agrees(terse, "If the argument does not have the proper type, it fails.")


def test_a_copied_sentence_longer_than_two_of_the_passages_sentences_is_attributed():
    grammar = (
        "The simple form is equivalent to: if __debug__: if not expression: raise AssertionError. "
        "The extended form is equivalent to: if __debug__: if not expression1: raise AssertionError(expression2). "
        "These equivalences assume the built-in names."
    )
    copied = "The extended form is equivalent to: if __debug__: if not expression1: raise AssertionError(expression2)."
    assert attribute_sentence(copied, {1: ("assert", grammar)}).chunk_id == "assert"
    flipped = copied.replace("if not expression1", "if expression1")
    assert attribute_sentence(flipped, {1: ("assert", grammar)}).chunk_id is None


def test_attribute_takes_only_unmarked_claims():
    answer = "Sure! Pump road tyres to 6 bar [1]. You should descale the kettle every month with a cup of vinegar."
    assert [(a.sentence, a.chunk_id) for a in attribute(answer, PASSAGES)] == [
        ("You should descale the kettle every month with a cup of vinegar.", "kettle")
    ]


def test_with_backs_a_sentence_whose_markers_do_not_hold_it_is_attributed_too():
    answer = "Pump road tyres to 6 bar [1]. Rinse the kettle twice with clean water afterwards [2]. Sure [3]."
    backs = {1: TYRES, 2: FILES}
    found = attribute(answer, PASSAGES, backs=lambda sentence, n: "6 bar" in backs.get(n, "") and "6 bar" in sentence)
    kettle = "Rinse the kettle twice with clean water afterwards."
    assert [(a.sentence, a.chunk_id) for a in found] == [(kettle, "kettle")]


def test_names_from_code_are_identifiers_and_acronyms_are_words():
    assert identifiers("load_settings raises FileNotFoundError, JSONDecodeError or HAIKU_TUI_MODEL") == [
        "load_settings", "FileNotFoundError", "JSONDecodeError", "HAIKU_TUI_MODEL"
    ]
    assert identifiers("The printer's IP address is in the CSV file.") == []
    assert attribute_sentence(
        "The printer's IP address is 192.168.1.50.", {1: ("net", "The printer has the fixed address 192.168.1.50.")}
    ).chunk_id == "net"


ORCHID = (
    "The orchid sits on the kitchen sill. To repot it, shake off the old mix and trim the dead roots. Then add 30 g "
    "of bark and 30 g of moss and press it down lightly."
)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("You should give the orchid 30 g of bark and 30 g of moss.", 1),  # "it" in the passage: the title names it
        ("You should never give the orchid 30 g of bark and 30 g of moss.", None),
        ("You should give the orchid 40 g of bark and 30 g of moss.", None),
    ],
)
def test_a_passage_is_read_under_the_line_it_was_shown_under(sentence, label):
    passages, sources = {1: ("orchid", ORCHID)}, {1: "Repotting the orchid"}
    assert attribute_sentence(sentence, passages, sources=sources).label == label
    assert attribute_sentence(sentence, passages).label is None  # without its title, "orchid" is not there
