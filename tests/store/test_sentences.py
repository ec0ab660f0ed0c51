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


SAME_STEM = [
    "guarantee guarantees guaranteed guaranteeing",
    "reply replies replied replying",
    "apply applies applied applying",
    "supply supplies supplied",
    "modify modifies modified modifying",
    "carry carries carried carrying",
    "agree agrees agreed agreeing",
    "proceed proceeds proceeded proceeding",
    "need needs needed",
    "easy easily",
    "quick quickly",
    "usual usually",
    "careful carefully",
    "previous previously",
    "direct directly",
]
DIFFERENT_STEMS = [("reply", "rep"), ("apply", "app"), ("supply", "supp"), ("imply", "imp"), ("daily", "dai"),
                   ("seed", "see"), ("feed", "fee"), ("guaranteed", "guard")]


def test_a_words_forms_share_one_stem():
    for forms in SAME_STEM:
        assert len({stem(w) for w in forms.split()}) == 1, forms


def test_words_that_only_look_like_forms_keep_their_own_stem():
    for a, b in DIFFERENT_STEMS:
        assert stem(a) != stem(b), (a, b)


def test_term_set_is_the_set_of_terms():
    for text in [
        "Brewing teas: the brewed tea's leaves, brewed again and AGAIN.",
        "don’t use `used` USES",
        "",
        "the of and",
    ]:
        assert term_set(text) == frozenset(terms(text))
