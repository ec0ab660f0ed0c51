"""The status bar's line: model · how questions reach it (tools / search-first) · last request and what compaction
saved · session tokens · watch · answering · database · filter (when set).

:func:`fit_status` fits it to the bar's width. Each part has forms, longest first (the session's tokens
end dropped); while the line is too wide, the next part of :data:`GIVE_WAY` takes its next form: the
tokens (which the spec does not ask for) first, then the long wordings, the model's server, the short
forms. The database path and the filter take what is left, elided in the middle: the path keeps its file
name whole while it fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.content import Content

from haiku_tui.tui.text import clean_line, compact_number, tokens_text

if TYPE_CHECKING:
    from haiku_tui.capabilities.wire import Tokens
    from haiku_tui.sessions.workbench import Workbench

PATH_MIN = 12
"""Columns the database path keeps at least."""
PATH_HEAD = 6
"""Columns of the path's start kept before its file name before another part gives way."""
FILTER_MIN = 16
"""Columns the filter keeps at least (more when the path leaves them)."""
SEP = " │ "
GIVE_WAY = (
    "tokens", "request", "watch", "reranker", "tokens", "path", "model", "request", "running", "watch", "reranker",
    "path",
)
"""The order in which parts take their next, shorter form while the line is too wide."""


@dataclass(frozen=True)
class StatusFacts:
    """What the status bar shows, as plain values (untrusted text already cleaned)."""

    model: str
    """The model's label (with its server); ``model_short`` when room is short."""
    model_short: str = ""
    db: str = ""
    request: tuple[int, int] | None = None
    """The last request's characters (compacted, full)."""
    compaction: bool = True
    tokens: Tokens | None = None
    """The session's tokens, every request of it."""
    watch: str = ""
    running: bool = False
    kb_unavailable: bool = False
    filter: str = ""
    reranker: str = ""
    """The rerank server's address (``host:port``), when one reorders the search."""
    path: str = ""
    """How questions reach the model (``tools``, ``search-first (…; remembered)``); empty for the extractive model."""


