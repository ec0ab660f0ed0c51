"""Start-up time of every command, as whole processes, against ``haiku-tui --help`` in the same run.

    python -m bench.bench_startup [--runs 3] [--keep DIR] [--skip-app] [--skip-mcp] [--src TREE ...]

Builds (or reuses, with ``--keep``) a knowledge base of the 79-topic pydoc corpus (``bench/corpora/pydoc.py``),
then per round runs ``--help`` and each command alternately, so load on the box hits both alike. Prints
the medians, each as a multiple of ``--help``'s median, the CPU time (user + system, which load on the
box changes far less than wall time) and the peak RSS of ``search`` (``ru_maxrss`` from ``wait4``). Also:

- the app: ``haiku-tui demo`` in a tmux pane (160×48): the time to its first paint (the footer is on
  screen), then a question typed at that moment, and the time until its answer's ``[1]`` shows;
- ``haiku-tui mcp``: from starting the server (an ``mcp`` SDK stdio client) to the result of its first
  ``tools/call`` (a search).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpora.pydoc import write_corpus

ROOT = Path(__file__).resolve().parent.parent

CLI = [sys.executable, "-m", "haiku_tui.cli"]
QUERY = "with statement context manager"
QUESTION = "What does the with statement do?"
APP_QUESTION = "How do I export a session?"
TMUX = ["tmux", "-L", "hc-startup"]


def run(argv: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB) and CPU seconds of one whole process; a failure stops the benchmark."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[3:])} failed ({proc.returncode}): {proc.stderr.read().decode()[-500:]}")
    proc.stderr.close()
    return wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def commands(db: str, work: Path) -> dict[str, list[str]]:
    def add() -> list[str]:  # a new small file each run, so it is really ingested
        note = work / "notes" / f"note-{time.time_ns()}.md"
        note.parent.mkdir(exist_ok=True)
        note.write_text(f"# A note\n\nThe start-up benchmark wrote this note at {time.time_ns()}.\n")
        return ["add", str(note), "--db", db]

    return {
        "list": ["list", "--db", db],
        "info": ["info", "--db", db],
        f'search "{QUERY}"': ["search", QUERY, "--db", db],
        "add one.md": add,  # type: ignore[dict-item]
        f'ask "{QUESTION}"': ["ask", QUESTION, "--db", db],
        "sessions list": ["sessions", "list"],
    }


def command_table(
    db: str, work: Path, envs: dict[str, dict[str, str]], runs: int
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Per source tree, per command: its ``wall``, ``cpu`` and (search) ``rss`` samples, and ``--help``'s."""
    samples: dict[str, dict[str, dict[str, list[float]]]] = {label: {} for label in envs}
    table = commands(db, work)
    for _ in range(runs):
        for name, argv in table.items():
            for label, env in envs.items():  # the trees alternate command by command
                for key, command in (("--help", ["--help"]), (name, argv() if callable(argv) else argv)):
                    wall, peak, cpu = run([*CLI, *command], env)
                    got = samples[label].setdefault(key, {"wall": [], "cpu": [], "rss": []})
                    got["wall"].append(wall)
                    got["cpu"].append(cpu)
                    got["rss"].append(peak / 1024)
    return samples


def tmux(*args: str) -> str:
    return subprocess.run([*TMUX, *args], capture_output=True, text=True, check=False).stdout


def wait_for(text: str, since: float, limit: float) -> float | None:
    """Seconds from ``since`` until ``text`` is in the pane (polled every 20 ms), ``None`` after ``limit``."""
    while time.perf_counter() - since < limit:
        if text in tmux("capture-pane", "-p", "-t", "b"):
            return time.perf_counter() - since
        time.sleep(0.02)
    return None


def app_once(env: dict[str, str]) -> tuple[float, float]:
    """``haiku-tui demo`` in tmux: (first paint, answer shown) in seconds from the start."""
    tmux("kill-server")
    command = " ".join([f"{k}={v}" for k, v in env.items() if k.startswith(("HAIKU_", "PYTHON"))] + [*CLI, "demo"])
    t0 = time.perf_counter()
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", "b", "-c", env["PYTHONPATH"], "-x", "160", "-y", "48", command], check=True
    )
    try:
        paint = wait_for("^q", t0, 30)
        if paint is None:
            raise SystemExit(f"the app did not paint: {tmux('capture-pane', '-p', '-t', 'b')[-400:]}")
        tmux("send-keys", "-t", "b", "-l", APP_QUESTION)
        tmux("send-keys", "-t", "b", "Enter")
        answer = wait_for("[1]", t0, 60)
        if answer is None:
            raise SystemExit(f"no answer on screen: {tmux('capture-pane', '-p', '-t', 'b')[-800:]}")
        return paint, answer
    finally:
        tmux("send-keys", "-t", "b", "C-q")
        time.sleep(0.3)
        tmux("kill-server")


