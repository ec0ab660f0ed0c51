"""Key latency of the app in a real terminal (tmux, 160×48) on sessions of N questions.

    python -m bench.bench_keys build DIR N [N ...]   # sessions of N questions saved through the store
    python -m bench.bench_keys keys DIR N [N ...]    # open each in tmux, time keys
    python -m bench.bench_keys compare DIR BEFORE ROUNDS N [N ...]   # BEFORE (a checkout) and this tree,
                                                     # alternating, ROUNDS times; medians over the rounds
    python -m bench.bench_keys walk DIR BEFORE ROUNDS N  # the same, every press's time: p50 … max, the
                                                     # presses over 50 ms; memory after walking it all

``BENCH_RAW=1`` prints every press's time.
Each key is sent with ``tmux send-keys``; the time is until ``tmux capture-pane -p`` shows a
changed screen, once the app has finished loading (its CPU use has stopped). Prints medians per key at
each size, the time to the last answer on opening and the app's memory.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

from bench.terminal import Pane

ROOT = Path(__file__).resolve().parent.parent
ENTRY = ("haiku_tui.cli", "main")


def saved_session(store, questions: int) -> str:
    """Save a session of ``questions`` realistic RAG turns (``bench_sessions.build``: real pydoc text, the
    evidence ledger the runs would leave) through the store's own save path; return its id. Seconds, not
    the 14+ minutes of 1000 agent runs."""
    from bench.bench_sessions import _texts, build

    session = store.new(model="extractive")
    session.commit_run(*build(questions, _texts()))
    store.save(session)
    return session.id


def build_all(base: Path, sizes: list[int]) -> None:
    os.environ["HAIKU_TUI_DATA_DIR"] = str(base / "data")
    from haiku_tui.sessions import SessionStore
    from haiku_tui.store import KnowledgeBase

    KnowledgeBase.open(str(base / "guide.lancedb")).add([ROOT / "haiku_tui" / "guide"])
    store = SessionStore()
    ids = {n: saved_session(store, n) for n in sizes}
    (base / "sessions.json").write_text(json.dumps(ids))


SOCKET = f"keys{os.getpid()}"
"""This run's own tmux server (helpers bench side by side; ``kill-server`` must not end another's)."""


PANE = Pane(SOCKET)
tmux, idle, settle = PANE.run, PANE.idle, PANE.settle


def wait_change(before: str, limit: float = 3.0) -> tuple[float, str]:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        screen = tmux("capture-pane", "-p", "-t", "b")
        if screen != before:
            return time.perf_counter() - t0, screen
        time.sleep(0.002)
    return float("nan"), before


SCROLLBAR = str.maketrans("▁▂▃▄▅▆▇▔", "        ")


def wait_done(before: str, quiet: float = 0.15, limit: float = 3.0) -> tuple[float, float]:
    """Seconds to the first change of the screen and to its last (what the key drew is complete: a frame
    may arrive in pieces, and a key may draw in more than one frame), the screen then still for ``quiet``.
    The scrollbars' partial glyphs are left out of "last": the thumb moves when turns are laid out off screen."""
    first, screen = wait_change(before, limit)
    if first != first:
        return first, first
    t0 = time.perf_counter() - first
    last, screen = first, screen.translate(SCROLLBAR)
    while time.perf_counter() - t0 - last < quiet and time.perf_counter() - t0 < limit:
        time.sleep(0.002)
        now = tmux("capture-pane", "-p", "-t", "b").translate(SCROLLBAR)
        if now != screen:
            screen, last = now, time.perf_counter() - t0
    return first, last


