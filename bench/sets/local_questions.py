"""Held-out questions for ``bench/bench_local_model.py``: a real small model on a local server.

Written on 2026-12-07 by the bench helper of issue #35 from reading the documents only, before any of
them was asked, searched or measured, and never tuned on: nothing in haiku-tui may be changed to make
these pass. Report with them; tune with ``eval_questions``' tuning splits.

Three corpora: ``notes`` (``bench/corpora/notes.py``, eight personal notes written the same day, three
of them on sourdough), ``stdlib`` and ``pydoc``. Each question names the document that answers it (file
stem) and a phrase of the sentence that answers it (matched as ``eval_retrieval.norm`` matches). Most share
few words with their answer. ``follows`` names the question a follow-up is asked after, in the same session
("and when are they evaluated?" has to find its source from the conversation).
"""

from __future__ import annotations

from typing import NamedTuple


class LocalQuestion(NamedTuple):
    corpus: str
    question: str
    doc: str
    phrase: str
    follows: str | None = None


def _q(corpus: str, question: str, doc: str, phrase: str, follows: str | None = None) -> LocalQuestion:
    return LocalQuestion(corpus, question, doc, phrase, follows)


QUESTIONS: list[LocalQuestion] = [
    # ---------------------------------------------------------------- notes
    _q("notes", "how much do I give the starter when I feed it", "sourdough-feeding", "add 50 g of flour and 50 g of water"),
    _q("notes", "there's grey liquid sitting on top of my starter, has it died?", "sourdough-troubleshooting", "It means the starter is hungry"),
    _q("notes", "how hot do I get the oven before the loaf goes in", "sourdough-bake-day", "250 °C for 45 minutes"),
    _q("notes", "how can I tell whether the shaped dough is ready to bake", "sourdough-troubleshooting", "press a floured finger in about 1 cm"),
    _q("notes", "how often should the chain get oil", "bike-maintenance", "lubricate it every 300 km"),
    _q("notes", "what pressure do I pump my tyres to", "bike-maintenance", "inflated to 5 to 5.5 bar"),
    _q("notes", "the big plant by the living room window, how often does it want water in summer", "houseplants", "every 7 to 10 days in summer"),
    _q("notes", "the internet is down, what should I try first", "home-network", "unplug the router for 30 seconds"),
    _q("notes", "when is it safe to put the tomato plants in the garden", "tomato-seedlings", "Plant them out only when the nights stay above 10 °C"),
    _q("notes", "what's the printer's IP address", "home-network", "192.168.1.50"),
    # ---------------------------------------------------------------- stdlib
    _q("stdlib", "how do I fold a list down to one value, combining the items step by step", "functools", "Apply a function of two arguments cumulatively"),
    _q("stdlib", "how do I draw random items where some are more likely than others", "random", "Return a k sized list of population elements chosen with replacement"),
    _q("stdlib", "how do I take just the first few items from a generator", "itertools", "Works like a slice() on a list"),
    _q("stdlib", "how do I cut a long sentence down so it fits in a fixed width", "textwrap", "Collapse and truncate the given text to fit in the given width"),
    _q("stdlib", "how much free space is left on my drive", "shutil", "Return disk usage statistics about the given path"),
    _q("stdlib", "how do I get a function that pulls one field out of each row, for sorting", "operator", "Return a callable object that fetches the given item(s) from its operand"),
    _q("stdlib", "is there a quicker average that always gives me a float", "statistics", "This runs faster than the mean() function and it always returns a float"),
    # ---------------------------------------------------------------- pydoc
    _q("pydoc", "my function returns in the protected block and again in the cleanup block, which value wins", "try", 'statement executed in the "finally" clause will always be the last one executed'),
    _q("pydoc", "what happens to an error if the cleanup block does a return", "try", "the saved exception is discarded"),
    _q("pydoc", "if I reassign the loop variable inside the body, does the next round see my value", "for", "this will not affect the for-loop"),
    _q("pydoc", "can I still use the loop variable once the loop has finished", "for", "Names in the target list are not deleted when the loop is finished"),
    _q("pydoc", "does not always give True or False, even when I apply it to a string", "booleans", "it returns a boolean value regardless of the type of its argument"),
    _q("pydoc", "is a variable set in the class body shared by every object of that class", "class", "they are shared by instances"),
    # ---------------------------------------------------------------- follow-ups (asked after the question they follow)
    _q("notes", "how do I make coffee with the V60?", "pour-over-coffee", "15 g of coffee to 250 g of water"),
    _q("notes", "and how hot should the water be?", "pour-over-coffee", "Heat the water to 93 °C", follows="how do I make coffee with the V60?"),
    _q("stdlib", "how do I split a command line into words the way the shell would?", "shlex", "Split the string *s* using shell-like syntax"),
    _q("stdlib", "and how do I put the pieces back together safely?", "shlex", "Return a shell-escaped string from *split_command*", follows="how do I split a command line into words the way the shell would?"),
    _q("pydoc", "can a function have default values for its parameters?", "function", "Default parameter values are evaluated"),
    _q("pydoc", "and when are they evaluated?", "function", "evaluated from left to right when the function definition is executed", follows="can a function have default values for its parameters?"),
]
