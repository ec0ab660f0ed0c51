"""``haiku-tui serve``: headless Chromium opens the printed URL (with its token), asks a question, sees the
cited answer, and gets the app back after a reload (the token kept by the tab's cookie)."""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from tests.serve.servers import free_port, printed_url, start, stop, wait_for_port

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")

if CHROMIUM is None and os.environ.get("CI"):
    pytest.fail("chromium is missing in CI: .ci/run installs it (apt-get install chromium)", pytrace=False)
if CHROMIUM is None:
    pytest.skip("chromium is not installed (apt-get install chromium); CI installs it", allow_module_level=True)
pytest.importorskip("playwright.sync_api")
pytest.importorskip("textual_serve")


def screen_text(frames: list) -> str:
    """What the app has written to the browser's terminal so far, escape sequences removed."""
    raw = "".join(f if isinstance(f, str) else f.decode("utf-8", "replace") for f in frames)
    return ANSI.sub("", raw)


def shown(page, frames: list, *needles: str, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the terminal output to contain every needle."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(n in screen_text(frames) for n in needles):
            return True
        page.wait_for_timeout(250)
    return False


def wait_until(page, frames: list, *needles: str, timeout: float = 60.0) -> None:
    if not shown(page, frames, *needles, timeout=timeout):
        pytest.fail(f"the browser never showed {needles}; last output: {screen_text(frames)[-600:]!r}")


def test_browser_asks_and_sees_the_cited_answer(kb_path, tmp_path):
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start(["serve", "--db", str(kb_path), "--port", str(port)])
    try:
        wait_for_port(port, server)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(  # --user-data-dir, the playwright way
                str(tmp_path / "profile"),
                executable_path=CHROMIUM,
                args=CHROMIUM_FLAGS,
                viewport={"width": 1400, "height": 900},
            )
            try:
                page = browser.new_page()
                frames: list = []
                page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
                url = printed_url(server)
                assert url.startswith(f"http://127.0.0.1:{port}/?token=")
                assert page.goto(f"http://127.0.0.1:{port}/").status == 401  # no app without the token
                assert page.goto(url).status == 200
                wait_until(page, frames, "Ask a question about your documents", "db ")
                page.click(".xterm-screen", position={"x": 300, "y": 800})  # focus the terminal
                page.keyboard.type("how do solar panels work in winter")
                wait_until(page, frames, "solar panels work in winter")  # echoed in the prompt
                for _ in range(20):  # Enter before the knowledge base is open says "Still opening…"; press again
                    page.keyboard.press("Enter")
                    if shown(page, frames, "Q1", timeout=3):
                        break
                wait_until(page, frames, "need light, not heat", "[1]", "grounded")
                page.wait_for_timeout(500)
                shot = tmp_path / "browser-answer.png"
                page.screenshot(path=str(shot))
                assert shot.stat().st_size > 10_000

                for reload in (page.reload, lambda: page.goto(f"http://127.0.0.1:{port}/")):  # the second has no
                    frames.clear()  # token in its URL: the tab's cookie has it
                    assert reload().status == 200
                    wait_until(page, frames, "Ask a question about your documents", "db ")
            finally:
                browser.close()
    finally:
        stop(server)
