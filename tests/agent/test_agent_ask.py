"""`haiku-tui ask` end to end, as a subprocess that cannot reach the network (the slow, few tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# Runs the CLI with every non-loopback socket connection refused: proof that `ask` with the
# extractive model stays offline.
LAUNCHER = """
import socket, sys, runpy
_connect = socket.socket.connect
def guarded(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
        raise OSError("network access blocked in tests: " + repr(address))
    return _connect(self, address)
socket.socket.connect = guarded
socket.create_connection = lambda *a, **k: (_ for _ in ()).throw(OSError("network access blocked in tests"))
sys.argv = ["haiku-tui", *sys.argv[1:]]
runpy.run_module("haiku_tui.cli", run_name="__main__")
"""


def run(*args, data_dir, env=None):
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("HAIKU_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))
    }
    environment.update({"HAIKU_TUI_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.run(
        [sys.executable, "-c", LAUNCHER, *args], capture_output=True, text=True, env=environment, timeout=180, cwd=ROOT
    )


def test_ask_streams_the_answer_then_numbered_sources(kb_path, tmp_path):
    proc = run("ask", "--db", str(kb_path), "How long should I steep green tea?", data_dir=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Steep green tea for two to three minutes, or it turns bitter. [1]" in out
    assert "Retrieval-only extractive answer" in out
    sources = out.split("\nSources:\n", 1)[1].strip().splitlines()
    assert len(sources) == 1
    assert sources[0].startswith("[1] Tea brewing")
    assert sources[0].endswith("tea-brewing.md")
    assert " — " in sources[0]


def test_ask_session_continues_and_saves(kb_path, tmp_path):
    typo = run(
        "ask",
        "--db",
        str(kb_path),
        "--session",
        "garden",
        "--json",
        "How often should I oil the chain?",
        data_dir=tmp_path,
    )
    assert typo.returncode == 1 and "no session 'garden'" in typo.stderr and "--new" in typo.stderr
    first = run(
        "ask",
        "--db",
        str(kb_path),
        "--session",
        "garden",
        "--new",
        "--json",
        "How often should I oil the bicycle chain?",
        data_dir=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    assert "created session" in first.stderr
    session_id = json.loads(first.stdout)["session"]
    # the session remembers its knowledge base: no --db needed to continue
    second = run("ask", "--session", "garden", "--json", "What water temperature for black tea?", data_dir=tmp_path)
    assert second.returncode == 0, second.stderr
    data = json.loads(second.stdout)
    assert data["session"] == session_id
    assert [c["number"] for c in data["citations"]] == [2]  # numbers continue across the conversation

    from haiku_tui.sessions import SessionStore

    store = SessionStore(tmp_path / "sessions.db")
    (summary,) = store.list()
    assert summary.id == session_id and summary.title == "garden" and summary.questions == 2
    session = store.load(session_id)
    assert len(session.state["rag"]["citation_index"]) == 2
    assert session.model == "extractive"


