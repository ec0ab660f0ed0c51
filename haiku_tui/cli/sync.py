"""Keeping the knowledge base in step with folders: ``sync``, ``reindex``, ``watch``; and ``doctor``."""

from __future__ import annotations

import argparse
from typing import Any

from haiku_tui.text import printable_line

from . import CommandError
from .kb import max_bytes_arg, open_kb, ingest_options, print_report, report_lines, run_with_progress


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "sync",
        parents=[common],
        help="make the documents under folders match the disk",
        description="Like `add`, and documents whose file is gone are removed (with their chunks); a moved "
        "file (same content) replaces its old document instead of duplicating it.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--dry-run", "-n", action="store_true", help="list what would change, change nothing")
    ingest_options(p)
    p.set_defaults(func=cmd_sync)

    p = subparsers.add_parser(
        "reindex",
        parents=[common],
        help="re-index the documents an older haiku-tui indexed",
        description="Re-index, from their files, the documents an older haiku-tui indexed (`haiku-tui info` "
        "counts them): retrieval improvements reach them. Search keeps working meanwhile.",
    )
    ingest_options(p)
    p.set_defaults(func=cmd_reindex)

    p = subparsers.add_parser(
        "watch",
        parents=[common],
        help="keep the knowledge base in step with folders until Ctrl+C",
        description="Sync the folders, then sync every burst of changes (debounced) and print what changed.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="folders or files")
    p.set_defaults(func=cmd_watch)

    p = subparsers.add_parser(
        "doctor",
        parents=[common],
        help="check the knowledge base; --repair rebuilds a damaged one",
        description="Read every table and run a search. With --repair, a damaged knowledge base is moved aside "
        "(nothing is deleted) and rebuilt from its documents' files still on disk.",
    )
    p.add_argument("--repair", action="store_true", help="rebuild from the source files if damaged")
    p.set_defaults(func=cmd_doctor)


def cmd_sync(args: argparse.Namespace) -> int:
    kb = open_kb(args, create=True)
    max_bytes = max_bytes_arg(args)
    report = run_with_progress(
        args,
        lambda on_progress: kb.sync(args.paths, dry_run=args.dry_run, on_progress=on_progress, max_bytes=max_bytes),
        "sync",
    )
    print_report(report, args, kb.uri)
    return 1 if report.failed and not (report.added or report.replaced or report.skipped or report.removed) else 0


def cmd_reindex(args: argparse.Namespace) -> int:
    kb = open_kb(args, create=False)
    if not kb.outdated():
        print(f"every document of {printable_line(kb.uri)} is indexed by this version")
        return 0
    report = run_with_progress(
        args, lambda on_progress: kb.reindex(on_progress=on_progress, max_bytes=max_bytes_arg(args)), "reindex"
    )
    print_report(report, args, kb.uri)
    return 1 if report.failed else 0


def cmd_watch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.watch import watch

    missing = [p for p in args.paths if not Path(p).expanduser().exists()]
    if missing:
        raise CommandError(f"no such file or directory: {printable_line(missing[0])}")
    kb = open_kb(args, create=True)
    print(
        f"watching {', '.join(printable_line(p) for p in args.paths)} for {printable_line(kb.uri)}; Ctrl+C stops",
        flush=True,
    )
    for report in watch(kb, args.paths):
        for line in report_lines(report, verbose=True):
            print(line, flush=True)
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from haiku_tui.store.doctor import check, rebuild

    kb = open_kb(args, create=False)
    problems = check(kb)
    if not problems:
        print(f"knowledge base {printable_line(kb.uri)} is healthy ({kb.info()['documents']} documents)")
        return 0
    for problem in problems:
        print(f"problem: {printable_line(problem)}")
    if not args.repair:
        print("run `haiku-tui doctor --repair` to rebuild it from the source files (the damaged copy is kept)")
        return 1
    result = rebuild(kb)
    print(f"moved the damaged knowledge base to {printable_line(result.moved_aside)}")
    for path in result.missing_sources:
        print(f"  source file gone, not rebuilt: {printable_line(path)}")
    ingest = result.ingest
    print(f"rebuilt {len(ingest.added)} documents ({ingest.chunks} chunks); failed {len(ingest.failed)}")
    for failure in ingest.failed:
        print(f"  failed: {printable_line(failure.path)}: {printable_line(failure.reason)}")
    return 0 if not ingest.failed else 1
