"""``haiku-tui sessions check ID``: the cited claims of a saved session that their source weakly supports.

One line per weak claim (``Q2  [3]  0.31  sentence``), or ``--json``; exit 0 either way (a weak
claim is a finding, not an error). Scores use the offline embedder when it is installed, else
lexical overlap only (``--lexical`` forces that).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from haiku_tui.text import json_dumps, printable_line


def offline_embed() -> Callable[[Sequence[str]], list[list[float]]] | None:
    """The offline embedder as a function of texts, or None when it is not available (lexical only)."""
    try:
        from haiku_tui.store.embedding import default_embedder, embed_documents  # type: ignore[attr-defined]

        embedder = default_embedder()
    except Exception:  # not installed or not loadable: support falls back to lexical
        return None
    if embedder is None:
        return None
    return lambda texts: embed_documents(embedder, list(texts))


def session_support(session: Any, embed: Any) -> tuple[list[dict[str, Any]], int]:
    """The weak claims of every question of ``session`` as JSON rows, and the number of claims checked."""
    from haiku_tui.capabilities.views import question_views, weak_claims
    from haiku_tui.capabilities.report import support_entry

    rows: list[dict[str, Any]] = []
    checked = 0
    for view in question_views(session.state, session.messages, embed=embed):
        checked += len(view.support)
        rows += [{"question": view.number, "prompt": view.prompt, **support_entry(c)} for c in weak_claims(view)]
    return rows, checked


def _cmd_check(args: argparse.Namespace) -> int:
    from haiku_tui.sessions import SessionStore

    with SessionStore(getattr(args, "sessions_db", None)) as store:
        session = store.load(store.resolve(args.id))
    embed = None if args.lexical else offline_embed()
    rows, checked = session_support(session, embed)
    if args.json:
        print(json_dumps({"session": session.id, "checked": checked, "semantic": embed is not None, "weak": rows}))
        return 0
    for row in rows:
        score = "  —  " if row["chunk_id"] is None else f"{row['score']:.2f}"
        print(f"Q{row['question']}  [{row['number']}]  {score}  {printable_line(row['sentence'])}")
    how = "lexical and embedding" if embed is not None else "lexical only"
    print(f"{len(rows)} of {checked} cited claim(s) weakly supported ({how}).", file=sys.stderr)
    return 0


def register_check(commands: Any, guarded: Callable[[Any], Any]) -> None:
    """Add ``check`` to the ``sessions`` subcommands (``guarded`` turns known errors into one line)."""
    p = commands.add_parser("check", help="list the cited claims their source weakly supports")
    p.add_argument("id", help="session id (or a unique prefix)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--lexical", action="store_true", help="lexical overlap only (no embedder)")
    p.set_defaults(func=guarded(_cmd_check))
