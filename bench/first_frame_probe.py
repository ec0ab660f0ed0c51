"""Run ``haiku-tui`` with timestamps of a question's way to the screen, for ``bench_app.py --tmux``.

    BENCH_PROBE=events.log python -m bench.first_frame_probe --db KB

Runs the CLI as usual, with ``ready`` (the agent and knowledge base are loaded) and these moments appended
to ``BENCH_PROBE`` (``name time``, ``time.perf_counter``:
CLOCK_MONOTONIC, the same clock in every process on Linux, so the bench can subtract its own times):

- ``key``: the Enter key parsed by Textual's input thread (the byte is read from the terminal);
- ``text``: the answer's first words written into its turn;
- ``layout`` / ``render``: the screen's first layout / compositor refresh after ``text``;
- ``frame``: the first frame after ``text`` handed to the output thread (``frame_ms``: how long rendering
  that frame took, from the compositor to the terminal's escape codes; ``frame_bytes``: its size);
- ``written``: the output thread wrote that frame to the terminal.

Patches only the points it times; the app runs otherwise unchanged (works on any checkout of the app on
``PYTHONPATH``, for before/after runs).
"""

from __future__ import annotations

import os
import sys
import time

LOG = os.environ["BENCH_PROBE"]


def note(name: str, value: float | None = None) -> None:
    with open(LOG, "a") as out:
        out.write(f"{name} {time.perf_counter() if value is None else value:.6f}\n")


def install() -> None:
    from textual import events
    from textual.app import App
    from textual.drivers import _writer_thread
    from textual.drivers.linux_driver import LinuxDriver

    from haiku_tui.tui.main.turn import QuestionTurn

    from haiku_tui.tui.main.screen import MainScreen

    watch = {"text": False, "frame": False}
    backend_ready = MainScreen.backend_ready

    async def ready(self):
        await backend_ready(self)
        note("ready")

    process = LinuxDriver.process_message

    def process_message(self, message):  # the input thread
        if isinstance(message, events.Key) and message.key == "enter":
            note("key")
            watch["text"] = watch["frame"] = watch["layout"] = watch["render"] = False
        process(self, message)

    write = QuestionTurn.write

    async def turn_write(self, fragment):
        await write(self, fragment)
        if fragment and not watch["text"] and self.has_answer:
            watch["text"] = True
            note("text")

    from textual.screen import Screen

    layout, paint = Screen._refresh_layout, Screen._compositor_refresh

    def refresh_layout(self, *args, **kwargs):
        if watch["text"] and not watch["frame"] and not watch.get("layout"):
            watch["layout"] = True
            note("layout")
        return layout(self, *args, **kwargs)

    def compositor_refresh(self, *args, **kwargs):
        if watch["text"] and not watch["frame"] and not watch.get("render"):
            watch["render"] = True
            note("render")
        return paint(self, *args, **kwargs)

    display = App._display

    def app_display(self, screen, renderable):
        if renderable is None or self._batch_count or not watch["text"] or watch["frame"]:
            return display(self, screen, renderable)
        t0 = time.perf_counter()
        watch["frame"] = watch["pending"] = True
        display(self, screen, renderable)
        watch["pending"] = False
        note("frame")
        note("frame_ms", (time.perf_counter() - t0) * 1000)
        return None

    driver_write = LinuxDriver.write

    def linux_write(self, data):
        if watch.get("pending") and len(data) > 64:  # the frame, not the synchronised-update markers around it
            watch["data"] = data
            note("frame_bytes", len(data))
        driver_write(self, data)

    thread_run = _writer_thread.WriterThread.run

    def writer_run(self):  # the output thread: note when the watched frame is written to the terminal
        stream = self._file

        class Timed:
            def write(self, text):
                stream.write(text)
                if text is watch.get("data"):
                    stream.flush()
                    watch["data"] = None
                    note("written")

            def flush(self):
                stream.flush()

            def __getattr__(self, name):
                return getattr(stream, name)

        self._file = Timed()
        thread_run(self)

    MainScreen.backend_ready = ready  # type: ignore[method-assign]
    Screen._refresh_layout = refresh_layout  # type: ignore[method-assign]
    Screen._compositor_refresh = compositor_refresh  # type: ignore[method-assign]
    LinuxDriver.process_message = process_message  # type: ignore[method-assign]
    QuestionTurn.write = turn_write  # type: ignore[method-assign]
    App._display = app_display  # type: ignore[method-assign]
    LinuxDriver.write = linux_write  # type: ignore[method-assign]
    _writer_thread.WriterThread.run = writer_run  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    from haiku_tui.cli import main

    sys.exit(main(sys.argv[1:]))
