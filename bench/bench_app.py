"""App start and first-token latency, with the extractive model over the bundled guide.

    python bench/bench_app.py [--runs N]

- *launch → first frame*: a fresh Python process imports the app, opens it headless and waits
  until the first screen is composed and painted (wall time of the whole process up to that point,
  including interpreter start and imports);
- *Enter → first token* (``--questions``, 20 by default: the five questions below in turn): in one
  running app, Enter is posted as the terminal driver would (not ``Pilot.press``, which also waits
  for the app to go idle, i.e. for the whole answer); timed until the answer's first text is in
  its turn (*in turn*), and until a frame is displayed in which the turn's first answer block is
  on screen (*on screen*: the compositor places it inside the terminal). A question whose answer
  stays below the screen counts as never shown.
- *Enter → first token in tmux* (``--tmux``): the app in a real terminal (tmux, 160×48); each
  question is typed, Enter sent with ``send-keys``, and ``capture-pane`` polled until a line below
  the new question's ``Qn ❯`` line shows the first words of its answer (known from a run of the same
  questions without the app);
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
from typing import Any

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


async def first_token_times(db: str, questions: int = 20, limit: float = 5.0) -> tuple[list[float], list[float], int]:
    """Enter → first answer text in its turn, and → on screen (seconds, per question); and how many answers
    were never on screen within ``limit`` seconds."""
    from textual import events

    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp
    from haiku_tui.tui.main.conversation import QuestionTurn

    in_turn, on_screen, never = [], [], 0
    app = HaikuApp(AgentConfig(model="extractive", db=db))
    watch: dict[str, Any] = {"turn": None, "shown": None}
    display = app._display

    def record(screen: Any, renderable: Any) -> None:  # each frame the app displays
        display(screen, renderable)
        turn = watch["turn"]
        if renderable is not None and turn is not None and watch["shown"] is None and turn.has_answer:
            visible = screen._compositor.visible_widgets
            if any(block in visible and block.size.height for block in turn.answer.children):
                watch["shown"] = time.perf_counter()

    app._display = record  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.main.ready:  # time the answers, not the start-up
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        for i in range(questions):
            app.query_one("#prompt").text = QUESTIONS[i % len(QUESTIONS)]
            before = len(app.query(QuestionTurn))
            watch["turn"] = watch["shown"] = None
            text = None
            t0 = time.perf_counter()
            app._driver.send_message(events.Key("enter", "\r"))
            while watch["shown"] is None and time.perf_counter() - t0 < limit:
                if watch["turn"] is None and len(turns := app.query(QuestionTurn)) > before:
                    watch["turn"] = turns.last()
                if text is None and watch["turn"] is not None and watch["turn"].has_answer:
                    text = time.perf_counter() - t0
                await asyncio.sleep(0.001)
            if text is not None:
                in_turn.append(text)
            if watch["shown"] is None:
                never += 1
            else:
                on_screen.append(watch["shown"] - t0)
            await app.workers.wait_for_complete()
            await pilot.pause(0.1)
    return in_turn, on_screen, never


def tmux_first_token(db: str, questions: int, limit: float = 10.0) -> tuple[list[float], int]:
    """Enter → the answer's first words in ``capture-pane`` (seconds per question), and how many never showed."""
    code = os.environ.get("BENCH_CODE", str(ROOT))
    firsts = asyncio.run(_first_words(db, len(QUESTIONS)))

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", "f14bench", *args], capture_output=True, text=True).stdout

    def screen() -> list[str]:
        return tmux("capture-pane", "-p", "-t", "b").splitlines()

    cmd = (f"env HAIKU_TUI_DATA_DIR={os.environ['HAIKU_TUI_DATA_DIR']}/tmux PYTHONPATH={code} {sys.executable} "
           f"-c 'from haiku_tui.cli import main; main()' --db {db}")
    tmux("kill-server")
    tmux("new-session", "-d", "-s", "b", "-c", "/tmp", "-x", "160", "-y", "48", cmd)
    t0 = time.perf_counter()
    while not any("Ask a question" in line for line in screen()) and time.perf_counter() - t0 < 60:
        time.sleep(0.05)
    time.sleep(3)  # the knowledge base and the agent load behind the first frame
    times, never = [], 0
    try:
        for i in range(questions):
            question, words = QUESTIONS[i % len(QUESTIONS)], firsts[i % len(QUESTIONS)]
            tmux("send-keys", "-t", "b", "-l", question)
            time.sleep(0.3)
            t1 = time.perf_counter()
            tmux("send-keys", "-t", "b", "Enter")
            shown = None
            while shown is None and time.perf_counter() - t1 < limit:
                lines = screen()
                mark = next((j for j in range(len(lines) - 1, -1, -1) if f"Q{i + 1} ❯" in lines[j]), None)
                if mark is not None and any(words in line for line in lines[mark + 1 :]):
                    shown = time.perf_counter() - t1
                else:
                    time.sleep(0.002)
            if shown is None:
                never += 1
            else:
                times.append(shown)
            time.sleep(1.5)  # the answer ends and is saved
    finally:
        tmux("kill-server")
    return times, never


