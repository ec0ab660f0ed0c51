"""Answer sentences as small models write them, for measuring search-first attribution (``bench/bench_attribution.py``).

Built on the claim/citation pairs of ``support_pairs.py`` (their DEV and TEST halves are kept apart here too). For
each pair the passages are the knowledge base's top five for the pair's claim, and four kinds of sentence are
attributed against them:

* ``copied``: the sentence of the supporting chunk that holds the pair's phrase, as a model copies it;
* ``reworded``: the pair's claim (a light paraphrase of the chunk);
* ``wrong``: a sentence on the same topic, in the same words, that the documents contradict (below);
* ``unrelated``: a sentence no passage holds, cycled from :data:`UNRELATED`.

An attribution is right only for ``copied`` and ``reworded`` sentences, and only to the supporting chunk.
"""

from __future__ import annotations

WRONG_DEV = [
    "A break statement ends every enclosing loop at once and then runs the loop's else block.",
    "pass raises an error when it is reached, so it must never be left in finished code.",
    "Lambda expressions can hold any statements, including loops and assignments.",
    "An async generator signals it is finished by returning a value with its return statement.",
    "A right shift by n bits multiplies the number by two to the power n.",
    "Running Python with -O makes assert statements raise errors even when the condition is true.",
    "Names declared nonlocal are created in the module's global scope when they are not bound yet.",
    "Chained comparisons such as x < y <= z evaluate the middle operand twice.",
    "Pressing c in the evidence pane copies the selected chunk to the clipboard.",
    "A cancelled answer is saved with a cancelled mark so it can be resumed later.",
    "Leading zeros are allowed in decimal integer literals and make the number octal.",
    "Augmented assignment like x += 1 always creates a new object and evaluates the target twice.",
    "The ~ operator negates an integer, so ~x equals -x.",
    "Applying unary minus to a string reverses the string.",
    "A plain import copies every name of the module into the local namespace.",
    "Identifiers are limited to 32 characters and are not case-sensitive.",
    "__getattr__ is called before normal attribute lookup for every attribute access.",
    "Functions that return nothing explicitly give back an empty tuple.",
    "Free variables are resolved once, when the function is compiled.",
    "Citing an empty list is refused, and the answer is recorded as a violation.",
    "If an answer ends without declaring its grounding, the model is asked to write a new answer from scratch.",
    "The extractive model downloads its weights on first use and needs an API key.",
    "HAIKU_TUI_MODEL overrides the --model flag when both are given.",
    "Every use of three dots creates a new Ellipsis object.",
]

WRONG_TEST = [
    "continue ends the loop immediately and skips its else clause.",
    "If break leaves a try block, the finally clause is skipped.",
    "Deleting a name that was never bound silently does nothing.",
    "A function can rebind a module-level variable without declaring it global.",
    "nonlocal makes a variable visible in the module's global scope.",
    "When a function body has no return expression, the call returns zero.",
    "In a generator, returning a value prints it and ends the program.",
    "A bare raise with no active exception does nothing.",
    "assert x, msg prints msg and continues when x is false.",
    "The else clause of a while loop runs only after a break.",
    "Reassigning the loop variable inside a for loop changes which item comes next.",
    "An if statement runs every branch whose condition is true.",
    "Functions made with lambda cannot be called with arguments.",
    "Writing yield in a def makes the function run twice as fast.",
    "The await expression can be used at the top level of any module.",
    "A with statement never calls __exit__ when the body raises an exception.",
    "Context managers are mainly used to speed up loops over large lists.",
    "A bare except clause must come first, before the other handlers.",
    "For strings, x in y checks whether x and y are equal.",
    "Empty containers, zero and None are treated as true in a condition.",
    "The or operator always returns True or False.",
    "In Python, -1**2 evaluates to 1 because the unary minus binds tighter.",
    "Raising 0.0 to a negative power gives infinity.",
    "A left shift by n bits divides the number by pow(2, n).",
    "Underscores in integer literals mark the number as hexadecimal.",
    "Float literals such as 077e010 are read in base eight.",
    "Classes that list no base class inherit from type by default.",
    "1, 1.0 and True always address three different dictionary entries.",
    "Lists and dictionaries can be used as dictionary keys.",
    "str.casefold returns the string in title case.",
    "A doubled brace such as {{ in a format string raises a ValueError.",
    "An exception handler can repair the error and resume the failing operation where it stopped.",
    "Only modules are code blocks; function bodies and class definitions are not.",
    "A cited chunk from an earlier question is dropped, so later requests never carry it again.",
    "Compaction deletes the earlier evidence from the saved conversation.",
    "Ctrl+O opens the knowledge-base screen, oldest documents first.",
    "A session saved by a newer version of the app is opened and converted to the old format.",
]

UNRELATED = [
    "Python was created by Guido van Rossum and first released in 1991.",
    "Many teams prefer to write their tests before they write the code.",
    "Good variable names make a program much easier to maintain over the years.",
    "Most laptops sold today have at least eight gigabytes of memory.",
    "Reading the official tutorial is a good way to start learning a language.",
    "Terminal emulators differ in how they draw colours and fonts.",
    "Backing up your documents regularly protects you from losing work.",
    "Keyboard shortcuts save time once you have learned them.",
]
