"""The stemmer shared by the ranking and the extractive model: one stem for a word's forms."""

from haiku_tui.store.sentences import stem, term_set, terms


def test_short_words_share_a_stem_with_their_forms():
    assert stem("use") == stem("used") == stem("uses") == stem("using")
    assert stem("go") == stem("going")
    assert stem("age") == stem("aged")


def test_short_rests_without_a_vowel_are_not_stripped():
    assert stem("thing") == stem("things") != stem("th")
    assert stem("bring") == "bring"


def test_eed_words_are_not_cut_to_their_first_letters():
    assert stem("need") == stem("needed") == stem("needs")
    assert stem("speed") == "speed"


def test_longer_words_as_before():
    assert stem("stepping") == stem("step")
    assert stem("brewing") == stem("brewed") == stem("brews") == stem("brew")
    assert stem("batteries") == stem("battery")


def test_term_set_is_the_set_of_terms():
    for text in ["Brewing teas: the brewed tea's leaves, brewed again and AGAIN.", "don’t use `used` USES", "", "the of and"]:
        assert term_set(text) == frozenset(terms(text))
