"""``haiku-tui embed``: add vectors to a knowledge base (or move it onto another embedder), so its search is hybrid."""

from __future__ import annotations

import argparse
import time
from typing import Any

from haiku_tui.text import printable_line

from . import CommandError, db_arg, embedder_arg


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "embed",
        parents=[common],
        help="add vectors to a knowledge base, or move it onto another embedder (hybrid search)",
        description="Embed every chunk of a knowledge base with --embedder (default: $HAIKU_TUI_EMBEDDER, "
        "else the built-in offline model `wordllama`; `minilm` is the offline transformer of the "
        "haiku-tui[minilm] extra). A base built with another embedder is moved onto this one. Later "
        "searches combine full-text and vector search.",
    )
    p.set_defaults(func=cmd_embed)


def cmd_embed(args: argparse.Namespace) -> int:
    from haiku_tui.store.embedding import BUILTIN_ID, NONE_NAMES
    from haiku_tui.store.kb import KnowledgeBase

    from .progress import with_progress

    embedder = embedder_arg(args, default=BUILTIN_ID)
    if embedder.strip().lower() in NONE_NAMES | {"auto"}:
        raise CommandError(
            f"`haiku-tui embed` needs an embedder, not {embedder!r}; omit --embedder for the built-in one"
        )
    kb = KnowledgeBase.open(db_arg(args), embedder=None, create=False)
    started = time.perf_counter()
    count = with_progress(lambda on_progress: kb.add_vectors(embedder, on_progress), show=True, command="embed")
    name = printable_line(str(kb.recorded_embedder()[0]))
    print(
        f"embedded {count} chunks with {name} in {time.perf_counter() - started:.1f}s; search in {kb.uri} is now hybrid"
    )
    return 0
