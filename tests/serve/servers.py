"""Helpers for the server tests: free ports and ``haiku-tui`` servers in subprocesses."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    """Wait until something listens on ``port``; fail with the server's output if it died or never did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}: {output(process)[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    process.kill()
    pytest.fail(f"nothing listened on port {port} within {timeout}s")


def launch(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    """Start a server in the background, its output in a temporary file (a pipe nobody reads would fill up
    and block it); stopped by :func:`stop`, read by :func:`output`."""
    log = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - open until stop() closes it
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    process.log = log  # type: ignore[attr-defined]
    return process


def output(process: subprocess.Popen) -> str:
    log = process.log  # type: ignore[attr-defined]
    log.seek(0)
    return log.read()


def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``python -m haiku_tui.cli ARGS`` in the background."""
    return launch([sys.executable, "-m", "haiku_tui.cli", *args], {**os.environ, **(env or {})})


def printed_url(process: subprocess.Popen) -> str:
    """The URL ``haiku-tui serve`` printed to open (with its token), once it listens."""
    found = re.search(r"Open (http://\S+) in a browser", output(process))
    assert found, output(process)[-2000:]
    return found.group(1)


def refusals(process: subprocess.Popen) -> list[str]:
    """The lines in which the server said it refused a request."""
    return [line for line in output(process).splitlines() if line.startswith("haiku-tui serve: refused")]


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    process.log.close()  # type: ignore[attr-defined]
