"""The names of punctuation symbols and operators, so that a question naming one ("the caret operator",
"three dots", "a star import") finds the text where the symbol itself stands.

A symbol counts where it stands as a token of its own: quoted (``"^"``, ``'*'``, a backtick span),
between spaces inside a line (``x ^ y``, ``import *``), or as the star or at sign opening a quoted
name (``"*args"``, ``"**kwargs"``, ``"@property"``). Symbols glued to words (Markdown emphasis
``*word*``, ``O(n^2)``, paths and URLs) and table rules are left alone, and so are console prompts
(``>>>``, ``...``) at the start of a line.
"""

from __future__ import annotations

import re

# Generic names of ASCII punctuation and Python-style operators (what a user calls the symbol).
NAMES: dict[str, str] = {
    "~": "tilde",
    "^": "caret",
    "...": "ellipsis three dots",
    "*": "star asterisk",
    "**": "double star asterisk",
    "@": "at sign",
    "//": "floor division double slash",
    "%": "percent modulo",
    "+=": "plus equals",
    "-=": "minus equals",
    "*=": "times equals",
    ":=": "walrus colon equals",
    "->": "arrow",
    "=>": "arrow",
    "!=": "not equal",
    "==": "double equals equal",
    "<=": "less equal",
    ">=": "greater equal",
    "<<": "left shift",
    ">>": "right shift",
    "&": "ampersand",
    "|": "pipe vertical bar",
    "#": "hash pound sign",
    "$": "dollar sign",
    "\\": "backslash",
    "?": "question mark",
    "!": "exclamation mark",
    ";": "semicolon",
}

_SYMBOL = "|".join(re.escape(s) for s in sorted(NAMES, key=len, reverse=True))
# Every form starts at a quote or a space, so the regex engine scans for those characters alone;
# what must come before the match (no word character, something on the line) is checked in Python.
_FORMS = re.compile(
    rf"([\"'`])(?:({_SYMBOL})\1(?!\w)"  # quoted: "^", '*', `...`
    r"|(\*\*|\*|@)(?=[A-Za-z_][\w.]*[\"'`](?!\w)))"  # opening a quoted name: "*args", `@property`
    rf"| ({_SYMBOL})(?= |$)",  # spaced: x ^ y, import *
    re.MULTILINE,
)
_TABLE_LINE = re.compile(r"^\s*[|+]", re.MULTILINE)


def symbol_names(text: str) -> list[str]:
    """The name words of each symbol standing on its own in ``text``, once per occurrence."""
    out: list[str] = []
    for match in _FORMS.finditer(text):
        quoted, prefix, spaced = match.group(2, 3, 4)
        at = match.start()
        before = text[at - 1 : at]
        if spaced is not None:
            if not before or before.isspace() or _on_table_line(text, at):
                continue  # the first thing on its line (a prompt, a list marker) or a table rule
        elif before.isalnum() or before == "_" or (prefix is not None and before in "\"'`"):
            continue  # the quote closes a word or a literal ("0"..."9")
        out.extend(NAMES[quoted or prefix or spaced].split())
    return out


def _on_table_line(text: str, at: int) -> bool:
    start = text.rfind("\n", 0, at) + 1
    return bool(_TABLE_LINE.match(text, start))


def with_symbol_names(text: str) -> str:
    """``text`` followed by a line of the names of its standalone symbols, each once (a chunk full of
    grammar alternatives ``|`` should not grow long for BM25); ``text`` itself when it has none."""
    names = dict.fromkeys(symbol_names(text))
    return f"{text}\n{' '.join(names)}" if names else text
