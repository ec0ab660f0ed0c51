"""Write the numpy benchmark corpus: one Markdown file per numpy function, from the reference
docstring numpy ships (its numpydoc sections become headings; no network).

    python -m bench.corpora.numpydoc OUT_DIR

numpy is installed with haiku-tui (lancedb and wordllama need it), so a fresh machine has this text.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from bench.corpora.pydoc import to_markdown
from bench.corpora.stdlib import main, write_markdown

FUNCTIONS = (
    "arange", "argsort", "average", "bincount", "clip", "concatenate", "convolve", "cumsum", "diff",
    "digitize", "einsum", "gradient", "histogram", "interp", "isclose", "linspace", "loadtxt", "mean",
    "median", "meshgrid", "nan_to_num", "pad", "percentile", "polyfit", "repeat", "reshape", "roll",
    "round", "savetxt", "searchsorted", "std", "tile", "unique", "where",
)


def function_markdown(name: str) -> str:
    import numpy

    return f"# numpy.{name}\n\n{to_markdown(inspect.getdoc(getattr(numpy, name)) or '')}"


def write_corpus(out: Path) -> list[Path]:
    return write_markdown(out, "numpy", FUNCTIONS, function_markdown)


if __name__ == "__main__":
    main(__doc__, write_corpus)
