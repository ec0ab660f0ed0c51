"""``haiku-tui eval``: how well the knowledge base finds the sources of a user's own questions."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from haiku_tui.text import printable_line

from . import CommandError, attach_reranker, db_arg, embedder_arg

SHOWN_HITS = 3
"""Top hits printed under each question (``--json`` lists the top k)."""


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "eval",
        parents=[common],
        help="measure retrieval on your own questions (recall@k, MRR@10)",
        description="Run each question of a JSON Lines file ({\"question\": …, \"expected\": …} with an optional "
        "\"phrase\"; expected: a document path, file name, title or chunk id) through the search the agent uses, "
        "and print each question's rank of its source and the figures. Exit status 1 when a line was bad "
        "(the other lines still run) or nothing could be evaluated.",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="JSON Lines cases ('-' reads standard input)")
    p.add_argument(
        "--from-reviews",
        action="store_true",
        help="the citations marked as supported in your sessions' reviews (on this knowledge base)",
    )
    p.add_argument("--write", metavar="FILE", help="also save the cases as JSON Lines to FILE")
    p.add_argument("-k", type=_k, default=5, help="recall@k cut-off (default 5)")
    p.add_argument(
        "--filter",
        "-f",
        metavar="SQL",
        help="the document filter the agent would search with, e.g. \"path LIKE '%%guide%%'\"",
    )
    p.add_argument("--misses", action="store_true", help="print only the questions whose source is not in the top k")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)


def _k(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if not 1 <= number <= 50:
        raise argparse.ArgumentTypeError("must be between 1 and 50")
    return number


def _read_cases(args: argparse.Namespace) -> tuple[list[Any], list[str]]:
    from haiku_tui.store.evaluation import parse_cases

    if args.file == "-":
        return parse_cases(sys.stdin)
    path = Path(args.file)
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            return parse_cases(lines)
    except FileNotFoundError:
        raise CommandError(f"no such file: {printable_line(args.file)}; give a JSON Lines file of cases") from None
    except IsADirectoryError:
        raise CommandError(f"{printable_line(args.file)} is a folder; give a JSON Lines file of cases") from None


def _review_cases(kb_uri: str) -> tuple[list[Any], Any]:
    from haiku_tui.sessions.cases import review_cases
    from haiku_tui.sessions.store import SessionStore

    store = SessionStore()
    found = review_cases(store, kb_uri)
    for notice in found.notices:
        print(f"{printable_line(notice)}", file=sys.stderr)
    if found.other_kb:
        print(f"{found.other_kb} session(s) made on other knowledge bases left out", file=sys.stderr)
    return found.cases, store


def cmd_eval(args: argparse.Namespace) -> int:
    if bool(args.file) == bool(args.from_reviews):
        raise CommandError("give a FILE of cases or --from-reviews (one of them)", code=2)
    from haiku_tui.store.evaluation import evaluate
    from haiku_tui.store.kb import KnowledgeBase

    errors: list[str] = []
    store = None
    if args.file:
        cases, errors = _read_cases(args)
        for line in errors:
            print(f"haiku-tui: error: {printable_line(line)}", file=sys.stderr)
    kb = attach_reranker(args, KnowledgeBase.open(db_arg(args), embedder=embedder_arg(args), create=False))
    if args.from_reviews:
        cases, store = _review_cases(kb.uri)
        if not cases:
            raise CommandError(
                "no reviewed citations on this knowledge base yet; mark citations as supported in the app's review "
                "(v) first"
            )
    if args.write:
        _write(args.write, cases)
    if not cases:
        raise CommandError(f"no cases in {printable_line(args.file)}; write one JSON object a line, e.g. "
                           '{"question": "…", "expected": "guide.md"}')
    evaluation = with_progress(
        args,
        len(cases),
        lambda on_progress: evaluate(
            lambda question, limit: kb.search(question, limit=limit, filter=args.filter),
            cases,
            k=args.k,
            on_progress=on_progress,
        ),
    )
    if store is not None:
        from haiku_tui.sessions.cases import save_figures

        save_figures(store, kb.uri, evaluation)
    if args.json:
        from haiku_tui.store.evaluation import evaluation_json

        print(json.dumps(evaluation_json(evaluation), indent=2, ensure_ascii=True))
    else:
        for line in report_lines(evaluation, misses_only=args.misses):
            print(line)
    return 1 if errors else 0


def _write(target: str, cases: list[Any]) -> None:
    text = "".join(json.dumps(case.to_json(), ensure_ascii=False) + "\n" for case in cases)
    Path(target).write_text(text, encoding="utf-8")
    print(f"wrote {len(cases)} case(s) to {printable_line(target)}", file=sys.stderr)


def with_progress(args: argparse.Namespace, total: int, run: Callable[[Any], Any]) -> Any:
    """``run(on_progress)``; a progress bar appears on a terminal's stderr once the run passes one second."""
    from rich.console import Console

    err = Console(stderr=True)
    if args.quiet or not err.is_terminal:
        return run(None)
    started = time.monotonic()
    bar: list[Any] = []

    def on_progress(done: int, _total: int) -> None:
        if not bar and time.monotonic() - started > 1.0 and done < total:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            progress = Progress(
                TextColumn("[bold]evaluating"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("questions"),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            )
            progress.start()
            bar.append((progress, progress.add_task("eval", total=total)))
        if bar:
            progress, task = bar[0]
            progress.update(task, completed=done)

    try:
        return run(on_progress)
    finally:
        if bar:
            bar[0][0].stop()


def report_lines(evaluation: Any, *, misses_only: bool = False) -> list[str]:
    """Each question's rank (or "missed") and top hits, then the figures."""
    k = evaluation.k
    lines = []
    for result in evaluation.results:
        if misses_only and result.rank is not None and result.rank <= k:
            continue
        where = "missed" if result.rank is None else f"rank {result.rank}"
        phrase = (
            "" if result.phrase_found is None else ("  phrase found" if result.phrase_found else "  phrase not found")
        )
        expected = ", ".join(result.case.expected)
        lines.append(
            f"{where:>8}  {printable_line(result.case.question, 100)}  → {printable_line(expected, 80)}{phrase}"
        )
        for hit in result.hits[:SHOWN_HITS]:
            lines.append(
                f"{'':10}{hit.rank:2d}. {printable_line(hit.label(), 70)}  "
                f"({printable_line(Path(hit.path).name, 50)})  [{hit.chunk_id}]"
            )
    with_phrase, found = evaluation.phrases
    figures = f"{evaluation.questions} question(s): recall@{k} {evaluation.recall:.3f}  MRR@10 {evaluation.mrr:.3f}"
    missed = len(evaluation.missed())
    figures += f"  ({missed} not in the top {k})" if missed else ""
    if with_phrase:
        figures += f"  phrase in the top {k}: {found}/{with_phrase}"
    lines.append(figures)
    return lines
