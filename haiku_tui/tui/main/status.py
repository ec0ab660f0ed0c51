"""The status bar's line: model · last request and compaction's saving · tokens · database · filter (when set).

Fitted to the screen's width (120 columns included): the database path comes last and gets what
is left, elided in the middle (its end names it), so the request size, compaction's saving and the
tokens are never cut off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from haiku_tui.tui.text import clean_line, compact_number

if TYPE_CHECKING:
    from haiku_tui.capabilities.wire import Tokens
    from haiku_tui.sessions.workbench import Workbench

PATH_MIN = 12


def elide_middle(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters by replacing its middle with ``…`` (a path keeps its end)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 4
    if "/" in text:  # a path keeps its file name whole while it fits
        head = min(head, max(0, limit - 1 - len(text.rsplit("/", 1)[-1])))
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def tokens_text(tokens: Tokens) -> str:
    """``12k in / 800 out``, with ``≈ … (estimated)`` when no provider reported usage."""
    text = f"{compact_number(tokens.input)} in / {compact_number(tokens.output)} out"
    return f"≈ {text} (estimated)" if tokens.estimated else text


def status_line(bench: Workbench, *, running: bool, width: int = 120, watch: str | None = None) -> Content:
    """The status bar's content for the workbench's open session, fitted to ``width`` columns."""
    from haiku_tui.agent import model_label

    config = bench.config
    sep = (" │ ", "$text-muted")
    parts: list[Any] = [(elide_middle(clean_line(model_label(config.model, config.base_url), 200), 28), "bold")]
    if bench.view.request_size is not None:
        compacted, full = bench.view.request_size
        saved = full - compacted
        parts += [sep, ("sent ", "$text-muted"), (f"{compact_number(compacted)} chars", "bold")]
        if saved > 0 and full:
            parts.append((f" (compacted −{saved * 100 // full}%)", "$success"))
        elif not config.compaction:
            parts.append((" (compaction off)", "$text-muted"))
    if bench.view.tokens is not None:
        parts += [sep, (tokens_text(bench.view.tokens), "")]
    if watch:
        parts += [sep, (elide_middle(clean_line(watch, 200), 40), "")]
    if running:
        parts += [sep, ("answering… Esc cancels", "bold $warning")]
    flt = clean_line(bench.session.document_filter or "", 400) if bench.session else ""
    path = clean_line(bench.db_label(), 400)
    warn = " (unavailable)" if bench.kb_error else ""
    room = width - 1 - sum(len(p[0]) for p in parts) - len(" │ db ") - len(warn)
    if flt:  # the filter gets what the path (up to 24 columns) leaves, at least 16
        room -= len(" │ filter ")
        flt = elide_middle(flt, max(16, room - min(len(path), 24)))
        room -= len(flt)
    path = elide_middle(path, max(PATH_MIN, room))
    tail: list[Any] = [(warn, "$warning")] if warn else []
    if flt:
        tail += [sep, ("filter ", "$text-muted"), (flt, "")]
    return Content.assemble(*parts, sep, ("db ", "$text-muted"), (path, ""), *tail)
