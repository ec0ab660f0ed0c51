"""What a model server's prompt cache can reuse: 30 questions of ``haiku-tui ask --session`` over the pydoc corpus.

Each question is the ``ask`` command in-process (partial load, build, run, save) against the loopback
OpenAI-compatible server (``tests/model_server.py``), which records every request body. A request is read as
its tool definitions, then every message, in order (JSON); its *shared prefix* is the longest start it has in
common with the request before it, and what comes after that is *re-sent*: a server that keeps the prefix of
the prompts it has seen (llama.cpp's KV cache, vLLM, OpenAI's and Anthropic's prompt caches) processes only
that part again. Printed per question: the first request's re-sent characters against the previous
question's last request; then the session's figures against the goals of issue #36.

    python -m bench.bench_cache [--questions 30] [--keep DIR]

Against a real server (``--base-url URL --model NAME``, e.g. the llama.cpp server of ``bench/local_model.py``),
the same questions are asked and timed instead: seconds from the question to its first answer words at
questions 2, 10 and 30, and the prompt tokens the server evaluated (reported input tokens less those it read
from its cache, where it reports them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_ask_turns import questions


def request_text(body: dict[str, Any]) -> str:
    """A request as a prompt cache sees it: its tool definitions, then every message, in order."""
    return json.dumps(body.get("tools") or [], sort_keys=True) + "".join(
        json.dumps(m, sort_keys=True) for m in body.get("messages", [])
    )


def shared_prefix(a: str, b: str) -> int:
    """Length of the longest common start of ``a`` and ``b``."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # bisect on equal slices: fast for long strings
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


class FirstWrite(io.StringIO):
    """stdout that notes when the answer's first words were written."""

    def __init__(self) -> None:
        super().__init__()
        self.first: float | None = None

    def write(self, text: str) -> int:
        if self.first is None and text.strip():
            self.first = time.perf_counter()
        return super().write(text)


def ask(
    db: str, session: str, question: str, *, new: bool, base_url: str, model: str, search_first: bool = False
) -> float | None:
    """``haiku-tui ask --session`` in-process; seconds to the first answer words (None: none written)."""
    from haiku_tui.cli import main

    out = FirstWrite()
    path = "--search-first" if search_first else "--tools"
    args = ["ask", "--db", db, "--session", session, "--base-url", base_url, "--model", model, path]
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        status = main([*args, *(["--new"] if new else []), question])
    assert status == 0, err.getvalue()
    return None if out.first is None else out.first - t0


def message_texts(body: dict[str, Any]) -> list[str]:
    """A request's messages as :func:`request_text` reads them."""
    return [json.dumps(m, sort_keys=True) for m in body.get("messages", [])]


def own_part(body: dict[str, Any], previous: dict[str, Any]) -> int:
    """Characters of ``body`` no layout could have sent before: its messages after the last message of
    ``previous`` (the answer since, the new question, its passages when asked search-first)."""
    now, last = message_texts(body), message_texts(previous)[-1:]
    at = max((i for i, m in enumerate(now) if [m] == last), default=-1)
    return sum(len(m) for m in now[at + 1:]) if at >= 0 else len(request_text(body))


def loopback(db: str, count: int, search_first: bool = False) -> list[list[dict[str, Any]]]:
    """The request bodies of each question, asked of the loopback server."""
    from tests.model_server import ModelServer

    server = ModelServer().start()
    per_question: list[list[dict[str, Any]]] = []
    try:
        for i, question in enumerate(questions()[:count]):
            before = len(server.requests)
            ask(db, "bench cache", question, new=i == 0, base_url=server.base_url, model="fake",
                search_first=search_first)
            per_question.append([r.body for r in server.requests[before:]])
    finally:
        server.stop()
    return per_question


