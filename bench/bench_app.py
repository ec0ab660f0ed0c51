"""App start and first-token latency, with the extractive model over the bundled guide.

    python -m bench.bench_app [--runs N] [--questions N] [--tmux [--poll]] [--long N ...]

Before/after: ``BENCH_CODE=<another checkout> python -m bench.bench_app …`` times that checkout's app.

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
  question is typed and Enter sent by a control-mode client, which also timestamps the pane's output
  as tmux reads it; replaying that output on the screen as it was before Enter finds the moment a
  line below the new question's ``Qn ❯`` line shows the first words of its answer (known from a run
  of the same questions without the app). The app runs under ``first_frame_probe.py``, which notes
  its own moments (Enter read, first text, layout, render, frame queued and written) on the same
  clock. ``--poll`` also polls ``capture-pane`` as the earlier harness did (what that adds);
- *long sessions* (``--long 10 100 1000``): reopening a saved session of N questions — time until the
  last answer is on screen and until the app is idle (every worker done: the whole session loaded and
  drawn) — then scrolling a page and selecting the previous answer with ↑. Keys in a real terminal:
  ``bench/bench_keys.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

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
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(t0), db], capture_output=True, text=True, env=env, check=True
        )
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


class TerminalScreen:
    """The text of a terminal fed Textual's output: enough of a VT100 for a full-screen app (cursor moves by
    ``CSI row;col H``, text written at the cursor; styles, hyperlinks and modes ignored)."""

    ESCAPE = r"\x1b\[([0-9;?<=>]*)([ -/]*[@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()#][0-9A-Za-z]|\x1b[^\[\]()#]"
    TOKEN = re.compile(ESCAPE + r"|[^\x1b]+")

    def __init__(self, lines: list[str], width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [list(line.ljust(width)[:width]) for line in lines[:height]]
        self.cells += [[" "] * width for _ in range(height - len(self.cells))]
        self.row = self.col = 0
        self._rest = ""
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def feed(self, chunk: bytes) -> None:
        """Apply a chunk of output (escape sequences and characters may be cut between chunks)."""
        from rich.cells import get_character_cell_size

        data, pos, self._rest = self._rest + self._decode(chunk), 0, ""
        while pos < len(data):
            match = self.TOKEN.match(data, pos)
            if match is None:  # an escape sequence cut off at the end of the chunk: it ends in the next one
                if len(data) - pos < 512:
                    self._rest = data[pos:]
                    return
                pos += 1
                continue
            pos, token = match.end(), match.group(0)
            if token.startswith("\x1b"):
                if match.group(2) == "H":
                    row, _, col = (match.group(1) or "1;1").partition(";")
                    self.row, self.col = int(row or 1) - 1, int(col or 1) - 1
                elif match.group(2) == "J" and match.group(1) == "2":
                    self.cells = [[" "] * self.width for _ in range(self.height)]
                continue
            for char in token:
                if char == "\r":
                    self.col = 0
                elif char == "\n":
                    self.row = min(self.height - 1, self.row + 1)
                elif char >= " " and 0 <= self.row < self.height:
                    size = get_character_cell_size(char)
                    if self.col < self.width:
                        self.cells[self.row][self.col] = char
                    if size == 2 and self.col + 1 < self.width:
                        self.cells[self.row][self.col + 1] = ""
                    self.col += size

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.cells]


def answer_shown(lines: list[str], number: int, words: str) -> bool:
    """A line below question ``number``'s ``Qn ❯`` line shows ``words``."""
    mark = next((j for j in range(len(lines) - 1, -1, -1) if f"Q{number} ❯" in lines[j]), None)
    return mark is not None and any(words in line for line in lines[mark + 1 :])


