"""The app in a real terminal (tmux) with a model that writes its tool call as text: the screen, read every few
milliseconds while it answers, never shows the call; the question ends grounded, search-first, said in one row."""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest

from bench.terminal import Pane
from tests.kb_fixture import build_small_kb
from tests.model_server import ModelServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

PLACEHOLDER = "Ask a question about your documents"
QUESTION = "How long should I steep green tea?"


def test_a_tool_call_written_as_text_never_reaches_the_screen(tmp_path):
    build_small_kb(tmp_path / "kb.lancedb").close()
    server = ModelServer(mode="text-call").start()
    server.delay = 0.01  # a real model's pace: the screen is read between its pieces
    pane = Pane(f"htui-{uuid.uuid4().hex[:8]}")
    code = Path(__file__).resolve().parents[2]
    app = (
        f"exec env HAIKU_TUI_DATA_DIR={tmp_path / 'data'} PYTHONPATH={code} {sys.executable} -m haiku_tui.cli "
        f"--db {tmp_path / 'kb.lancedb'} --base-url {server.base_url} --model qwen2.5:0.5b"
    )
    try:
        terminal = {**os.environ, "TERM": "xterm-256color"}
        pane.run("new-session", "-d", "-s", "b", "-x", "120", "-y", "36", app, env=terminal)
        seen = wait(pane, lambda s: PLACEHOLDER in s, 90)
        assert PLACEHOLDER in seen, seen
        pane.settle(0.3)
        pane.run("send-keys", "-t", "b", "-l", QUESTION)
        wait(pane, lambda s: QUESTION in s, 10)
        pane.run("send-keys", "-t", "b", "Enter")
        screens = []
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 60:
            screens.append(pane.screen())
            if "✓ grounded" in screens[-1]:
                break
            time.sleep(0.02)
        final = pane.settle(0.3)
    finally:
        pane.run("kill-server")
        server.stop()
    assert "✓ grounded" in final, final
    for shown in screens:
        assert "<tool_call>" not in shown and '"arguments"' not in shown and "rag_search" not in shown
    assert "asked again search-first" in final and "│ search-first" in final
    assert 'The documents say: "Green tea should be brewed' in final


def wait(pane: Pane, test, limit: float) -> str:
    t0 = time.perf_counter()
    while True:
        shown = pane.screen()
        if test(shown) or time.perf_counter() - t0 > limit:
            return shown
        time.sleep(0.05)
