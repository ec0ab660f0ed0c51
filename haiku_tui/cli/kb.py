"""Knowledge-base subcommands: ``add``, ``list``, ``delete``, ``search``, ``info``."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from haiku_tui.store.parsing import SUPPORTED_SUFFIXES
from haiku_tui.store.tables import outdated_note
from haiku_tui.text import printable_line

from . import CommandError, attach_reranker, db_arg, embedder_arg
from .app import add_path_options


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "add",
        parents=[common],
        help="ingest files and folders (.md .txt .rst .html .pdf .docx .pptx .xlsx .epub .csv)",
        description="Ingest files and folders recursively. Unchanged files are skipped, changed files replaced; "
        "unreadable, binary, empty or huge files are reported and skipped.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    ingest_options(p)
    p.set_defaults(func=cmd_add)

    p = subparsers.add_parser(
        "list", parents=[common], help="list documents", description="List the documents in the knowledge base."
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser(
        "delete",
        parents=[common],
        help="delete documents by id or path",
        description="Delete documents (and their chunks) by document id or path.",
    )
    p.add_argument("targets", nargs="+", metavar="ID_OR_PATH")
    p.set_defaults(func=cmd_delete)

    p = subparsers.add_parser(
        "search",
        parents=[common],
        help="search the knowledge base",
        description="Full-text (BM25) search; hybrid vector + full-text when an embedder is configured.",
    )
    p.add_argument("query", nargs="+", metavar="QUERY")
    p.add_argument("--limit", "-n", type=_limit, default=5, help=f"number of results, 1-{MAX_LIMIT} (default 5)")
    p.add_argument(
        "--filter", "-f", metavar="SQL", help="SQL over documents' title/path/metadata, e.g. \"path LIKE '%%guide%%'\""
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_search)

    p = subparsers.add_parser(
        "info",
        parents=[common],
        help="show where the knowledge base is and what it holds",
        description="Location, counts, embedder and size on disk; the model questions go to and how they reach it "
        "(tools, or search-first: chosen, or learned for that model and server).",
    )
    p.add_argument("--model", default=argparse.SUPPRESS, metavar="MODEL", help="the model to show (default: as `ask`)")
    p.add_argument("--base-url", default=argparse.SUPPRESS, metavar="URL", help="its OpenAI-compatible server")
    add_path_options(p, suppress=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_info)


# ---------------------------------------------------------------------------------------------


MAX_LIMIT = 1000


def _limit(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if not 1 <= number <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}")
    return number


def ingest_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``add``, ``sync`` and ``watch``."""
    p.add_argument(
        "--max-size", type=float, default=20.0, metavar="MB", help="skip files larger than this (default 20)"
    )
    p.add_argument("--verbose", "-v", action="store_true", help="list every file passed over, with its reason")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def open_kb(args: argparse.Namespace, *, create: bool) -> Any:
    from ..store.kb import KnowledgeBase

    return KnowledgeBase.open(db_arg(args), embedder=embedder_arg(args), create=create)


