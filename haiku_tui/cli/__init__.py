"""The ``haiku-tui`` command.

Kept import-light: subcommand modules are imported to register their parsers, but they import
heavy libraries (lancedb, pyarrow, pydantic_ai, textual) only inside their command functions.

A subcommand module exposes ``register(subparsers, common)``: it adds its parsers with
``subparsers.add_parser(name, parents=[common], ...)`` and sets ``func=<callable(args) -> int>``
with ``set_defaults``. To add a module, append its name to ``COMMAND_MODULES``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

PROG = "haiku-tui"

# Modules under haiku_tui.cli that register subcommands, in help order.
COMMAND_MODULES: tuple[str, ...] = ("app", "kb", "sync", "embed", "ask", "eval", "sessions", "serve")


class CommandError(Exception):
    """A user-facing error: printed as one ``haiku-tui: error: …`` line, exit status ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts too (``haiku-tui search --db X …``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="PATH_OR_URI",
        help="knowledge base location: a path or LanceDB URI (default: $HAIKU_RAG_DB, then the data dir)",
    )
    common.add_argument(
        "--embedder",
        default=argparse.SUPPRESS,
        metavar="MODEL",
        help="Pydantic AI embedding model, e.g. openai:text-embedding-3-small, or `minilm` (offline transformer, extra "
        "haiku-tui[minilm]) (default: $HAIKU_TUI_EMBEDDER, else `embedder` in config.toml, else the built-in offline "
        "model `wordllama` for a new knowledge base and what an existing one was built with; none = full-text only)",
    )
    common.add_argument(
        "--reranker",
        default=argparse.SUPPRESS,
        metavar="URL",
        help="a rerank server (llama.cpp --reranking, vLLM, TEI, Infinity) that reorders the search's candidates "
        "through POST URL/rerank (default: $HAIKU_TUI_RERANKER, 'reranker' in the config file; its key from "
        "$HAIKU_TUI_API_KEY)",
    )
    common.add_argument(
        "--reranker-model",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="the model the rerank server should use (default: $HAIKU_TUI_RERANKER_MODEL, 'reranker_model' in the "
        "config file)",
    )
    common.add_argument(
        "--timeout",
        default=argparse.SUPPRESS,
        type=_seconds,
        metavar="SECONDS",
        help="how long to wait for the model to start answering (default: $HAIKU_TUI_TIMEOUT, "
        "'timeout' in the config file, else 60)",
    )
    return common


def _seconds(value: str) -> float:
    from haiku_tui.agent.models import ModelConfigError, parse_timeout

    try:
        return parse_timeout(value)
    except ModelConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A keyboard-driven terminal workbench for grounded conversations with your own documents.",
        parents=[common],
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    from .app import add_app_options

    add_app_options(parser)  # a bare `haiku-tui` opens the app
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(subparsers, common)
    return parser


def db_arg(args: argparse.Namespace) -> str | None:
    return getattr(args, "db", None)


def embedder_arg(args: argparse.Namespace, default: str = "auto") -> str:
    """``--embedder``, else ``$HAIKU_TUI_EMBEDDER``, else ``embedder`` in config.toml, else ``default``
    (``"auto"``: see ``haiku_tui.store.embedding.choose_embedder``)."""
    chosen = getattr(args, "embedder", None) or os.environ.get("HAIKU_TUI_EMBEDDER")
    if chosen:
        return chosen
    from haiku_tui.agent.models import read_config

    configured = read_config().get("embedder")
    return configured if isinstance(configured, str) and configured.strip() else default


