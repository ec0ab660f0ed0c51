"""Event-loop CPU per key in the app (headless Pilot, 160×48): what a key costs, whatever else loads the box.

    python -m bench.key_cpu DIR N      # DIR built by ``bench_keys.py build DIR N``; BENCH_CODE as there

For each key: CPU time of the app's event-loop thread (``time.thread_time``) from the key to the first
frame drawn after it, and to the screen going quiet (the idle work a key leaves, e.g. the window's
reserve). ↑ walks 24 times from the newest answer (presses 8, 16, 24 cross the window's top); then ↓/↑,
PageUp/PageDown, Home/End alternate. Wall-clock latency in a real terminal is ``bench_keys.py``'s job;
this figure does not move with the other processes on a shared 2-core box.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def measure(base: Path, questions: int) -> dict[str, tuple[float, float]]:
    os.environ["HAIKU_TUI_DATA_DIR"] = str(base / "data")
    from textual import events
    from textual.screen import Screen

    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp

    frames: list[float] = []
    draw = Screen._compositor_refresh

    def counted(screen: Screen) -> None:
        draw(screen)
        frames.append(time.thread_time())

    Screen._compositor_refresh = counted  # type: ignore[method-assign]
    session = json.loads((base / "sessions.json").read_text())[str(questions)]
    app = HaikuApp(AgentConfig(model="extractive", db=str(base / "guide.lancedb")), session_id=session)

    async def quiet(gap: float = 0.4) -> None:
        while True:
            seen = len(frames)
            await asyncio.sleep(gap)
            if len(frames) == seen:
                return

    async def press(key: str) -> tuple[float, float]:
        await quiet()
        seen, start = len(frames), time.thread_time()
        app.post_message(events.Key(key, None))
        while len(frames) == seen:
            await asyncio.sleep(0.001)
        first = frames[seen] - start
        await quiet()
        return first * 1000, (time.thread_time() - start) * 1000

    async with app.run_test(size=(160, 48)) as pilot:
        await asyncio.sleep(2)
        await app.workers.wait_for_complete()
        app.main.query_one("#prompt").cursor_blink = False
        await quiet(0.8)
        await pilot.press("shift+tab")
        ups = [await press("up") for _ in range(24)]
        runs = {
            "↑": ups,
            "↑ at the edge": [ups[i - 1] for i in (8, 16, 24)],
            "↓/↑": [await press(k) for k in ["down", "up"] * 4],
            "PageUp/PageDown": [await press(k) for k in ["pageup", "pagedown"] * 3],
            "Home/End": [await press(k) for k in ["home", "end"] * 3],
        }
    return {
        name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts)) for name, ts in runs.items()
    }


def main() -> None:
    base, questions = Path(sys.argv[1]), int(sys.argv[2])
    result = asyncio.run(measure(base, questions))
    print("| questions | " + " | ".join(result) + " |")
    print("|---:|" + "---:|" * len(result))
    print(f"| {questions} | " + " | ".join(f"{first:.0f} / {total:.0f}" for first, total in result.values()) + " |")


if __name__ == "__main__":
    main()
