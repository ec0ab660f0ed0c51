"""Sentences and stemmed terms of a chunk's Markdown text, as the ranking and the extractive model read them."""

from __future__ import annotations

import functools
import re
import string

from .symbols import symbol_names

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either else ever few for
    from further get gets got had has have having he her here hers him his how i if in into is it its
    itself just let lets like me might more most much must my myself no nor not now of off on once
    only or other ought our ours out over own please same shall she should so some such tell than
    that the their theirs them then there these they this those through to too under until up upon us
    very was we were what whats when where which while who whom whose why will with would you your
    yours explain describe know want need s t d ll re ve m don doesn isn aren
    """.split()
)

# Question and filler words dropped from queries (the index keeps every word). Words that are
# also programming keywords ("with", "for", "if", "in", "is", "not", "as", "from", "return"…)
# are deliberately absent: they are often exactly what the user is asking about.
QUERY_STOP_WORDS = frozenset(
    """a an the how what which who whom whose why when where do does did doing done i me my mine
    we us our you your yours he she him her his they them their it its this that these those can
    could should would will shall may might must be been being am are was were to of on at by
    about into onto than then there here some any please tell explain show example examples
    want need mean means meant s t don doesn didn isn aren wasn weren way ways""".split()
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_DRAWING = re.compile("[\u2500-\u257f]")
_LETTERS = re.compile(r"[^\W\d_]+")
_ASCII_LETTERS = string.ascii_letters.encode()
_MARKER_STARTS = frozenset("-*+•0123456789")
PROSE_LETTERS = 0.6  # share of a sentence's visible characters that are letters, for it to count as prose
_VOWEL = re.compile("[aeiouy]")
# The adverb's -ly follows a consonant or a silent e (quickly, usually, safely); after p or b, or another
# vowel, it is the word's own ending (apply, reply, supply, assembly, daily, holy, anomaly).
_NOT_BEFORE_LY = frozenset("abiopu")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[A-Z0-9\"'“‘(\[*_])")


def words(text: str) -> list[str]:
    """Word tokens as typed (apostrophes kept inside words)."""
    return _WORD.findall(text)


def sentences(text: str) -> list[str]:
    """Sentences of a chunk: headings, tables and code dropped, list items taken one by one."""
    units: list[str] = []
    paragraph: list[str] = []
    in_code = False

    def flush() -> None:
        if paragraph:
            units.append(" ".join(paragraph))
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if not line or line.startswith(("#", "|")) or not line.strip("-=*_ "):
            flush()
            continue
        if line.startswith(">"):
            line = line.lstrip("> ").strip()
        if line[:1] in _MARKER_STARTS and _LIST_MARKER.match(line):
            flush()
            paragraph.append(_LIST_MARKER.sub("", line, count=1))
            flush()
            continue
        paragraph.append(line)
    flush()
    out = []
    for unit in units:
        for sentence in _SENTENCE_END.split(unit):
            sentence = sentence.strip()
            if sentence.count(" ") >= 2 and is_prose(sentence):  # three words or more
                out.append(sentence)
    return out


def is_prose(sentence: str) -> bool:
    """False for grammar rules, drawings and code-like runs of symbols (mostly not letters)."""
    if "::=" in sentence or _DRAWING.search(sentence):
        return False
    if sentence.isascii():  # the common case, counted in C: bytes without the ASCII letters
        letters = len(sentence) - len(sentence.encode().translate(None, _ASCII_LETTERS))
    else:
        letters = len(sentence) - len(_LETTERS.sub("", sentence))  # what is left is not a letter
    return letters >= PROSE_LETTERS * (len(sentence) - sentence.count(" "))


def normal_word(word: str) -> str:
    """Lower case, apostrophes dropped."""
    return word.lower().replace("’", "'").replace("'", "")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix-stripping stemmer: brewing/brewed/brews -> brew, batteries/carried -> carry,
    guaranteed/guarantees -> guarante. Changing what it returns changes ``tables.INDEX_VERSION``."""
    w = normal_word(word)
    if len(w) <= 2 or w.isdigit():
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:  # the y of carry, apply, modify
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif w.endswith("s") and len(w) > 3 and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ingly", "edly", "ing", "ed", "ly"):
        rest = w[: -len(suffix)]
        # a short rest needs a vowel: used -> us (as use), going -> go; thing, bring, string stay
        if (
            w.endswith(suffix)
            and not w.endswith("eed")
            and (len(rest) >= 3 or (len(rest) == 2 and _VOWEL.search(rest)))
        ):
            if suffix == "ly" and rest[-1] in _NOT_BEFORE_LY:
                if rest[-1] == "i" and len(rest) >= 4:  # easily, necessarily: the y of easy
                    w = rest[:-1] + "y"
                break
            w = rest
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lszaeiou":  # running -> run; agreeing -> agree
                w = w[:-1]
            break
    if w.endswith("eed") and len(w) >= 6:  # guaranteed, agreed, proceed: -ee and -d (need, speed, seed are words)
        w = w[:-1]
    for suffix, replacement in (("ency", "ent"), ("ancy", "ant"), ("ation", "ate")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + replacement
            break
    if w.endswith("e") and len(w) > 2:
        w = w[:-1]
    return w


def terms(text: str) -> list[str]:
    """Stemmed content terms of a text, in order, stopwords dropped, then the names of its standalone symbols."""
    lowered = _WORD.findall(text.lower().replace("’", "'")) + symbol_names(text)
    return [stem(w) for w in (w.replace("'", "") for w in lowered) if w not in STOPWORDS]


def term_set(text: str) -> frozenset[str]:
    """The distinct stemmed content terms of a text: ``frozenset(terms(text))``, each word stemmed once."""
    distinct = {w.replace("'", "") for w in _WORD.findall(text.lower().replace("’", "'"))}
    distinct.update(symbol_names(text))
    return frozenset(map(stem, distinct - STOPWORDS))


def sentence_terms(text: str) -> list[frozenset[str]]:
    """The term set of each sentence of a chunk's text (what the best-sentence ranking compares)."""
    return [term_set(s) for s in sentences(text)]


def encode_sentence_terms(text: str) -> str:
    """:func:`sentence_terms` of ``text`` as stored at ingest: a line per sentence, its terms space-separated."""
    return "\n".join(" ".join(sorted(t)) for t in sentence_terms(text))


def decode_sentence_terms(stored: str) -> list[frozenset[str]]:
    """The inverse of :func:`encode_sentence_terms`."""
    return [frozenset(line.split()) for line in stored.split("\n")] if stored else []
