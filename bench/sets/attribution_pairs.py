"""Answer sentences as small models write them, for measuring search-first attribution (``bench/bench_attribution.py``).

Built on the claim/citation pairs of ``support_pairs.py`` (their DEV and TEST halves are kept apart here too), over
the pydoc topics and the guide only. For each pair the passages are the knowledge base's top five for the pair's
claim, and nine kinds of sentence are attributed against them. Drawn from the supporting chunk:

* ``copied``: the sentence of the supporting chunk that holds the pair's phrase, as a model copies it;
* ``reworded``: the pair's claim (a paraphrase of the chunk, heavier than small models write);
* ``light``: a light rewording of the chunk, by hand (:data:`LIGHT_DEV`, :data:`LIGHT_TEST`), as a small model
  writes it: a lead-in, a subject or pronoun swapped, a verb swapped, articles dropped, a clause of the question
  put first, two clauses of the passage joined;
* ``led in``: the copied sentence after a lead-in (:data:`LEAD_INS`, cycled);
* ``terse``: the copied sentence without its articles.

Not drawn from any passage (hard negatives):

* ``wrong``: a sentence on the same topic, in the same words, that the documents contradict (below);
* ``edited``: the light sentence contradicted by a small edit: a number, a negation, a swapped noun or order
  (:data:`EDITED_DEV`, :data:`EDITED_TEST`);
* ``wrong, led in``: the wrong sentence after a lead-in;
* ``unrelated``: a sentence no passage holds, cycled from :data:`UNRELATED`.

An attribution is right only for the sentences drawn from the supporting chunk, and only to that chunk.
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

LEAD_INS = [
    "You should know that ",
    "According to the passage, ",
    "The answer is that ",
    "Based on the documents, ",
    "In short, ",
]
"""Lead-ins small models put before a sentence they copy (``led in``: one of these, cycled, before the copied sentence;
``wrong, led in``: before the wrong one)."""

# Light rewordings of the supporting chunk's sentences, as a small model writes them: a lead-in, a pronoun or subject
# swapped, articles dropped, a clause from the question put first, two clauses of the passage joined. Each EDITED
# sentence is its LIGHT sentence contradicted by a small edit (a number, a negation, a swapped noun or order): the
# same words, not what the documents say.
LIGHT_DEV = [
    "The break statement terminates the nearest enclosing loop and skips the optional else clause if the loop has one.",
    "You should know that pass is a null operation: when it runs, nothing happens.",
    "According to the passage, functions created with lambda expressions cannot contain statements or annotations.",
    "In an async generator, an empty return statement means the generator is done and causes StopAsyncIteration to be raised.",
    "To shift right by n bits, Python does floor division by pow(2,n).",
    "The built-in __debug__ variable is True normally and False when optimization is requested with the -O option.",
    "Names in a nonlocal statement must refer to pre-existing bindings in an enclosing scope, unlike names in a global statement.",
    "The answer is that comparisons can be chained, x < y <= z is equivalent to x < y and y <= z, and y is evaluated only once.",
    "To switch between all chunks and cited chunks only, press c in evidence pane.",
    "If an answer is cancelled or fails, it is not saved and the session stays the same as before.",
    "Leading zeros in non-zero decimal number are not allowed, to avoid confusion with C-style octal literals.",
    "When possible, augmented assignment does the operation in-place, so the old object is modified instead of creating a new object.",
    "The unary ~ operator gives the bitwise inversion of its integer argument, which is defined as -(x+1).",
    "If the argument of unary minus is not the proper type, you get a TypeError exception.",
    "A basic import statement has two steps: find a module, loading and initializing it if necessary, then define a name in the local namespace.",
    "Identifiers are unlimited in length, and case is significant.",
    "If an AttributeError is raised and the object has __getattr__, Python calls that method as a fallback.",
    "The None object is returned by functions that don't explicitly return a value.",
    "In Python, free variables are resolved at runtime, not at compile time.",
    "Citing an empty list is valid declaration and it records the answer as ungrounded.",
    "When the question ends without a declaration, the model is asked once to record what grounded the answer, and it is not asked to change the answer.",
    "The default extractive model is built in, so you need no network, no API key and no weights.",
    "You can set the model with the HAIKU_TUI_MODEL environment variable when --model is not given.",
    "The Ellipsis object is written as Ellipsis or ... and there is exactly one of it.",
]

EDITED_DEV = [
    "The break statement terminates the outermost enclosing loop and runs the optional else clause if the loop has one.",
    "You should know that pass is a null operation: when it runs, an error is raised.",
    "According to the passage, functions created with lambda expressions can contain statements and annotations.",
    "In an async generator, an empty return statement means the generator is done and causes StopIteration to be raised.",
    "To shift right by n bits, Python does multiplication by pow(2,n).",
    "The built-in __debug__ variable is False normally and True when optimization is requested with the -O option.",
    "Names in a nonlocal statement do not need pre-existing bindings in an enclosing scope, unlike names in a global statement.",
    "The answer is that comparisons can be chained, x < y <= z is equivalent to x < y and y <= z, and y is evaluated twice.",
    "To switch between all chunks and cited chunks only, press Enter in evidence pane.",
    "If an answer is cancelled or fails, it is saved anyway and the session keeps it.",
    "Leading zeros in non-zero decimal number are allowed and make it a C-style octal literal.",
    "When possible, augmented assignment creates a new object and assigns it to the target, so the old object is never modified.",
    "The unary ~ operator gives the bitwise inversion of its integer argument, which is defined as -(x-1).",
    "If the argument of unary minus is not the proper type, you get a ValueError exception.",
    "A basic import statement has three steps: find a module, loading and initializing it if necessary, then define a name in the global namespace.",
    "Identifiers are limited in length, and case is not significant.",
    "If an AttributeError is raised and the object has __getattribute__, Python calls that method as a fallback.",
    "The Ellipsis object is returned by functions that don't explicitly return a value.",
    "In Python, free variables are resolved at compile time, not at runtime.",
    "Citing an empty list is not a valid declaration and it records the answer as a violation.",
    "When the question ends without a declaration, the model is asked to change the answer and write it again.",
    "The default extractive model is built in, but you need a network and an API key, and no weights.",
    "You can set the model with the HAIKU_TUI_MODEL environment variable even when --model is given, and it wins.",
    "The Ellipsis object is written as Ellipsis or ... and each use of it makes a new one.",
]

LIGHT_TEST = [
    "The continue statement goes on with the next cycle of the nearest enclosing loop.",
    "When break leaves a try statement with a finally clause, the finally clause is executed before really leaving the loop.",
    "According to the passage, deleting an unbound name raises a NameError exception.",
    "It is impossible to assign to a global variable without global, but free variables may refer to globals without being declared global.",
    "The nonlocal statement makes the listed identifiers refer to previously bound variables in the nearest enclosing scope, excluding globals.",
    "If an expression list is present, it is evaluated, otherwise None is substituted as the return value.",
    "In a generator, the returned value is used to construct StopIteration and becomes the StopIteration.value attribute.",
    "If there is no active exception currently, a RuntimeError exception is raised to show this is an error.",
    "The extended form assert expression1, expression2 is equivalent to if __debug__: if not expression1: raise AssertionError(expression2).",
    "A break statement in the first suite terminates the loop without executing the else clause's suite.",
    "Assigning to the loop variable in the suite will not affect the for-loop, because it will be overwritten with the next index.",
    "The if statement selects exactly one of the suites by evaluating the expressions one by one until one is found to be true.",
    "To answer your question, the unnamed object of a lambda behaves like a function object defined with def that returns the expression.",
    "Using yield in function definition is enough to make that definition create a generator function instead of normal function.",
    "The await expression suspends the execution of coroutine on an awaitable object and can only be used inside a coroutine function.",
    "The with statement makes sure that if __enter__() returns without an error, __exit__() is always called.",
    "Typical uses of context managers are saving and restoring global state, locking and unlocking resources and closing opened files.",
    "The answer is that an expression-less except clause must be last if present, and it matches any exception.",
    "Empty strings are always considered a substring of any other string, so '' in 'abc' returns True.",
    "Objects considered false include None and False, zero of any numeric type, and empty sequences and collections.",
    "Neither and nor or restricts the value and type they return to False and True; they return the last evaluated argument.",
    "In an unparenthesized sequence of power and unary operators, the operators are evaluated from right to left, so -1**2 results in -1.",
    "You should know that if you raise 0.0 to a negative power you get a ZeroDivisionError.",
    "A left shift by n bits is multiplication with pow(2,n).",
    "Underscores can be used in integer literals to group digits for enhanced readability, and they are ignored for the value.",
    "In float literals the integer and exponent parts are always interpreted using radix 10, so 077e010 is legal.",
    "A class with no inheritance list inherits from the base class object by default.",
    "Values that compare equal, like 1, 1.0 and True, can be used interchangeably to index the same dictionary entry.",
    "Values that are not hashable, like lists or dictionaries, may not be used as dictionary keys.",
    "str.casefold() returns a casefolded copy of the string, and casefolded strings can be used for caseless matching.",
    "To include a brace character in the literal text, you escape it by doubling: {{ and }}.",
    "Python uses the termination model: an exception handler can find out what happened, but it cannot repair the cause of the error and retry the failing operation.",
    "The following are blocks: a module, a function body and a class definition, and each command typed interactively is a block.",
    "A retained chunk is one cited by an earlier question, so later requests still send its text in full.",
    "Compaction rewrites only the request sent to model, and saved conversation keeps everything.",
    "To see your saved sessions, press Ctrl+O to open the sessions screen, which lists them newest first.",
    "If a session was saved by a newer version of haiku-tui, it is refused with a clear error and never overwritten.",
]

EDITED_TEST = [
    "The continue statement goes on with the next cycle of the outermost enclosing loop.",
    "When break leaves a try statement with a finally clause, the finally clause is skipped before really leaving the loop.",
    "According to the passage, deleting an unbound name raises a KeyError exception.",
    "It is possible to assign to a global variable without global, and free variables may refer to globals without being declared global.",
    "The nonlocal statement makes the listed identifiers refer to previously bound variables in the global scope, including globals.",
    "If an expression list is present, it is evaluated, otherwise 0 is substituted as the return value.",
    "In a generator, the returned value is used to construct StopAsyncIteration and becomes the StopAsyncIteration.value attribute.",
    "If there is no active exception currently, a TypeError exception is raised to show this is an error.",
    "The extended form assert expression1, expression2 is equivalent to if __debug__: if expression1: raise AssertionError(expression2).",
    "A break statement in the first suite terminates the loop after executing the else clause's suite.",
    "Assigning to the loop variable in the suite will change the for-loop, because it will not be overwritten with the next index.",
    "The if statement selects all of the suites by evaluating the expressions one by one and running each one found to be true.",
    "To answer your question, the unnamed object of a lambda behaves like a class object defined with class that returns the expression.",
    "Using yield in function definition is enough to make that definition create a normal function instead of generator function.",
    "The await expression suspends the execution of coroutine on an awaitable object and can be used outside a coroutine function.",
    "The with statement makes sure that if __enter__() returns with an error, __exit__() is never called.",
    "Typical uses of context managers are saving and restoring global state, locking and unlocking resources and opening new processes.",
    "The answer is that an expression-less except clause must be first if present, and it matches no exception.",
    "Empty strings are never considered a substring of any other string, so '' in 'abc' returns False.",
    "Objects considered true include None and False, zero of any numeric type, and empty sequences and collections.",
    "Both and and or restrict the value and type they return to False and True; they never return the last evaluated argument.",
    "In an unparenthesized sequence of power and unary operators, the operators are evaluated from left to right, so -1**2 results in 1.",
    "You should know that if you raise 0.0 to a negative power you get a ValueError.",
    "A left shift by n bits is floor division by pow(2,n).",
    "Underscores can be used in integer literals to group digits, and they change the numeric value of the literal.",
    "In float literals the integer and exponent parts are always interpreted using radix 8, so 077e010 is legal.",
    "A class with no inheritance list inherits from the base class type by default.",
    "Values that compare equal, like 1, 1.0 and True, index different dictionary entries.",
    "Values that are not hashable, like lists or dictionaries, may be used as dictionary keys.",
    "str.casefold() returns a titlecased copy of the string, and casefolded strings cannot be used for caseless matching.",
    "To include a brace character in the literal text, you escape it with a backslash: \\{ and \\}.",
    "Python uses the resumption model: an exception handler can find out what happened, and it can repair the cause of the error and retry the failing operation.",
    "The following are blocks: a module and a function body, but a class definition is not a block.",
    "A retained chunk is one cited by an earlier question, so later requests send only a short receipt instead of its text.",
    "Compaction rewrites the saved conversation too, and the request sent to model keeps everything.",
    "To see your saved sessions, press Ctrl+O to open the sessions screen, which lists them oldest first.",
    "If a session was saved by a newer version of haiku-tui, it is opened and converted, and then overwritten.",
]