def wait_for(question: str, limit: float = 60.0) -> float:
    """Seconds until the screen shows ``question`` with its answer's badge below it."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        screen = tmux("capture-pane", "-p", "-t", "b")
        if question in screen and "cites [" in screen[screen.index(question):]:
            return time.perf_counter() - t0
        time.sleep(0.005)
    return float("nan")


def rss() -> float:
    """Resident memory (MB) of the app in the pane."""
    pid = tmux("list-panes", "-t", "b", "-F", "#{pane_pid}").strip()
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")) / 1024


UP_PRESSES = 24
"""↑ walks up from the newest answer this many times."""
EDGE_PRESSES = (8, 16, 24)
"""Of those, the presses that cross the top of the window (opened with the newest 8; before this session a
slide mounted 8 more; after it, every press from the 8th shows one turn from the reserve)."""


def median(times: list[float]) -> float:
    """The median of the presses that changed the screen (NaN when none did)."""
    seen = [t for t in times if t == t]
    return statistics.median(seen) if seen else float("nan")


def open_app(base: Path, n: int) -> float:
    """Start the app (``BENCH_CODE``'s checkout) in a new tmux server on the session of ``n`` questions;
    returns the seconds until its last answer shows (the screen then still)."""
    ids = json.loads((base / "sessions.json").read_text())
    env = f"HAIKU_TUI_DATA_DIR={base / 'data'}"
    code = os.environ.get("BENCH_CODE", str(ROOT))  # another checkout to time (before/after)
    python = f"env {env} PYTHONPATH={code} {ROOT / '.venv/bin/python'}"
    entry = f"from {ENTRY[0]} import {ENTRY[1]}; {ENTRY[1]}()"
    cmd = f"{python} -c '{entry}' --db {base / 'guide.lancedb'} --session {ids[str(n)]}"
    tmux("kill-server")
    t0 = time.perf_counter()
    while not tmux("list-panes", "-t", "b", "-F", "#{pane_pid}").strip():  # a server still exiting refuses it
        tmux("new-session", "-d", "-s", "b", "-c", code, "-x", "160", "-y", "48", cmd)  # cwd: that checkout
    opened = wait_for(f"Q{n} ❯")
    opened = time.perf_counter() - t0 if opened == opened else opened
    settle()
    return opened


def keys(base: Path, sizes: list[int], reps: int = 9) -> dict[int, dict[str, float]]:
    out = {}
    for n in sizes:
        opened = open_app(base, n)
        result: dict[str, float] = {"open": opened, "rss_open": rss()}
        idle()
        tmux("send-keys", "-t", "b", "BTab")  # the answer cursor
        settle(0.3)
        # ↑ walks up from the newest answer (past the mounted window at 1000); the others alternate so
        # that every key changes the screen at any size. A key that changed nothing within 3 s is left out.
        for name, seq, presses in (("up", ["Up"], UP_PRESSES), ("up_down", ["Down", "Up"], reps),
                                   ("pageup_down", ["PageUp", "PageDown"], reps), ("home_end", ["Home", "End"], reps)):
            pairs = []
            for i in range(presses):
                key = seq[i % len(seq)]
                before = settle(0.15)
                tmux("send-keys", "-t", "b", key)
                pairs.append(wait_done(before))
                if name == "up" and len(pairs) > 1 and all(t != t for t, _ in pairs[-2:]):  # the top reached
                    break
            if os.environ.get("BENCH_RAW"):
                print(n, name, [tuple(round(t * 1000) if t == t else None for t in p) for p in pairs], flush=True)
            for suffix, times in (("", [p[0] for p in pairs]), ("_done", [p[1] for p in pairs])):
                result[name + suffix] = median(times)
                if (
                    name == "up"
                ):  # the presses that cross the window's top (8 newest turns open, 8 more per slide before)
                    result["up_edge" + suffix] = median([times[i - 1] for i in EDGE_PRESSES if i <= len(times)])
        tmux("send-keys", "-t", "b", "Escape")
        settle(0.3)
        times = []
        for _ in range(reps):
            before = settle(0.15)
            tmux("send-keys", "-t", "b", "-l", "x")
            times.append(wait_change(before)[0])
        result["typing"] = statistics.median(times)
        result["rss_keys"] = rss()
        tmux("kill-server")
        out[n] = result
        print(n, {k: round(v if k.startswith("rss") else v * 1000, 1) for k, v in result.items()}, flush=True)
    return out


def compare(base: Path, before: str, rounds: int, sizes: list[int]) -> dict[str, dict[int, dict[str, float]]]:
    """``before`` (another checkout) and this tree in turns, ``rounds`` times; each figure's median over the
    rounds (a loaded box moves both alike within a round)."""
    runs: dict[str, list[dict[int, dict[str, float]]]] = {"before": [], "after": []}
    for r in range(rounds):
        for name, code in (("before", before), ("after", str(ROOT))):
            os.environ["BENCH_CODE"] = code
            print(f"round {r + 1}, {name}:", flush=True)
            runs[name].append(keys(base, sizes))
    return {
        name: {n: {k: statistics.median(run[n][k] for run in results) for k in results[0][n]} for n in sizes}
        for name, results in runs.items()
    }


def table(rows: dict[str, dict[int, dict[str, float]]]) -> None:
    print("\nkeys: ms to the first change of the screen / to the last (the key's drawing complete)")
    print(
        "\n| tree | questions | open → last answer (ms) | ↑ | ↑ at the edge | ↓/↑ | PageUp/PageDown | Home/End | "
        "typing | RSS open / after keys (MB) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, res in rows.items():
        for n, r in res.items():
            keys_ms = " | ".join(
                f"{r[k]*1000:.0f} / {r[k + '_done']*1000:.0f}" if k + "_done" in r else f"{r[k]*1000:.0f}"
                for k in ("up", "up_edge", "up_down", "pageup_down", "home_end", "typing")
            )
            print(f"| {name} | {n} | {r['open']*1000:.0f} | {keys_ms} | {r['rss_open']:.0f} / {r['rss_keys']:.0f} |")


PAGE = 5
"""Answers a PageUp/PageDown moves (the app's ``turn_log.PAGE``)."""
WALK = {"↑/↓": (["Up"] * 100 + ["Down"] * 100), "PageUp/PageDown": (["PageUp"] * 40 + ["PageDown"] * 40)}
"""The presses timed one by one by :func:`walk` (from the newest answer), each after the screen was still."""


def walk(base: Path, n: int, memory: bool = True) -> dict[str, list[float]]:
    """Every press's time to the first change of the screen (:data:`WALK`), then (``memory``) the app's
    memory after walking the whole session end to end twice by PageDown and PageUp, a press as soon as the
    last one drew (``rss``: MB when opened, then after each pass, the app idle again)."""
    open_app(base, n)
    idle()
    tmux("send-keys", "-t", "b", "BTab")  # the answer cursor
    settle(0.3)
    out: dict[str, list[float]] = {"rss": [rss()]}
    for name, presses in WALK.items():
        out[name] = []
        for key in presses:
            before = settle(0.15)
            tmux("send-keys", "-t", "b", key)
            out[name].append(wait_change(before)[0])
    tmux("send-keys", "-t", "b", "Home")
    settle(0.3)
    for key in ["PageDown", "PageUp"] * 2 if memory else []:
        screen = tmux("capture-pane", "-p", "-t", "b")
        for _ in range((n + PAGE - 1) // PAGE):
            tmux("send-keys", "-t", "b", key)
            screen = wait_change(screen)[1]
        idle()
        out["rss"].append(rss())
    tmux("kill-server")
    return out


def spread(times: list[float]) -> str:
    """p50 / p90 / p99 / max in ms and the presses over 50 ms, of the presses that changed the screen."""
    seen = sorted(t * 1000 for t in times if t == t)
    if not seen:
        return "— | — | — | — | —"
    at = lambda q: seen[min(len(seen) - 1, int(q * len(seen)))]  # noqa: E731
    return (
        f"{at(0.5):.0f} | {at(0.9):.0f} | {at(0.99):.0f} | {seen[-1]:.0f} | {sum(t > 50 for t in seen)} of {len(seen)}"
    )


def walk_compare(base: Path, before: str, rounds: int, n: int) -> None:
    """``before`` (another checkout) and this tree in turns, ``rounds`` times: a table row per run and key
    (the memory walk in the first round only: minutes)."""
    print("\n| round | tree | keys | p50 | p90 | p99 | max (ms) | over 50 ms | RSS open / after each pass (MB) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for r in range(rounds):
        for name, code in (("before", before), ("after", str(ROOT))):
            os.environ["BENCH_CODE"] = code
            out = walk(base, n, memory=r == 0)
            if os.environ.get("BENCH_RAW"):
                print({k: [round(t * 1000) if t == t else None for t in v] for k, v in out.items() if k != "rss"})
            memory = " / ".join(f"{m:.0f}" for m in out["rss"])
            for keys_name in WALK:
                print(f"| {r + 1} | {name} | {keys_name} | {spread(out[keys_name])} | {memory} |", flush=True)


def main() -> None:
    what, base, *rest = sys.argv[1:]
    if what == "build":
        build_all(Path(base), [int(s) for s in rest])
    elif what == "walk":
        before, rounds, size = rest
        walk_compare(Path(base), before, int(rounds), int(size))
    elif what == "compare":
        before, rounds, *sizes = rest
        table(compare(Path(base), before, int(rounds), [int(s) for s in sizes]))
    else:
        table({os.environ.get("BENCH_CODE", "this tree"): keys(Path(base), [int(s) for s in rest])})


if __name__ == "__main__":
    main()
