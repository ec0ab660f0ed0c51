"""A reader that goes away (``haiku-tui sessions list | head -1``) ends every command quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from haiku_tui.sessions import SessionStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def many_sessions():
    """More sessions than stdout's buffer holds as a listing (so it is written while the command runs)."""
    with SessionStore() as store:
        for i in range(400):
            store.save(store.new(title=f"session number {i} about steeping green tea and oiling chains"))


@pytest.mark.parametrize(
    "command",
    [["haiku_tui.cli", "sessions", "list"], ["haiku_tui.cli", "sessions", "list", "--json"],
     ["haiku_tui.cli", "sessions", "search", "tea"], ["haiku_tui.cli.sessions", "list"]],
    ids=lambda c: " ".join(c),
)
def test_a_closed_pipe_ends_the_command_quietly(many_sessions, command):
    proc = subprocess.Popen(
        [sys.executable, "-m", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    proc.stdout.close()  # the reader is gone before the listing (more than the output buffer holds) is written
    _, err = proc.communicate(timeout=120)
    assert err == b"" and proc.returncode == 141  # as `haiku-tui list | head -1` (SIGPIPE's status)


def test_an_answer_read_in_part_is_still_saved(kb_path):
    """`haiku-tui ask -s S … | head -c 10`: the reader leaves mid-answer; the run completes and is saved."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "haiku_tui.cli", "ask", "--db", kb_path, "-s", "piped", "--new",
         "How long should I steep green tea, and how often should I oil a bicycle chain?"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    assert proc.stdout.read(10)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert b"error" not in err and proc.returncode == 141
    with SessionStore() as store:
        assert store.load(store.resolve("piped")).messages
