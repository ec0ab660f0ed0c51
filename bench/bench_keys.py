"""Key latency of the app in a real terminal (tmux, 160×48) on sessions of N questions.

    python bench/bench_keys.py build DIR N [N ...]   # sessions built with the real extractive run loop
    python bench/bench_keys.py keys DIR N [N ...]    # open each in tmux, time keys

Each key is sent with ``tmux send-keys``; the time is until ``tmux capture-pane -p`` shows a
changed screen. Prints medians per key at each size and the time to the last answer on opening.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ENTRY = ("haiku_tui.cli", "main")
QUESTIONS = [
    "How do I add a folder to the knowledge base?",
    "What does the citation policy do?",
    "How do I export a session?",
    "What is a receipted chunk?",
    "Which model runs offline?",
]


async def build(base: Path, sizes: list[int]) -> None:
    os.environ["HAIKU_TUI_DATA_DIR"] = str(base / "data")
    from haiku_tui.agent import AgentConfig, build_agent, run_limits
    from haiku_tui.sessions import SessionStore
    from haiku_tui.store import KnowledgeBase

    db = str(base / "guide.lancedb")
    kb = KnowledgeBase.open(db)
    kb.add([ROOT / "haiku_tui" / "guide"])
    agent = build_agent(AgentConfig(db=db), kb=kb)
    store = SessionStore()
    saved = base / "sessions.json"
    ids = json.loads(saved.read_text()) if saved.exists() else {}
    for n in sizes:
        session = store.new(model="extractive")
        for i in range(n):
            deps = session.deps()
            conversation = session.conversation
            result = await agent.run(QUESTIONS[i % len(QUESTIONS)], deps=deps, conversation=conversation, usage_limits=run_limits(conversation))
            session.commit_run(result, deps.state)
        store.save(session)
        ids[n] = session.id
        (base / "sessions.json").write_text(json.dumps(ids))


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", "p4bench", *args], capture_output=True, text=True).stdout


def wait_change(before: str, limit: float = 10.0) -> tuple[float, str]:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        screen = tmux("capture-pane", "-p", "-t", "b")
        if screen != before:
            return time.perf_counter() - t0, screen
        time.sleep(0.002)
    return float("nan"), before


def wait_for(text: str, limit: float = 60.0) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        if text in tmux("capture-pane", "-p", "-t", "b"):
            return time.perf_counter() - t0
        time.sleep(0.005)
    return float("nan")


def settle(quiet: float = 0.6, limit: float = 30.0) -> str:
    """Wait until the screen stops changing for ``quiet`` seconds."""
    screen, last, t0 = tmux("capture-pane", "-p", "-t", "b"), time.perf_counter(), time.perf_counter()
    while time.perf_counter() - last < quiet and time.perf_counter() - t0 < limit:
        time.sleep(0.02)
        now = tmux("capture-pane", "-p", "-t", "b")
        if now != screen:
            screen, last = now, time.perf_counter()
    return screen


def keys(base: Path, sizes: list[int], reps: int = 9) -> dict[int, dict[str, float]]:
    ids = json.loads((base / "sessions.json").read_text())
    out = {}
    for n in sizes:
        env = f"HAIKU_TUI_DATA_DIR={base / 'data'}"
        code = os.environ.get("BENCH_CODE", str(ROOT))  # another checkout to time (before/after)
        cmd = f"env {env} PYTHONPATH={code} {ROOT / '.venv/bin/python'} -c 'from {ENTRY[0]} import {ENTRY[1]}; {ENTRY[1]}()' --db {base / 'guide.lancedb'} --session {ids[str(n)]}"
        tmux("kill-server")
        t0 = time.perf_counter()
        tmux("new-session", "-d", "-s", "b", "-x", "160", "-y", "48", cmd)
        opened = wait_for(f"Q{n} ❯")
        opened = time.perf_counter() - t0 if opened == opened else opened
        settle()
        result: dict[str, float] = {"open": opened}
        tmux("send-keys", "-t", "b", "BTab")  # the answer cursor
        settle(0.3)
        for name, seq in (("up", ["Up"]), ("down", ["Down"]), ("pageup", ["PageUp"]), ("pagedown", ["PageDown"]),
                          ("home_end", ["Home", "End"])):
            times = []
            for i in range(reps):
                key = seq[i % len(seq)]
                before = settle(0.15)
                tmux("send-keys", "-t", "b", key)
                times.append(wait_change(before)[0])
            result[name] = statistics.median(t for t in times if t == t) if any(t == t for t in times) else float("nan")
        tmux("send-keys", "-t", "b", "Escape")
        settle(0.3)
        times = []
        for i in range(reps):
            before = settle(0.15)
            tmux("send-keys", "-t", "b", "-l", "x")
            times.append(wait_change(before)[0])
        result["typing"] = statistics.median(times)
        tmux("kill-server")
        out[n] = result
        print(n, {k: round(v * 1000, 1) for k, v in result.items()}, flush=True)
    return out


def main() -> None:
    what, base, *sizes = sys.argv[1:]
    nums = [int(s) for s in sizes]
    if what == "build":
        asyncio.run(build(Path(base), nums))
    else:
        res = keys(Path(base), nums)
        print("\n| questions | open → last answer (ms) | ↑ | ↓ | PageUp | PageDown | Home/End | typing |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n, r in res.items():
            print(f"| {n} | {r['open']*1000:.0f} | " + " | ".join(f"{r[k]*1000:.0f}" for k in ("up", "down", "pageup", "pagedown", "home_end", "typing")) + " |")


if __name__ == "__main__":
    main()
