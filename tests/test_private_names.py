"""No module of ``haiku_tui`` reaches into another module's underscored names.

``x._name`` (read, written or called) and ``from m import _name`` are allowed in a module only when that module
defines ``_name`` itself: a ``def`` or ``class`` of that name, an assignment to ``self._name`` or ``cls._name``,
or a name assigned at module or class level. So a class's own privates and a module's own helpers pass, and
``kb._table(...)`` from ``store/ingest.py`` (``_table`` is ``kb.py``'s) or a mixin reading a private the screen
sets fail. Besides: ``tui/textual_private.py`` is the one module that reads Textual's private parts; the named
tuples' public API is underscored; and ``LIBRARY_PRIVATE`` lists the reads of another library's private part
that no public API offers, each with its reason. The check goes by name, not by type: two modules that define
the same private name can still reach into each other unseen (see docs/ARCHITECTURE.md, design notes)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "haiku_tui"

TEXTUAL_PRIVATE = "tui/textual_private.py"
NAMED_TUPLE_API = {"_replace", "_asdict", "_fields", "_field_defaults", "_make"}
LIBRARY_PRIVATE = {
    ("agent/extractive.py", "_add_usage"): "Pydantic AI's streamed response offers no public way to replace the "
    "flat token estimate a FunctionModel stream starts from with the extractive model's own",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMED_TUPLE_API


def defined_names(tree: ast.AST) -> set[str]:
    """The names a module defines: functions, classes, names it assigns, and attributes of ``self``/``cls`` it sets."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
    return names


def reaches(source: str) -> list[tuple[int, str, str]]:
    """``(line, expression, name)`` for each use of an underscored name the module does not define."""
    tree = ast.parse(source)
    own = defined_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
            found.append((node.lineno, ast.unparse(node), node.attr))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import {alias.name}",
                                  alias.name))
    return sorted(found)


def package_reaches() -> dict[tuple[str, str], list[str]]:
    """Every reach in the package but ``textual_private.py``'s, by (module, name)."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == TEXTUAL_PRIVATE:
            continue
        for line, expression, name in reaches(path.read_text(encoding="utf-8")):
            found.setdefault((module, name), []).append(f"haiku_tui/{module}:{line}: {expression}")
    return found


def test_no_module_reaches_into_another_modules_underscored_names():
    found = package_reaches()
    reached = [where for key, wheres in found.items() if key not in LIBRARY_PRIVATE for where in wheres]
    assert not reached, (
        "these reach into another module's private names: give the owner a public method, or read Textual's "
        "private parts in tui/textual_private.py:\n" + "\n".join(reached)
    )
    stale = [key for key in LIBRARY_PRIVATE if key not in found]
    assert not stale, f"allowed but no longer used (drop them from LIBRARY_PRIVATE): {stale}"


def test_the_check_flags_a_reach_and_passes_a_modules_own_names():
    source = '''
from .kb import _open, document_id
from . import kb as _kb


class Base:
    _cache: dict | None = None

    def __init__(self, db):
        self._db = db

    def _table(self, name):
        return self._db.open_table(name) if self._cache is None else self._cache[name]

    def same(self, other):
        return other._db is self._db and _kb.document_id("x")


def ingest(kb, point):
    kb._table("chunks")
    kb._tables["chunks"] = kb._db.create_table("chunks")
    kb.storage._write_settings({})
    return point._replace(x=1), kb.__class__
'''
    assert [expression for _, expression, _ in reaches(source)] == [
        "from .kb import _open",
        "kb._tables",
        "kb.storage._write_settings",
    ]
