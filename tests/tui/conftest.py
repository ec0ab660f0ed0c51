"""Fixtures for the main-screen tests: a small real knowledge base, scripted models, app factory.

Everything runs offline: the extractive model or a ``FunctionModel`` script, over LanceDB
knowledge bases built once per test session with ``tests/kb_fixture.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerCancelled, WorkerFailed

from tests.kb_fixture import build_small_kb

from haiku_tui.tui.main.modals import ChunkView

INJECTION_DOC = (
    "# Markup injection\n\n"
    "## Hostile text\n\n"
    "Hostile chunks write [bold]loud[/bold] markup and [@click=app.quit]click traps[/] to fool the terminal.\n"
    "Hostile chunks also hide \x1b[31mred escape codes\x1b[0m inside their sentences.\n"
)

SIZE = (140, 40)
"""Terminal size of every snapshot unless a test says otherwise."""


@pytest.fixture(scope="session")
def small_kb():
    """The four-document knowledge base (shared, read-only), in a folder whose path has the same length on
    every run: a copied answer lists its sources' paths, and a toast counts the copied characters."""
    root = Path(tempfile.mkdtemp(prefix="htui-kb-", dir="/tmp"))
    kb = build_small_kb(root / "small.lancedb")
    yield kb
    kb.close()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def injection_kb(tmp_path_factory):
    """The small knowledge base plus a document full of markup and terminal escapes."""
    root = tmp_path_factory.mktemp("kbi")
    kb = build_small_kb(root / "injection.lancedb")
    doc = root / "hostile" / "markup-injection.md"
    doc.parent.mkdir()
    doc.write_text(INJECTION_DOC, encoding="utf-8")
    kb.add([doc])
    yield kb
    kb.close()


def make_app(kb: Any, *, model: Any = None, session_id: str | None = None, store: Any = None, **config: Any):
    """A ``HaikuApp`` over ``kb`` with a fixed, short database label (deterministic snapshots)."""
    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp

    config.setdefault("model", "extractive")
    config.setdefault("db", "small.lancedb")
    return HaikuApp(AgentConfig(**config), kb=kb, model=model, session_id=session_id, store=store)


async def settle(pilot) -> None:
    """Wait for every worker (agent runs, KB opening, chunk loading) and the resulting refreshes."""
    app = pilot.app
    for _ in range(3):
        await pilot.pause()
        for worker in list(app.workers):
            # an exclusive worker replaced by a newer one; a worker whose failure its owner reports (the test
            # reads the report: waiting on it again would re-raise a failure that already happened)
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
    await pilot.pause()
    for _ in range(50):  # a chunk view scrolls to its target after the refresh that lays it out
        if all(view.placed for view in app.screen.query(ChunkView)):
            break
        await pilot.pause(0.02)
    await pilot.pause()
    try:
        app.main.query_one("#prompt").cursor_blink = False
    except Exception:
        pass


async def send(pilot, question: str) -> None:
    """Type a question in the prompt and send it (the run goes on)."""
    await settle(pilot)
    pilot.app.main.prompt.focus()
    pilot.app.main.prompt.text = question
    await pilot.press("enter")


async def ask(pilot, question: str) -> None:
    """Type a question in the prompt, send it, and wait for the answer."""
    await send(pilot, question)
    await settle(pilot)


# ---- scripted models ----------------------------------------------------------------------------------------


def _last_request_parts(messages: list[Any]) -> list[Any]:
    from pydantic_ai.messages import ModelRequest

    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            return list(message.parts)
    return []


def _chunk_ids(messages: list[Any]) -> list[str]:
    import re

    ids: list[str] = []
    for message in messages:
        for part in message.parts:
            if getattr(part, "part_kind", "") == "tool-return" and part.tool_name == "rag_search":
                ids += re.findall(r"^\[([0-9a-f]{16})\]", str(part.content), flags=re.M)
    return ids


def policy_model(*, obey_redirect: bool, query: str = "solar panels winter"):
    """A model that answers without citing; on the policy's redirect it cites (obey) or answers again (ignore)."""
    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    from haiku_tui.capabilities.policy import REDIRECT_TAG

    counter = {"n": 0}

    def call(name: str, args: dict[str, Any]) -> dict[int, DeltaToolCall]:
        counter["n"] += 1
        return {0: DeltaToolCall(name=name, json_args=json.dumps(args), tool_call_id=f"call_{counter['n']}")}

    async def stream(messages, info):
        parts = _last_request_parts(messages)
        tools = {t.name for t in info.function_tools}
        returns = {p.tool_name for p in parts if getattr(p, "part_kind", "") == "tool-return"}
        redirected = any(REDIRECT_TAG in str(getattr(p, "content", "")) for p in parts)
        if redirected:
            if obey_redirect:
                yield call("rag_cite", {"chunk_ids": _chunk_ids(messages)[:1]})
            else:
                yield "I answered already: panels work in winter."
            return
        if "rag_cite" in returns:
            yield "Panels work in winter because they need light [1]."
            return
        if "rag_search" in returns:
            yield "Panels work in winter "
            yield "because they need light."
            return
        if "load_capability" in returns or "rag_search" in tools:
            yield call("rag_search", {"query": query})
            return
        yield call("load_capability", {"id": "haiku-tui-rag"})

    return FunctionModel(stream_function=stream, model_name="scripted")


def stalling_model(release: asyncio.Event | None = None):
    """Streams the start of an answer, then waits (until ``release`` is set) — for cancelling."""
    from pydantic_ai.models.function import FunctionModel

    async def stream(messages, info):
        yield "This answer starts streaming "
        yield "and then stalls…"
        if release is None:
            await asyncio.sleep(3600)
        else:
            await release.wait()
        yield " never shown."

    return FunctionModel(stream_function=stream, model_name="stalling")


def searching_model(release: asyncio.Event):
    """Loads the tools, searches "green tea", then waits for ``release`` before answering "done"."""
    from pydantic_ai.models.function import DeltaToolCall, FunctionModel

    async def stream(messages, info):
        returns = {
            getattr(p, "tool_name", None) for p in messages[-1].parts if getattr(p, "part_kind", "") == "tool-return"
        }
        if "rag_search" in returns:
            await release.wait()
            yield "done"
        elif "load_capability" in returns:
            yield {0: DeltaToolCall(name="rag_search", json_args='{"query": "green tea"}', tool_call_id="s1")}
        else:
            yield {0: DeltaToolCall(name="load_capability", json_args='{"id": "haiku-tui-rag"}', tool_call_id="l1")}

    return FunctionModel(stream_function=stream)


async def wait_for(pilot, predicate, timeout: float = 10.0) -> None:
    """Pause until ``predicate()`` is true (for states that happen while a worker is still running)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


async def f1_help(pilot, *own_keys: str) -> str:
    """F1 on the current full screen opens the help modal listing ``own_keys`` (descriptions) and the keys that
    work everywhere; Esc closes it and focus is back where it was. Returns the help text."""
    from haiku_tui.tui.help import HelpScreen

    app = pilot.app
    screen, focused = app.screen, app.focused
    await pilot.press("f1")
    await pilot.pause()
    assert isinstance(app.screen, HelpScreen), app.screen
    text = str(app.screen.query_one(".help-text").render())
    for key in own_keys:
        assert key in text, (key, text)
    assert "Everywhere" in text and "Quit" in text
    await pilot.press("escape")
    await pilot.pause()
    assert app.screen is screen and app.focused is focused
    return text