async def mcp_once(db: str, env: dict[str, str]) -> float:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "--db", db], cwd=env["PYTHONPATH"], env=env)
    t0 = time.perf_counter()
    async with Client(server) as client:
        result = await client.call_tool("search", {"query": QUERY, "limit": 3})
        took = time.perf_counter() - t0
        assert not result.is_error, result.content
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the knowledge base under this folder and reuse it")
    parser.add_argument("--skip-app", action="store_true")
    parser.add_argument("--skip-mcp", action="store_true")
    parser.add_argument(
        "--src", type=Path, nargs="+", default=[],
        help="source trees to time, alternated command by command (e.g. an exported older commit); default: this one",
    )
    args = parser.parse_args()
    trees = [path.resolve() for path in args.src] or [ROOT]
    with contextlib.ExitStack() as stack:
        work = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        work.mkdir(parents=True, exist_ok=True)
        db = str(work / "kb.lancedb")
        envs: dict[str, dict[str, str]] = {}
        for n, tree in enumerate(trees):  # a data dir per tree: sessions and the demo knowledge base of its own
            env = {**os.environ, "HAIKU_TUI_DATA_DIR": str(work / f"data-{n}"), "PYTHONPATH": str(tree)}
            env.pop("HAIKU_RAG_DB", None)
            envs[str(tree)] = env
        first = next(iter(envs.values()))
        if not Path(db).exists():
            write_corpus(work / "corpus", 0)
            run([*CLI, "add", str(work / "corpus"), "--db", db], first)
        shutil.rmtree(work / "notes", ignore_errors=True)
        for env in envs.values():
            run([*CLI, "ask", QUESTION, "--db", db], env)  # warm the page cache; a session exists
        samples = command_table(db, work, envs, args.runs)
        for label, rows in samples.items():
            help_median = statistics.median(rows["--help"]["wall"])
            print(f"\n{label}: medians of {args.runs} (--help of {len(rows['--help']['wall'])})")
            print("| command | wall | × `--help` | CPU |")
            print("|---|---|---|---|")
            for name, got in rows.items():
                wall = statistics.median(got["wall"])
                print(
                    f"| `haiku-tui {name}` | {wall:.2f} s | {wall / help_median:.1f}× | "
                    f"{statistics.median(got['cpu']):.2f} s |"
                )
            search = next(got for name, got in rows.items() if name.startswith("search"))
            print(f"peak RSS of search: {statistics.median(search['rss']):.0f} MB")
        if not args.skip_mcp:
            mcp: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in envs}
            for _ in range(args.runs):
                for label, env in envs.items():
                    mcp[label][0].append(run([*CLI, "--help"], env)[0])
                    mcp[label][1].append(asyncio.run(mcp_once(db, env)))
            for label, (helps, calls) in mcp.items():
                took = statistics.median(calls)
                print(
                    f"{label}: mcp first tools/call answered {took:.2f} s = {took / statistics.median(helps):.1f}× "
                    "--help"
                )
        if not args.skip_app and shutil.which("tmux"):
            app: dict[str, tuple[list[float], list[float], list[float]]] = {label: ([], [], []) for label in envs}
            for env in envs.values():
                app_once(env)  # prepares the demo knowledge base (the guide), as a user's first demo did
            for _ in range(args.runs):
                for label, env in envs.items():
                    app[label][0].append(run([*CLI, "--help"], env)[0])
                    paint, answer = app_once(env)
                    app[label][1].append(paint)
                    app[label][2].append(answer)
            for label, (helps, paints, answers) in app.items():
                paint, answer, h = statistics.median(paints), statistics.median(answers), statistics.median(helps)
                print(
                    f"{label}: demo first paint {paint:.2f} s = {paint / h:.1f}× --help; question typed at first paint "
                    f"answered at {answer:.2f} s = {answer / paint:.1f}× first paint"
                )


if __name__ == "__main__":
    main()
