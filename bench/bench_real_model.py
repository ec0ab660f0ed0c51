"""The app against a real (loopback) model server in a real terminal: a 200 KB answer, Esc, typing always types.

    python -m bench.bench_real_model [--runs 3] [--keep DIR]

Before/after: ``BENCH_CODE=<another checkout> python -m bench.bench_real_model …`` times that checkout's
``haiku_tui`` (the app and the CLI; the model server is this checkout's ``tests/model_server.py``).

Everything runs in a fresh temporary ``HOME`` (``HAIKU_TUI_DATA_DIR`` and the ``XDG_*`` folders inside it):
the four-document knowledge base of ``tests/kb_fixture.py``, and two model servers (``tests/model_server.py
--mode long``, which answers every question with 200,000 characters sent in 2 KB pieces), one at full speed
and one pacing its events (``--delay 0.05``: the answer comes over ~5 s, as a real model's would). The app
runs in tmux (160×48, its own server) and is looked at with ``tmux capture-pane -p``. Per run:

- *CLI*: ``haiku-tui --base-url … --model fake --db KB ask "…"`` as a whole process, stdout to a pipe: seconds
  from start to exit (start-up included), its output checked for the answer's last words;
- *app, 200 KB*: a fresh app (launch → idle is printed too), the question typed, Enter; seconds until the
  answer's first words, and until its last words (``…go o [1]``) are on the pane — the conversation follows the
  stream to its end. Goal: ≤ 2× the CLI;
- *typing always types* (the same app, its answers list focused with Shift+Tab, checked on the footer): 60
  characters sent at once with ``send-keys -l``, then 60 others as a bracketed paste (``set-buffer`` +
  ``paste-buffer -p``), each beginning with one-letter actions (``r`` review, ``y`` copy, ``o`` open, ``w``
  wire, digits). Passes when the question box holds exactly those characters, the question box has the focus
  again, and nothing else on the pane changed (no review or wire screen, no toast, no citation jump); seconds
  from sending to the whole text shown;
- *focus keys* (for reading Esc's figures): Shift+Tab (question box → answers) and Esc (back), 3 times each,
  until the footer shows the focus, in that app and in one whose answer is a few lines (``--model fake-ok``):
  Esc's own cost in any Textual app is a lone Esc byte told from an escape sequence's start (``ESCDELAY``,
  0.1 s, polled every 0.1 s by Textual's input thread);
- *Esc, full speed*: a fresh app, the question, Esc as soon as the answer's first words show (the app still
  drawing it); seconds from Esc to the turn's ``■ cancelled`` badge (counted only when Esc came before the
  answer's last words showed);
- *Esc, paced*: the same on the pacing server, Esc 0.5 s after the first words show. Goal for both: < 0.3 s.

Prints each run, then a table of medians (min–max) with each goal's verdict. The servers, tmux and the
temporary folder are removed at the end, also on failure or Ctrl+C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.terminal import Pane

ROOT = Path(__file__).resolve().parent.parent
CODE = os.environ.get("BENCH_CODE", str(ROOT))
"""The checkout whose ``haiku_tui`` runs (``BENCH_CODE``: another one, for before/after)."""
CLI = [sys.executable, "-m", "haiku_tui.cli"]
SOCKET = f"realmodel{os.getpid()}"
"""This run's own tmux server (``kill-server`` must not end another bench's)."""
WIDTH, HEIGHT = 160, 48
QUESTION = "How long should I steep green tea?"
FIRST_WORDS = "The sources go on at length."
CANCELLED = "■ cancelled"
PACED_DELAY = 0.05
"""Seconds the pacing server waits before each streamed event."""
BURST = "ry1wo2yk: review 3 copies, open 4 wires, jump 5 times; kjr9c"
PASTE = "yo7rw: a pasted question about j, k, c and 8 other keys, ok?"
FOCUSED_ANSWERS = "Review citations"
"""The footer's text while the answers list has the focus (its key ``r``)."""
FOCUSED_PROMPT = "⏎ Send"
"""The footer's text while the question box has the focus."""
PLACEHOLDER = "Ask a question about your documents…"
SCROLLBAR = str.maketrans("▁▂▃▄▅▆▇▔", "        ")
assert len(BURST) == len(PASTE) == 60


