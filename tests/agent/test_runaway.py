"""A model caught in a loop: the watch reads an answer as it streams and names the repeated unit; ordinary answers,
long ones and tables included, never loop."""

from __future__ import annotations

from haiku_tui.agent.runaway import CHECK_EVERY, RUN, LoopWatch, loop_error, repeated_unit
from tests.model_server import answer_text


def streamed(text: str, piece: int = 7) -> str | None:
    watch = LoopWatch()
    for i in range(0, len(text), piece):
        if (unit := watch.add(text[i : i + piece])) is not None:
            return unit
    return None


def test_the_small_models_loops_are_caught():
    # the real 0.5B on "how do strings with r in front treat backslashes": 1,024 tokens of \" before the cap
    assert streamed('The string "r' + '\\"' * 400) in ('\\"', '"\\')
    assert streamed("Yes. " + "The answer is in the documents. " * 20) is not None  # a sentence again and again
    assert streamed("Done.\n" + "\n" * 500) == "\n"


PARAGRAPH = (
    "The `else` part of a for loop in Python is executed when the loop completes without encountering any break "
    "statements. If the loop is terminated by a break statement, the `else` part will not be executed. This is useful "
    "for performing actions that should only happen if the loop completes normally, such as printing a final message "
    "or updating a counter.\n\n"
)


def test_a_paragraph_said_again_and_again_is_caught_at_its_third_time():
    # the real 1.5B on "what does the else part of a for loop do": this paragraph fourteen times, 1,024 tokens and
    # 210 s of generation on a CPU, until the server's cap
    text, watch, seen = PARAGRAPH * 14, LoopWatch(), 0
    for seen in range(5, len(text) + 5, 5):
        if watch.add(text[seen - 5 : seen]) is not None:
            break
    assert watch.unit is not None and sorted(watch.unit) == sorted(PARAGRAPH)
    assert 3 * len(PARAGRAPH) <= seen < 3 * len(PARAGRAPH) + 2 * CHECK_EVERY
    restated = PARAGRAPH * 2 + "So the else clause runs only when no break ended the loop."
    assert streamed(restated) is None  # a paragraph restated once is no loop
    long_unit = "".join(f"Step {i}: stir, fold and wait. " for i in range(30))  # ~900 characters
    assert streamed(long_unit * 3 + long_unit[:200]) is not None
    assert streamed(long_unit * 2 + long_unit[:800]) is None


def test_answers_that_do_not_loop_are_left_alone():
    rows = "".join(f"| {i} | stir the dough, wait {i * 5} minutes |\n" for i in range(40))
    table = "| step | what |\n|---|---|\n" + rows
    prose = " ".join(f"Sentence {i} says something new about sourdough, step {i}." for i in range(200))
    assert streamed(table) is None and streamed(prose) is None
    assert streamed(answer_text([], "long", [(1, "x")]), piece=2048) is None  # the 200 KB answer
    assert repeated_unit("=" * (RUN - 1)) is None  # a rule line is not a loop
    assert streamed("-" * 80 + "\n" + "word " * 50) is None


def test_the_line_shows_the_unit_safely_and_says_what_to_do():
    line = loop_error("\x1b[31m[bold]x[/bold]" * 3)
    assert "\x1b" not in line and line.startswith("stopped: the model kept writing “")
    assert "nothing was saved" in line and "Ask again" in line
    assert "“'\\n'”" in loop_error("\n")