def snippet(text: str, query: str, width: int = 220) -> str:
    flat = printable_line(text)
    if len(flat) <= width:
        return flat
    words = [w.lower() for w in re.findall(r"\w{3,}", query)]
    lower = flat.lower()
    positions = [lower.find(w) for w in words if lower.find(w) >= 0]
    start = max(0, min(positions) - width // 4) if positions else 0
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def _size(n: int | None) -> str:
    if n is None:
        return "unknown (remote)"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _record_json(rec: Any) -> dict[str, Any]:
    from dataclasses import asdict

    data = asdict(rec)
    for key, value in data.items():
        if hasattr(value, "isoformat"):
            data[key] = value.isoformat()
    return data


# ---------------------------------------------------------------------------------------------


def cmd_add(args: argparse.Namespace) -> int:
    kb = open_kb(args, create=True)
    report = run_with_progress(
        args, lambda on_progress: kb.add(args.paths, on_progress=on_progress, max_bytes=max_bytes_arg(args))
    )
    print_report(report, args, kb.uri)
    return 1 if report.failed and not (report.added or report.replaced or report.skipped) else 0


def max_bytes_arg(args: argparse.Namespace) -> int:
    if not args.max_size > 0:
        raise CommandError("--max-size must be a positive number of megabytes")
    return int(args.max_size * 1024 * 1024)


def run_with_progress(args: argparse.Namespace, run: Callable[[Any], Any], command: str = "add") -> Any:
    """``run(on_progress)`` with the progress bar on a terminal's stderr (unless --quiet/--json); Ctrl+C says
    what the knowledge base kept (``cli/progress.py``)."""
    from .progress import with_progress

    return with_progress(run, show=not (args.quiet or args.json), command=command)


def print_report(report: Any, args: argparse.Namespace, uri: str | None) -> None:
    """An ingest/sync report: JSON, or a summary line plus failures and what was passed over."""
    if args.json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=True))
        return
    for line in report_lines(report, verbose=args.verbose):
        print(line)
    if uri is not None:
        print(f"knowledge base: {printable_line(uri)}")


def report_json(report: Any) -> dict[str, Any]:
    return {
        "added": [d.path for d in report.added],
        "replaced": [d.path for d in report.replaced],
        "removed": [d.path for d in report.removed],
        "moved": [{"from": a, "to": b} for a, b in report.moved],
        "skipped": report.skipped,
        "failed": [{"path": f.path, "reason": f.reason} for f in report.failed],
        "passed_over": [{"path": f.path, "reason": f.reason} for f in report.passed_over],
        "dry_run": report.dry_run,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 3),
    }


def report_lines(report: Any, *, verbose: bool = False) -> list[str]:
    secs = max(report.seconds, 1e-6)
    verb = "would be " if report.dry_run else ""
    head = f"{verb}added {len(report.added)}, {verb}replaced {len(report.replaced)}"
    if report.removed or report.moved:
        head += f", {verb}removed {len(report.removed)}, {verb}moved {len(report.moved)}"
    head += f", skipped unchanged {len(report.skipped)}, failed {len(report.failed)}"
    if not report.dry_run:
        head += (
            f"; {report.chunks} chunks in {report.seconds:.2f}s "
            f"({(len(report.added) + len(report.replaced)) / secs:.1f} files/s, {report.chunks / secs:.0f} chunks/s)"
        )
    lines = [head]
    if report.dry_run or verbose:
        lines += [f"  {verb}added: {printable_line(d.path)}" for d in report.added]
        lines += [f"  {verb}replaced: {printable_line(d.path)}" for d in report.replaced]
        lines += [f"  {verb}removed: {printable_line(d.path)}" for d in report.removed]
    lines += [f"  {verb}moved: {printable_line(a)} -> {printable_line(b)}" for a, b in report.moved]
    lines += [f"  failed: {printable_line(f.path)}: {printable_line(f.reason)}" for f in report.failed]
    lines += [f"  {line}" + ("" if verbose else " (--verbose lists them)") for line in report.passed_over_summary()]
    if verbose:
        lines += [f"  skipped: {printable_line(f.path)}: {printable_line(f.reason)}" for f in report.passed_over]
    nothing = not (report.added or report.replaced or report.skipped or report.failed or report.removed or report.moved)
    if nothing:
        supported = " ".join(sorted(SUPPORTED_SUFFIXES))
        lines.append(f"  no supported files found (supported: {supported})")
    return lines


