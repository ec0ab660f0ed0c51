"""Question-bearing answer sentences, for measuring an attribution rule that uses the user's question.

Small local models (0.5B–1.5B) often open an answer by restating the question, then give the fact. This set
holds one entry per pair of ``support_pairs.py`` (``QUESTION_DEV`` follows its ``DEV``, ``QUESTION_TEST`` its
``TEST``, same order), written against that pair's supporting chunk. It was written by a helper on 2026-12-07,
from the chunks only, before the rule that uses it was measured. ``QUESTION_DEV`` may be used to choose
thresholds; ``QUESTION_TEST`` is only reported.

Each entry is ``(question, echo, echo_wrong, echo_only)``:

* ``question``: what a user types to get the chunk's fact, casually and mostly in other words than the chunk's;
* ``echo``: one answer sentence that restates the question, then gives the chunk's fact (copied or lightly
  reworded): attributable to the supporting chunk;
* ``echo_wrong``: the same opening, then a fact the chunk does not support (a number, a negation, a name or an
  operator changed, or plausible knowledge the chunk does not state): not attributable;
* ``echo_only``: the question restated as a claim, with nothing from the chunk: not attributable. It is true by
  the chunk at even positions of each list and false at odd ones.
"""

from __future__ import annotations

QuestionEntry = tuple[str, str, str, str]  # (question, echo, echo_wrong, echo_only)

