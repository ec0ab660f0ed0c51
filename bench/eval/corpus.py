"""Write the documents of one evaluation corpus into a folder, to build its knowledge base.

    python -m bench.eval.corpus CORPUS FOLDER     # CORPUS: pydoc stdlib readmes readmes2 numpy guide
    haiku-tui --db KB add FOLDER
    haiku-tui --db KB eval bench/eval/CORPUS-SPLIT.jsonl

The same documents ``bench/eval_retrieval.py`` ingests (``corpus_files``), so the figures are comparable.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from bench.eval_retrieval import corpus_files

CORPORA = ("pydoc", "stdlib", "readmes", "readmes2", "numpy", "guide")


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in CORPORA:
        raise SystemExit(f"usage: python -m bench.eval.corpus {{{','.join(CORPORA)}}} FOLDER")
    name, folder = sys.argv[1], Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    written = corpus_files(name, folder)
    if name == "guide":  # the guide is read in place: copy it
        written = [Path(shutil.copy(p, folder / p.name)) for p in written]
    print(f"{len(written)} documents of {name} under {written[0].parent if written else folder}")


if __name__ == "__main__":
    main()
