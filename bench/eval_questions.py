"""Retrieval and answer evaluation questions over three corpora, written as a user would ask.

Each question names the document that answers it (file stem; any of several counts) and a phrase
of the sentence that answers it (matched case- and whitespace-insensitively). ``split`` is
``"dev"`` and ``"dev2"`` (used while tuning), ``"test"`` (reported only, never tuned on), ``"fresh"``
(a second held-out set written on 2026-12-01 before that session tuned anything), ``"fresh2"``
(a third, written later that day before the next session tuned anything) or ``"dev3"`` (60
questions written that afternoon by helper H4 for issue 11, from reading the documents only, before
anything was searched, asked or measured with them, while other helpers changed the ranking and the
extractive model; it served once as their unseen check — flat: 0.817 / 0.683 / 0.717 / 0.300 before,
0.817 / 0.691 / 0.717 / 0.300 after — and then joined tuning: ``TUNING``). All of them were
written before any tuning, from reading the documents, in words a user would use rather than
the document's own where that is natural.

Corpora: ``pydoc`` (``bench/corpus.py``), ``guide`` (``haiku_tui/guide/``), ``stdlib``
(``bench/corpus_stdlib.py``: the docstrings of 29 standard-library modules), ``readmes``
(``bench/corpus_readmes.py``: the READMEs installed packages ship in their wheel metadata),
``readmes2`` (the same for twelve runtime dependencies of haiku-tui).
"""

from __future__ import annotations

from typing import NamedTuple


class Question(NamedTuple):
    split: str
    corpus: str
    question: str
    docs: frozenset[str]
    phrase: str


def _q(split: str, corpus: str, question: str, docs: str, phrase: str) -> Question:
    return Question(split, corpus, question, frozenset(docs.split()), phrase)