def elide_middle(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters by replacing its middle with ``…`` (a path keeps its end)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 4
    if "/" in text:  # a path keeps its file name whole while it fits
        head = min(head, max(0, limit - 1 - len(text.rsplit("/", 1)[-1])))
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def model_text(label: str, limit: int, *, scheme: bool = True) -> str:
    """A model label (``name @ url``) in about ``limit`` characters: a server URL keeps its scheme (``scheme``)
    and ``host:port`` whole; its path, then the model name, give way (a name keeps 4 characters)."""
    name, at, url = label.partition(" @ ")
    if not at:
        return elide_middle(label, limit)
    front, sep, rest = url.partition("://")
    host, slash, path = (rest if sep else url).partition("/")
    server = (f"{front}://" if sep and scheme else "") + host
    name_room = max(4, limit - len(server) - len(at))
    path = slash + path if slash else ""
    room = limit - len(server) - len(at) - min(len(name), name_room)
    path = elide_middle(path, room) if room >= 2 else ""
    return f"{elide_middle(name, name_room)}{at}{server}{path}"


Form = list[tuple[str, str]]
"""One form of a part: its pieces of text and their styles."""


def _forms(facts: StatusFacts) -> dict[str, list[Form]]:
    """Every part shown, each with its forms, longest first (an empty form: the part is dropped)."""
    forms: dict[str, list[Form]] = {
        "model": [
            [(model_text(facts.model, 28), "bold")],
            [(model_text(facts.model_short or facts.model, 20, scheme=False), "bold")],
        ]
    }
    if facts.path:
        short = facts.path.partition(" (")[0]
        forms["path"] = [[(facts.path, "$accent" if short == "search-first" else "")], [(short, "")], []]
    if facts.request is not None:
        compacted, full = facts.request
        size = compact_number(compacted)
        saved = (full - compacted) * 100 // full if full and full > compacted else 0
        label, value = ("last request ", "$text-muted"), (f"{size} chars", "bold")
        if saved:
            forms["request"] = [
                [label, value, (f" (compacted −{saved}%)", "$success")],
                [("request ", "$text-muted"), value, (f" (−{saved}%)", "$success")],
                [("request ", "$text-muted"), (size, "bold"), (f" −{saved}%", "$success")],
            ]
        else:
            off: Form = [] if facts.compaction else [(" (compaction off)", "$text-muted")]
            forms["request"] = [
                [label, value, *off],
                [("request ", "$text-muted"), value],
                [("request ", "$text-muted"), (size, "bold")],
            ]
    if facts.tokens is not None:
        tokens = facts.tokens
        short = (
            f"{'≈ ' if tokens.estimated else ''}{compact_number(tokens.input)} in / {compact_number(tokens.output)} out"
        )
        forms["tokens"] = [
            [("session tokens ", "$text-muted"), (tokens_text(tokens), "")],
            [("session tokens ", "$text-muted"), (short, "")],
            [],
        ]
    if facts.watch:
        forms["watch"] = [[(elide_middle(facts.watch, 40), "")], [(elide_middle(facts.watch, 20), "")], []]
    if facts.reranker:
        name = elide_middle(facts.reranker, 24)
        forms["reranker"] = [
            [("rerank ", "$text-muted"), (name, "")],
            [(f"↕ {elide_middle(facts.reranker, 14)}", "")],
            [],
        ]
    if facts.running:
        forms["running"] = [[("answering… Esc cancels", "bold $warning")], [("answering…", "bold $warning")]]
    return forms


def _width(form: Form) -> int:
    return sum(len(text) for text, _ in form)


def fit_status(facts: StatusFacts, width: int) -> Content:
    """The status line for ``facts`` in ``width`` columns (the parts give way in the :data:`GIVE_WAY` order;
    below about 50 columns the bar's own ellipsis cuts what is left)."""
    forms = _forms(facts)
    level = dict.fromkeys(forms, 0)
    path, flt = facts.db, facts.filter
    warn = " (unavailable)" if facts.kb_unavailable else ""
    tail = len(SEP) + len("db ") + len(warn) + (len(SEP) + len("filter ") if flt else 0)
    wanted = min(len(path), max(PATH_MIN, len(path.rsplit("/", 1)[-1]) + PATH_HEAD)) + min(len(flt), FILTER_MIN)

    def shown() -> list[Form]:
        return [form for name, ways in forms.items() if (form := ways[level[name]])]

    def room() -> int:
        parts = shown()
        return width - sum(map(_width, parts)) - len(SEP) * (len(parts) - 1) - tail

    for name in GIVE_WAY:  # the first steps that make it fit: a wider bar never shows a part shorter
        if room() >= wanted:
            break
        if name in forms and level[name] < len(forms[name]) - 1:
            level[name] += 1
    left = room()
    if flt:  # the filter gets what the path (up to 24 columns) leaves, at least FILTER_MIN
        flt = elide_middle(flt, max(FILTER_MIN, left - min(len(path), 24)))
        left -= len(flt)
    pieces: list[Any] = []
    for form in shown():
        pieces += [*form, (SEP, "$text-muted")]
    pieces += [("db ", "$text-muted"), (elide_middle(path, max(PATH_MIN, left)), "")]
    if warn:
        pieces.append((warn, "$warning"))
    if flt:
        pieces += [(SEP, "$text-muted"), ("filter ", "$text-muted"), (flt, "")]
    return Content.assemble(*pieces)


def status_facts(workbench: Workbench, *, running: bool, watch: str | None = None) -> StatusFacts:
    """What the status bar shows for the workbench's open session."""
    from urllib.parse import urlsplit

    from haiku_tui.agent import is_extractive, model_label

    config = workbench.config
    short = "extractive" if is_extractive(config.model) else config.model or ""
    return StatusFacts(
        model=clean_line(model_label(config.model, config.base_url), 200),
        model_short=clean_line(short, 200),
        db=clean_line(workbench.db_label(), 400),
        request=workbench.view.request_size,
        compaction=bool(config.compaction),
        tokens=workbench.view.tokens,
        watch=clean_line(watch or "", 200),
        running=running,
        kb_unavailable=bool(workbench.kb_error),
        filter=clean_line(workbench.session.document_filter or "", 400) if workbench.session else "",
        reranker=clean_line(urlsplit(config.reranker).netloc or config.reranker, 200) if config.reranker else "",
        path="" if is_extractive(config.model) and not workbench.search_first() else workbench.path_text(),
    )
