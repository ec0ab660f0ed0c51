"""Write the pydoc benchmark corpus: one Markdown file per ``pydoc_data.topics`` topic (~79).

    python -m bench.corpora.pydoc OUT_DIR [--copies N]

``--copies N`` adds N replicas (``copy_001/`` …) whose text differs by a header line, to reach
~10k chunks (N≈20) or ~100k chunks (N≈200). Every replica keeps the topic name as its file stem,
so retrieval checks can map a hit back to its topic.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

_LEVELS = {"*": "#", "=": "##", "-": "###", "~": "####", "^": "#####"}


def topics() -> dict[str, str]:
    from pydoc_data.topics import topics as data

    return dict(data)


def to_markdown(text: str) -> str:
    """pydoc's underlined headings become ATX headings; everything else is kept."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and not line.startswith(" ")
            and re.fullmatch(r"([*=\-~^])\1+", nxt.strip() or "x")
            and len(nxt.strip()) >= len(line.strip())
        ):
            out.append(f"{_LEVELS[nxt.strip()[0]]} {line.strip()}")
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip() + "\n"


def write_corpus(out: Path, copies: int = 0) -> list[Path]:
    out = Path(out)
    written: list[Path] = []
    data = topics()
    base = out / "pydoc"
    base.mkdir(parents=True, exist_ok=True)
    for name, text in data.items():
        path = base / f"{name}.md"
        path.write_text(to_markdown(text), encoding="utf-8")
        written.append(path)
    for n in range(1, copies + 1):
        folder = out / f"copy_{n:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in data.items():
            md = to_markdown(text)
            # keep the H1 first; add a replica marker paragraph after it
            head, _, rest = md.partition("\n")
            path = folder / f"{name}.md"
            path.write_text(f"{head}\n\nReplica {n} of the {name} topic.\n{rest}", encoding="utf-8")
            written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=0)
    args = parser.parse_args()
    files = write_corpus(args.out, args.copies)
    print(f"wrote {len(files)} files under {args.out}")


if __name__ == "__main__":
    main()