QUESTION_DEV: list[QuestionEntry] = [
    (  # break: terminates the nearest enclosing loop, skipping else
        "if I bail out of a loop early, does the else part at the bottom still happen?",
        "If you bail out of a loop early with break, the else part at the bottom does not happen: break terminates "
        "the nearest enclosing loop and skips its optional else clause.",
        "If you bail out of a loop early with break, the else part at the bottom still happens, because break "
        "terminates every enclosing loop and then runs the optional else clause.",
        "No, the else part at the bottom does not happen when you bail out of a loop early.",
    ),
    (  # pass: a null operation
        "what do I put in an empty function body so it compiles",
        "In an empty function body, put pass so it compiles: pass is a null operation, nothing happens when it "
        "runs, and it serves as a placeholder where a statement is required syntactically.",
        "In an empty function body, put pass so it compiles: pass is a placeholder statement that raises "
        "NotImplementedError if the code is ever executed.",
        "An empty function body compiles fine without putting anything in it.",
    ),
    (  # lambda: cannot contain statements or annotations
        "can i put an if statement or a type hint inside a lambda",
        "No, you can't put an if statement or a type hint inside a lambda, because functions created with lambda "
        "expressions cannot contain statements or annotations.",
        "No, you can't put an if statement inside a lambda, but a type hint is fine there, since lambda "
        "expressions may contain annotations, only not statements.",
        "No, an if statement or a type hint cannot go inside a lambda.",
    ),
    (  # return: empty return in an async generator raises StopAsyncIteration
        "What happens when an async generator hits a bare return?",
        "When an async generator hits a bare return, that means the asynchronous generator is done, and "
        "StopAsyncIteration is raised.",
        "When an async generator hits a bare return, the generator is done and StopIteration is raised with None "
        "as its value.",
        "When an async generator hits a bare return, nothing happens and it keeps going.",
    ),
    (  # shifting: right shift is floor division by pow(2, n)
        "is x >> n the same as x // 2**n?",
        "Yes, x >> n is the same as x // 2**n, since a right shift by n bits is defined as floor division by pow(2,n).",
        "Yes, x >> n is the same as x // 2**n, since a right shift by n bits is defined as multiplication with "
        "pow(2,n).",
        "Yes, x >> n gives the same result as x // 2**n.",
    ),
    (  # assert: no code for asserts under -O
        "do my asserts still run in production if I start python with -O",
        "If you start Python with -O, your asserts no longer run: __debug__ is False when optimization is requested, "
        "and the code generator emits no code for an assert statement.",
        "If you start Python with -O, your asserts still run, because __debug__ stays True under -O and only the "
        "failing expression's source is left out of the error message.",
        "Yes, asserts still run in production when Python is started with -O.",
    ),
    (  # nonlocal: must refer to pre-existing bindings
        "can nonlocal create a brand new variable in the outer function if it isn't there yet?",
        "No, nonlocal can't create a brand new variable in the outer function; names listed in a nonlocal "
        "statement must refer to pre-existing bindings in an enclosing scope.",
        "No, nonlocal can't create a brand new variable in the outer function, so the name is bound in the global "
        "scope instead, just as a global statement would do.",
        "No, nonlocal cannot create a brand new variable in the outer function if it isn't there yet.",
    ),
    (  # comparisons: y evaluated only once in a chain
        "in a < f() < c does f get called twice",
        "No, in a < f() < c the call to f happens once: a chain like x < y <= z is equivalent to x < y and y <= z, "
        "except that y is evaluated only once.",
        "No, in a < f() < c the call to f happens once, but c is always evaluated too, even when a < f() is found "
        "to be false.",
        "Yes, f gets called twice in a < f() < c.",
    ),
    (  # evidence pane: c switches between all chunks and cited chunks only
        "how do I hide the chunks that weren't cited in the evidence list",
        "To hide the chunks that weren't cited in the evidence list, press c in the evidence pane, which switches "
        "between all chunks and cited chunks only.",
        "To hide the chunks that weren't cited in the evidence list, press Ctrl+T in the evidence pane, which "
        "switches between all chunks and cited chunks only.",
        "You can hide the chunks that weren't cited in the evidence list.",
    ),
    (  # sessions: a cancelled or failed answer is not saved
        "if i hit cancel halfway through an answer does the half answer get stored",
        "If you cancel halfway through an answer, the half answer is not stored; a cancelled or failed answer is "
        "not saved, so the session stays as it was before.",
        "If you cancel halfway through an answer, the half answer is saved with the session and marked as "
        "cancelled, so you can resume it later.",
        "Yes, the half answer gets stored when you hit cancel halfway through.",
    ),
    (  # integers: leading zeros in a non-zero decimal number are not allowed
        "Why does 0123 give me a syntax error?",
        "0123 gives you a syntax error because leading zeros in a non-zero decimal number are not allowed, to avoid "
        "confusion with the C-style octal literals Python used before version 3.0.",
        "0123 gives you a syntax error because leading zeros in a non-zero decimal number are allowed only when an "
        "underscore separates them from the other digits.",
        "0123 is indeed a syntax error in Python.",
    ),
    (  # augassign: in-place when possible
        "does += on a list make a new list or change the one I have",
        "Using += on a list changes the one you have: when possible the operation is performed in-place, so rather "
        "than creating a new object and assigning it to the target, the old object is modified.",
        "Using += on a list makes a new list, because an augmented assignment always creates a new object and "
        "assigns that to the target, exactly like x = x + y.",
        "+= on a list makes a new list instead of changing the one you have.",
    ),
    (  # unary: ~x is -(x+1)
        "what does the tilde operator do to an int",
        "The tilde operator yields the bitwise inversion of an int, which is defined as -(x+1).",
        "The tilde operator yields the bitwise inversion of an int, which is defined as -(x-1).",
        "The tilde operator can be applied to an int.",
    ),
    (  # unary: TypeError if the argument does not have the proper type
        "What error do I get for -'abc'?",
        "For -'abc' you get a TypeError, which unary minus raises when its argument does not have the proper type.",
        "For -'abc' you get a ValueError, which unary minus raises when its argument is not a number.",
        "You get no error at all for -'abc'.",
    ),
    (  # import: find and load the module, then define a name in the local namespace
        "does `import foo` actually run the code in foo.py or just locate it",
        "Yes, import foo does more than locate foo.py: it finds the module, loading and initializing it if "
        "necessary, and then defines a name for it in the local namespace.",
        "Yes, import foo does more than locate foo.py: it finds the module and binds the name, but the module's "
        "code only runs the first time one of its attributes is used.",
        "import foo does run the code in foo.py rather than just locating it.",
    ),
    (  # identifiers: unlimited in length, case is significant
        "is there a max length for variable names, and does Foo vs foo matter",
        "As for a max length for variable names and whether Foo vs foo matters, identifiers are unlimited in "
        "length and case is significant.",
        "As for a max length for variable names and whether Foo vs foo matters, identifiers are limited to 255 "
        "characters and case is ignored.",
        "Variable names have a max length, and Foo vs foo does not matter.",
    ),
    (  # attribute references: __getattr__ as a fallback
        "Does __getattr__ get used for every attribute lookup or only the missing ones?",
        "__getattr__ only gets used for the missing ones: __getattribute__ is called first, and if it raises "
        "AttributeError and the object has a __getattr__ method, that method is called as a fallback.",
        "__getattr__ only gets used for the missing ones, being called as a fallback whenever __getattribute__ "
        "returns None for the attribute.",
        "__getattr__ is used only for missing attributes, not for every attribute lookup.",
    ),
    (  # None: returned by functions without an explicit return; one singleton
        "what comes out of calling a function that never says return, and is it always the same object",
        "Calling a function that never says return gives you None, and it is always the same object: there is "
        "exactly one null object, and type(None)() produces the same singleton.",
        "Calling a function that never says return gives you None, but not always the same object, since "
        "type(None)() produces a new null object each time.",
        "Calling a function that never says return gives back a different object each time.",
    ),
    (  # dynamic features: free variables resolved at runtime
        "if I change a global after defining a function that reads it, which value does the function see?",
        "If you change a global after defining a function that reads it, the function sees the new value, because "
        "name resolution of free variables occurs at runtime, not at compile time.",
        "If you change a global after defining a function that reads it, the function sees the old value, because "
        "free variables are resolved when the def statement is compiled.",
        "A function that reads a global sees the changed value, not the one from when it was defined.",
    ),
    (  # citation policy: citing an empty list is a valid declaration
        "what if the model cites nothing at all, does that count",
        "If the model cites nothing at all, that still counts: citing an empty list is a valid declaration, and it "
        "records the answer as ungrounded.",
        "If the model cites nothing at all, that does not count as a declaration, and the question is recorded as "
        "a violation.",
        "No, the model citing nothing at all does not count.",
    ),
    (  # citation policy: the redirect does not ask to change the answer
        "when the model forgets to cite, does haiku-tui make it redo the answer?",
        "When the model forgets to cite, haiku-tui doesn't make it redo the answer; it asks the model once to "
        "record what grounded the answer it already gave, not to change it.",
        "When the model forgets to cite, haiku-tui makes it redo the answer, asking up to three times for a new "
        "answer that carries citations.",
        "No, haiku-tui does not make the model redo the answer when it forgets to cite.",
    ),
    (  # models: extractive needs no network, no API key and no weights
        "can i try it on a plane with no wifi and no openai account",
        "Yes, you can try it on a plane with no wifi and no OpenAI account, since the default extractive model is "
        "built in and needs no network, no API key and no weights.",
        "Yes, you can try it on a plane with no wifi and no OpenAI account, as long as you downloaded the "
        "extractive model's weights while you were still online.",
        "No, it can't be tried on a plane without wifi or an OpenAI account.",
    ),
    (  # models: HAIKU_TUI_MODEL sets the model when --model is not given
        "I'm tired of typing --model every time. Any way to set a default?",
        "A default, so you don't have to type --model every time, comes from the HAIKU_TUI_MODEL environment "
        "variable, which sets the model when --model is not given.",
        "A default, so you don't have to type --model every time, comes from the HAIKU_TUI_MODEL environment "
        "variable, which takes priority over --model when both are given.",
        "There is a way to set a default so you don't have to type --model every time.",
    ),
    (  # Ellipsis: one object, written as Ellipsis or ...
        "is ... in python an actual object or just syntax",
        "The ... you asked about is an actual object, the single built-in Ellipsis singleton, and it can be written "
        "either as ... or as Ellipsis.",
        "The ... you asked about is an actual object, but a new one each time, and type(Ellipsis)() makes a fresh "
        "copy rather than returning the singleton.",
        "... in Python is just syntax, not an actual object.",
    ),
]

