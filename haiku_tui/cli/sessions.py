"""``haiku-tui sessions list|search|show|rename|delete|export|import``.

``register(subparsers, common)`` adds the ``sessions`` command to the main parser; every leaf sets
``func(args) -> int`` (the exit status). Errors print one ``haiku-tui: error: …`` line on stderr and exit 1.
Also runnable alone: ``python -m haiku_tui.cli.sessions list``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from haiku_tui.text import printable_line, terminal_safe


def _store(args: argparse.Namespace):
    from haiku_tui.sessions import SessionStore

    return SessionStore(getattr(args, "sessions_db", None))


def _when(stamp: str) -> str:
    return stamp.replace("T", " ")[:16]


def _cmd_list(args: argparse.Namespace) -> int:
    with _store(args) as store:
        rows = store.list(limit=args.limit)
        total = store.count() if not rows else len(rows)
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("No sessions yet." if args.limit != 0 or not total else f"{total} session(s); none shown (-n 0).")
        return 0
    print(f"{'ID':<12}  {'UPDATED':<16}  {'QUESTIONS':>9}  {'CITATIONS':>9}  TITLE")
    for row in rows:
        title = printable_line(row.title) + ("" if row.supported else "  (newer haiku-tui)")
        print(f"{row.id:<12}  {_when(row.updated_at):<16}  {row.questions:>9}  {row.citations:>9}  {title}")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    with _store(args) as store:
        hits = store.search(query, limit=args.limit)
    if not hits:
        print(f"No session matches {query!r}.")
        return 0
    for hit in hits:
        print(f"{hit.session.id:<12}  {_when(hit.session.updated_at):<16}  {printable_line(hit.session.title)}")
        print(f"    {printable_line(hit.snippet)}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    with _store(args) as store:
        text = store.export_markdown(args.id)
    sys.stdout.write(terminal_safe(text))
    return 0


def _cmd_rename(args: argparse.Namespace) -> int:
    with _store(args) as store:
        session_id = store.resolve(args.id)
        title = store.rename(session_id, " ".join(args.title))
    print(f"Renamed session {session_id} to {printable_line(title)!r}.")
    return 0


def _cmd_delete(args: argparse.Namespace) -> int:
    from haiku_tui.sessions import SessionNotFound

    with _store(args) as store:
        session_id = store.resolve(args.id)
        title = next((row.title for row in store.list() if row.id == session_id), "")
        if not store.delete(session_id):
            raise SessionNotFound(f"no session {session_id!r}")
    print(f"Deleted session {session_id} ({printable_line(title)}).")
    return 0


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cmd_export(args: argparse.Namespace) -> int:
    from haiku_tui.sessions.export import file_name

    with _store(args) as store:
        found = store.find(args.id)
        text = store.export_json(found.id) if args.format == "json" else store.export_markdown(found.id)
    if args.output and args.output != "-":
        target = Path(args.output).expanduser()
        if target.is_dir() or args.output.endswith(("/", os.sep)):
            target = target / file_name(found.title, found.id, args.format)
        _write_atomic(target, text)
        print(f"Exported session {found.id} as {args.format} to {printable_line(str(target))}.", file=sys.stderr)
    else:
        sys.stdout.write(terminal_safe(text) if sys.stdout.isatty() else text)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    text = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).expanduser().read_bytes()
    with _store(args) as store:
        session = store.import_json(text, keep_id=args.keep_id)
    print(f"Imported session {session.id}: {printable_line(session.title)}")
    return 0


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"use a number from 0 to 1000000, not {text}")
    return value


def _guarded(handler: Any) -> Any:
    """Run a handler; a known error becomes one line on stderr and exit status 1."""

    def run(args: argparse.Namespace) -> int:
        from haiku_tui.sessions import SessionError

        from . import describe

        try:
            return handler(args)
        except BrokenPipeError:  # the reader went away: the command line ends quietly
            raise
        except (SessionError, OSError, ValueError) as error:
            message = describe(error) if isinstance(error, OSError) else str(error) or type(error).__name__
            print(f"haiku-tui: error: {printable_line(message)}", file=sys.stderr)
            return 1

    run.__name__ = handler.__name__
    return run


def register(subparsers: Any, common: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Add ``sessions`` and its subcommands to the main parser's subparsers."""
    parser = subparsers.add_parser(
        "sessions",
        parents=[common] if common is not None else [],
        help="list, search, show, rename, delete, export and import saved sessions",
        description="Saved sessions (conversation + evidence state) in <data dir>/sessions.db.",
    )
    parser.add_argument("--sessions-db", metavar="PATH", help="sessions database (default: <data dir>/sessions.db)")
    commands = parser.add_subparsers(dest="sessions_command", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser("list", help="sessions, most recent first")
    p.add_argument("-n", "--limit", type=_count, default=None, help="show at most N sessions")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_guarded(_cmd_list))

    p = commands.add_parser("search", help="full-text search over titles, questions and answers")
    p.add_argument("query", nargs="+", help="words to look for (all must match)")
    p.add_argument("-n", "--limit", type=_count, default=20)
    p.set_defaults(func=_guarded(_cmd_search))

    p = commands.add_parser("show", help="print a session as Markdown")
    p.add_argument("id", help="session id, unique id prefix, or exact title")
    p.set_defaults(func=_guarded(_cmd_show))

    p = commands.add_parser("rename", help="give a session a title")
    p.add_argument("id", help="session id, unique id prefix, or exact title")
    p.add_argument("title", nargs="+", help="the new title")
    p.set_defaults(func=_guarded(_cmd_rename))

    p = commands.add_parser("delete", help="delete a session")
    p.add_argument("id", help="session id, unique id prefix, or exact title")
    p.set_defaults(func=_guarded(_cmd_delete))

    p = commands.add_parser("export", help="export a session as Markdown or JSON")
    p.add_argument("id", help="session id, unique id prefix, or exact title")
    p.add_argument("--format", choices=("md", "json"), default="md", help="md (default) or json (full fidelity)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    p.set_defaults(func=_guarded(_cmd_export))

    p = commands.add_parser("import", help="import a session exported as JSON")
    p.add_argument("file", help="the JSON file ('-' for standard input)")
    p.add_argument("--keep-id", action="store_true", help="keep the exported id (fails if it exists)")
    p.set_defaults(func=_guarded(_cmd_import))

    from .check import register_check

    register_check(commands, _guarded)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``sessions`` on its own: ``python -m haiku_tui.cli.sessions list`` (as ``haiku-tui sessions list``)."""
    from . import main as cli_main

    return cli_main(["sessions", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
