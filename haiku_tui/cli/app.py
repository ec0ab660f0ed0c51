"""``haiku-tui`` (no subcommand) opens the app; ``haiku-tui demo`` opens it on the bundled user guide.

Textual, Pydantic AI and LanceDB are imported only inside the command functions, so
``haiku-tui --help`` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from haiku_tui.text import printable_line

from . import CommandError, db_arg, embedder_arg, forget_path

GUIDE_DIR = Path(__file__).resolve().parent.parent / "guide"


def add_app_options(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    """The options of the app itself (on the top-level parser and on ``demo``)."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--model",
        default=default,
        metavar="MODEL",
        help="Pydantic AI model string (openai:…, anthropic:…, ollama:…) or a model served at --base-url "
        "(default: $HAIKU_TUI_MODEL, the config file, then the offline 'extractive')",
    )
    parser.add_argument(
        "--base-url",
        default=default,
        metavar="URL",
        help="OpenAI-compatible server for --model (llama.cpp, vLLM, LM Studio, Ollama's /v1)",
    )
    add_path_options(parser, suppress=suppress)
    parser.add_argument(
        "--analysis",
        action="store_true",
        default=default if suppress else False,
        help="also let the model run sandboxed Python over the corpus (needs: pip install 'haiku-tui[analysis]')",
    )
    parser.add_argument(
        "--session",
        default=default,
        metavar="NAME_OR_ID",
        help="open a saved session by id, unique id prefix or exact title (default: a new session)",
    )
    parser.add_argument(
        "--watch",
        default=default,
        nargs="+",
        metavar="PATH",
        help="keep the knowledge base in step with these folders while the app runs (like `haiku-tui watch`)",
    )


def add_path_options(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    """``--search-first`` / ``--tools``: how questions reach the model (default: automatic)."""
    default = argparse.SUPPRESS if suppress else None
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--search-first",
        dest="search_first",
        action="store_const",
        const=True,
        default=default,
        help="search the knowledge base first and give the model the numbered passages, offering no tools "
        "(default: $HAIKU_TUI_SEARCH_FIRST, 'search_first' in the config file, else tools, and search-first for a "
        "model that cannot use them, remembered per model and server)",
    )
    group.add_argument(
        "--tools",
        dest="search_first",
        action="store_const",
        const=False,
        default=default,
        help="let the model search with tools, never search-first, and forget that this model was answered "
        "search-first",
    )


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "demo",
        parents=[common],
        help="open the app on the bundled user guide",
        description="Ingest the bundled user guide into <data dir>/demo.lancedb (unchanged files are skipped) "
        "and open the app on it.",
    )
    add_app_options(p, suppress=True)
    p.set_defaults(func=cmd_demo)


def _config(args: argparse.Namespace, db: str | None, choice: Any = None) -> Any:
    """The agent's configuration from the options; ``choice`` (a ``ModelChoice``): the model and server chosen
    (the config file's included), else the options' and ``$HAIKU_TUI_MODEL``."""
    from haiku_tui.agent import AgentConfig

    from . import reranker_args, search_first_arg

    reranker, reranker_model = reranker_args(args)
    return AgentConfig(
        search_first=search_first_arg(args),
        reranker=reranker,
        reranker_model=reranker_model,
        model=choice.name if choice else getattr(args, "model", None) or os.environ.get("HAIKU_TUI_MODEL") or None,
        base_url=choice.base_url if choice else getattr(args, "base_url", None) or None,
        timeout=getattr(args, "timeout", None),
        db=db,
        analysis=bool(getattr(args, "analysis", False)),
    )


def run_app(args: argparse.Namespace, db: str | None, prepare_kb: Any = None) -> int:
    """Open the app (the work of a bare ``haiku-tui`` and of ``haiku-tui demo``); ``prepare_kb`` runs
    behind the first frame, before the knowledge base is opened."""
    served = "WebDriver" in os.environ.get("TEXTUAL_DRIVER", "")  # `haiku-tui serve` runs it for a browser
    if not served and (not sys.stdin.isatty() or not sys.stdout.isatty()):
        raise CommandError("the app needs an interactive terminal (use `haiku-tui ask` in scripts)")
    watch = getattr(args, "watch", None) or []
    missing = [p for p in watch if not Path(p).expanduser().exists()]
    if missing:
        raise CommandError(f"cannot watch {printable_line(missing[0])}: no such file or folder")
    from haiku_tui.agent import ModelConfigError, choose_model
    from haiku_tui.sessions import SessionError, SessionStore

    try:
        choice = choose_model(getattr(args, "model", None), getattr(args, "base_url", None))
    except ModelConfigError as exc:
        raise CommandError(str(exc)) from None
    config = _config(args, db, choice)
    forget_path(args, choice)
    store = SessionStore()
    session_id = None
    if getattr(args, "session", None):
        try:
            session_id = store.resolve(args.session)
        except SessionError as exc:
            raise CommandError(str(exc)) from None
    kb = None
    embedder = embedder_arg(args)
    if embedder != "auto":  # else the app opens the knowledge base itself
        from haiku_tui.store import KnowledgeBase

        kb = KnowledgeBase.open(db, embedder=embedder, create=False)
    from haiku_tui.tui.app import HaikuApp

    app = HaikuApp(
        config, store=store, session_id=session_id, kb=kb, prepare_kb=prepare_kb, watch=watch,
        keep_model=bool(getattr(args, "model", None)),
    )
    app.run()
    store.close()
    return app.return_code or 0  # 1 after a crash (one line and the crash log's path were printed)


def cmd_open(args: argparse.Namespace) -> int:
    """``haiku-tui``: open the app on ``--db`` (or the default knowledge base)."""
    return run_app(args, db_arg(args))


def demo_db_path() -> Path:
    from haiku_tui import locations

    return locations.data_dir() / "demo.lancedb"


def prepare_demo(path: Path | None = None, *, quiet: bool = False) -> Path:
    """Ingest the bundled guide into the demo knowledge base (a no-op for unchanged files)."""
    from haiku_tui.store import KnowledgeBase

    path = path or demo_db_path()
    files = sorted(GUIDE_DIR.glob("*.md"))
    if not files:
        raise CommandError(f"the bundled guide is missing ({GUIDE_DIR}); reinstall haiku-tui")
    if not quiet:
        print(f"Preparing the demo knowledge base at {path} …", file=sys.stderr)
    with KnowledgeBase.open(str(path), embedder="auto", create=True) as kb:
        report = kb.add(files)
    if not quiet:
        print(
            f"  guide: {len(files)} files · {len(report.added)} added · {len(report.replaced)} updated · "
            f"{len(report.skipped)} unchanged",
            file=sys.stderr,
        )
        for failure in report.failed:
            print(f"  skipped {failure.path}: {failure.reason}", file=sys.stderr)
    return path


def cmd_demo(args: argparse.Namespace) -> int:
    """``haiku-tui demo``: the app on the bundled user guide, ingested behind the first frame."""
    path = demo_db_path()
    return run_app(args, str(path), prepare_kb=lambda: prepare_demo(path, quiet=True))