QUESTION_TEST: list[QuestionEntry] = [
    (  # continue: next cycle of the nearest enclosing loop
        "skip the rest of this loop iteration and go to the next one",
        "continue is what skips the rest of this loop iteration and goes to the next one: it continues with the "
        "next cycle of the nearest enclosing loop.",
        "continue is what skips the rest of this loop iteration and goes to the next one, restarting the outermost "
        "enclosing loop from its first item.",
        "You can skip the rest of a loop iteration and go on to the next one.",
    ),
    (  # break: finally runs before leaving the loop
        "If I break out of a loop from inside a try, does my finally still happen?",
        "Yes, if you break out of a loop from inside a try, your finally still happens; the finally clause is "
        "executed before really leaving the loop.",
        "Yes, if you break out of a loop from inside a try, your finally still happens, but only after the loop's "
        "else clause has run.",
        "No, the finally doesn't happen when you break out of a loop from inside a try.",
    ),
    (  # del: NameError for an unbound name
        "can i del a variable that was never assigned without an error",
        "No, you can't del a variable that was never assigned without an error: if the name is unbound, a "
        "NameError exception will be raised.",
        "No, you can't del a variable that was never assigned without an error: deleting an unbound name raises a "
        "KeyError from the local namespace.",
        "No, you can't del a variable that was never assigned without getting an error.",
    ),
    (  # global: impossible to assign to a global without it
        "my function sets count = 0 but the module-level count never changes, why",
        "Your function's count = 0 never changes the module-level count because it is impossible to assign to a "
        "global variable without declaring it with global.",
        "Your function's count = 0 never changes the module-level count because module-level variables are "
        "read-only inside functions, even when they are declared global.",
        "Setting count = 0 inside a function does change the module-level count.",
    ),
    (  # nonlocal: nearest enclosing scope excluding globals
        "inner function needs to update a counter that lives in the outer function, not a global",
        "For an inner function that has to update a counter living in the outer function rather than a global, use "
        "nonlocal, which makes the names refer to previously bound variables in the nearest enclosing scope "
        "excluding globals.",
        "For an inner function that has to update a counter living in the outer function rather than a global, use "
        "nonlocal, which makes the names refer to variables in the outermost enclosing scope, globals included.",
        "An inner function can update a counter that lives in the outer function rather than in a global.",
    ),
    (  # return: None is substituted
        "my function just says return with nothing after it, what does the caller get?",
        "When your function just says return with nothing after it, the caller gets None, which is substituted "
        "when no expression list is present.",
        "When your function just says return with nothing after it, the caller gets an empty tuple, since an empty "
        "expression list evaluates to ().",
        "The caller gets an error when a function says return with nothing after it.",
    ),
    (  # return: the value becomes StopIteration.value
        "Can I get at the value a generator hands back with return x?",
        "Yes, you can get at the value a generator hands back with return x: it is used to construct the "
        "StopIteration that is raised and becomes its StopIteration.value attribute.",
        "Yes, you can get at the value a generator hands back with return x: it becomes the args attribute of the "
        "GeneratorExit that is raised.",
        "Yes, you can get at the value a generator hands back with return x.",
    ),
    (  # raise: RuntimeError without an active exception
        "what does raise on its own do when nothing is being handled",
        "raise on its own, when nothing is being handled, raises a RuntimeError indicating that this is an error, "
        "as there is no active exception to re-raise.",
        "raise on its own, when nothing is being handled, silently does nothing, as there is no active exception "
        "to re-raise.",
        "raise on its own is fine to use when nothing is being handled.",
    ),
    (  # assert: raise AssertionError(expression2)
        "does the message after the comma in assert end up in the error",
        "Yes, the message after the comma in assert ends up in the error, because assert expression1, expression2 "
        "is equivalent to if __debug__: if not expression1: raise AssertionError(expression2).",
        "Yes, the message after the comma in assert ends up in the error, and it is evaluated every time, even "
        "when the condition is true.",
        "Yes, the message after the comma in assert ends up in the error.",
    ),
    (  # while: else runs when the expression is false, not after break
        "When exactly does the else block under a while loop get executed?",
        "The else block under a while loop gets executed when the expression is false, which may be the first time "
        "it is tested, but not when a break terminates the loop.",
        "The else block under a while loop gets executed after every pass in which the expression is still true, "
        "and also after a break terminates the loop.",
        "The else block under a while loop always gets executed.",
    ),
    (  # for: assigning the loop variable does not affect the loop
        "i set i = 5 inside my for i in range loop, why does it keep counting normally",
        "Setting i = 5 inside your for i in range loop doesn't stop it counting normally, since the for-loop "
        "overwrites i with the next index in the range on every pass.",
        "Setting i = 5 inside your for i in range loop doesn't stop it counting normally, since the loop variable "
        "is a read-only copy and assignments to it are ignored.",
        "Yes, the loop keeps counting normally even after you set i = 5 inside it.",
    ),
    (  # if: selects exactly one of the suites
        "if two of my elif conditions are both true do both branches run",
        "No, if two of your elif conditions are both true, only the first one's branch runs: the if statement "
        "evaluates the expressions one by one until one is true, and no other part is executed or evaluated.",
        "No, if two of your elif conditions are both true, only the last one's branch runs, since later conditions "
        "override earlier ones.",
        "Yes, both branches run if two of your elif conditions are true.",
    ),
    (  # lambda: behaves like a function object defined with def
        "Is a lambda any different from a normal def?",
        "A lambda is not really different from a normal def, as the unnamed object it yields behaves like a "
        "function object defined with def whose body is return expression.",
        "A lambda is different from a normal def, as the object it yields is not a function object but a lighter "
        "callable that cannot take default arguments.",
        "A lambda is not really any different from a normal def.",
    ),
    (  # yield: makes the definition create a generator function
        "I added one yield at the bottom of my function and now calling it doesn't run anything??",
        "Adding one yield at the bottom of your function is why calling it doesn't run anything: using yield in a "
        "function definition is enough to make it create a generator function instead of a normal one.",
        "Adding one yield at the bottom of your function is why calling it doesn't run anything: a function with "
        "yield at the end only runs once it is awaited, like a coroutine function.",
        "One yield at the bottom of a function does not change what calling it does.",
    ),
    (  # await: only inside a coroutine function
        "can i use await inside a regular def",
        "No, you can't use await inside a regular def, since it suspends the execution of a coroutine on an "
        "awaitable object and can only be used inside a coroutine function.",
        "No, you can't use await inside a regular def unless it is decorated, and there await blocks the whole "
        "thread until the awaitable object finishes.",
        "No, await can't be used inside a regular def.",
    ),
    (  # with: __exit__ always called once __enter__ returned
        "my context manager opened fine but the `as` part threw, will cleanup still happen",
        "Yes, if your context manager opened fine but the as part threw, cleanup still happens: once __enter__ "
        "returns without an error, __exit__ will always be called, and an error in the assignment to the target "
        "is treated like an error in the suite.",
        "Yes, if your context manager opened fine but the as part threw, cleanup still happens, though __exit__ "
        "gets three None arguments because the error came before the suite.",
        "No, cleanup won't happen if the as part threw after the context manager opened fine.",
    ),
    (  # context managers: typical uses
        "Is a context manager a good way to make sure a file gets closed?",
        "Yes, a context manager is a good way to make sure a file gets closed; typical uses include closing opened "
        "files, locking and unlocking resources, and saving and restoring global state.",
        "Yes, a context manager is a good way to make sure a file gets closed, but only through a with statement, "
        "since its methods cannot be invoked directly.",
        "Yes, a context manager is a good way to make sure a file gets closed.",
    ),
    (  # try: an expression-less except must be last
        "where should a catch-all except go",
        "A catch-all except should go last, because an expression-less except clause, if present, must be last, "
        "and it matches any exception.",
        "A catch-all except should go first, because an expression-less except clause must come before the others "
        "so that it can match any exception.",
        "A catch-all except can go anywhere among the handlers.",
    ),
    (  # in: the empty string is a substring of any string
        "does '' in 'hello' give True or False",
        "'' in 'hello' gives True, because empty strings are always considered to be a substring of any other string.",
        "'' in 'hello' gives False, because an empty string has no characters to find in any other string.",
        "'' in 'hello' gives True.",
    ),
    (  # truth: the built-in objects considered false
        "which values count as false in an if",
        "The values that count as false in an if are None and False, zero of any numeric type such as 0, 0.0 and "
        "0j, and empty sequences and collections such as '', (), [], {}, set() and range(0).",
        "The values that count as false in an if are None and False, zero of any numeric type and the empty "
        "string, but an empty list or dict still counts as true.",
        "No values count as false in an if except False itself.",
    ),
    (  # booleans: and/or return the last evaluated argument
        "why does name or 'guest' give me a string instead of True",
        "name or 'guest' gives you a string instead of True because or does not restrict what it returns to True "
        "and False but returns the last evaluated argument.",
        "name or 'guest' gives you a string instead of True because or converts its result with str() whenever "
        "either operand is a string.",
        "name or 'guest' does give you a string rather than True.",
    ),
    (  # power: -1**2 results in -1
        "Why is -2**2 negative?",
        "-2**2 is negative because the power operator binds more tightly than a unary operator on its left, so the "
        "** is done first, just as -1**2 results in -1.",
        "-2**2 is negative because, in an unparenthesized sequence of power and unary operators, the operators are "
        "evaluated from left to right.",
        "-2**2 is positive in Python.",
    ),
    (  # power: 0.0 to a negative power is a ZeroDivisionError
        "what error is 0.0 ** -1 going to throw",
        "0.0 ** -1 is going to throw a ZeroDivisionError, as raising 0.0 to a negative power does.",
        "0.0 ** -1 is going to throw a ValueError, as raising 0.0 to a negative power did in earlier versions.",
        "0.0 ** -1 is going to throw an error.",
    ),
    (  # shifting: left shift is multiplication with pow(2, n)
        "Is shifting left by 3 the same as multiplying by 8?",
        "Yes, shifting left by 3 is the same as multiplying by 8, since a left shift by n bits is defined as "
        "multiplication with pow(2,n).",
        "Yes, shifting left by 3 is the same as multiplying by 8, since a left shift by n bits is defined as "
        "multiplication with pow(n,2).",
        "No, shifting left by 3 is not the same as multiplying by 8.",
    ),
    (  # integers: underscores group digits
        "can I write a million as 1_000_000",
        "Yes, you can write a million as 1_000_000, as underscores are ignored for the numeric value and can be "
        "used to group digits for readability, one between digits.",
        "Yes, you can write a million as 1_000_000, and you may also put several underscores in a row or one at "
        "the very end.",
        "Yes, a million can be written as 1_000_000.",
    ),
    (  # floating: always radix 10
        "does a leading 0 make a float like 077e010 octal?",
        "No, a leading 0 does not make a float like 077e010 octal: the integer and exponent parts are always "
        "interpreted using radix 10, so it denotes the same number as 77e10.",
        "No, a leading 0 does not make a float like 077e010 octal, because such a literal is a syntax error, like "
        "leading zeros in an integer.",
        "Yes, a leading 0 makes a float like 077e010 octal.",
    ),
    (  # class: no inheritance list means object
        "whats the difference between class Foo: and class Foo(object):",
        "There is no difference between class Foo: and class Foo(object):, because classes without an inheritance "
        "list inherit, by default, from the base class object.",
        "The difference between class Foo: and class Foo(object): is that only the second inherits from object, "
        "while the first has no base class at all.",
        "There's no difference between class Foo: and class Foo(object):.",
    ),
    (  # typesmapping: equal values index the same entry
        "if I do d[1] = 'a' and then d[True] = 'b', how many keys do i have",
        "If you do d[1] = 'a' and then d[True] = 'b', you have one key, since values that compare equal, such as "
        "1, 1.0 and True, index the same dictionary entry.",
        "If you do d[1] = 'a' and then d[True] = 'b', you have two keys, since 1 and True have different types and "
        "dictionary keys are compared by identity.",
        "You have two keys after d[1] = 'a' and then d[True] = 'b'.",
    ),
    (  # typesmapping: unhashable values may not be keys
        "why can't i use a list as a key in my dict",
        "You can't use a list as a key in your dict because it isn't hashable: values containing lists, "
        "dictionaries or other mutable types may not be used as keys.",
        "You can't use a list as a key in your dict because it isn't hashable, though a tuple of lists is fine as "
        "a key since tuples are immutable.",
        "A list can't be used as a key in a dict.",
    ),
    (  # string methods: casefold for caseless matching
        "best way to compare two strings ignoring case, including german ß",
        "To compare two strings ignoring case, German ß included, use str.casefold(), which returns a casefolded "
        "copy meant for caseless matching and turns 'ß' into 'ss', which lower() leaves alone.",
        "To compare two strings ignoring case, German ß included, use str.lower(), which converts 'ß' into 'ss' "
        "and removes all case distinctions in the string.",
        "Two strings can't be compared ignoring case when they contain a German ß.",
    ),
    (  # format strings: escape a brace by doubling
        "how do i print a literal { with .format()",
        "For a literal { with .format(), double it: a brace character in the literal text can be escaped by "
        "doubling, as {{ and }}.",
        "For a literal { with .format(), put a backslash before it, as \\{, since text outside the replacement "
        "fields is copied unchanged.",
        "You can print a literal { with .format().",
    ),
    (  # exceptions: the termination model
        "can an except block fix the problem and jump back to retry the line that failed",
        "No, an except block can't fix the problem and jump back to retry the line that failed: Python uses the "
        "termination model, where a handler can find out what happened and continue at an outer level but cannot "
        "repair the cause and retry.",
        "No, an except block can't fix the problem and jump back to retry the line that failed unless it calls the "
        "retry() method that every exception object has.",
        "Yes, an except block can fix the problem and jump back to retry the line that failed.",
    ),
    (  # execmodel: module, function body and class definition are blocks
        "Is a class body its own block like a function body is?",
        "Yes, a class body is its own block like a function body is; the blocks are a module, a function body and "
        "a class definition.",
        "Yes, a class body is its own block like a function body is, and so is the body of every for loop and if "
        "statement.",
        "Yes, a class body is its own block, just like a function body.",
    ),
    (  # evidence: a retained chunk is sent in full
        "does the model still see the full text of something it cited two questions ago",
        "Yes, the model still sees the full text of something it cited two questions ago: such a chunk is retained, "
        "and later requests still send its text in full.",
        "Yes, the model still sees the full text of something it cited two questions ago only if it is cited again; "
        "otherwise later requests carry a short receipt.",
        "No, the model no longer sees the full text of something it cited two questions ago.",
    ),
    (  # compaction: rewrites only the request; the saved conversation keeps everything
        "will compaction delete stuff from my saved chat history?",
        "No, compaction won't delete stuff from your saved chat history, because it rewrites only the request sent "
        "to the model, and the saved conversation keeps everything.",
        "No, compaction won't delete stuff from your saved chat history, but it does replace the uncited evidence "
        "stored there with short receipts.",
        "No, compaction won't delete anything from your saved chat history.",
    ),
    (  # sessions: Ctrl+O opens the sessions screen, newest first
        "how do I get back to a conversation from yesterday",
        "To get back to a conversation from yesterday, press Ctrl+O to open the sessions screen, which lists every "
        "saved session, newest first.",
        "To get back to a conversation from yesterday, press Ctrl+S to open the sessions screen, which lists every "
        "saved session, oldest first.",
        "You can't get back to a conversation from yesterday.",
    ),
    (  # sessions: a newer version's session is refused
        "can an older haiku-tui open a session a newer version saved",
        "No, an older haiku-tui can't open a session a newer version saved; such a session is refused with a clear "
        "error and is never overwritten.",
        "No, an older haiku-tui can't open a session a newer version saved, so it deletes that session and starts "
        "a fresh one with the same title.",
        "No, an older haiku-tui can't open a session a newer version saved.",
    ),
]
