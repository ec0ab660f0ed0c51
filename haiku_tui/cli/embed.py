"""``haiku-tui embed``: add vectors to a full-text-only knowledge base, so its search becomes hybrid."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from haiku_tui.text import printable_line

from . import CommandError, db_arg


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "embed",
        parents=[common],
        help="add vectors to a full-text-only knowledge base (hybrid search)",
        description="Embed every chunk of a knowledge base built without an embedder, with --embedder "
        "(default: $HAIKU_TUI_EMBEDDER, else the built-in offline model `wordllama`). Later searches "
        "combine full-text and vector search.",
    )
    p.set_defaults(func=cmd_embed)


def cmd_embed(args: argparse.Namespace) -> int:
    from haiku_tui.store.embedding import BUILTIN_ID, NONE_NAMES
    from haiku_tui.store.kb import KnowledgeBase

    embedder = getattr(args, "embedder", None) or os.environ.get("HAIKU_TUI_EMBEDDER") or BUILTIN_ID
    if embedder.strip().lower() in NONE_NAMES | {"auto"}:
        raise CommandError(
            f"`haiku-tui embed` needs an embedder, not {embedder!r}; omit --embedder for the built-in one"
        )
    kb = KnowledgeBase.open(db_arg(args), embedder=None, create=False)
    started = time.perf_counter()
    count = kb.add_vectors(embedder)
    name = printable_line(str(kb.recorded_embedder()[0]))
    print(
        f"embedded {count} chunks with {name} in {time.perf_counter() - started:.1f}s; search in {kb.uri} is now hybrid"
    )
    return 0
