"""The extractive model quotes the sentence that answers, with the neighbour that continues it."""

from __future__ import annotations

from haiku_tui.agent import extractive as ex
from haiku_tui.agent import quoting
from haiku_tui.store.sentences import sentences

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
    quotes = quoting.select("which suite of an if statement with elif runs", ex.parse_results(GRAMMAR))
    text = " ".join(q.sentence for q in quotes)
    assert "::=" not in text
    assert "It selects exactly one of the suites" in text


def test_a_sentence_that_continues_the_quoted_one_is_quoted_with_it():
    quotes = quoting.select("how do I get a scratch directory", ex.parse_results(SCRATCH))
    assert [q.sentence for q in quotes][:2] == [
        "Create and return a temporary directory for scratch files.",
        "This has the same behavior as mkdtemp but can be used as a context manager.",
    ]
    assert all("name attribute" not in q.sentence for q in quotes)  # not a continuation: left out
    # a continuation only fills room the answer has left: the answer stays within its limit
    assert [
        q.sentence for q in quoting.select("how do I get a scratch directory", ex.parse_results(SCRATCH), limit=1)
    ] == ["Create and return a temporary directory for scratch files."]
    assert quoting.continues("It terminates the loop.") and quoting.continues("These values are false.")
    assert not quoting.continues("Steep green tea for two minutes.")


INSTRUCTIONS = (
    "[gggggggggggggggg] (rank 1 of 1)\n"
    'Source: "Guide" › Export\n'
    "Exporting a session writes a Markdown file of the session.\n"
    "Press F5 on the sessions screen to export the highlighted one.\n"
)


def test_question_kind_prefers_the_sentence_in_the_answering_form(monkeypatch):
    assert quoting.question_kind("How do I export a session?") == "how"
    assert quoting.question_kind("how long should green tea steep") == "amount"
    assert quoting.question_kind("what is a session") == ""
    assert quoting.answers_kind("how", "Press F5 to export.") and not quoting.answers_kind(
        "how", "Exports keep answers."
    )
    assert quoting.answers_kind("amount", "Steep it for two minutes.") and not quoting.answers_kind(
        "amount", "Steep it briefly."
    )
    question = "how do I export a session"
    monkeypatch.setattr(quoting, "MAX_SENTENCES", 1)
    monkeypatch.setattr(quoting, "TOP_SOURCES", 0)
    assert [q.sentence for q in quoting.select(question, ex.parse_results(INSTRUCTIONS))] == [
        "Press F5 on the sessions screen to export the highlighted one."
    ]
    monkeypatch.setattr(quoting, "ANSWER_CUE", 0.0)
    assert [q.sentence for q in quoting.select(question, ex.parse_results(INSTRUCTIONS))] == [
        "Exporting a session writes a Markdown file of the session."
    ]


TWO_SOURCES = (
    "[hhhhhhhhhhhhhhhh] (rank 1 of 2)\n"
    'Source: "Tea" › Green tea\n'
    "Steep green tea for two minutes.\n"
    "\n---\n\n"
    "[iiiiiiiiiiiiiiii] (rank 2 of 2)\n"
    'Source: "Kettles" › Water\n'
    "Water just off the boil suits most leaves.\n"
)


def test_a_weaker_sentence_is_quoted_once_the_question_is_answerable(monkeypatch):
    results = ex.parse_results(TWO_SOURCES)
    between = (quoting.MIN_QUOTED + quoting.MIN_SEMANTIC) / 2  # enough to be quoted, not to make a question answerable
    similarity = {
        "Green tea: Steep green tea for two minutes.": 0.5,
        "Water: Water just off the boil suits most leaves.": between,
    }
    monkeypatch.setattr(quoting, "_similarities", lambda question, texts: [similarity[t] for t in texts])
    quoted = [q.sentence for q in quoting.select("how hot should the kettle be", results)]
    assert quoted == ["Steep green tea for two minutes.", "Water just off the boil suits most leaves."]
    monkeypatch.setattr(quoting, "MIN_QUOTED", quoting.MIN_SEMANTIC)  # the second source's sentence is below this floor
    assert [q.sentence for q in quoting.select("how hot should the kettle be", results)] == quoted[:1]
    # no sentence passes the question's floor: nothing is quoted, however close the others are
    monkeypatch.undo()
    monkeypatch.setattr(quoting, "_similarities", lambda question, texts: [between for _ in texts])
    assert quoting.select("how hot should the kettle be", results) == []


