"""Write the stdlib benchmark corpus: one Markdown file per standard-library module, from the
docstrings that ship with this Python (the module's, then each public function's and class's).

    python -m bench.corpora.stdlib OUT_DIR
"""

from __future__ import annotations

import argparse
import importlib
import inspect
from pathlib import Path

MODULES = (
    "bisect", "base64", "calendar", "copy", "csv", "difflib", "fnmatch", "functools", "glob", "gzip",
    "hashlib", "heapq", "itertools", "json", "operator", "pickle", "pprint", "random", "secrets",
    "shlex", "shutil", "statistics", "string", "subprocess", "tempfile", "textwrap", "timeit", "uuid", "zipfile",
)


def module_markdown(name: str) -> str:
    module = importlib.import_module(name)
    parts = [f"# The {name} module", "", inspect.cleandoc(module.__doc__ or "")]
    public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for attr in sorted(public):
        obj = getattr(module, attr, None)
        if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj)):
            continue
        doc = inspect.getdoc(obj)
        if not doc or (inspect.isclass(obj) and obj.__module__ != module.__name__):
            continue
        parts += ["", f"## {name}.{attr}", "", doc]
    return "\n".join(parts).strip() + "\n"


def write_markdown(out: Path, folder: str, names: tuple[str, ...], render) -> list[Path]:
    """Write ``render(name)`` to ``out/folder/<name>.md`` for each name (one corpus folder)."""
    base = Path(out) / folder
    base.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        path = base / f"{name}.md"
        path.write_text(render(name), encoding="utf-8")
        written.append(path)
    return written


def main(doc: str, write) -> None:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("out", type=Path)
    print(len(write(parser.parse_known_args()[0].out)), "files")


def write_corpus(out: Path) -> list[Path]:
    return write_markdown(out, "stdlib", MODULES, module_markdown)


if __name__ == "__main__":
    main(__doc__, write_corpus)
