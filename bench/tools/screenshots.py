"""Write SVG screenshots of the app's main states: ``python -m bench.tools.screenshots [OUT_DIR]``.

Drives the real ``HaikuApp`` headless (``App.run_test``) on a throw-away knowledge base built from the
bundled user guide, with the offline ``extractive`` model, and saves one SVG per state into ``OUT_DIR``
(default ``screenshots/``). Nothing in the user's data directory is touched: the data directory is
pointed at a temporary folder for the run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

SIZE = (140, 40)
GUIDE = Path(__file__).resolve().parents[2] / "haiku_tui" / "guide"

FIRST_QUESTION = "How do I add a folder to the knowledge base?"
FOLLOW_UP = "Which formats can it read?"
SECOND_SESSION = "What is the difference between ungrounded and missing?"
PLAYGROUND_QUERY = "export a session"


async def _settle(pilot: Any, rounds: int = 3) -> None:
    app = pilot.app
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
    from textual.widgets import Input, TextArea

    for screen in app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            if isinstance(widget, (Input, TextArea)):
                widget.cursor_blink = False
    await pilot.pause()


async def _ask(pilot: Any, question: str) -> None:
    await _settle(pilot)
    await pilot.app.main.ask(question)
    await _settle(pilot)


def _save(app: Any, out: Path, name: str, written: list[Path]) -> None:
    path = out / f"{name}.svg"
    app.save_screenshot(filename=path.name, path=str(out))
    written.append(path)


async def _capture(out: Path, work: Path) -> list[Path]:
    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import SessionStore
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.tui.app import HaikuApp

    import shutil

    guide = work / "guide"
    shutil.copytree(GUIDE, guide)  # so document paths read "guide/…", not an install path
    kb = KnowledgeBase.open(str(work / "demo.lancedb"))
    kb.add([guide])
    store = SessionStore(work / "sessions.db")
    written: list[Path] = []
    config = AgentConfig(model="extractive", db="demo.lancedb")

    async def run(states: Callable[[Any], Awaitable[None]]) -> None:
        app = HaikuApp(config, store=store, kb=kb)
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            await states(pilot)

    async def states(pilot: Any) -> None:
        app = pilot.app
        # an earlier session, so the sessions screen lists more than one
        await _ask(pilot, SECOND_SESSION)
        app.main.action_new_session()
        await _settle(pilot)
        await _ask(pilot, FIRST_QUESTION)
        _save(app, out, "main-after-question", written)

        await _ask(pilot, FOLLOW_UP)
        _save(app, out, "main-follow-up", written)

        app.main.action_toggle_cited()
        await _settle(pilot)
        _save(app, out, "evidence-cited-only", written)
        app.main.action_toggle_cited()
        await _settle(pilot)

        app.main.action_focus_pane("policy")
        await _settle(pilot)
        app.main.action_maximize_pane()
        await _settle(pilot)
        _save(app, out, "policy-log", written)
        app.main.action_maximize_pane()
        await _settle(pilot)

        app.main.action_focus_pane("conversation")
        app.main.action_help()
        await _settle(pilot)
        _save(app, out, "help", written)
        await pilot.press("escape")
        await _settle(pilot)

        app.main.action_sessions()
        await _settle(pilot)
        _save(app, out, "sessions", written)
        await pilot.press("escape")
        await _settle(pilot)

        app.main.action_knowledge()
        await _settle(pilot)
        await pilot.press("slash", *PLAYGROUND_QUERY, "enter")
        await _settle(pilot)
        _save(app, out, "knowledge-base", written)
        await pilot.press("escape")
        await _settle(pilot)

    try:
        await run(states)
    finally:
        store.close()
        kb.close()
    return written


def write_screenshots(out_dir: str | os.PathLike[str] = "screenshots") -> list[Path]:
    """Write the screenshots into ``out_dir`` and return their paths."""
    import pydantic_ai.models

    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False  # the extractive model needs no network; nothing else may run
    out = Path(out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="haiku-tui-screenshots-") as tmp:
        work = Path(tmp)
        saved = {k: os.environ.get(k) for k in ("HAIKU_TUI_DATA_DIR", "HAIKU_RAG_DB", "HAIKU_TUI_MODEL")}
        os.environ["HAIKU_TUI_DATA_DIR"] = str(work / "data")
        os.environ.pop("HAIKU_RAG_DB", None)
        os.environ.pop("HAIKU_TUI_MODEL", None)
        cwd = Path.cwd()
        os.chdir(work)  # paths on screen read relative to the throw-away folder
        try:
            return asyncio.run(_capture(out, work))
        finally:
            os.chdir(cwd)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tools.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument(
        "out_dir", nargs="?", default="screenshots", help="where to write the SVGs (default: screenshots/)"
    )
    args = parser.parse_args(argv)
    try:
        paths = write_screenshots(args.out_dir)
    except Exception as exc:  # one clear line, non-zero exit
        print(f"screenshots: error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