PACKING = (
    "[jjjjjjjjjjjjjjjj] (rank 1 of 1)\n"
    'Source: "struct" › Formats\n'
    "Removes the pack format from the registry.\n"
    "Formats are looked up by their name.\n"
)


def test_a_shared_word_far_in_meaning_is_not_an_answer(monkeypatch):
    results = ex.parse_results(PACKING)
    question = "what should I pack for hiking"  # shares "pack" with the first sentence, nothing else
    far = quoting.MIN_WORDS_MEANING / 2
    monkeypatch.setattr(quoting, "_similarities", lambda q, texts: [far for _ in texts])
    assert quoting.select(question, results) == []  # "nothing found", not a quote about struct formats
    near = {"Formats: Removes the pack format from the registry.": quoting.MIN_WORDS_MEANING}
    monkeypatch.setattr(quoting, "_similarities", lambda q, texts: [near.get(t, far) for t in texts])
    assert [q.sentence for q in quoting.select(question, results)] == ["Removes the pack format from the registry."]


ASYNC_FOR = (
    "[kkkkkkkkkkkkkkkk] (rank 1 of 1)\n"
    'Source: "Coroutines" › The async for statement\n'
    "An asynchronous iterable provides a method that returns an asynchronous iterator.\n"
    "The async for statement allows convenient iteration over asynchronous iterables.\n"
)


def test_a_sentence_closer_in_meaning_is_quoted_though_it_shares_fewer_words(monkeypatch):
    results = ex.parse_results(ASYNC_FOR)
    split = sentences(results[0].text)
    similarity = dict(zip((f"The async for statement: {s}" for s in split), (0.59, 0.72)))
    monkeypatch.setattr(quoting, "_similarities", lambda q, texts: [similarity[t] for t in texts])
    quoted = [q.sentence for q in quoting.select("how do I loop over an asynchronous iterator", results)]
    assert quoted == split  # the one naming the question's words, and the one that answers it


README_ABOUT = (
    "[jjjjjjjjjjjjjjjj] (rank 1 of 1)\n"
    'Source: "markdown-it-py" › About\n'
    "Markdown parser done right.\n"
    "Follows the CommonMark spec for baseline parsing.\n"
    "Configurable syntax: you can add new rules and even replace existing ones.\n"
    "Pluggable: adds syntax extensions to extend the parser.\n"
    "High speed, see the benchmarking tests.\n"
    "Safe by default.\n"
    "The command-line tool renders files to HTML.\n"
    "Plugins live in a separate package.\n"
    "See also: markdown-it-pyrs for an experimental Rust binding, for even more speed!\n"
)


def test_a_sentence_late_in_a_long_chunk_is_quoted_for_the_term_only_it_holds():
    question = "is there a faster version of this markdown parser written in rust"
    quotes = [q.sentence for q in quoting.select(question, ex.parse_results(README_ABOUT))]
    assert quotes[0] == "Markdown parser done right."
    assert "See also: markdown-it-pyrs for an experimental Rust binding, for even more speed!" in quotes


def search_results(*blocks: tuple[str, str, str]) -> str:
    """``rag_search``'s text for ``(chunk id letter, source, text)`` blocks, ranked in order."""
    n = len(blocks)
    return "\n---\n\n".join(
        f"[{c * 16}] (rank {i} of {n})\nSource: {source}\n{text}\n" for i, (c, source, text) in enumerate(blocks, 1)
    )


THREE_SOURCES = search_results(
    (
        "l",
        '"Kettles" › Boiling',
        "An electric kettle boils water in about three minutes.\nIt switches itself off when the water boils.",
    ),
    ("m", '"Cups" › Warming', "Warm the cup with hot water before pouring."),
    ("n", '"Green tea" › Steeping', "Steep green tea for two minutes."),
)


