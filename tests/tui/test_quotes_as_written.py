"""Answers render as Markdown, but source identifiers quoted in them are shown as written, never as emphasis."""

from __future__ import annotations

import asyncio

from tests.tui.conftest import SIZE, make_app, settle, wait_for

QUOTE = (
    "The docs say: \"`__init__` runs first; __init__ sets self.__dict__, and x.__del__() runs last.\"\n\n"
    "Call f(*args, **kwargs) with a snake_case_name such as _private_name_; a*b*c multiplies. "
    "**Bold stays bold** and *this stays emphasis*."
)
SHOWN = (
    "__init__ runs first; __init__ sets self.__dict__, and x.__del__() runs last.",
    "Call f(*args, **kwargs) with a snake_case_name such as _private_name_; a*b*c multiplies.",
)


def _quoting_model(release: asyncio.Event | None = None):
    from pydantic_ai.models.function import FunctionModel

    async def stream(messages, info):
        for i in range(0, len(QUOTE), 7):  # word pieces split identifiers, as a real stream does
            yield QUOTE[i : i + 7]
        if release is not None:
            await release.wait()

    return FunctionModel(stream_function=stream, model_name="quoting")


def _shown(turn) -> str:
    from textual.widgets._markdown import MarkdownBlock

    return "\n".join(str(block._content.plain) for block in turn.answer.query(MarkdownBlock) if block._content)


def _emphasised(turn) -> set[str]:
    from textual.widgets._markdown import MarkdownBlock

    words = set()
    for block in turn.answer.query(MarkdownBlock):
        content = block._content
        for span in content.spans if content else ():
            style = str(span.style)
            if style in (".strong", ".em"):
                words.add(content.plain[span.start : span.end])
    return words


async def test_identifiers_are_quoted_as_written_live_and_committed(small_kb):
    release = asyncio.Event()
    app = make_app(small_kb, model=_quoting_model(release))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "what does the documentation say about __init__"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "multiplies" in _shown(app.main.turn_log.turns[-1]))
        await pilot.pause(0.2)
        live = _shown(app.main.turn_log.turns[-1])
        assert SHOWN[0] in live  # while it streams (the stars wait for the committed answer)
        release.set()
        await settle(pilot)
        turn = app.main.turn_log.turns[-1]
        shown = _shown(turn)
        assert all(line in shown for line in SHOWN), shown
        assert "\\" not in shown
        assert _emphasised(turn) == {"Bold stays bold", "this stays emphasis"}