def long_answer_end() -> str:
    """The last words of the server's long answer (``…The sources go o [1]``): they show only once it all came."""
    sys.path.insert(0, str(ROOT))
    from tests.model_server import answer_text

    return answer_text([], "long")[-8:]


LAST_WORDS = long_answer_end()


# ---- the environment: a temporary home, a knowledge base, the model servers


def environment(home: Path) -> dict[str, str]:
    """Our environment without haiku-tui's settings, its data and ``XDG_*`` folders in ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HAIKU_", "XDG_"))}
    env.update(
        HOME=str(home),
        HAIKU_TUI_DATA_DIR=str(home / "haiku-tui"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        PYTHONPATH=CODE,
        PYTHONDONTWRITEBYTECODE="1",
    )
    for name in ("HAIKU_TUI_DATA_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    return env


def build_kb(work: Path, env: dict[str, str]) -> str:
    """The four-document knowledge base of the tests (``tests/kb_fixture.py``), built by ``CODE``."""
    db = work / "small.lancedb"
    script = (
        f"import sys; sys.path.append({str(ROOT)!r}); from tests.kb_fixture import build_small_kb; "
        f"build_small_kb({str(db)!r}).close()"
    )
    subprocess.run([sys.executable, "-c", script], env=env, cwd=work, check=True, capture_output=True)
    return str(db)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env: dict[str, str], log: Path, delay: float = 0.0) -> tuple[subprocess.Popen[bytes], str]:
    """``tests/model_server.py --mode long`` on a free loopback port; the process and its base URL. Its output
    goes to ``log`` (a pipe nobody reads would fill with the tracebacks of the streams Esc breaks off)."""
    argv = [sys.executable, str(ROOT / "tests" / "model_server.py"), "--mode", "long", "--delay", str(delay)]
    for _ in range(5):
        port = free_port()
        with open(log, "wb") as out:
            proc = subprocess.Popen([*argv, "--port", str(port)], env=env, stdout=out, stderr=subprocess.STDOUT)
        t0 = time.perf_counter()
        while proc.poll() is None and time.perf_counter() - t0 < 30:
            if log.read_text().startswith("serving"):
                return proc, f"http://127.0.0.1:{port}/v1"
            time.sleep(0.05)
        stop(proc)
    raise RuntimeError(f"the model server did not start: {log.read_text()[-500:]}")


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


# ---- the terminal


PANE = Pane(SOCKET)
tmux, screen, idle, settle = PANE.run, PANE.screen, PANE.idle, PANE.settle


def keys(*names: str) -> float:
    """Send keys (tmux key names); the time they were sent."""
    sent = time.perf_counter()
    tmux("send-keys", "-t", "b", *names)
    return sent


def wait_until(test: Any, limit: float = 30.0, since: float | None = None) -> tuple[float, str]:
    """Poll the pane until ``test(screen)``: seconds it took (from ``since``, a ``perf_counter`` time, else from
    now; NaN when ``limit`` passed first) and the screen."""
    t0 = time.perf_counter()
    while True:
        now = screen()
        if test(now):
            return time.perf_counter() - (t0 if since is None else since), now
        if time.perf_counter() - t0 > limit:
            return float("nan"), now
        time.sleep(0.01)  # each look is a process: leave the app (2 cores) its CPU


def open_app(env: dict[str, str], db: str, url: str, model: str = "fake") -> float:
    """The app in a new tmux server (``exec``: the pane's process is the app); seconds until it is idle with
    its question box on screen (the knowledge base and the agent loaded). ``model``: ``fake`` answers as the
    server's mode says (``long``), ``fake-ok`` a few lines."""
    tmux("kill-server")
    app = " ".join([*CLI, "--base-url", url, "--model", model, "--db", db])
    command = f"exec env HAIKU_TUI_DATA_DIR={env['HAIKU_TUI_DATA_DIR']} PYTHONPATH={CODE} {app}"
    t0 = time.perf_counter()
    while not tmux("list-panes", "-t", "b", "-F", "#{pane_pid}", env=env).strip():  # a server still exiting
        tmux("new-session", "-d", "-s", "b", "-c", env["HOME"], "-x", str(WIDTH), "-y", str(HEIGHT), command, env=env)
    took, shown = wait_until(lambda s: PLACEHOLDER in s, limit=60)
    if took != took:
        raise RuntimeError("the app did not show its question box within 60 s:\n" + shown)
    idle()
    ready = time.perf_counter() - t0
    settle(0.3)
    return ready


def ask(question: str) -> float:
    """Type ``question`` into the (focused, empty) question box and send it; the time Enter was sent."""
    keys("-l", question)
    took, shown = wait_until(lambda s: question in s, limit=10)
    if took != took:
        raise RuntimeError(f"the question did not show in the question box:\n{shown}")
    time.sleep(0.2)
    return keys("Enter")


def prompt_text(shown: str) -> str | None:
    """The question box's text on the pane (its lines between its ▔ and ▁ borders; '' when it shows its
    placeholder), or None when it is not on the pane."""
    lines = shown.splitlines()
    top = next((i for i, line in enumerate(lines) if "▊▔▔▔" in line), None)
    if top is None:
        return None
    inside = []
    for line in lines[top + 1 :]:
        if "▊▁▁▁" in line:
            break
        inside.append(line.split("▊", 1)[-1].rsplit("▎", 1)[0][1:].rstrip())
    text = "\n".join(inside).strip("\n")
    return "" if text == PLACEHOLDER else text


def differences(before: str, after: str) -> list[str]:
    """The lines that changed between two screens, leaving out the question box and the footer (which follows the
    focus), scrollbar glyphs ignored."""
    a, b = before.splitlines(), after.splitlines()
    top = next((i for i, line in enumerate(b) if "▊▔▔▔" in line), len(b))
    out = []
    for i in range(max(len(a), len(b))):
        if top <= i <= top + 2 or i == len(b) - 1:
            continue
        x = a[i].translate(SCROLLBAR).rstrip() if i < len(a) else ""
        y = b[i].translate(SCROLLBAR).rstrip() if i < len(b) else ""
        if x != y:
            out.append(f"line {i + 1}: {x!r} → {y!r}")
    return out


# ---- the measures


def cli_ask(env: dict[str, str], db: str, url: str) -> float:
    """``ask`` as a whole process, stdout to a pipe: seconds to exit; its output must end the answer."""
    argv = [*CLI, "--base-url", url, "--model", "fake", "--db", db, "ask", QUESTION]
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=env["HOME"], capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode or LAST_WORDS not in done.stdout:
        raise RuntimeError(f"ask failed ({done.returncode}): {done.stderr[-500:]} {done.stdout[-300:]!r}")
    return took


def typing(send: Any, text: str) -> dict[str, Any]:
    """Focus the answers list (Shift+Tab from the empty question box), ``send()`` ``text`` to the pane, and check
    the question box holds it and nothing else changed. The question box is emptied again after."""
    reference = settle(0.3)
    if prompt_text(reference) != "" or FOCUSED_PROMPT not in reference.splitlines()[-1]:
        raise RuntimeError("the question box is not focused and empty:\n" + reference)
    keys("BTab")
    took, shown = wait_until(lambda s: FOCUSED_ANSWERS in s.splitlines()[-1], limit=5)
    if took != took:
        raise RuntimeError("Shift+Tab did not focus the answers list:\n" + shown)
    settle(0.3)
    sent = send()
    took, shown = wait_until(lambda s: prompt_text(s) == text, limit=10, since=sent)
    after = settle(0.6)  # the burst is over (typing.QUIET), the question box has the focus again
    problems = []
    if took != took:
        problems.append(f"the question box holds {prompt_text(after)!r}")
    elif prompt_text(after) != text:
        problems.append(f"the question box then holds {prompt_text(after)!r}")
    if FOCUSED_PROMPT not in after.splitlines()[-1]:
        problems.append(f"the focus is not back on the question box (footer {after.splitlines()[-1].strip()!r})")
    problems += differences(reference, after)
    if problems and os.environ.get("BENCH_DEBUG"):
        print(after, file=sys.stderr)
    keys("C-u")  # the cursor is at the end of the one line: the box is empty again
    wait_until(lambda s: prompt_text(s) == "", limit=5)
    return {"ok": not problems, "time": took, "problems": problems}


def focus_keys(rounds: int = 3) -> tuple[float, float]:
    """Shift+Tab (question box → answers) and Esc (answers → question box) in turns, ``rounds`` times: the
    median seconds until the footer shows each focus. Esc's reference: a lone Esc byte is told from the start
    of an escape sequence only after Textual's ``ESCDELAY`` (0.1 s), read in 0.1 s polls of its input thread."""
    times: dict[str, list[float]] = {"BTab": [], "Escape": []}
    for _ in range(rounds):
        for key, footer in (("BTab", FOCUSED_ANSWERS), ("Escape", FOCUSED_PROMPT)):
            settle(0.3)
            sent = keys(key)
            took, shown = wait_until(lambda s, footer=footer: footer in s.splitlines()[-1], limit=5, since=sent)
            if took != took:
                raise RuntimeError(f"{key} did not move the focus:\n{shown}")
            times[key].append(took)
    return statistics.median(times["BTab"]), statistics.median(times["Escape"])


def burst() -> float:
    return keys("-l", BURST)


def paste() -> float:
    tmux("set-buffer", "-b", "bench", PASTE)
    sent = time.perf_counter()
    tmux("paste-buffer", "-p", "-d", "-b", "bench", "-t", "b")  # -p: bracketed, as the app asked for
    return sent


def cancel(after_first: float) -> tuple[float, bool]:
    """The answer of the question just sent: Esc ``after_first`` seconds after its first words show; seconds
    from Esc to the ``■ cancelled`` badge, and whether Esc came before the answer's last words."""
    took, shown = wait_until(lambda s: FIRST_WORDS in s or LAST_WORDS in s, limit=60)
    if took != took:
        raise RuntimeError("the answer did not start within 60 s:\n" + shown)
    time.sleep(after_first)
    before = screen()
    sent = keys("Escape")
    took, shown = wait_until(lambda s: CANCELLED in s or LAST_WORDS in s, limit=10, since=sent)
    in_time = LAST_WORDS not in before and CANCELLED in shown
    return (took if in_time else float("nan")), in_time


def one_run(env: dict[str, str], db: str, fast: str, paced: str) -> dict[str, Any]:
    out: dict[str, Any] = {"cli": cli_ask(env, db, fast)}

    out["ready"] = open_app(env, db, fast)
    sent = ask(QUESTION)
    out["first"], _ = wait_until(lambda s: FIRST_WORDS in s or LAST_WORDS in s, limit=60, since=sent)
    out["last"], shown = wait_until(lambda s: LAST_WORDS in s, limit=300, since=sent)
    if out["last"] != out["last"]:
        raise RuntimeError("the answer's last words never showed:\n" + shown)
    idle()
    out["btab"], out["esc_focus"] = focus_keys()
    out["burst"] = typing(burst, BURST)
    out["paste"] = typing(paste, PASTE)

    open_app(env, db, fast, "fake-ok")  # the focus keys on a short answer: what Esc costs in any Textual app
    ask(QUESTION)
    took, shown = wait_until(lambda s: "✓ grounded" in s, limit=60)
    if took != took:
        raise RuntimeError("the short answer did not end grounded:\n" + shown)
    idle()
    out["btab_short"], out["esc_focus_short"] = focus_keys()

    for key, url, wait in (("esc_fast", fast, 0.0), ("esc_paced", paced, 0.5)):  # a fresh app: one answer on it
        open_app(env, db, url)
        ask(QUESTION)
        out[key], out[key + "_in_time"] = cancel(wait)
    tmux("kill-server")
    return out


# ---- the report


def spread(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    seen = [v * scale for v in values if v == v]
    if not seen:
        return "—"
    return f"{statistics.median(seen):.{digits}f} ({min(seen):.{digits}f}–{max(seen):.{digits}f})"


def report(runs: list[dict[str, Any]]) -> None:
    def col(key: str) -> list[float]:
        return [r[key] for r in runs]

    cli, last = statistics.median(col("cli")), statistics.median(col("last"))
    ratio = last / cli
    esc = {k: [v for v in col(k) if v == v] for k in ("esc_fast", "esc_paced")}
    print(f"\n{len(runs)} runs, medians (min–max); tmux {WIDTH}×{HEIGHT}, 200 KB answer (tests/model_server.py long)\n")
    print("| measure | figure | goal | verdict |")
    print("|---|---:|---|---|")
    print(f"| CLI `ask`, whole process (s) | {spread(col('cli'))} | | |")
    print(f"| app launch → idle (s) | {spread(col('ready'))} | | |")
    print(f"| app Enter → first words (s) | {spread(col('first'))} | | |")
    print(
        f"| app Enter → last words (s) | {spread(col('last'))} | ≤ 2× CLI | "
        f"{'pass' if ratio <= 2 else 'FAIL'} ({ratio:.2f}×) |"
    )
    for answer, suffix in (("a short answer", "_short"), ("the 200 KB answer", "")):
        print(f"| Shift+Tab → answers focused, on {answer} (s) | {spread(col('btab' + suffix), digits=3)} | | |")
        print(f"| Esc → question box focused, on {answer} (s) | {spread(col('esc_focus' + suffix), digits=3)} | | |")
    for key, name in (("esc_fast", "full speed"), ("esc_paced", f"paced {PACED_DELAY}s/event")):
        landed = sum(col(key + "_in_time"))
        verdict = ("pass" if statistics.median(esc[key]) < 0.3 else "FAIL") if esc[key] else "—"
        print(
            f"| Esc → cancelled, {name} (s) | {spread(col(key), digits=3)} | < 0.3 s | {verdict} "
            f"(Esc before the end in {landed} of {len(runs)}) |"
        )
    for key, name in (("burst", "burst of 60 (`send-keys -l`)"), ("paste", "bracketed paste of 60")):
        passed = sum(r[key]["ok"] for r in runs)
        print(
            f"| {name} on the answers → question box (s) | {spread([r[key]['time'] for r in runs], digits=3)} | "
            f"whole, in order, no action | {'pass' if passed == len(runs) else 'FAIL'} ({passed} of {len(runs)}) |"
        )
        for i, r in enumerate(runs):
            for problem in r[key]["problems"]:
                print(f"  run {i + 1} {key}: {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="work in DIR and leave it there (default: a temporary folder)"
    )
    args = parser.parse_args()

    def terminated(*_: Any) -> None:
        raise SystemExit("terminated")

    signal.signal(signal.SIGTERM, terminated)  # the clean-up below also runs when the bench is killed
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-real-model-"))
    work.mkdir(parents=True, exist_ok=True)
    servers: list[subprocess.Popen[bytes]] = []
    try:
        env = environment(work / "home")
        db = build_kb(work, env)
        fast_server, fast = start_server(env, work / "server-fast.log")
        paced_server, paced = start_server(env, work / "server-paced.log", PACED_DELAY)
        servers += [fast_server, paced_server]
        print(f"load average {os.getloadavg()[0]:.2f}; {CODE}; last words {LAST_WORDS!r}", flush=True)
        runs = []
        for i in range(args.runs):
            run = one_run(env, db, fast, paced)
            runs.append(run)
            print(
                f"run {i + 1}: cli {run['cli']:.2f} s, launch {run['ready']:.2f} s, first {run['first']:.2f} s, "
                f"last {run['last']:.2f} s, Shift+Tab / Esc focus {run['btab']:.3f} / {run['esc_focus']:.3f} s "
                f"({run['btab_short']:.3f} / {run['esc_focus_short']:.3f} s on a short answer), "
                f"Esc cancel {run['esc_fast']:.3f} / {run['esc_paced']:.3f} s, "
                f"burst {'ok' if run['burst']['ok'] else 'FAIL'} {run['burst']['time']:.3f} s, "
                f"paste {'ok' if run['paste']['ok'] else 'FAIL'} {run['paste']['time']:.3f} s; "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        report(runs)
    finally:
        tmux("kill-server")
        for server in servers:
            stop(server)
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
        with contextlib.suppress(Exception):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


if __name__ == "__main__":
    main()