def report(bodies: list[list[dict[str, Any]]]) -> None:
    per_question = [[request_text(b) for b in requests] for requests in bodies]
    flat = [text for requests in per_question for text in requests]
    prefixes = [0] + [shared_prefix(a, b) for a, b in zip(flat, flat[1:])]
    within = [
        shared_prefix(a, b) == len(a) for requests in per_question for a, b in zip(requests, requests[1:])
    ]
    print("| question | requests | first request (chars) | shared with the previous question's last | re-sent | "
          "of which new (answer, question, passages) | re-sent / request |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    resent: list[int] = []
    new: list[int] = []
    shares: list[float] = []
    for n, requests in enumerate(per_question, start=1):
        first = requests[0]
        if n == 1:
            print(f"| 1 | {len(requests)} | {len(first):,} | – | – | – | – |")
            continue
        shared = shared_prefix(first, per_question[n - 2][-1])
        resent.append(len(first) - shared)
        new.append(min(resent[-1], own_part(bodies[n - 1][0], bodies[n - 2][-1])))
        shares.append(resent[-1] / len(first))
        print(f"| {n} | {len(requests)} | {len(first):,} | {shared:,} | {resent[-1]:,} | {new[-1]:,} | "
              f"{shares[-1]:.0%} |")
    early = statistics.median(resent[:5])  # questions 2–6
    late = statistics.median(resent[19:29]) if len(resent) >= 29 else float("nan")  # questions 21–30
    over = sum(1 for r in resent if r > 3 * early)
    total = sum(len(t) for t in flat)
    share = sum(prefixes) / total
    print(f"\nwithin a question, requests that extend the one before: {sum(within)} of {len(within)}")
    print(f"re-sent after the shared prefix, median of questions 2–6: {early:,.0f}; of 21–30: {late:,.0f} "
          f"({late / early:.2f}×; goal ≤ 1.5×)")
    print(f"questions re-sending more than 3× that median: {over} of {len(resent)} (goal ≤ 3)")
    print(f"re-sent part of the request, median over the session: {statistics.median(shares):.0%} (goal ≤ 25 %)")
    print(f"characters sent that were a prefix of the request before: {share:.1%} of {total:,} (goal ≥ 95 %)")
    own = sum(len(b) - shared_prefix(b, a) for requests in per_question for a, b in zip(requests, requests[1:]))
    steps = sum(r for r in resent if r > 3 * early)
    rewrites = sum(r - w for r, w in zip(resent, new) if r <= 3 * early)
    first_q = len(per_question[0][0])
    print(f"  not a prefix: {1 - share:.1%} — within questions (each question's own search results, calls and "
          f"answers) {own / total:.1%}, question 1 {first_q / total:.1%}, the first requests of the later "
          f"questions {(sum(resent) - steps) / total:.1%} (of which the answers, questions and passages since "
          f"{sum(new) / total:.1%}, the earlier slot rewritten {rewrites / total:.1%}), the steps {steps / total:.1%}")
    floor = own + first_q + sum(new)
    print(f"  what no layout can serve from a cache (each question's own work): {floor / total:.1%}, so with these "
          f"requests the share is at most {1 - floor / total:.1%}")
    if len(per_question) >= 30:
        q20, q30 = len(per_question[19][-1]), len(per_question[29][-1])
        print(f"last request of question 20: {q20:,} chars; of question 30: {q30:,} ({q30 / q20:.2f}×; goal ≤ 1.2×)")


def real_server(db: str, count: int, base_url: str, model: str, search_first: bool = False) -> None:
    """Time to the first answer words, and the prompt tokens the server evaluated, per question."""
    from haiku_tui.sessions import SessionStore
    from haiku_tui.capabilities.wire import Tokens, response_tokens, question_starts

    print("| question | first words (s) | prompt tokens reported | read from the cache | evaluated |")
    print("|---:|---:|---:|---:|---:|")
    store = SessionStore()
    for i, question in enumerate(questions()[:count]):
        first = ask(db, "bench cache real", question, new=i == 0, base_url=base_url, model=model,
                    search_first=search_first)
        session = store.load(store.resolve("bench cache real"), questions=1)
        messages = session.messages
        start = question_starts(messages)[-1]
        total = Tokens()
        for message in messages[start:]:
            if getattr(message, "kind", "") == "response":
                total += response_tokens(message)
        if i + 1 in (1, 2, 10, 20, 30) or i + 1 == count:
            evaluated = total.input - total.cached
            print(f"| {i + 1} | {first if first is None else round(first, 1)} | {total.input:,} | {total.cached:,} "
                  f"| {evaluated:,} |")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--keep", metavar="DIR", help="keep the knowledge base and the session in DIR")
    parser.add_argument("--search-first", action="store_true", help="ask every question search-first")
    real = parser.add_argument_group("a real model server instead of the loopback one")
    real.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    real.add_argument("--model", metavar="NAME", help="the model name it serves")
    args = parser.parse_args()
    if bool(args.base_url) != bool(args.model):
        parser.error("--base-url and --model go together")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        root.mkdir(parents=True, exist_ok=True)
        os.environ["HAIKU_TUI_DATA_DIR"] = str(root / "data")
        from bench.corpora.pydoc import write_corpus
        from haiku_tui.store.kb import KnowledgeBase

        db = str(root / "kb.lancedb")
        if not Path(db).exists():
            kb = KnowledgeBase.open(db)
            kb.add(write_corpus(root / "corpus"))
            kb.close()
        path = "search-first" if args.search_first else "tools"
        print(f"ask --session ({path}), {args.questions} questions over the pydoc corpus; "
              f"Python {sys.version.split()[0]}\n")
        if args.base_url:
            real_server(db, args.questions, args.base_url, args.model, args.search_first)
        else:
            report(loopback(db, args.questions, args.search_first))


if __name__ == "__main__":
    main()
