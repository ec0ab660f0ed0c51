"""Cost per question of ``haiku-tui ask --session S`` as the session grows (extractive model, pydoc corpus).

1. The run loop: one agent, one session; each turn does what ``ask --session`` does after loading —
   ``session.deps()``, the streamed run, ``commit_run``, ``save``, the report — timed per turn up to
   ``--turns`` (default 1000). Reported as medians over windows of turns.
2. The command in-process: ``haiku_tui.cli.main(["ask", "--session", S, …])`` (open the store, load the
   session, build the agent, run, save, report), ``--samples`` times on a fresh session (turns 2…), on the
   same session once it holds a full history window (turns 22…) and on the grown one (turns 1001…).
3. The command as a subprocess: ``haiku-tui ask --session S …``, on a fresh session and the grown one.

Turn N against turns 1–10 is the issue's measure; against turns 21–30 (a run that already carries a full
window of 20 questions) it tells what grows with the session's length from what the window costs.

    python -m bench.bench_ask_turns [--turns 1000] [--samples 7] [--keep DIR]
    PYTHONPATH=<checkout> python -m bench.bench_ask_turns --grown DIR --samples 9 --no-subprocess
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import topics, write_corpus


def questions() -> list[str]:
    names = sorted(topics())
    return [f"How does {name.replace('-', ' ')} work?" for name in names]


def ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def run_loop(db: str, turns: int) -> tuple[str, list[float]]:
    """Grow one session to ``turns`` questions the way ``ask`` runs each one; per-turn seconds.

    Each turn is a ``QuestionRun`` (deps, the streamed run, commit, save) and the report; with the
    history window of this checkout when it has one (older checkouts pass the whole history).
    """
    import inspect

    from haiku_tui.agent import AgentConfig, build_agent
    from haiku_tui.capabilities.report import answer_report
    from haiku_tui.cli.ask import run_question
    from haiku_tui.sessions import SessionStore
    from haiku_tui.sessions.run import QuestionRun
    from haiku_tui.store.kb import KnowledgeBase

    kb = KnowledgeBase.open(db, create=False)
    agent = build_agent(AgentConfig(model="extractive", db=db), kb=kb)
    store = SessionStore()
    session = store.new(model="extractive", db=db, title="bench long")
    windowed = "window" in inspect.signature(QuestionRun).parameters
    asked = questions()
    times = []
    for turn in range(turns):
        t0 = time.perf_counter()
        run = QuestionRun(agent, session, asked[turn % len(asked)], store=store)
        finished = asyncio.run(run_question(run))
        assert finished.outcome == "completed", finished.error
        messages = session.conversation.messages if windowed else finished.result.all_messages()
        answer_report(session.state, messages, compaction=True, answer=str(finished.result.output))
        times.append(time.perf_counter() - t0)
    store.close()
    return session.id, times


CPU: dict[int, list[float]] = {}
"""CPU seconds (the process's, all threads) of each :func:`ask_in_process` sample list, by the list's id: on a
shared box the wall time also counts waiting for a core, the CPU time does not."""


def ask_in_process(db: str, session: str, samples: int, first: int, new: bool = False) -> list[float]:
    from haiku_tui.cli import main

    asked, times, cpu = questions(), [], []
    for i in range(samples):
        t0, c0 = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            status = main(
                ["ask", "--db", db, "--session", session, *(["--new"] if new else []), asked[(first + i) % len(asked)]]
            )
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert status == 0, err.getvalue()
    CPU[id(times)] = cpu
    return times


def ask_subprocess(db: str, session: str, samples: int, first: int, new: bool = False) -> list[float]:
    asked, times = questions(), []
    exe = str(Path(sys.executable).with_name("haiku-tui"))
    for i in range(samples):
        t0 = time.perf_counter()
        done = subprocess.run([exe, "ask", "--db", db, "--session", session, *(["--new"] if new else []),
                               asked[(first + i) % len(asked)]], capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        assert done.returncode == 0, done.stderr
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="keep the knowledge base and the grown session in DIR")
    parser.add_argument("--grown", metavar="DIR", help="start from a copy of what --keep kept: no run loop (to compare "
                        "trees on one session: run each with PYTHONPATH on its checkout, alternating)")
    parser.add_argument("--no-subprocess", action="store_true", help="leave out the subprocess measures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "bench"
        if args.grown:
            shutil.copytree(args.grown, root)
            os.environ["HAIKU_TUI_DATA_DIR"] = str(root / "data")
            db, long_id = str(root / "kb.lancedb"), (root / "long_id").read_text()
            args.turns = int((root / "turns").read_text())
            ask_in_process(db, long_id, 1, args.turns)  # (a checkout of another layout rewrites it here, once)
            args.turns += 1
        else:
            root.mkdir()
            os.environ["HAIKU_TUI_DATA_DIR"] = str(root / "data")
            from haiku_tui.store.kb import KnowledgeBase

            db = str(root / "kb.lancedb")
            kb = KnowledgeBase.open(db)
            kb.add(write_corpus(root / "corpus"))
            kb.close()
            long_id, loop = run_loop(db, args.turns)
            (root / "long_id").write_text(long_id)
            (root / "turns").write_text(str(args.turns))
            if args.keep:
                shutil.copytree(root, args.keep, dirs_exist_ok=True)
        print(f"ask --session cost per question, extractive model, pydoc corpus; Python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs (box shared: compare ratios within this run)\n")
        if not args.grown:
            print("Run loop (deps, run, commit, save, report), median ms per turn:\n")
            print("| turns | median ms |\n|---|---:|")
            windows = [w for w in ((1, 10), (21, 30), (91, 100), (491, 500)) if w[1] < args.turns - 9]
            windows += [(args.turns - 9, args.turns)]
            for lo, hi in windows:
                print(f"| {lo}–{hi} | {ms(loop[lo - 1:hi]):.1f} |")
            last = ms(loop[-10:])
            print(f"\nturns {args.turns - 9}–{args.turns} / turns 1–10: {last / ms(loop[:10]):.2f}×; "
                  f"/ turns 21–30: {last / ms(loop[20:30]):.2f}×\n")

        ask_in_process(db, "bench fresh", 1, 0, new=True)  # creates it: turn 1
        fresh_in = ask_in_process(db, "bench fresh", args.samples, 1)
        ask_in_process(db, "bench fresh", max(0, 20 - args.samples), args.samples + 1)  # to turn 21
        window_in = ask_in_process(db, "bench fresh", args.samples, 21)
        long_in = ask_in_process(db, long_id, args.samples, args.turns + 1)
        print("`ask --session S` (open, load, build, run, save, report), median ms:\n")
        n = args.samples
        print(f"| how | turns 2–{n + 1} | turns 22–{n + 21} | turns {args.turns + 1}+ | ratio to 2–{n + 1} "
              f"| ratio to 22–{n + 21} |")
        print("|---|---:|---:|---:|---:|---:|")
        print(f"| in-process | {ms(fresh_in):.0f} | {ms(window_in):.0f} | {ms(long_in):.0f} | "
              f"{ms(long_in) / ms(fresh_in):.2f}× | {ms(long_in) / ms(window_in):.2f}× |")
        fresh_cpu, window_cpu, long_cpu = (ms(CPU[id(t)]) for t in (fresh_in, window_in, long_in))
        print(f"| in-process, CPU time | {fresh_cpu:.0f} | {window_cpu:.0f} | {long_cpu:.0f} | "
              f"{long_cpu / fresh_cpu:.2f}× | {long_cpu / window_cpu:.2f}× |")
        if not args.no_subprocess:
            ask_subprocess(db, "bench fresh sub", 1, 0, new=True)
            fresh_sub = ask_subprocess(db, "bench fresh sub", args.samples, 1)
            long_sub = ask_subprocess(db, long_id, args.samples, args.turns + args.samples + 1)
            print(f"| subprocess | {ms(fresh_sub):.0f} | – | {ms(long_sub):.0f} | {ms(long_sub) / ms(fresh_sub):.2f}× "
                  "| – |")


if __name__ == "__main__":
    main()