def test_the_room_left_in_an_answer_quotes_the_next_ranked_document(monkeypatch):
    results = ex.parse_results(THREE_SOURCES)
    monkeypatch.setattr(quoting, "_similarities", lambda question, texts: [0.5 for _ in texts])
    question = "how long does the water take to boil"
    quoted = [q.chunk_id for q in quoting.select(question, results)]
    # the best sentence, the one continuing it, the second document's best, then the third document's in the room left
    assert quoted == ["llllllllllllllll", "llllllllllllllll", "mmmmmmmmmmmmmmmm", "nnnnnnnnnnnnnnnn"]
    # no room left: the first two documents' sentences and the continuation come first
    assert [q.chunk_id for q in quoting.select(question, results, limit=3)] == quoted[:3]
    monkeypatch.setattr(quoting, "ROOM_SOURCES", quoting.TOP_SOURCES)
    assert [q.chunk_id for q in quoting.select(question, results)] == quoted[:3]


FRAMED = search_results(
    ("o", '"Guide" › Steps', "Take a step back and see what happens."),
    ("p", '"math" › log', "The log of zero raises a ValueError."),
)


def test_the_verbs_that_frame_a_question_do_not_pick_its_sentence(monkeypatch):
    results = ex.parse_results(FRAMED)
    monkeypatch.setattr(quoting, "_similarities", lambda question, texts: [0.5 for _ in texts])
    # "happens" and "take" frame the question; "log" and "zero" say what it is about
    quotes = quoting.select("what happens if I take the log of zero", results, limit=1)
    assert [q.sentence for q in quotes] == ["The log of zero raises a ValueError."]
    monkeypatch.setattr(quoting, "SCAFFOLDING", frozenset())  # weighed as terms, they pick the higher-ranked chunk
    assert [q.chunk_id for q in quoting.select("what happens if I take the log of zero", results, limit=1)] == [
        "oooooooooooooooo"
    ]
    monkeypatch.undo()
    # a question made of framing verbs only keeps them as its terms
    assert [q.chunk_id for q in quoting.select("what happens", results, limit=1)] == ["oooooooooooooooo"]


SYNC = (
    "[qqqqqqqqqqqqqqqq] (rank 1 of 1)\n"
    'Source: "Guide" › Sync\n'
    "Sync ingests new and changed files of a folder.\n"
    "A file you delete stays in the knowledge base until the next sync.\n"
    "Colours follow the terminal theme.\n"
)


def test_the_sentence_after_the_best_one_comes_along_when_it_passes_the_floors(monkeypatch):
    results = ex.parse_results(SYNC)
    first, second, third = sentences(results[0].text)
    similarity = {f"Sync: {first}": 0.6, f"Sync: {second}": 0.3, f"Sync: {third}": 0.3}
    monkeypatch.setattr(quoting, "_similarities", lambda question, texts: [similarity[t] for t in texts])
    question = "what does sync do with new files"
    assert [q.sentence for q in quoting.select(question, results)] == [
        first,
        second,
    ]  # not a continuation, still quoted
    similarity[f"Sync: {second}"] = quoting.MIN_QUOTED / 2  # far in meaning and sharing no word: left out
    assert [q.sentence for q in quoting.select(question, results)] == [first]


PROGRESS = (
    "[hhhhhhhhhhhhhhhh] (rank 1 of 2)\n"
    'Source: "Guide" › Tasks\n'
    "A bar at the bottom shows the progress of every running task.\n"
    "A progress bar fills as the task runs, and shows how far it has got.\n"
    "Tasks run one after another.\n"
    "\n---\n\n"
    "[iiiiiiiiiiiiiiii] (rank 2 of 2)\n"
    'Source: "Guide" › Keys\n'
    "Press q to quit.\n"
    "The screen redraws when the window is resized.\n"
)


def test_the_sentence_holding_the_questions_words_together_is_preferred(monkeypatch):
    results = ex.parse_results(PROGRESS)
    question = "how do I show a progress bar"
    # both first sentences hold "progress" and "bar"; only the second holds them together, as the question does
    assert [q.sentence for q in quoting.select(question, results, limit=1)] == [
        "A progress bar fills as the task runs, and shows how far it has got."
    ]
    monkeypatch.setattr(quoting, "PAIR_WEIGHT", 0.0)  # without the pairs, the earlier sentence wins on its place
    assert [q.sentence for q in quoting.select(question, results, limit=1)] == [
        "A bar at the bottom shows the progress of every running task."
    ]
