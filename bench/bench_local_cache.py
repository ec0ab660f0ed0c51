"""Issue #36 with a real model: a long ``ask --session`` on the local llama.cpp server, and what its KV cache saves.

    python -m bench.bench_local_cache [--model-size 0.5b|1.5b] [--questions 30] [--tools-at-once | --search-first]

The questions of ``bench_cache`` / ``bench_ask_turns`` over the pydoc corpus, each a ``haiku-tui ask --session``
process against ``bench/llama_server.py`` (one KV cache, kept between requests: llama.cpp reuses the longest
common prefix with the previous prompt). Per question: seconds to the first answer words on stdout (the process
started), the whole question, and from the server's log its requests, their prompt tokens, those reused from the
cache and those evaluated, and the evaluated tokens of its first request (what the question re-sends after the
prefix the previous question left). ``--tools-at-once`` offers every tool from the first request (the 0.5B never
loads deferred tools, so nothing would be cited otherwise). ``BENCH_CODE=<checkout>`` runs that checkout's
``haiku_tui`` (before/after in one session of the box).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_ask_turns import questions
from bench.bench_local_model import CODE, ROOT, read_log
from bench.local_model import MODELS, local_server

SHOWN = (1, 2, 5, 10, 20, 30)


def ask(command: list[str], env: dict[str, str]) -> tuple[float | None, float, int, str]:
    """(seconds to the first answer byte on stdout or None, seconds in all, exit status, stderr) of one ``ask``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, cwd=CODE, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = None
    while chunk := proc.stdout.read1(4096):
        if first is None and chunk.strip():
            first = time.perf_counter() - t0
    errors = proc.stderr.read().decode(errors="replace")
    return first, time.perf_counter() - t0, proc.wait(), errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-size", choices=sorted(MODELS), default="0.5b")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--tools-at-once", action="store_true")
    parser.add_argument("--search-first", action="store_true", help="ask every question search-first")
    args = parser.parse_args()
    model = MODELS[args.model_size].file.removesuffix(".gguf")
    launcher = ["bench.bench_local_model", "_ask"] if args.tools_at_once else ["haiku_tui.cli"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        from bench.corpora.pydoc import write_corpus
        from haiku_tui.store.kb import KnowledgeBase

        db = str(tmp / "kb.lancedb")
        with KnowledgeBase.open(db) as kb:
            kb.add(write_corpus(tmp / "corpus"))
        env = {
            **os.environ, "HAIKU_TUI_DATA_DIR": str(tmp / "data"), "HAIKU_TUI_TIMEOUT": "900",
            "HAIKU_TUI_SEARCH_FIRST": "1" if args.search_first else "0", "PYTHONPATH": str(ROOT),
        }
        log = tmp / "requests.jsonl"
        with local_server(args.model_size, log=log) as url:
            offset = 0
            for i, question in enumerate(questions()[: args.questions], 1):
                command = [
                    sys.executable, "-m", *launcher, "--db", db, "ask", "--base-url", url, "--model", model,
                    "--session", "bench cache real", *(["--new"] if i == 1 else []), question,
                ]
                first, total, status, errors = ask(command, env)
                requests, offset = read_log(log, offset)
                rows.append((i, first, total, status, requests))
                print(f"  {i}/{args.questions} {total:5.1f}s first {first} status {status}", file=sys.stderr)
                if status:
                    print("    " + "\n    ".join(errors.strip().splitlines()[-5:]), file=sys.stderr)
    print(f"{MODELS[args.model_size].file}, ask --session over pydoc, {len(rows)} questions, "
          f"{'search-first' if args.search_first else 'tools at once' if args.tools_at_once else 'tools deferred'}, "
          f"code {CODE}")
    print("| question | first words s | question s | requests | prompt tokens | reused | evaluated | "
          "evaluated by its first request |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, first, total, status, requests in rows:
        if i in SHOWN or i == len(rows):
            prompt = sum(r["prompt_tokens"] for r in requests)
            cached = sum(r["cached_tokens"] for r in requests)
            opening = requests[0]["evaluated_tokens"] if requests else 0
            shown_first = "—" if first is None else f"{first:.1f}"
            print(f"| {i}{'' if status == 0 else ' (failed)'} | {shown_first} | {total:.1f} | {len(requests)} | "
                  f"{prompt:,} | {cached:,} | {prompt - cached:,} | {opening:,} |")
    late = [r for r in rows if r[0] > len(rows) // 2]
    early = [r for r in rows if 2 <= r[0] <= 6]
    for label, part in (("questions 2–6", early), ("the later half", late)):
        if part:
            firsts = [r[1] for r in part if r[1] is not None]
            evaluated = [sum(x["evaluated_tokens"] for x in r[4]) for r in part]
            print(f"median over {label}: first words {statistics.median(firsts) if firsts else float('nan'):.1f} s, "
                  f"evaluated tokens {statistics.median(evaluated):,.0f}")


if __name__ == "__main__":
    main()