class Tmux:
    """The app in a tmux pane of its own server; a control-mode client sends the keys and timestamps the
    pane's output as tmux reads it (``%output``): no process is started per key or per look at the screen."""

    def __init__(self, command: str, width: int = 160, height: int = 48) -> None:
        import threading

        self.width, self.height = width, height
        self.tmux("kill-server")
        for _ in range(50):  # a server that is still shutting down refuses the new session for a moment
            started = subprocess.run(
                [
                    "tmux",
                    "-L",
                    "f15bench",
                    "new-session",
                    "-d",
                    "-s",
                    "b",
                    "-c",
                    "/tmp",
                    "-x",
                    str(width),
                    "-y",
                    str(height),
                    command,
                ]
            )
            if started.returncode == 0:
                break
            time.sleep(0.1)
        self.client = subprocess.Popen(
            ["tmux", "-L", "f15bench", "-C", "attach", "-t", "b"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.output: list[tuple[float, bytes]] = []
        threading.Thread(target=self._read, daemon=True).start()

    @staticmethod
    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", "f15bench", *args], capture_output=True, text=True).stdout

    def _read(self) -> None:
        assert self.client.stdout is not None
        for line in self.client.stdout:
            if line.startswith(b"%output "):
                now = time.perf_counter()
                data = line.split(b" ", 2)[2].rstrip(b"\n")
                self.output.append((now, re.sub(rb"\\([0-7]{3})|\\\\", _unescape, data)))

    def send(self, command: str) -> float:
        """Send a tmux command through the control client; the time it was sent."""
        assert self.client.stdin is not None
        sent = time.perf_counter()
        self.client.stdin.write(command.encode() + b"\n")
        self.client.stdin.flush()
        return sent

    def screen(self) -> list[str]:
        return self.tmux("capture-pane", "-p", "-t", "b").splitlines()

    def close(self) -> None:
        self.tmux("kill-server")
        self.client.wait(5)


def _unescape(match: re.Match[bytes]) -> bytes:
    return bytes([int(match.group(1), 8)]) if match.group(1) else b"\\"


def tmux_first_token(db: str, questions: int, limit: float = 10.0, poll: bool = False) -> dict[str, Any]:
    """Enter → the answer's first words in a real terminal (tmux, 160×48), per question (seconds):

    - ``output``: tmux received the bytes that put them below the question's ``Qn ❯`` line (the pane's output,
      timestamped by a control-mode client and replayed on the screen as it was before Enter);
    - ``capture`` (with ``poll``): the earlier harness, ``capture-pane`` run in a loop until the words show
      (a process per look: its own delay, and CPU taken from the app on a 2-core box);
    - ``key`` / ``text`` / ``frame`` / ``written``: the app's own moments (``first_frame_probe.py``) —
      Enter read by the app, first words in the turn, that frame handed to / written by the output thread;
      ``frame_ms``: turning that frame into escape codes, ``frame_bytes``: their size (/1000);
    - ``never``: questions whose words never showed within ``limit``; ``mismatch``: screens where the replay
      and ``capture-pane`` disagree once the answer is written (should be 0: the replay is then trusted).
    """
    code = os.environ.get("BENCH_CODE", str(ROOT))
    firsts = asyncio.run(_first_words(db, len(QUESTIONS)))
    probe = Path(os.environ["HAIKU_TUI_DATA_DIR"]) / "probe.log"
    probe.unlink(missing_ok=True)
    cmd = (f"env HAIKU_TUI_DATA_DIR={os.environ['HAIKU_TUI_DATA_DIR']}/tmux PYTHONPATH={code} BENCH_PROBE={probe} "
           f"{sys.executable} {ROOT / 'bench' / 'first_frame_probe.py'} --db {db}")
    term = Tmux(cmd)
    out: dict[str, Any] = {
        k: []
        for k in ("output", "capture", "key", "text", "layout", "render", "frame", "written", "frame_ms", "frame_bytes")
    }
    out["never"] = out["mismatch"] = 0
    t0 = time.perf_counter()
    while not (probe.exists() and "ready" in probe.read_text()):  # the knowledge base and the agent are loaded
        if time.perf_counter() - t0 > 60:
            term.close()
            raise RuntimeError("the app did not load its knowledge base and agent in tmux within 60 s")
        time.sleep(0.05)
    time.sleep(1)
    try:
        for i in range(questions):
            question, words = QUESTIONS[i % len(QUESTIONS)], firsts[i % len(QUESTIONS)]
            assert "'" not in question
            term.send(f"send-keys -t b -l '{question}'")
            time.sleep(0.3)
            before, start = term.screen(), len(term.output)
            logged = probe.stat().st_size if probe.exists() else 0
            sent = term.send("send-keys -t b Enter")
            captured = None
            while poll and captured is None and time.perf_counter() - sent < limit:
                if answer_shown(term.screen(), i + 1, words):
                    captured = time.perf_counter() - sent
                time.sleep(0.002)
            time.sleep(1.5)  # the answer ends and is saved
            replay, shown = TerminalScreen(before, term.width, term.height), None
            chunks = term.output[start:]
            for at, data in chunks:
                replay.feed(data)
                if shown is None and at >= sent and answer_shown(replay.lines(), i + 1, words):
                    shown = at - sent
            if shown is None:
                out["never"] += 1
                if out["never"] == 1:  # the first one: what the screen shows instead
                    print(f"never shown: Q{i + 1} {words!r}\n" + "\n".join(term.screen()), file=sys.stderr)
                continue
            if replay.lines() != [line.rstrip() for line in term.screen()]:
                out["mismatch"] += 1
                if os.environ.get("BENCH_DEBUG"):
                    for a, b in zip(replay.lines(), term.screen()):
                        if a != b.rstrip():
                            print("replay:", repr(a), "\npane:  ", repr(b.rstrip()), file=sys.stderr)
            out["output"].append(shown)
            if captured is not None:
                out["capture"].append(captured)
            moments = _probe_moments(probe, logged)
            for name in ("key", "text", "layout", "render", "frame", "written"):
                if name in moments:
                    out[name].append(moments[name] - sent)
            for name in ("frame_ms", "frame_bytes"):
                if name in moments:
                    out[name].append(moments[name] / 1000)  # (printed ×1000)
    finally:
        term.close()
    return out


def _probe_moments(probe: Path, offset: int) -> dict[str, float]:
    """The probe's first value of each moment logged after ``offset`` bytes."""
    moments: dict[str, float] = {}
    with open(probe) as log:
        log.seek(offset)
        for line in log:
            name, _, value = line.partition(" ")
            moments.setdefault(name, float(value))
    return moments


async def _first_words(db: str, count: int) -> list[str]:
    """The first two words of each question's answer (the extractive model, the same knowledge base)."""
    import re

    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import SessionStore
    from haiku_tui.sessions.run import TextStarted
    from haiku_tui.sessions.workbench import Workbench

    bench = Workbench(
        AgentConfig(model="extractive", db=db), store=SessionStore(Path(os.environ["HAIKU_TUI_DATA_DIR"]) / "words.db")
    )
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
    from bench.bench_keys import saved_session

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
    parser.add_argument(
        "--poll", action="store_true", help="with --tmux: also poll capture-pane as the earlier harness did"
    )
    parser.add_argument(
        "--long", type=int, nargs="*", default=[], metavar="N", help="also time sessions of N questions"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HAIKU_TUI_DATA_DIR"] = str(Path(tmp) / "data")
        env = {**os.environ, "PYTHONPATH": os.environ.get("BENCH_CODE", str(ROOT))}
        from haiku_tui.store import KnowledgeBase

        db = str(Path(tmp) / "guide.lancedb")
        KnowledgeBase.open(db).add([ROOT / "haiku_tui" / "guide"])
        launch = launch_times(db, args.runs, env)
        in_turn, on_screen, never = asyncio.run(first_token_times(db, args.questions))
        tmux = tmux_first_token(db, args.questions, poll=args.poll) if args.tmux or args.poll else None
        long = {n: asyncio.run(long_session(db, n)) for n in args.long}
    print("| measure | runs | median | min | max |")
    print("|---|---:|---:|---:|---:|")
    for name, values in (("launch → first frame (s)", launch),) if launch else ():
        print(f"| {name} | {len(values)} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |")
    print(f"\nEnter → first token over {args.questions} questions (ms): never on screen {never}")
    print("| measure | p50 | p90 | max |\n|---|---:|---:|---:|")
    rows = [("first text in its turn", in_turn), ("first text on screen", on_screen)]
    if tmux is not None:
        rows += [
            ("tmux: Enter read by the app", tmux["key"]),
            ("tmux: first text in its turn", tmux["text"]),
            ("tmux: the screen's layout starts", tmux["layout"]),
            ("tmux: its compositor refresh starts", tmux["render"]),
            ("tmux: that frame rendered and queued", tmux["frame"]),
            ("tmux: rendering that frame (its own time)", tmux["frame_ms"]),
            ("tmux: that frame's size (bytes)", tmux["frame_bytes"]),
            ("tmux: that frame written to the terminal", tmux["written"]),
            (
                f"**tmux: first words on the pane** (never: {tmux['never']}, replay ≠ pane: {tmux['mismatch']})",
                tmux["output"],
            ),
        ]
        if args.poll:
            rows.append(("tmux: first words seen by polling capture-pane (earlier harness)", tmux["capture"]))
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
