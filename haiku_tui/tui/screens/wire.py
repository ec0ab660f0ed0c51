"""The wire inspector: every model request of one answer as the model received it, after compaction.

Drawn from :func:`haiku_tui.capabilities.wire.wire_requests` over the committed session (the same on
a reopened one). Each request lists its parts labelled and sized, history unchanged since earlier
questions folded (Enter or → opens the selected request's fold: the earlier history in order, every part
labelled, the receipts and retained results its evidence became among them), how many of its characters repeat
the request before (what a prompt cache can serve), its tokens (cached ones where the server reports them), and
``c`` copies it as Pydantic AI JSON. A bar per
question of the session shows the largest request with and without compaction (computed in a worker:
it walks the whole session). Every text shown is stored or model text: sanitised, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Collapsible, Footer, Static

from haiku_tui.tui.help import ScreenHelp, help_binding
from haiku_tui.tui.text import clean_line, compact_number, tokens_text

if TYPE_CHECKING:
    from haiku_tui.capabilities.wire import WirePart, WireRequest

KIND_STYLE = {
    "instructions": "$text-muted",
    "prompt": "bold $accent",
    "answer": "bold",
    "tool call": "$secondary",
    "evidence current": "bold $success",
    "evidence retained": "$success",
    "evidence receipted": "italic $text-muted",
    "capsule": "bold $warning",
    "retained": "$success",
    "receipt": "italic $text-muted",
}
PREVIEW_CHARS = 90
BAR_WIDTH = 40


def part_line(part: WirePart) -> Content:
    """``label  size  first words of the text`` (of the chunks named ahead of a window: how many)."""
    return Content.assemble(
        (f"  {part.kind:<18}", KIND_STYLE.get(part.kind, "")),
        (f"{compact_number(part.chars):>7} chars  ", "$text-muted"),
        (clean_line(part.note or part.text, PREVIEW_CHARS), "$text-muted" if part.folded else ""),
    )


def request_title(request: WireRequest, selected: bool) -> str:
    """``▶ Request 2 · 3.1k chars, 2.9k repeat the request before (8.0k without compaction) · 1.2k in / 80 out tokens``:
    the repeated part is what a model server's prompt cache can serve."""
    saved = (
        f" ({compact_number(request.uncompacted_chars)} without compaction)"
        if request.uncompacted_chars > request.chars
        else ""
    )
    tokens = tokens_text(request.tokens)
    mark = "▶" if selected else " "
    repeated = f", {compact_number(request.repeated)} repeat the request before" if request.repeated else ""
    return f"{mark} Request {request.number} · {compact_number(request.chars)} chars{repeated}{saved} · {tokens} tokens"


def size_bars(sizes: list[tuple[int, int, int]], current: int) -> Content:
    """One bar per question: █ what was sent, ░ what compaction saved (scaled to the largest request)."""
    if not sizes:
        return Content.styled("No answered questions.", "italic $text-muted")
    top = max(full for _, _, full in sizes) or 1
    rows: list[Any] = [("largest request per question: █ sent  ░ saved by compaction\n", "$text-muted")]
    for number, (question, sent, full) in enumerate(sizes, start=1):
        filled = max(1, round(BAR_WIDTH * sent / top)) if sent else 0
        saved = max(0, round(BAR_WIDTH * full / top) - filled)
        marker = "▶" if question == current else " "
        rows += [
            (f"{marker} Q{number:<3}", "bold $accent" if question == current else "bold"),
            ("█" * filled, "$success"),
            ("░" * saved, "$text-muted"),
            (" " * (BAR_WIDTH - filled - saved + 1), ""),
            (f"{compact_number(sent)} / {compact_number(full)} chars\n", "$text-muted"),
        ]
    return Content.assemble(*rows)


