"""A user's words against the documents' terms: symbols named in words, and query words the knowledge base lacks."""

from __future__ import annotations

from pathlib import Path

from haiku_tui.store.kb import KnowledgeBase
from haiku_tui.store.search import query_terms, vector_query, vector_text
from haiku_tui.store.sentences import term_set, terms
from haiku_tui.store.symbols import symbol_names, with_symbol_names
from haiku_tui.store.vocabulary import Vocabulary


def test_standalone_symbols_are_named():
    assert symbol_names('The "^" operator yields the bitwise XOR') == ["caret"]
    assert symbol_names('It is written as "Ellipsis" or "...".') == ["ellipsis", "three", "dots"]
    assert symbol_names("from module import *") == ["star", "asterisk"]
    assert symbol_names("x += 1 adds one") == ["plus", "equals"]
    assert symbol_names("a star (\"'*'\") binds all names") == ["star", "asterisk"]
    assert symbol_names("write `**` for powers") == ["double", "star", "asterisk"]
    assert symbol_names('if the form "*identifier" is present') == ["star", "asterisk"]
    assert symbol_names("pass `**kwargs` on; `@property` makes it read-only") == [
        "double",
        "star",
        "asterisk",
        "at",
        "sign",
    ]


def test_symbols_glued_to_words_tables_and_prompts_are_not_named():
    for text in [
        "a *context manager* is an object",  # emphasis
        "O(n^2) complexity",
        "see https://example.org/a/b",
        "| a | b |\n+---+---+",  # table rules
        '   ... print(x)\n>>> x',  # console prompts
        'digit ::= "0"..."9"',  # quotes belonging to the neighbouring literals
        "f(arg1, ...)",
        "# Heading",
        "mail me@example.org",
    ]:
        assert symbol_names(text) == [], text


def test_names_are_terms_of_the_text_and_of_a_question():
    assert "caret" in term_set('The "^" operator yields the bitwise XOR')
    assert {"caret", "xor"} <= set(terms('The "^" operator yields the bitwise XOR'))
    assert "caret" in terms("what does x ^ y do")
    assert query_terms("what does x ^ y do").split()[-1] == "caret"
    assert with_symbol_names("a | b | c") == "a | b | c\npipe vertical bar"  # each name once
    assert with_symbol_names("plain words") == "plain words"
    assert vector_text({"text": 'The "^" operator'}).endswith("caret")  # the vectors know the name too
    assert vector_query("what does ^ do").endswith("caret")


def _write(root: Path, docs: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


DOCS = {
    "bitwise.md": '# Bitwise operations\n\nThe "^" operator yields the bitwise exclusive or of its arguments, '
    "which must be integers.\n",
    "arithmetic.md": "# Arithmetic operators\n\nThe plus operator adds two numbers and the minus operator subtracts "
    "them.\n",
    "messages.md": "# Conversation history\n\nEvery conversation is saved on disk with its messages and can be "
    "exported as a file.\n",
    "settings.md": "# Saved settings\n\nSettings are saved on disk in a small file and exported with the export "
    "command.\n",
}


def test_a_question_naming_a_symbol_finds_it_with_and_without_vectors(tmp_path):
    docs = _write(tmp_path / "docs", DOCS)
    for embedder in ["auto", "none"]:
        with KnowledgeBase.open(str(tmp_path / f"{embedder}.lancedb"), embedder=embedder) as kb:
            kb.add([docs])
            assert Path(kb.search("what does the caret operator do", limit=1)[0].path).name == "bitwise.md"


def test_only_words_the_knowledge_base_lacks_are_mapped_to_its_nearest_words():
    vocabulary = Vocabulary(list(DOCS.values()))
    assert vocabulary.missing("is my chat saved on disk") == ["chat"]
    assert vocabulary.neighbours("is my chat saved on disk") == ["conversation"]
    assert vocabulary.neighbours("is every conversation saved") == []  # nothing missing: nothing added
    assert vocabulary.neighbours("xylophone") == []  # nothing near enough


def test_a_word_of_the_same_root_is_not_taken_for_a_synonym():
    vocabulary = Vocabulary(["the alphabet has letters"])
    assert vocabulary.missing("sorted alphabetically") == ["sorted", "alphabetically"]
    assert "alphabet" not in vocabulary.neighbours("sorted alphabetically")


def test_a_missing_word_finds_the_document_in_hybrid_search(tmp_path):
    docs = _write(tmp_path / "docs", DOCS)
    with KnowledgeBase.open(str(tmp_path / "kb.lancedb"), embedder="auto") as kb:
        kb.add([docs])
        for question in ["can I export a chat", "is my chat saved"]:  # without the mapping: settings.md first
            assert Path(kb.search(question, limit=1)[0].path).name == "messages.md"


def test_the_vocabulary_follows_the_table_and_stays_away_from_large_ones(tmp_path, monkeypatch):
    from haiku_tui.store import vocabulary as vocab_module

    docs = _write(tmp_path / "docs", DOCS)
    with KnowledgeBase.open(str(tmp_path / "kb.lancedb"), embedder="auto") as kb:
        kb.add([docs])
        chunks = kb.storage.table("chunks")
        assert vocab_module.vocabulary(chunks, "fts", chunks.version).missing("my chat") == ["chat"]
        (docs / "chat.md").write_text("# Chat\n\nA chat is a conversation.\n", encoding="utf-8")
        kb.add([docs])
        chunks = kb.storage.table("chunks")
        assert (
            vocab_module.vocabulary(chunks, "fts", chunks.version).missing("my chat") == []
        )  # a new version: read again
        monkeypatch.setattr(vocab_module, "MAX_ROWS", 1)
        (docs / "chat.md").unlink()
        kb.sync([docs])
        chunks = kb.storage.table("chunks")
        assert vocab_module.vocabulary(chunks, "fts", chunks.version).neighbours("is my chat saved") == []