def reranker_args(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """``--reranker`` / ``--reranker-model``, else the environment, else the config file (see ``agent.config``)."""
    from haiku_tui.agent.config import reranker_choice
    from haiku_tui.agent.models import ModelConfigError

    try:
        return reranker_choice(getattr(args, "reranker", None), getattr(args, "reranker_model", None))
    except ModelConfigError as exc:
        raise CommandError(str(exc)) from None


def search_first_arg(args: argparse.Namespace) -> bool | None:
    """``--search-first`` (True) / ``--tools`` (False), else ``$HAIKU_TUI_SEARCH_FIRST``, else the config file, else
    None: automatic (see ``agent.model_paths``)."""
    from haiku_tui.agent.model_paths import search_first_choice
    from haiku_tui.agent.models import ModelConfigError

    try:
        return search_first_choice(getattr(args, "search_first", None))
    except ModelConfigError as exc:
        raise CommandError(str(exc)) from None


def forget_path(args: argparse.Namespace, choice: Any) -> None:
    """``--tools``: forget that the chosen model (a ``ModelChoice``) was answered search-first on its server."""
    if getattr(args, "search_first", None) is False:
        from haiku_tui.agent.model_paths import ModelPaths

        try:
            ModelPaths().forget(choice.label)
        except OSError:  # a read-only data dir: --tools still applies to this command
            pass


def warn_once() -> Callable[[str], None]:
    """A reranker's fault line for stderr: ``haiku-tui: …``, each distinct line once per command."""
    seen: set[str] = set()

    def warn(line: str) -> None:
        if line not in seen:
            seen.add(line)
            from haiku_tui.text import printable_line

            print(f"{PROG}: {printable_line(line)}", file=sys.stderr)

    return warn


def attach_reranker(args: argparse.Namespace, kb: Any) -> Any:
    """Give ``kb`` the configured reranker (faults: one line on stderr); returns ``kb``."""
    url, model = reranker_args(args)
    if url:
        from haiku_tui.agent.config import make_reranker
        from haiku_tui.agent.models import ModelConfigError

        try:
            kb.reranker = make_reranker(url, model, on_fault=warn_once())
        except ModelConfigError as exc:
            raise CommandError(str(exc)) from None
    return kb


_API_HINT = re.compile(r"\s*\(or [A-Z]\w*(?:\.\w+)+(?:\(\))?\)")  # "(or KnowledgeBase.add)"


def error(message: str) -> None:
    """Print ``haiku-tui: error: …`` on one line: sanitised, keys in use redacted, no Python API hints."""
    from haiku_tui.agent.errors import safe_line

    text = safe_line(_API_HINT.sub("", str(message))) or "unknown error"
    print(f"{PROG}: error: {text}", file=sys.stderr)


def describe(exc: BaseException) -> str:  # a flat table of cases
    """The user-facing line for an exception that reached the command line, naming what to do."""
    import errno
    import sqlite3

    from haiku_tui.agent.models import ModelConfigError
    from haiku_tui.sessions.errors import SessionError
    from haiku_tui.store.errors import StoreError, damaged, unwritable

    exc = damaged(exc) or unwritable(exc) or exc  # a missing LanceDB data file, a full or read-only disk
    if isinstance(exc, (CommandError, ModelConfigError, SessionError, StoreError)):
        return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    if isinstance(exc, OSError) and exc.errno is not None:
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"the disk is full{where}; free some space and try again"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return f"cannot write{where}: the location is read-only or not permitted; check its permissions"
        if exc.errno == errno.ENOENT:
            return f"no such file or folder{where}; check the path"
        if exc.errno == errno.EISDIR:
            return f"a folder was given where a file is needed{where}; name the file"
        if exc.errno == errno.ENOTDIR:
            return f"a part of the path is a file, not a folder{where}; check the path"
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        if "full" in text:
            return "the disk is full; free some space and try again"
        if "readonly" in text or "read-only" in text:
            return "the sessions database is read-only; check the permissions of the data directory"
    if isinstance(exc, OverflowError):
        return f"a number is too large ({exc}); use a smaller value"
    from haiku_tui.agent.errors import describe_error

    return describe_error(exc)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``haiku-tui`` console script; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):  # a character the terminal's encoding lacks prints as "?", never fails
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help, --version, usage errors (argparse already printed)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    func = getattr(args, "func", None)
    if func is None:  # no subcommand: open the app
        from .app import cmd_open

        func = cmd_open
    try:
        code = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`haiku-tui list | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush must not fail again
        return 141
    except CommandError as exc:
        error(str(exc))
        return exc.code
    except Exception as exc:  # one clear line, never a traceback
        if os.environ.get("HAIKU_TUI_DEBUG"):
            raise
        error(describe(exc))
        return 1
