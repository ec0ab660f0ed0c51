"""A tmux pane the terminal benchmarks drive on their own server socket: run tmux commands, read the screen, and
wait until the app is idle or its screen stops changing."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


class Pane:
    """Pane ``b`` of the tmux server on socket ``socket`` (``tmux -L``)."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        """``tmux -L SOCKET ARGS…``: its standard output."""
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=env).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "b")

    def settle(self, quiet: float = 0.6, limit: float = 30.0) -> str:
        """Wait until the screen stops changing for ``quiet`` seconds; the screen."""
        last, changed, t0 = self.screen(), time.perf_counter(), time.perf_counter()
        while time.perf_counter() - changed < quiet and time.perf_counter() - t0 < limit:
            time.sleep(0.02)
            now = self.screen()
            if now != last:
                last, changed = now, time.perf_counter()
        return last

    def idle(self, limit: float = 60.0) -> None:
        """Wait until the app stops using the CPU (under 5% over half a second): a session opens with its newest
        turns, then loads whole behind them; keys pressed meanwhile would time that load, not the key."""
        pid = self.run("list-panes", "-t", "b", "-F", "#{pane_pid}").strip()

        def cpu() -> float:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return float("nan")
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        t0, last = time.perf_counter(), cpu()
        while time.perf_counter() - t0 < limit:
            time.sleep(0.5)
            now = cpu()
            if not now - last >= 0.025:  # also ends when the process is gone (NaN)
                return
            last = now