async def _first_words(db: str, count: int) -> list[str]:
    """The first two words of each question's answer (the extractive model, the same knowledge base)."""
    import re

    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import SessionStore
    from haiku_tui.sessions.run import TextStarted
    from haiku_tui.sessions.workbench import Workbench

    bench = Workbench(AgentConfig(model="extractive", db=db), store=SessionStore(Path(os.environ["HAIKU_TUI_DATA_DIR"]) / "words.db"))
    bench.start()
    bench.open_kb()
    bench.build_agent()
    out = []
    for question in QUESTIONS[:count]:
        async for event in bench.ask(question):
            if isinstance(event, TextStarted):
                out.append(" ".join(re.findall(r"[A-Za-z][A-Za-z'-]*", event.text)[:2]))
        bench.refresh()
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


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
    parser.add_argument("--runs", type=int, default=5, help="launches timed")
    parser.add_argument("--questions", type=int, default=20, help="questions timed Enter → first token")
    parser.add_argument("--tmux", action="store_true", help="also time Enter → first token in tmux")
    parser.add_argument("--long", type=int, nargs="*", default=[], metavar="N", help="also time sessions of N questions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HAIKU_TUI_DATA_DIR"] = str(Path(tmp) / "data")
        env = {**os.environ, "PYTHONPATH": os.environ.get("BENCH_CODE", str(ROOT))}
        from haiku_tui.store import KnowledgeBase

        db = str(Path(tmp) / "guide.lancedb")
        KnowledgeBase.open(db).add([ROOT / "haiku_tui" / "guide"])
        launch = launch_times(db, args.runs, env)
        in_turn, on_screen, never = asyncio.run(first_token_times(db, args.questions))
        in_tmux, tmux_never = tmux_first_token(db, args.questions) if args.tmux else ([], 0)
        long = {n: asyncio.run(long_session(db, n)) for n in args.long}
    print("| measure | runs | median | min | max |")
    print("|---|---:|---:|---:|---:|")
    for name, values in (("launch → first frame (s)", launch),) if launch else ():
        print(f"| {name} | {len(values)} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |")
    print(f"\nEnter → first token over {args.questions} questions (ms): never on screen {never}")
    print("| measure | p50 | p90 | max |\n|---|---:|---:|---:|")
    rows = [("first text in its turn", in_turn), ("first text on screen", on_screen)]
    if args.tmux:
        rows.append((f"first words in tmux capture-pane (never: {tmux_never})", in_tmux))
    for name, values in rows:
        ms = [v * 1000 for v in values]
        print(f"| {name} | {percentile(ms, .5):.0f} | {percentile(ms, .9):.0f} | {max(ms, default=float('nan')):.0f} |")
    if long:
        print("\n| questions | last answer drawn (s) | idle (s) | page scroll (s) | ↑ select (s) |")
        print("|---:|---:|---:|---:|---:|")
        for n, t in long.items():
            print(f"| {n} | {t['last']:.2f} | {t['all']:.2f} | {t['page']:.3f} | {t['select']:.3f} |")


if __name__ == "__main__":
    main()
