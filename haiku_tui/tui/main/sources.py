"""How answers, citations and the places of sources read as plain text: what the main screen copies to the
clipboard, and where a chunk starts as the chunk viewer and the toasts say it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView


def answer_markdown(view: QuestionView, citations: dict[int, dict[str, Any]]) -> str:
    """A committed answer as Markdown: the question, the answer with its ``[n]`` markers, its numbered sources."""
    lines = [f"**Q{view.number}: {view.prompt}**", "", view.answer.strip()]
    sources = [citation_line(n, citations[n]) for n in view.citations if n in citations]
    if sources:
        lines += ["", "Sources:", "", *(f"- {line}" for line in sources)]
    return "\n".join(lines) + "\n"


def citation_line(number: int, entry: dict[str, Any]) -> str:
    """``[n] Title › Heading, p. 3 (path)``: one source as the answer copy and the citation copy name it."""
    from haiku_tui.store.records import chunk_label, page_range

    label = chunk_label(entry.get("title") or "", tuple(entry.get("headings") or ()))
    pages = page_range(tuple(entry.get("pages") or ()))
    path = entry.get("path") or ""
    return f"[{number}] {label}" + (f", {pages}" if pages else "") + (f" ({path})" if path else "")


def citation_text(number: int, entry: dict[str, Any]) -> str:
    """A citation with its chunk quoted, for the clipboard."""
    quoted = "\n".join(f"> {line}" if line else ">" for line in str(entry.get("text") or "").strip().splitlines())
    return f"{citation_line(number, entry)}\n\n{quoted}\n"


def location_text(where: Any) -> str:
    """``path:line`` or ``path, p. 3``: where a chunk starts, as the chunk viewer and the toasts say it."""
    if where.line:
        return f"{where.path}:{where.line}"
    return f"{where.path}, p. {where.page}" if where.page else where.path
