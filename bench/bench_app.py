"""App start and first-token latency, with the extractive model over the bundled guide.

    python bench/bench_app.py [--runs N]

- *launch → first frame*: a fresh Python process imports the app, opens it headless and waits
  until the first screen is composed and painted (wall time of the whole process up to that point,
  including interpreter start and imports);
- *keystroke → first token*: in one running app, the time from pressing Enter on a question to
  the conversation showing the first streamed answer text (search, cite and the first chunk);
- *long sessions* (``--long 10 100 1000``): reopening a saved session of N questions — time until the
  last answer is on screen and until the app is idle (every worker done: the whole session loaded and
  drawn) — then scrolling a page and selecting the previous answer with ↑. Keys in a real terminal:
  ``bench/bench_keys.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("BENCH_CODE", str(ROOT)))  # another checkout to time (before/after)
sys.path.insert(0, str(ROOT / "bench"))

CHILD = """
import asyncio, sys, time
t0 = float(sys.argv[1])
from haiku_tui.agent import AgentConfig
from haiku_tui.tui.app import HaikuApp
async def main():
    app = HaikuApp(AgentConfig(model="extractive", db=sys.argv[2]))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(f"{time.time() - t0:.4f}", flush=True)
asyncio.run(main())
"""

QUESTIONS = [
    "How do I add a folder to the knowledge base?",
    "What does the citation policy do?",
    "How do I export a session?",
    "What is a receipted chunk?",
    "Which model runs offline?",
]


def launch_times(db: str, runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.time()
        done = subprocess.run([sys.executable, "-c", CHILD, str(t0), db], capture_output=True, text=True, env=env, check=True)
        out.append(float(done.stdout.strip().splitlines()[-1]))
    return out


async def first_token_times(db: str) -> list[float]:
    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp
    from haiku_tui.tui.main.conversation import QuestionTurn

    times = []
    app = HaikuApp(AgentConfig(model="extractive", db=db))
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.main.ready:  # time the answers, not the start-up
            await pilot.pause(0.05)
        for question in QUESTIONS:
            app.query_one("#prompt").text = question
            before = len(app.query(QuestionTurn))
            t0 = time.perf_counter()
            await pilot.press("enter")
            while True:
                turns = app.query(QuestionTurn)
                if len(turns) > before and turns.last().has_answer:
                    break
                await asyncio.sleep(0.002)
            times.append(time.perf_counter() - t0)
            await app.workers.wait_for_complete()
            await pilot.pause()
    return times


async def long_session(db: str, questions: int) -> dict[str, float]:
    """Reopen a saved session of ``questions`` RAG turns (saved through the store in seconds, see
    ``bench_keys.saved_session``) and time drawing and scrolling it."""
    from bench_keys import saved_session

    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import SessionStore
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.tui.app import HaikuApp
    from haiku_tui.tui.main.conversation import QuestionTurn

    kb = KnowledgeBase.open(db)
    store = SessionStore()
    session_id = saved_session(store, questions)
    app = HaikuApp(AgentConfig(model="extractive", db=db), store=store, session_id=session_id, kb=kb)

    def last_drawn() -> bool:
        turns = app.query(QuestionTurn)
        return bool(turns) and turns.last().number == questions and turns.last().has_answer

    t0 = time.perf_counter()
    async with app.run_test(size=(140, 40)) as pilot:
        while not last_drawn():
            await pilot.pause(0.01)
        last = time.perf_counter() - t0
        await app.workers.wait_for_complete()
        await pilot.pause()
        everything = time.perf_counter() - t0
        t1 = time.perf_counter()
        for _ in range(10):
            app.main.turn_log.scroll_page_up(animate=False)
            await pilot.pause()
        page = (time.perf_counter() - t1) / 10
        app.main.turn_log.focus_selected()
        await pilot.pause()
        t2 = time.perf_counter()
        for _ in range(10):
            await pilot.press("up")
        await pilot.pause()
        select = (time.perf_counter() - t2) / 10
    return {"last": last, "all": everything, "page": page, "select": select}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--long", type=int, nargs="*", default=[], metavar="N", help="also time sessions of N questions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HAIKU_TUI_DATA_DIR"] = str(Path(tmp) / "data")
        env = {**os.environ, "PYTHONPATH": os.environ.get("BENCH_CODE", str(ROOT))}
        from haiku_tui.store import KnowledgeBase

        db = str(Path(tmp) / "guide.lancedb")
        KnowledgeBase.open(db).add([ROOT / "haiku_tui" / "guide"])
        launch = launch_times(db, args.runs, env)
        first = asyncio.run(first_token_times(db))
        long = {n: asyncio.run(long_session(db, n)) for n in args.long}
    print("| measure | runs | median | min | max |")
    print("|---|---:|---:|---:|---:|")
    for name, values in (("launch → first frame (s)", launch), ("keystroke → first token (s)", first)):
        print(f"| {name} | {len(values)} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |")
    if long:
        print("\n| questions | last answer drawn (s) | idle (s) | page scroll (s) | ↑ select (s) |")
        print("|---:|---:|---:|---:|---:|")
        for n, t in long.items():
            print(f"| {n} | {t['last']:.2f} | {t['all']:.2f} | {t['page']:.3f} | {t['select']:.3f} |")


if __name__ == "__main__":
    main()
