"""The paced answer stream ends when stopped, even when the cancel that stops it is swallowed (as Python 3.11's
``wait_for`` can do when the frame it waits for comes at that moment); a worker's crash log holds the worker's own
traceback."""

from __future__ import annotations

import asyncio
import time

from textual.worker import WorkerFailed

from haiku_tui.tui.crash import write_crash_log
from haiku_tui.tui.main.pacing import PacedStream


class FramedMarkdown:
    """A stand-in answer widget whose frames come when the test says."""

    is_attached = True

    def __init__(self) -> None:
        self.text = ""
        self.waiting = asyncio.Event()
        self.frame = asyncio.Event()

    async def append(self, text: str) -> None:
        self.text += text

    async def wait_for_refresh(self) -> bool:
        self.waiting.set()
        await self.frame.wait()
        return True


async def test_a_stream_stopped_as_its_frame_comes_ends():
    markdown = FramedMarkdown()
    stream = PacedStream(markdown)  # type: ignore[arg-type]
    stream.write("first words ")
    await asyncio.wait_for(markdown.waiting.wait(), 1)
    stream.write("and the rest")
    markdown.frame.set()
    await asyncio.sleep(0)  # the frame's wait is over, the stream has not resumed: a cancel now is swallowed
    started = time.monotonic()
    async with asyncio.timeout(2):  # the stream waited forever for more text before the stop flag
        await stream.stop()
    assert time.monotonic() - started < 1
    assert markdown.text == "first words and the rest"


def test_a_workers_crash_log_holds_the_workers_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("HAIKU_TUI_DATA_DIR", str(tmp_path))

    def draw_the_answer():
        raise LookupError("No nodes match '.answer'")

    try:
        draw_the_answer()
    except LookupError as error:
        failure = WorkerFailed(error)
    log = write_crash_log(failure)
    assert log is not None
    text = log.read_text(encoding="utf-8")
    assert "in draw_the_answer" in text and "No nodes match" in text