def cmd_list(args: argparse.Namespace) -> int:
    kb = open_kb(args, create=False)
    docs = kb.documents()
    if args.json:
        print(json.dumps([_record_json(d) for d in docs], indent=2))
        return 0
    if not docs:
        print(f"no documents in {kb.uri}; add some with `haiku-tui add PATH…`")
        return 0
    for d in docs:
        print(
            f"{d.id}  {d.chunks:5d} chunks  {d.updated_at:%Y-%m-%d %H:%M}  {printable_line(d.title)}  "
            f"({printable_line(d.path)})"
        )
    print(f"{len(docs)} documents, {sum(d.chunks for d in docs)} chunks")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    kb = open_kb(args, create=False)
    missing = []
    for target in args.targets:
        rec = kb.delete(target)
        if rec is None:
            missing.append(target)
        else:
            print(f"deleted {rec.id}  {printable_line(rec.title)}  ({printable_line(rec.path)})")
    if missing:
        raise CommandError("no such document: " + ", ".join(map(printable_line, missing)) + " (see `haiku-tui list`)")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    kb = attach_reranker(args, open_kb(args, create=False))
    hits = kb.search(query, limit=args.limit, filter=args.filter)
    if args.json:
        print(json.dumps([_record_json(h) for h in hits], indent=2, ensure_ascii=True))  # escapes C0/C1 controls
        return 0
    if not hits:
        print("no results")
        return 0
    for h in hits:
        pages = f"  p. {', '.join(map(str, h.pages))}" if h.pages else ""
        print(f"{h.rank:2d}. {h.score:7.3f}  {printable_line(h.label())}{pages}  [{h.chunk_id}]")
        print(f"    {snippet(h.text, query)}")
    return 0


def _model_path(args: argparse.Namespace) -> tuple[str | None, str | None, int]:
    """The model questions go to, the path they take (``tools``, ``search-first (…; remembered)``) and its context
    size as its server gave it (0: not known); (None, None, 0) when the model settings are broken (``ask`` says
    how)."""
    from haiku_tui.agent.config import context_tokens
    from haiku_tui.agent.model_paths import ModelPaths, path_text
    from haiku_tui.agent.models import ModelConfigError, choose_model, is_extractive

    from . import search_first_arg

    try:
        choice = choose_model(getattr(args, "model", None), getattr(args, "base_url", None))
    except ModelConfigError:
        return None, None, 0
    if is_extractive(choice.name):
        return choice.label, path_text(search_first_arg(args), None), 0
    chosen, paths = search_first_arg(args), ModelPaths()
    try:
        configured = context_tokens()
    except ModelConfigError:
        configured = 0
    return choice.label, path_text(chosen, None if chosen is not None else paths.learned(choice.label)), (
        configured or paths.context(choice.label)
    )


def cmd_info(args: argparse.Namespace) -> int:
    kb = attach_reranker(args, open_kb(args, create=False))
    info = kb.info()
    info["reranker"] = kb.reranker.describe() if kb.reranker is not None else None
    info["model"], info["path"], info["context"] = _model_path(args)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    embedder = info["embedder"]
    if embedder:
        embedder = f"{embedder} ({info['dimension']} dims)"
        if not info.get("configured_embedder"):
            embedder += "  [not configured: search is full-text only; pass --embedder]"
    rows = [
        ("location", info["uri"]),
        ("documents", str(info["documents"])),
        ("chunks", str(info["chunks"])),
        ("embedder", embedder or "none (full-text search only; add vectors with `haiku-tui embed`)"),
        ("full-text index", "yes" if info["fts_index"] else "no"),
        ("size on disk", _size(info["size_bytes"])),
    ]
    if info["reranker"]:
        rows.append(("reranker", printable_line(info["reranker"])))
    if info["model"]:
        rows.append(("model", printable_line(f"{info['model']} · {info['path']}")))
    if info["context"]:
        rows.append(("model context", f"{info['context']:,} tokens (each request is planned to fit in half of it)"))
    if info.get("orphan_chunks"):
        rows.append(
            ("orphan chunks", f"{info['orphan_chunks']} (from an interrupted ingest; the next add removes them)")
        )
    if info.get("outdated_documents"):
        rows.append(("outdated", outdated_note(info["outdated_documents"])))
    for key, value in rows:
        print(f"{key:16s} {value}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(1)
