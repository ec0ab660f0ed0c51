"""``haiku-tui ask "QUESTION"``: one question, the answer streamed, then its numbered sources."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from haiku_tui.agent.models import API_KEY_ENV
from haiku_tui.text import json_dumps, printable_line, terminal_safe
from . import CommandError, db_arg, embedder_arg, forget_path, reranker_args, search_first_arg, warn_once
from .app import add_path_options


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "ask",
        parents=[common],
        help="ask one question; print the answer and its sources",
        description="Ask the knowledge base one question. The answer streams to stdout, followed by its numbered "
        "sources. Without --model (or $HAIKU_TUI_MODEL, or 'model' in <data dir>/config.toml) the offline, "
        "retrieval-only 'extractive' model answers.",
    )
    p.add_argument("question", nargs="+", metavar="QUESTION", help="the question (quote it, or pass several words)")
    p.add_argument(
        "--model",
        "-m",
        default=argparse.SUPPRESS,  # keeps a --model given before the subcommand
        metavar="MODEL",
        help="Pydantic AI model string, e.g. openai:gpt-5, anthropic:claude-sonnet-5-5, ollama:llama3.2 "
        "(default: $HAIKU_TUI_MODEL, config file, else extractive)",
    )
    p.add_argument(
        "--base-url",
        default=argparse.SUPPRESS,
        metavar="URL",
        help=f"an OpenAI-compatible server (llama.cpp, vLLM, LM Studio, Ollama), e.g. http://127.0.0.1:8080/v1; "
        f"its key, if any, from ${API_KEY_ENV}",
    )
    add_path_options(p, suppress=True)  # keeps a --search-first / --tools given before the subcommand
    p.add_argument(
        "--session",
        "-s",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="continue a saved session (id, id prefix or exact title)",
    )
    p.add_argument(
        "--new",
        action="store_true",
        help="with --session NAME: start a new session titled NAME when none has that name",
    )
    p.add_argument("--no-policy", action="store_true", help="do not enforce the citation policy")
    p.add_argument(
        "--no-compaction", action="store_true", help="send earlier evidence in full instead of compacting it"
    )
    p.add_argument(
        "--json", action="store_true", help="print {answer, citations, status, policy} as JSON (no streaming)"
    )
    p.set_defaults(func=cmd_ask)


# ---- streaming --------------------------------------------------------------------------------


@dataclass
class AnswerPrinter:
    """Writes streamed answer text; a later response that repeats what was printed is not printed again.

    (A model may write its answer, call a tool, and write it again: the user sees it once. A revised
    answer that diverges from what was printed is shown after a blank line.)
    """

    out: TextIO | None
    printed: str = ""
    pending: str | None = None

    def start(self, text: str) -> None:
        if self.printed:
            self.pending = ""
        self.write(text)

    def write(self, text: str) -> None:
        if not text:
            return
        if self.pending is not None:
            self.pending += text
            if self.printed.startswith(self.pending):
                return
            text, self.pending = "\n\n" + self.pending, None
        self._emit(text)

    def _emit(self, text: str) -> None:
        self.printed += text
        if self.out is not None:
            try:
                self.out.write(terminal_safe(text))
                self.out.flush()
            except BrokenPipeError:  # the reader went away (`ask … | head -1`): the answer is still saved
                self.out = None

    def finish(self) -> None:
        if self.printed and self.out is not None and not self.printed.endswith("\n"):
            self._emit("\n")


async def run_question(run: Any, out: TextIO | None = None, *, policy: bool = False) -> Any:
    """Consume a :class:`~haiku_tui.sessions.run.QuestionRun`, streaming answer text to ``out``.

    With the citation ``policy`` on, text written before the answer declared its grounding is held
    back: a redirect would replace it with the answer that is saved, so only that one is printed
    (text written after a cite call streams). Returns the run's :class:`~haiku_tui.sessions.run.Finished` event.
    """
    from haiku_tui.sessions.run import (
        HOST_SEARCH_CALL,
        Finished,
        Rerouted,
        StepFinished,
        StepStarted,
        TextDelta,
        TextStarted,
    )

    printer = AnswerPrinter(out)
    held: list[str] | None = [] if policy else None  # None: streaming
    finished = Finished("failed", "the run ended without a result")
    async for event in run:
        match event:
            case TextStarted(text) if held is not None:
                held[:] = [text]
            case TextDelta(text) if held is not None:
                held.append(text)
            case TextStarted(text):
                printer.start(text)
            case TextDelta(text):
                printer.write(text)
            case StepStarted() if held is not None:
                held.clear()  # text written before a tool call is not the answer
            case StepFinished(call_id, step) if held is not None:
                # declared, or searched first (no redirect follows): stream; redirected: drop what was held
                held = None if step.kind == "cite" or call_id == HOST_SEARCH_CALL else []
            case Rerouted(line):
                print(f"haiku-tui: {printable_line(line)}", file=sys.stderr)
                held = [] if policy else None  # the question is asked again: nothing of the first attempt counts
            case Finished():
                finished = event
    if held and finished.outcome == "completed":
        printer.start("".join(held))
    printer.finish()
    return finished


# ---- reporting --------------------------------------------------------------------------------


def source_line(citation: dict[str, Any]) -> str:
    """``[n] Title › heading (p. x) — path``."""
    from haiku_tui.store.records import chunk_label, page_range

    label = chunk_label(
        str(citation.get("title") or citation.get("path") or citation["chunk_id"]), citation["headings"]
    )
    pages = page_range(citation["pages"])
    path = citation.get("path")
    text = f"[{citation['number']}] {label}" + (f" ({pages})" if pages else "") + (f" — {path}" if path else "")
    if citation.get("by") == "haiku-tui":
        text += " (attributed by haiku-tui)"
    return printable_line(text)


# ---- sessions ---------------------------------------------------------------------------------


def open_session(store: Any, name: str, *, new: bool = False, window: int = 0) -> Any:
    """The session ``name`` names (an id, a unique id prefix, or an exact title); with ``new``, a new
    session titled ``name`` when none has that name (saved only when its first answer is). ``window``: the
    run sees that many earlier questions, so only their messages are read (0: the whole history)."""
    from haiku_tui.sessions import SessionNotFound

    try:
        return store.load(store.resolve(name), questions=window)
    except SessionNotFound as error:
        if not new:
            raise SessionNotFound(f"{error}; add --new to start a session titled {name!r}") from None
    return store.new(title=name)


# ---- the command ------------------------------------------------------------------------------


def _learned(chosen: bool | None, choice: Any) -> tuple[Any, Any]:
    """(``ModelPaths``, what it learned about the chosen model) when the path is chosen automatically for a real
    model, else (None, None); a file that cannot be read is said on stderr and ignored."""
    from haiku_tui.agent import is_extractive
    from haiku_tui.agent.model_paths import ModelPaths

    if chosen is not None or is_extractive(choice.name):
        return None, None
    paths = ModelPaths()
    learned = paths.learned(choice.label)
    if paths.problem:
        print(f"haiku-tui: {printable_line(paths.problem)}", file=sys.stderr)
    return paths, learned


def cmd_ask(args: argparse.Namespace) -> int:
    from haiku_tui.agent import AgentConfig, ModelConfigError, build_agent
    from haiku_tui.agent.config import context_tokens, history_window, retained_chars, search_first_passages
    from haiku_tui.agent.models import choose_model

    question = " ".join(args.question).strip()
    if not question:
        raise CommandError("the question is empty")

    store = session = None
    if args.new and not getattr(args, "session", None):
        raise CommandError("--new needs --session NAME (the title of the new session)")
    try:
        window, retained, context = history_window(), retained_chars(), context_tokens()
        search_first_passages()
    except ModelConfigError as error:
        raise CommandError(str(error)) from None
    if getattr(args, "session", None):
        from haiku_tui.sessions import SessionError, SessionStore

        try:
            store = SessionStore()
            session = open_session(store, args.session, new=args.new, window=window)
            # one question, then exit: the session's parsed state (a long one: ~10^5 containers) need not be
            # walked again by every garbage-collector pass the run triggers (~10% of a 1000-question ask)
            gc.freeze()
        except SessionError as error:
            raise CommandError(str(error)) from None

    try:
        db = db_arg(args) or (session.db if session is not None else None)
        model_name = getattr(args, "model", None) or (session.model if session is not None else None)
        choice = choose_model(model_name, getattr(args, "base_url", None))
        chosen = search_first_arg(args)
        forget_path(args, choice)
        paths, learned = _learned(chosen, choice)
        reranker, reranker_model = reranker_args(args)
        config = AgentConfig(
            search_first=chosen if chosen is not None else bool(learned and learned.search_first),
            reranker=reranker,
            reranker_model=reranker_model,
            on_reranker_fault=warn_once(),
            model=choice.name,
            base_url=choice.base_url,
            timeout=getattr(args, "timeout", None),
            db=db,
            compaction=not args.no_compaction,
            policy=not args.no_policy,
        )
        from haiku_tui.store.kb import KnowledgeBase

        kb = KnowledgeBase.open(db, embedder=embedder_arg(args), create=False)
        agent = build_agent(config, kb=kb)
    except ModelConfigError as error:
        raise CommandError(str(error)) from None
    fallback = None
    if paths is not None and not config.search_first:
        from haiku_tui.sessions.fallback import Fallback

        fallback = Fallback(
            agent=lambda: build_agent(dataclasses.replace(config, search_first=True), kb=kb),
            label=choice.label, searchable=kb.holds_documents, paths=paths,
        )

    from haiku_tui.capabilities.report import answer_report
    from haiku_tui.locations import resolve_db
    from haiku_tui.sessions.run import QuestionRun

    if session is None:
        from haiku_tui.sessions.model import Session

        session = Session()  # kept in memory only
    created = store is not None and not store.exists(session.id)
    from haiku_tui.agent import is_extractive
    from haiku_tui.sessions.fallback import ContextMemory

    run = QuestionRun(
        agent, session, question, store=store, model=choice.name, db=resolve_db(db), window=window, retained=retained,
        fallback=fallback, search_first=bool(config.search_first),
        context=None if is_extractive(choice.name) else ContextMemory(choice.label, paths, context),
    )
    out = None if args.json else sys.stdout
    finished = asyncio.run(run_question(run, out, policy=config.policy))
    if finished.outcome != "completed":
        raise CommandError(finished.error or "the run was cancelled; nothing was saved")

    if created:
        print(f"haiku-tui: created session {session.id} ({terminal_safe(session.title)})", file=sys.stderr)
    result = finished.result
    # question identities are absolute indexes: the session may hold its newest messages only
    data = answer_report(
        session.state, session.messages, compaction=config.compaction, answer=str(result.output),
        offset=session.first_message,
    )
    data["path"] = "search-first" if config.search_first or run.rerouted else "tools"
    if args.json:
        if store is not None:
            data["session"] = session.id
        print(json_dumps(data, indent=2))
        return 0
    if data["grounding"]:  # never silently ungrounded: said under the answer, with it on stdout
        print(f"\n{data['grounding']}")
    if data["citations"]:
        print("\nSources:")
        for citation in sorted(data["citations"], key=lambda c: c["number"]):
            print(source_line(citation))
    if data["citations"] and data["unsupported"]:
        print(f"({len(data['unsupported'])} sentence(s) of the answer match no passage)")
    if data["unconfirmed"]:
        from haiku_tui.capabilities.views import unconfirmed_note

        print(f"({unconfirmed_note('grounded', data['unconfirmed'])})")
    if data["unbacked"]:
        markers = " ".join(f"[{n}]" for n in data["unbacked"])
        print(
            f"haiku-tui: note: no citation backs {markers} in this answer; what it marks has no source", file=sys.stderr
        )
    if data["policy"] == "violation":
        print("haiku-tui: note: this answer did not declare what grounds it", file=sys.stderr)
    if store is not None:
        print(f"\n(session {session.id}: {terminal_safe(session.title)})", file=sys.stderr)
    return 0