QUESTIONS: list[Question] = [
    # ---------------------------------------------------------------- pydoc: test
    _q("test", "pydoc", "does cleanup code run even if an error happens", "try exceptions", "clause of such a statement can be used to specify cleanup"),
    _q("test", "pydoc", "when are the default arguments of a function computed", "function", "Default parameter values are evaluated from left to right"),
    _q("test", "pydoc", "is -2**2 negative or positive", "power", "The power operator binds more tightly than unary operators"),
    _q("test", "pydoc", "which method gives the developer friendly text of an object", "customization specialnames", "Called by the \"repr()\" built-in function"),
    _q("test", "pydoc", "which values does python treat as false", "truth", "constants defined to be false"),
    _q("test", "pydoc", "how do I stop the innermost loop right away", "break", "It terminates the nearest enclosing loop"),
    _q("test", "pydoc", "how do I skip the rest of this iteration", "continue", "It continues with the next cycle of the nearest enclosing loop"),
    _q("test", "pydoc", "how can I look up a key in a dict and get something else back if it is missing", "typesmapping", "get(key[, default])"),
    _q("test", "pydoc", "can I write 1 < x < 10 in one go", "comparisons", "Comparisons can be chained arbitrarily"),
    _q("test", "pydoc", "how do I make a small function without a name", "lambda", "anonymous functions"),
    _q("test", "pydoc", "how do I assign to a module level variable from inside a function", "global", "statement is a declaration which holds for the entire"),
    _q("test", "pydoc", "how do I change a variable of the outer function from an inner function", "nonlocal", "previously bound variables in the nearest enclosing scope"),
    _q("test", "pydoc", "what happens when I remove a variable name", "del", "Deletion of a name removes the binding of that name"),
    _q("test", "pydoc", "how do I make a function that produces values lazily one at a time", "yield", "to create a generator function instead of a normal"),
    _q("test", "pydoc", "how do I attach the original error when raising a new one", "raise", "clause is used for exception chaining"),
    _q("test", "pydoc", "how do I add sanity checks for debugging", "assert", "Assert statements are a convenient way to insert debugging assertions"),
    _q("test", "pydoc", "how do I import a sibling module inside my package", "import", "relative import"),
    _q("test", "pydoc", "what is the order in which operators are applied", "operator-summary", "summarizes the operator precedence"),
    _q("test", "pydoc", "how do I make instances of my class usable like functions", "callable-types specialnames", "object.__call__(self[, args...])"),
    _q("test", "pydoc", "how do I pad a number with leading zeros when formatting", "formatstrings", "sign-aware zero-padding"),
    _q("test", "pydoc", "how do I sort a list by a custom criterion", "typesseq", "sort(*, key=None, reverse=False)"),
    _q("test", "pydoc", "what does a function give back if it has no return statement", "bltin-null-object", "returned by functions that don"),
    # ---------------------------------------------------------------- pydoc: dev
    _q("dev", "pydoc", "what does the else part of a for loop do", "for", "clause, if present, is executed, and the loop"),
    _q("dev", "pydoc", "how do I get part of a list between two positions", "slicings", "A slicing selects a range of items in a sequence"),
    _q("dev", "pydoc", "is there a statement that does nothing", "pass", "is a null operation"),
    _q("dev", "pydoc", "how do I cut whitespace off both ends of a string", "string-methods", "with the leading and trailing"),
    _q("dev", "pydoc", "how do I check whether an element is in a collection", "in comparisons", "test for membership"),
    _q("dev", "pydoc", "what does += do exactly", "augassign", "An augmented assignment evaluates the target"),
    _q("dev", "pydoc", "how do I step through my program to find a bug", "debugger", "supports setting (conditional) breakpoints"),
    _q("dev", "pydoc", "how do I loop over an asynchronous iterator", "async", "statement allows convenient iteration over"),
    _q("dev", "pydoc", "what does return inside a generator do", "return", "generator is done and will cause"),
    _q("dev", "pydoc", "how do I write several conditions with elif", "if", "It selects exactly one of the suites"),
    _q("dev", "pydoc", "what is the three dots object", "bltin-ellipsis-object", "There is exactly one ellipsis object"),
    _q("dev", "pydoc", "how do strings with r in front treat backslashes", "strings", "such strings are called *raw strings*"),
    _q("dev", "pydoc", "how do I unpack the rest of a list into one variable", "assignment", "called a “starred” target"),
    _q("dev", "pydoc", "can I put underscores in big numbers to read them", "integers", "One underscore can occur between digits"),
    # ---------------------------------------------------------------- guide: test
    _q("test", "guide", "do I need an internet connection or a key to start", "01-getting-started", "A fresh install needs no network, no API key and no model weights"),
    _q("test", "guide", "where does the app store its data on linux", "01-getting-started", "keeps its files in the platform data directory"),
    _q("test", "guide", "how do I stop an answer that is taking too long", "02-asking-questions 08-keyboard", "Press Esc while an answer is running to cancel it"),
    _q("test", "guide", "how do I mark that a source does not back up the answer", "02-asking-questions", "press s if it supports the answer, x if it does not support the answer"),
    _q("test", "guide", "what does a grey receipt in the evidence list mean", "03-evidence-and-compaction", "A receipted chunk was retrieved for an earlier question but never cited"),
    _q("test", "guide", "why do my requests keep getting bigger", "03-evidence-and-compaction", "so requests grow turn after turn"),
    _q("test", "guide", "what happens if the model forgets to say what it based the answer on", "04-citation-policy", "the model is asked once to record what grounded the answer"),
    _q("test", "guide", "is hello checked by the policy after something was cited", "04-citation-policy", "later turns are enforced too, a greeting included"),
    _q("test", "guide", "can I undo deleting a conversation", "05-sessions", "because deleting cannot be undone"),
    _q("test", "guide", "how do I save a conversation as markdown", "05-sessions", "on the sessions screen to export the highlighted session as Markdown"),
    _q("test", "guide", "which file types can I load", "06-knowledge-base", "reads Markdown (`.md`), plain text (`.txt`)"),
    _q("test", "guide", "my scanned pdf is not imported, why", "06-knowledge-base", "PDF files need a text layer"),
    _q("test", "guide", "how do I use a model running on my own machine", "07-models", "pass its OpenAI-compatible address with `--base-url`"),
    _q("test", "guide", "how do I make a pane full screen", "08-keyboard", "Ctrl+F maximises the focused pane"),
    # ---------------------------------------------------------------- guide: dev
    _q("dev", "guide", "how do I try it without setting anything up", "01-getting-started", "To try it without any setup, run `haiku-tui demo`"),
    _q("dev", "guide", "how do I jump to a source of the answer", "02-asking-questions", "Press a digit key such as 1 in the conversation pane"),
    _q("dev", "guide", "does shrinking old evidence change my saved chat", "03-evidence-and-compaction", "Compaction rewrites only the request sent to the model"),
    _q("dev", "guide", "does removing a document delete my file", "06-knowledge-base", "the file on disk is not touched"),
    _q("dev", "guide", "where do I put my openai key", "07-models", "API keys are read from the provider's usual environment variable"),
    _q("dev", "guide", "how do I hide the evidence list", "08-keyboard 03-evidence-and-compaction", "Ctrl+T shows or hides the evidence pane"),
    _q("dev", "guide", "can several people use the same document store", "06-knowledge-base", "A team can share one knowledge base"),
    _q("dev", "guide", "are my api keys stored with the conversation", "05-sessions 07-models", "API keys are never"),
    # ---------------------------------------------------------------- stdlib: test
    _q("test", "stdlib", "how do I delete a folder with everything in it", "shutil", "Recursively delete a directory tree"),
    _q("test", "stdlib", "how do I duplicate a whole folder", "shutil", "Recursively copy a directory tree"),
    _q("test", "stdlib", "how do I pretty print json with nice indentation", "json", "If ``indent`` is a non-negative integer"),
    _q("test", "stdlib", "how do I run a command and get what it printed", "subprocess", "check_output(...): Same as check_call() but returns the contents of"),
    _q("test", "stdlib", "how do I cache the results of an expensive function", "functools", "Sometimes called \"memoize\""),
    _q("test", "stdlib", "how do I remove the indentation from a multi-line string", "textwrap", "Remove any common leading whitespace from every line"),
    _q("test", "stdlib", "how do I randomly reorder a list", "random", "Shuffle list x in place"),
    _q("test", "stdlib", "how do I make a secure random token for a password reset link", "secrets", "Generate cryptographically strong pseudo-random numbers"),
    _q("test", "stdlib", "how do I find the middle value of some numbers", "statistics", "Median (middle value) of data"),
    _q("test", "stdlib", "how do I keep getting the smallest item from a priority queue", "heapq", "pops the smallest item from the heap"),
    _q("test", "stdlib", "how do I generate a unique id", "uuid", "If all you want is a unique ID, you should probably call uuid1() or uuid4()"),
    _q("test", "stdlib", "how do I copy an object including all nested objects", "copy", "make a deep copy of y"),
    _q("test", "stdlib", "how do I find the word most similar to a misspelled one", "difflib", "return list of the best \"good enough\" matches"),
    _q("test", "stdlib", "how do I check if a year has 366 days", "calendar", "Return True for leap years"),
    _q("test", "stdlib", "how do I find files in all subfolders matching a pattern", "glob", "the pattern '**' will match any files and"),
    _q("test", "stdlib", "how do I turn a saved byte string back into a python object", "pickle", "loads(bytes) -> object"),
    # ---------------------------------------------------------------- stdlib: dev
    _q("dev", "stdlib", "how do I get a scratch directory that is removed afterwards", "tempfile", "can be used as a context manager"),
    _q("dev", "stdlib", "how do I make the keys come out alphabetically in json", "json", "sort_keys=True"),
    _q("dev", "stdlib", "how do I stop a child process that hangs too long", "subprocess", "raised when the timeout expires"),
    _q("dev", "stdlib", "how do I join several lists into one iterator", "itertools", "chain(p, q, ...) --> p0, p1, ... plast, q0, q1, ..."),
    _q("dev", "stdlib", "how do I measure how long a small snippet takes", "timeit", "avoids a number of common traps for measuring execution"),
    _q("dev", "stdlib", "how do I compute the spread of a sample", "statistics", "Sample standard deviation of data"),
    _q("dev", "stdlib", "how do I compute a checksum of a file's bytes", "hashlib", "sha256()"),
    _q("dev", "stdlib", "how do I match file names with wildcards like *.txt", "fnmatch", "Filename matching with shell patterns"),
    _q("dev", "stdlib", "how do I safely quote an argument for a shell command", "shlex", "Return a shell-escaped"),
    _q("dev", "stdlib", "how do I set how hard the compression works", "gzip", "compresslevel sets the compression level"),
    # ---------------------------------------------------------------- fresh (held out, 2026-12-01)
    # Written before any tuning of this session, from reading the documents; never tuned on.
    _q("fresh", "pydoc", "why does my attribute with two leading underscores get a different name", "atom-identifiers", "Private names are transformed to a longer form"),
    _q("fresh", "pydoc", "how do I write a string where backslashes are not escapes", "strings", "treat backslashes as literal characters"),
    _q("fresh", "pydoc", "can I write a million as 1_000_000", "integers", "Underscores are ignored for determining the numeric value"),
    _q("fresh", "pydoc", "what does // give for two whole numbers", "binary", "floor division of integers results in an integer"),
    _q("fresh", "pydoc", "how can a dict subclass provide a value for keys that are absent", "typesmapping", "subclass of dict defines a method"),
    _q("fresh", "pydoc", "does a dict remember the order I put things in", "typesmapping", "Dictionaries preserve insertion order"),
    _q("fresh", "pydoc", "what is shifting bits to the left the same as", "shifting", "bits is defined as multiplication with"),
    _q("fresh", "pydoc", "which method runs when an object is about to be garbage collected", "customization specialnames", "Called when the instance is about to be destroyed"),
    _q("fresh", "pydoc", "how do I pause my program and step through it line by line", "debugger", "You can then step through the code following this statement"),
    _q("fresh", "pydoc", "how does python pick one branch among if elif else", "if", "It selects exactly one of the suites"),
    _q("fresh", "guide", "can I continue an old chat after closing the app", "05-sessions", "continue the conversation where it stopped"),
    _q("fresh", "guide", "how do I give a conversation a different name", "05-sessions", "to rename the highlighted session"),
    _q("fresh", "guide", "how do I bring a conversation over from another computer", "05-sessions", "to import a JSON export"),
    _q("fresh", "guide", "which setting wins if I choose the model in several places", "07-models", "The order is: `--model`, then `HAIKU_TUI_MODEL`"),
    _q("fresh", "guide", "does the built-in model make up its own text", "07-models", "it does not write new text, it quotes your documents"),
    _q("fresh", "guide", "how do I make the index follow a directory while I edit files", "06-knowledge-base", "run `haiku-tui watch PATH`"),
    _q("fresh", "guide", "my database got corrupted, what can I do", "06-knowledge-base", "moves the damaged knowledge base aside"),
    _q("fresh", "guide", "I only want keyword search without vectors", "06-knowledge-base", "`--embedder none` keeps a new knowledge base full-text only"),
    _q("fresh", "guide", "how do I see only the sources that were actually used", "03-evidence-and-compaction", "switch between all chunks and cited chunks only"),
    _q("fresh", "stdlib", "how do I strip the shared indentation from a multi-line string", "textwrap", "Remove any common leading whitespace from every line"),
    _q("fresh", "stdlib", "how do I add a value to an ordered list so it stays ordered", "bisect", "Insert item x in list a, and keep it sorted"),
    _q("fresh", "stdlib", "how do I delete a folder with everything inside it", "shutil", "Recursively delete a directory tree"),
    _q("fresh", "stdlib", "how do I find where a program is installed", "shutil", "Given a command, mode, and a PATH string"),
    _q("fresh", "stdlib", "how do I encode bytes so they can go in a web address", "base64", "Encode bytes using the URL- and filesystem-safe Base64 alphabet"),
    _q("fresh", "stdlib", "how do I remember the results of an expensive function", "functools", "Least-recently-used cache decorator"),
    _q("fresh", "stdlib", "how do I work out which separator a spreadsheet export uses", "csv", "the format of a CSV file (i.e. delimiter, quotechar)"),
    _q("fresh", "stdlib", "how can I tell whether a file is an archive I can unzip", "zipfile", "Quickly see if a file is a ZIP file"),
    _q("fresh", "stdlib", "how do I fix some arguments of a function ahead of time", "functools", "new function with partial application"),
    _q("fresh", "readmes", "will loading my settings file replace variables already set in the shell", "python-dotenv", "Pass `override=True` to override existing variables"),
    _q("fresh", "readmes", "how do I read a .env file into a dict without changing os.environ", "python-dotenv", "works more or less the same way as `load_dotenv`"),
    _q("fresh", "readmes", "what is the billion laughs attack", "defusedxml", "also known as exponential entity expansion"),
    _q("fresh", "readmes", "how do I turn a dictionary back into xml", "xmltodict", "using the `unparse()` method"),
    _q("fresh", "readmes", "how do I process a huge xml dump without loading it all into memory", "xmltodict", "streaming mode with a small memory footprint"),
    _q("fresh", "readmes", "what happens in my test if the code calls a url I did not mock", "responses", "fetch a url which doesn't hit a match"),
    _q("fresh", "readmes", "how do I move a progress bar forward by hand instead of wrapping a loop", "tqdm", "Manual control of ``tqdm()`` updates"),
    _q("fresh", "readmes", "how do I send heartbeats so the event stream connection stays open", "sse-starlette", "Ping every 10 seconds"),
    _q("fresh", "readmes", "can I use the list as a dictionary key", "frozenlist", "FrozenList is also hashable, but only when frozen"),
    _q("fresh", "readmes", "can I turn a word document into markdown", "mammoth", "Markdown support is deprecated"),
    _q("fresh", "readmes", "what happens to the pictures in my docx when I convert it", "mammoth", "By default, images are included inline in the output HTML"),
    # ---------------------------------------------------------------- fresh2 (held out, 2026-12-01, helper R second session)
    # Written before any tuning of that session, from reading the documents; never tuned on.
    # ``readmes2`` is a fifth corpus (``bench/corpus_readmes.py --second``).
    _q("fresh2", "pydoc", "what does the underscore variable hold in the interactive shell", "id-classes", "makes the result of the last evaluation available in the variable"),
    _q("fresh2", "pydoc", "how do I write a complex number that has a real part", "imaginary", "To create a complex number with a nonzero real part, add a floating point number to it"),
    _q("fresh2", "pydoc", "what type do I get when I add an int and a float", "conversions", "if either argument is a floating point number, the other is converted to floating point"),
    _q("fresh2", "pydoc", "how can my exit method swallow an error raised inside the with block", "context-managers", "it should return a true value"),
    _q("fresh2", "pydoc", "does the else of a while loop run if I break out of it", "while", "terminates the loop without executing the"),
    _q("fresh2", "pydoc", "if I write the same key twice in a dict literal which value wins", "dict", "the final dictionary's value for that key will be the last one given"),
    _q("fresh2", "pydoc", "how do I make a tuple with just one element", "exprlists", "The trailing comma is required only to create a single tuple"),
    _q("fresh2", "pydoc", "does x or y give back a bool", "booleans", "if *x* is true, its value is returned"),
    _q("fresh2", "pydoc", "what number does ~x give", "unary", "The bitwise inversion of \"x\" is defined as"),
    _q("fresh2", "guide", "how do I write a question over several lines", "02-asking-questions 08-keyboard", "Shift+Enter inserts a new line instead of sending"),
    _q("fresh2", "guide", "will the model be nagged over and over to cite something", "04-citation-policy", "The model is never asked more than once per question"),
    _q("fresh2", "guide", "can I keep the app's files somewhere else", "01-getting-started", "moves that directory"),
    _q("fresh2", "guide", "do questions get slower in a very long chat", "03-evidence-and-compaction", "So a question costs the same in a session of a thousand questions as in a new one"),
    _q("fresh2", "guide", "how do I switch off the grounding rule for one question in the terminal", "04-citation-policy", "run `haiku-tui ask --no-policy`"),
    _q("fresh2", "stdlib", "how do I pick several random items without repeats", "random", "Chooses k unique random elements from a population sequence"),
    _q("fresh2", "stdlib", "how do I get a running total of a list", "itertools", "Return series of accumulated sums"),
    _q("fresh2", "stdlib", "how do I capitalise every word of a title", "string", "capitalize each"),
    _q("fresh2", "stdlib", "how do I get the same random numbers on every run", "random", "Initialize internal state from a seed"),
    _q("fresh2", "stdlib", "how do I zip two lists of different lengths without dropping items", "itertools", "Return a zip_longest object whose"),
    _q("fresh2", "stdlib", "how do I get the pretty printed text as a string instead of printing it", "pprint", "Format a Python object into a pretty-printed representation"),
    _q("fresh2", "readmes", "how do I check how many times my fake url was hit", "responses", "to check how many times each request was matched"),
    _q("fresh2", "readmes", "can one setting in my env file refer to another one", "python-dotenv", "can interpolate variables using POSIX variable expansion"),
    _q("fresh2", "readmes", "how do I hide the progress bar when output is not a terminal", "tqdm", "If set to None, disable on non-TTY"),
    _q("fresh2", "readmes2", "how do I make headings come out with # signs when converting html", "markdownify", "Defines how headings should be converted"),
    _q("fresh2", "readmes2", "can I drop the links but keep their words when turning a web page into markdown", "markdownify", "A list of tags to strip"),
    _q("fresh2", "readmes2", "how do I tell it which programming language the code blocks are in", "markdownify", "Defines the language that should be assumed for all"),
    _q("fresh2", "readmes2", "where should my app keep files that can be thrown away and rebuilt", "platformdirs", "Cached data that can be regenerated"),
    _q("fresh2", "readmes2", "how do I get the folders as Path objects rather than text", "platformdirs", "For Path objects instead of strings"),
    _q("fresh2", "readmes2", "how do I find the date of easter in some year", "python-dateutil", "Computing of Easter Sunday dates for any given year"),
    _q("fresh2", "readmes2", "can it read dates written in nearly any format", "python-dateutil", "Generic parsing of dates in almost any string format"),
    _q("fresh2", "readmes2", "does this http library talk to the network itself", "h11", "h11 contains no IO code whatsoever"),
    _q("fresh2", "readmes2", "what do I get back after handing it the bytes I read from the socket", "h11", "you'll get back a list of objects"),
    _q("fresh2", "readmes2", "how do I show a domain to users when it fails to decode", "idna", "accepts a `display=True` argument"),
    _q("fresh2", "readmes2", "which error do I get when a name mixes left-to-right and right-to-left letters", "idna", "raised when a label contains an illegal"),
    _q("fresh2", "readmes2", "what extra do I need to open AES protected pdf files", "pypdf", "For using pypdf with AES encryption or decryption, install extra dependencies"),
    _q("fresh2", "readmes2", "what should I attach when reporting a bug", "pypdf", "you must upload a PDF that causes the bug to occur"),
    _q("fresh2", "readmes2", "what does it use under the hood to learn about file changes", "watchfiles", "Underlying file system notifications are handled by the"),
    _q("fresh2", "readmes2", "how do I make the python prompt pretty print everything", "rich", "Rich can be installed in the Python REPL"),
    _q("fresh2", "readmes2", "does it break long lines to fit the window", "rich", "Rich will word-wrap your text to fit within the terminal width"),
    _q("fresh2", "readmes2", "how do I put a smiley in my terminal output", "rich", "place the name between two colons"),
    _q("fresh2", "readmes2", "how do I say a list may hold at most ten items", "annotated-types", "list must have a length of 10 or less"),
    _q("fresh2", "readmes2", "how do I only accept datetimes without a timezone", "annotated-types", "must be a naive datetime"),
    _q("fresh2", "readmes2", "is the language guess reliable when a file mixes languages", "charset-normalizer", "Language detection is unreliable when text contains two or more languages"),
    _q("fresh2", "readmes2", "can I swap it in for chardet without changing my code", "charset-normalizer", "will behave the same as"),
    _q("fresh2", "readmes2", "what happens to css selectors that only make sense in a browser", "soupsieve", "Selectors that cannot provide meaningful functionality simply do not match anything"),
    # ---------------------------------------------------------------- dev2 (tuning, 2026-12-01, helper R third session)
    # A second tuning set, written before anything was measured on it, over topics and corpora the
    # dev set does not touch (the READMEs had none), so tuning reads 55 questions instead of 32.
    _q("dev2", "pydoc", "where am I allowed to use await", "await", "only be used inside a *coroutine function*"),
    _q("dev2", "pydoc", "what does the caret operator do to two numbers", "bitwise", "operator yields the bitwise XOR (exclusive OR)"),
    _q("dev2", "pydoc", "if entering a context manager worked, is its cleanup guaranteed to run", "with", 'then "__exit__()" will always be called'),
    _q("dev2", "pydoc", "which names do I get with a star import", "naming import", "binds all names defined in the imported module, except those beginning with an underscore"),
    _q("dev2", "pydoc", "can I group digits with underscores in a float literal", "floating", "underscores are supported for digit grouping"),
    _q("dev2", "pydoc", "what base class does my class get if I list none", "class", 'inherit, by default, from the base class "object"'),
    _q("dev2", "pydoc", "is the order I define attributes in a class body remembered", "class", "is preserved in the new class's"),
    _q("dev2", "pydoc", "is a free variable looked up when the code is compiled or when it runs", "dynamic-features", "Name resolution of free variables occurs at runtime"),
    _q("dev2", "pydoc", "can I set attributes on a module object from outside", "typesmodules", "Module attributes can be assigned to."),
    _q("dev2", "pydoc", "can eval see the variables of the function around it", "dynamic-features", "do not have access to the full environment for resolving names"),
    _q("dev2", "readmes2", "is there a faster version of this markdown parser written in rust", "markdown-it-py", "for an experimental Rust binding"),
    _q("dev2", "readmes2", "which standard does the markdown parser follow", "markdown-it-py", "for baseline parsing"),
    _q("dev2", "readmes2", "what extra do I install to open password protected pdfs", "pypdf", "For using pypdf with AES encryption or decryption, install extra dependencies"),
    _q("dev2", "readmes2", "is there a command line tool for working with pdf files", "pypdf", "for a CLI application that uses pypdf"),
    _q("dev2", "readmes", "how much time does the progress bar add to each loop step", "tqdm", "about 60ns per iteration"),
    _q("dev2", "readmes", "does the progress bar work inside jupyter", "tqdm", "friendly with IPython/Jupyter notebooks"),
    _q("dev2", "readmes", "can a mocked reply be computed from the request when the test runs", "responses", "You can utilize callbacks to provide dynamic responses."),
    _q("dev2", "readmes", "can one fake handler answer many different urls", "responses", "pass a compiled regex to ``add_callback`` to match multiple urls"),
    _q("dev2", "guide", "which setting wins if I name a model on the command line and in the environment", "07-models", "The order is: `--model`, then `HAIKU_TUI_MODEL`"),
    _q("dev2", "guide", "will my openai key end up in an exported chat", "07-models", "API keys are never saved in a session or an export."),
    _q("dev2", "guide", "can I point it at ollama running on my own machine", "07-models", "This works with llama.cpp, vLLM, LM Studio"),
    _q("dev2", "guide", "how do I keep the app's files in another folder", "01-getting-started", "The environment variable `HAIKU_TUI_DATA_DIR` moves that directory."),
    _q("dev2", "guide", "does running the demo a second time ingest everything again", "01-getting-started", "Running the demo again is fast, because unchanged files are skipped."),
    # ---------------------------------------------------------------- dev3 (2026-12-01 afternoon, helper H4)
    # Written from reading the documents only, before anything was searched, asked or measured with
    # them, to check issue-11 ranking and extractive changes on questions none of their authors saw.
    _q("dev3", "pydoc", "what happens after I catch an error, can python go back and retry the line that failed", "exceptions execmodel", "it cannot repair the cause of the error and retry"),
    _q("dev3", "pydoc", "can my code depend on the exact wording of an error message", "exceptions execmodel", "Exception messages are not part of the Python API"),
    _q("dev3", "pydoc", "is -5 one number or a minus applied to 5", "numbers", "numeric literals do not include a sign"),
    _q("dev3", "pydoc", "how do I find out which classes inherit directly from mine", "specialattrs", "Each class keeps a list of weak references to its immediate"),
    _q("dev3", "pydoc", "why can't I store extra data on a method I got from an object", "typesmethods", "setting method attributes on bound methods is disallowed"),
    _q("dev3", "pydoc", "which runs first, __getattr__ or __getattribute__", "attribute-references attribute-access specialnames", "method is called first and either returns a value"),
    _q("dev3", "pydoc", "can I run what compile() gives me with exec", "bltin-code-objects", "A code object can be executed or evaluated by passing it"),
    _q("dev3", "pydoc", "why can't a method see a variable set in the class body unless I use self", "execmodel naming", "it does not extend to the code blocks of methods"),
    _q("dev3", "pydoc", "will python shut my open file as soon as nothing points to it", "objects", "you should always close files explicitly"),
    _q("dev3", "pydoc", "after a = 1 and b = 1, are a and b the very same thing in memory", "objects", "may or may not refer to the same object"),
    _q("dev3", "pydoc", "what does **kwargs receive", "calls function compound", "that formal parameter receives a dictionary containing the excess keyword"),
    _q("dev3", "pydoc", "how does x[-1] give me the last element", "subscriptions", "interprets negative indices by adding the length of the sequence"),
    _q("dev3", "pydoc", "is there a char type for a single letter", "subscriptions", "A character is not a separate data type"),
    _q("dev3", "pydoc", "why does my_list.reverse() give back None", "typesseq typesseq-mutable", "it does not return the reversed sequence"),
    _q("dev3", "pydoc", "if both the try block and finally return something, which value comes out", "try compound", "will always be the last one executed"),
    _q("dev3", "pydoc", "why is the caught error gone after the except block ends", "try compound", "the exception must be assigned to a different name"),
    _q("dev3", "pydoc", "with two @ lines above a def, which one wraps the other", "function compound", "Multiple decorators are applied in nested fashion"),
    _q("dev3", "pydoc", "how do I make callers pass an argument by name only", "function compound", "are keyword-only parameters and may only be passed by keyword"),
    _q("dev3", "pydoc", "why does my empty list default keep growing between calls", "function compound calls", "the default parameter value is in effect modified"),
    _q("dev3", "pydoc", "why did lstrip remove more letters than the prefix I gave it", "string-methods", "all combinations of its values are stripped"),
    _q("dev3", "pydoc", "how do I cut a string in two at the first dash", "string-methods", "Split the string at the first occurrence of *sep*"),
    _q("dev3", "pydoc", "how do I compare words ignoring capitals, even German ß", "string-methods", "Casefolded strings may be used for caseless matching"),
    _q("dev3", "pydoc", "how do I print 1234567 as 1,234,567", "formatstrings", "signals the use of a comma for a thousands separator"),
    _q("dev3", "pydoc", "why is x == x false when x is nan", "comparisons", "not-a-number values are not equal to themselves"),
    _q("dev3", "pydoc", "should I check for None with == or with is", "comparisons", "comparisons for singletons should always be done with"),
    _q("dev3", "guide", "if I stop an answer halfway, do I have to type my question again", "02-asking-questions", "goes back into the question box, so you can send it again"),
    _q("dev3", "guide", "how do I get back a question I asked a few minutes ago", "02-asking-questions 08-keyboard", "to recall an earlier question"),
    _q("dev3", "guide", "is it allowed for the model to say it used none of my documents", "04-citation-policy", "Citing an empty list is a valid declaration"),
    _q("dev3", "guide", "what if the model ignores the request to name its sources", "04-citation-policy", "If the answer still ends undeclared after the redirect"),
    _q("dev3", "guide", "how many earlier questions go along with each new one", "03-evidence-and-compaction", "Each question is sent with the messages of the 20 questions before it"),
    _q("dev3", "guide", "how do I send the whole chat history to the model every time", "03-evidence-and-compaction", "or `history_window = 0` to send them all"),
    _q("dev3", "guide", "can I look at the raw request that went to the llm", "03-evidence-and-compaction", "The wire inspector (w) shows each request exactly as it was sent"),
    _q("dev3", "guide", "can I jump from a quote to the file in my editor", "08-keyboard", "opens the highlighted chunk's source file at its place"),
    _q("dev3", "guide", "if I set HAIKU_RAG_DB and also pass --db, which one is used", "06-knowledge-base", "Without `--db`, haiku-tui uses the `HAIKU_RAG_DB` environment variable"),
    _q("dev3", "guide", "why are answers still quoting a file I removed from my folder", "06-knowledge-base", "only adds: a file you delete or move stays in the knowledge base"),
    _q("dev3", "guide", "can I see what a folder update would do before it happens", "06-knowledge-base", "`haiku-tui sync --dry-run PATH` to list what would be added"),
    _q("dev3", "guide", "my huge file was not imported, how big can files be", "06-knowledge-base", "Files larger than 20 MB are skipped unless you raise the limit"),
    _q("dev3", "guide", "does adding the same folder twice create duplicates", "06-knowledge-base", "Adding a file again is a no-op when its content has not changed"),
    _q("dev3", "guide", "what happens if the chat was changed on another machine since I opened it", "05-sessions", "refuses to overwrite the newer version and asks you to reopen it"),
    _q("dev3", "guide", "which model answers when I pick up an old conversation", "05-sessions", "A reopened session answers with the model it was saved with"),
    _q("dev3", "stdlib", "if two values tie for most frequent, which one does mode give", "statistics", "If there are multiple modes with same frequency, return the first one"),
    _q("dev3", "stdlib", "how do I get the top 3 biggest numbers from a list", "heapq", "Find the n largest elements in a dataset"),
    _q("dev3", "stdlib", "how do I combine several already sorted lists into one sorted stream", "heapq", "Merge multiple sorted inputs into a single sorted output"),
    _q("dev3", "stdlib", "how do I find out how long a month is in some year", "calendar", "and number of days (28-31) for"),
    _q("dev3", "stdlib", "what day of the week was 4 july 1976", "calendar", "Return weekday (0-6 ~ Mon-Sun) for year"),
    _q("dev3", "stdlib", "how do I check a password token so attackers cannot learn it from response times", "secrets", "designed to prevent timing analysis"),
    _q("dev3", "stdlib", "how do I split my data into quarters", "statistics", "Set *n* to 4 for quartiles (the default)"),
    _q("dev3", "stdlib", "how do I show what changed between two versions of a file like git does", "difflib", "generate the delta as a unified diff"),
    _q("dev3", "stdlib", "what happens if I take the geometric mean of numbers that include zero", "statistics", "if it contains a zero, or if it contains a negative value"),
    _q("dev3", "stdlib", "can I just get a temporary file name now and create the file later", "tempfile", "THIS FUNCTION IS UNSAFE AND SHOULD NOT BE USED"),
    _q("dev3", "readmes2", "how do I restart my script automatically every time I save", "watchfiles", "also comes with a CLI for running and reloading code"),
    _q("dev3", "readmes2", "will I need a compiler to pip install the file watcher", "watchfiles", "Binaries are available for most architectures on Linux, MacOS and Windows"),
    _q("dev3", "readmes2", "what do I need installed before I can use the css selector library", "soupsieve", "You must have Beautiful Soup already installed"),
    _q("dev3", "readmes2", "can I teach the markdown parser my own syntax", "markdown-it-py", "you can add new rules and even replace existing ones"),
    _q("dev3", "readmes2", "is there a config folder shared by all users of the machine", "platformdirs", "(system-wide, read-only) variants where applicable"),
    _q("dev3", "readmes2", "why is the name I pip install not the name I import for the date library", "python-dateutil", "note that the package name is different from the importable name"),
    _q("dev3", "readmes2", "can it work out repeating events like every second tuesday", "python-dateutil", "Computing of dates based on very flexible recurrence rules"),
    _q("dev3", "readmes2", "can I combine several pdf files into one", "pypdf", "pypdf can do a lot more, e.g. splitting, merging"),
    _q("dev3", "readmes2", "how many colours will I get in the old windows console", "rich", "classic terminal is limited to 16 colors"),
    _q("dev3", "readmes2", "can the log line also dump every variable in the current function", "rich", "outputs a table containing the local variables"),
]


# Questions no corpus answers, written 2026-12-01 (helper H4) before anything was measured with them:
# every one must get "nothing found" on every corpus (``eval_retrieval.py --off-topic``,
# ``tune_extractive.py``). Some share a word with a corpus (capital, strings, pack, egg, week).
OFF_TOPIC: list[str] = [
    "what is the capital of peru",
    "how do I bake sourdough bread",
    "who won the football world cup in 1998",
    "how long should I boil an egg",
    "what is a good fertiliser for tomato plants",
    "how do I change a flat tyre on my bike",
    "which planets have rings",
    "what are the symptoms of the flu",
    "how many strings does a cello have",
    "when did the roman empire fall",
    "how do I train my puppy to sit",
    "what should I pack for a week of hiking",
]


TUNING = ("dev", "dev2", "dev3")
"""The splits tuning may read (dev3 joined them after it served once as an unseen check, 2026-12-01)."""


def split(name: str) -> list[Question]:
    return [q for q in QUESTIONS if q.split == name]


def tuning() -> list[Question]:
    """Every question tuning may read."""
    return [q for q in QUESTIONS if q.split in TUNING]