class WireScreen(ScreenHelp, Screen[None]):
    """Every request of one answer as sent; ``n``/``p`` select a request, ``c`` copies it as JSON."""

    DEFAULT_CSS = """
    WireScreen #wire-head { padding: 0 1; margin-bottom: 1; }
    WireScreen #wire-sizes { padding: 0 1; margin-bottom: 1; height: auto; }
    WireScreen #wire-requests { height: 1fr; }
    WireScreen .wire-request { margin: 0 1 1 1; height: auto; border-left: wide $panel-lighten-2; }
    WireScreen .wire-request.-selected { border-left: wide $accent; }
    WireScreen Collapsible { padding: 0; border-top: none; }
    """

    HELP_TITLE = "Wire inspector"
    BINDINGS = [
        Binding("n,down", "step(1)", "Next request", id="wire.next"),
        Binding("p,up", "step(-1)", "Previous request", id="wire.previous"),
        Binding("enter,right", "fold(True)", "Open earlier history", id="wire.open"),
        Binding("left", "fold(False)", "Fold earlier history", id="wire.fold"),
        Binding("c", "copy", "Copy as JSON", id="wire.copy"),
        Binding("escape,q", "app.pop_screen", "Back", id="wire.close"),
        help_binding("wire"),
    ]

    def __init__(
        self,
        state: dict[str, Any],
        messages: list[Any],
        question: int,
        *,
        number: int,
        prompt: str,
        window: int = 0,
        retained: int = 0,
    ) -> None:
        """``window``: the earlier questions each run was given (the host's history window; 0: all);
        ``retained``: the bound on earlier cited text in full it planned with (characters; 0: all)."""
        from haiku_tui.capabilities.wire import wire_requests

        super().__init__(id="wire-screen")
        self.state = state
        self.messages = list(messages)
        self.question = question
        self.number = number
        self.prompt = prompt
        self.window, self.retained = window, retained
        self.requests = wire_requests(state, self.messages, question, window=window, retained=retained)
        self.selected = len(self.requests) - 1

    def compose(self) -> ComposeResult:
        head = Content.assemble(
            (f"Wire inspector · Q{self.number} ", "bold $accent"),
            (clean_line(self.prompt, 160), "bold"),
            (f"\n{len(self.requests)} model request(s), as sent after compaction", "$text-muted"),
        )
        yield Static(head, id="wire-head")
        yield Static(Content.styled("measuring every question of the session…", "italic $text-muted"), id="wire-sizes")
        with VerticalScroll(id="wire-requests", can_focus=True):
            for request in self.requests:
                yield Static(self._request(request), classes="wire-request", id=f"wire-r{request.number}")
                folded = [p for p in request.parts if p.folded]
                if folded:
                    chars = sum(p.chars for p in folded)
                    with Collapsible(
                        title=f"unchanged history: {len(folded)} part(s), {compact_number(chars)} chars",
                        collapsed=True,
                        classes="wire-folded",
                        id=f"wire-fold{request.number}",
                    ):
                        yield Static(self._history(request), classes="wire-history")
        yield Footer()

    def _request(self, request: WireRequest) -> Content:
        selected = request.number - 1 == self.selected
        title = Content.styled(request_title(request, selected), "bold $accent" if selected else "bold")
        shown = [part_line(p) for p in request.parts if not p.folded]
        return Content("\n").join([title, *shown])

    def _history(self, request: WireRequest) -> Content:
        """The fold's rows: the earlier history in order, each part labelled; under the capsule (the chunks cited
        before the request's first question) each chunk it names, marked receipt (id and source only)."""
        from haiku_tui.capabilities.wire import capsule_entries, earlier_history

        rows: list[Content] = []
        for part in earlier_history(request):
            rows.append(part_line(part))
            if part.kind == "capsule":
                for label, line in capsule_entries(self.state, request.start):
                    rows.append(
                        Content.assemble(
                            (f"      {label:<14}", KIND_STYLE[label]), (clean_line(line, PREVIEW_CHARS + 10), "")
                        )
                    )
        return Content("\n").join(rows)

    def on_mount(self) -> None:
        self.query_one("#wire-requests").focus()
        self._redraw()
        self.measure()

    def _redraw(self) -> None:
        for request in self.requests:
            widget = self.query_one(f"#wire-r{request.number}", Static)
            widget.update(self._request(request))
            widget.set_class(request.number - 1 == self.selected, "-selected")

    @work(thread=True, exclusive=True, group="wire-sizes", name="measure the session's requests")
    def measure(self) -> None:
        from haiku_tui.capabilities.wire import session_sizes

        try:
            content = size_bars(
                session_sizes(self.state, self.messages, window=self.window, retained=self.retained), self.question
            )
        except Exception as exc:  # a malformed stored session: one line, the requests still show
            content = Content.styled(f"could not measure the session: {clean_line(str(exc), 200)}", "$warning")
        self.app.call_from_thread(self.query_one("#wire-sizes", Static).update, content)

    def action_step(self, step: int) -> None:
        if not self.requests:
            return
        self.selected = max(0, min(len(self.requests) - 1, self.selected + step))
        self._redraw()
        self.query_one(f"#wire-r{self.selected + 1}").scroll_visible(animate=False, top=True)

    def action_fold(self, open_: bool) -> None:
        """Open (or fold again) the selected request's earlier history."""
        if not self.requests:
            return
        folds = self.query(f"#wire-fold{self.selected + 1}").results(Collapsible)
        fold = next(iter(folds), None)
        if fold is None:
            self.app.notify("This request carries no earlier history.", markup=False)
            return
        fold.collapsed = not open_
        if open_:
            fold.scroll_visible(animate=False)

    def action_copy(self) -> None:
        if not self.requests:
            self.app.notify("This answer made no model request.", severity="warning")
            return
        request = self.requests[self.selected]
        self.app.copy_to_clipboard(request.as_json())
        self.app.notify(f"Request {request.number} copied as JSON ({compact_number(request.chars)} chars).")
