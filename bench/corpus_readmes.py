"""Write the package-README benchmark corpus: one Markdown file per installed Python package,
from the long description its wheel ships in ``*.dist-info/METADATA`` (no network).

    python bench/corpus_readmes.py OUT_DIR
"""

from __future__ import annotations

import argparse
from importlib import metadata
from pathlib import Path

PACKAGES = ("tqdm", "python-dotenv", "xmltodict", "defusedxml", "responses", "frozenlist", "mammoth", "sse-starlette")


def readme(name: str) -> str:
    meta = metadata.metadata(name)
    body = meta.get_payload() or meta.get("Description") or ""
    return f"# {name}\n\n{body.strip()}\n"


def write_corpus(out: Path) -> list[Path]:
    base = Path(out) / "readmes"
    base.mkdir(parents=True, exist_ok=True)
    written = []
    for name in PACKAGES:
        path = base / f"{name}.md"
        path.write_text(readme(name), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    print(len(write_corpus(parser.parse_args().out)), "files")
