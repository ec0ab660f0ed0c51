"""Write the package-README benchmark corpora: one Markdown file per installed Python package,
from the long description its wheel ships in ``*.dist-info/METADATA`` (no network).

    python -m bench.corpora.readmes OUT_DIR [--second]

``readmes`` (``PACKAGES``) and ``readmes2`` (``PACKAGES2``: runtime dependencies of haiku-tui, so a
fresh install has them; written for the ``fresh2`` questions) are separate corpora.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from bench.corpora.stdlib import main, write_markdown

PACKAGES = ("tqdm", "python-dotenv", "xmltodict", "defusedxml", "responses", "frozenlist", "mammoth", "sse-starlette")
PACKAGES2 = (
    "charset-normalizer", "rich", "annotated-types", "markdownify", "python-dateutil", "h11",
    "platformdirs", "pypdf", "idna", "watchfiles", "soupsieve", "markdown-it-py",
)


def readme(name: str) -> str:
    meta = metadata.metadata(name)
    body = meta.get_payload() or meta.get("Description") or ""
    return f"# {name}\n\n{body.strip()}\n"


def write_corpus(out: Path) -> list[Path]:
    return write_markdown(out, "readmes", PACKAGES, readme)


def write_corpus2(out: Path) -> list[Path]:
    return write_markdown(out, "readmes2", PACKAGES2, readme)


if __name__ == "__main__":
    main(__doc__, write_corpus2 if "--second" in sys.argv else write_corpus)
