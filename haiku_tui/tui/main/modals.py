"""Modals of the main screen: a chunk with its neighbours and citation review."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from haiku_tui.sessions.workbench import ChunkText, ReviewItem
from haiku_tui.tui.main.turn import MARK_SYMBOLS
from haiku_tui.tui.text import clean, clean_line

if TYPE_CHECKING:
    from haiku_tui.capabilities.support import ClaimSupport


NeighbourLoader = Callable[[str], Sequence[ChunkText]]
"""Returns the chunk with its neighbours, in document order (runs in a worker thread)."""


class ChunkView(VerticalScroll):
    """A chunk highlighted among its neighbouring chunks."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(can_focus=True, **kwargs)
        self.placed = False
        """The chunks are shown and scrolled to the target."""

    async def show(self, chunks: Sequence[ChunkText], target: str, what: str = "cited chunk") -> None:
        """Show ``chunks`` with ``target`` marked as ``what`` it is (a cited chunk, or one only retrieved)."""
        self.placed = False
        await self.remove_children()
        widgets = []
        for chunk in chunks:
            is_target = chunk.chunk_id == target
            head = Content.assemble(
                (f"▶ {what}  " if is_target else "  neighbour  ", "bold $accent" if is_target else "$text-muted"),
                (clean_line(chunk.label, 160), "bold" if is_target else "$text-muted"),
                (f"  · chunk {chunk.order + 1}" if chunk.order is not None else "", "$text-muted"),
            )
            widgets.append(Static(head, classes="chunk-head"))
            widgets.append(
                Static(Content(clean(chunk.text).strip()), classes="chunk-text -target" if is_target else "chunk-text")
            )
        if not widgets:
            widgets.append(Static(Content.styled("This chunk is no longer in the knowledge base.", "italic $warning")))
        await self.mount_all(widgets)
        targets = self.query(".chunk-text.-target")
        if targets:
            self.call_after_refresh(self._place, targets.first())
        else:
            self.placed = True

    def _place(self, target: Widget, tries: int = 5) -> None:
        laid_out = target.region.height > 0 and (self.max_scroll_y > 0 or self.virtual_size.height <= self.size.height)
        if not laid_out and tries:  # the new chunks' layout is not in yet: after the next refresh
            self.call_after_refresh(self._place, target, tries - 1)
            return
        self.scroll_to_widget(target, animate=False, top=True)
        self.placed = True


class ChunkScreen(ModalScreen[None]):
    """The full text of one retrieved chunk with its neighbours (Esc closes)."""

    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="chunk.close"),
        Binding("y", "copy", "Copy chunk", id="chunk.copy"),
        Binding("o", "open_source", "Open source", id="chunk.open-source"),
    ]

    def __init__(
        self,
        title: str,
        chunk_id: str,
        loader: NeighbourLoader,
        *,
        subtitle: str = "",
        locate: Callable[[str], Any] | None = None,
        open_source: Callable[[str], Any] | None = None,
        cited: bool = True,
    ) -> None:
        """``locate(chunk_id)`` says where the chunk starts in its file (shown under the title, read in the
        loading worker); ``open_source(chunk_id)`` opens it there (o); ``cited``: the answers cite it (else it
        was only retrieved)."""
        super().__init__(classes="haiku-modal")
        self.title_text = title
        self.chunk_id = chunk_id
        self.loader = loader
        self.subtitle = subtitle
        self.locate = locate
        self.opener = open_source
        self.what = "cited chunk" if cited else "retrieved chunk"
        self.chunks: list[ChunkText] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-body chunk-modal") as body:
            body.border_title = "Source"
            body.border_subtitle = "Esc close · ↑↓ scroll · y copy · o open source"
            yield Static(Content.styled(clean_line(self.title_text, 200), "bold"), classes="modal-title")
            if self.subtitle:
                yield Static(Content.styled(clean_line(self.subtitle, 200), "$text-muted"))
            yield Static("", id="chunk-location")
            yield ChunkView(classes="chunk-view")

    def on_mount(self) -> None:
        self.query_one(ChunkView).focus()
        self.load()

    @work(thread=True, exclusive=True, group="chunk")
    def load(self) -> None:
        try:
            chunks = list(self.loader(self.chunk_id))
        except Exception as exc:  # the viewer must never take the app down
            chunks = [ChunkText(self.chunk_id, "could not load the chunk", f"{type(exc).__name__}: {exc}")]
        where = None
        if self.locate is not None:
            try:
                where = self.locate(self.chunk_id)
            except Exception:  # the chunk still shows; only its place is unknown
                where = None
        self.app.call_from_thread(self._show, chunks, where)

    async def _show(self, chunks: list[ChunkText], where: Any = None) -> None:
        from haiku_tui.tui.main.daily import location_text

        self.chunks = chunks
        if where is not None:
            place = location_text(where) + ("" if where.exists else "  (not on this computer)")
            self.query_one("#chunk-location", Static).update(Content.styled(clean_line(place, 300), "$text-muted"))
        await self.query_one(ChunkView).show(chunks, self.chunk_id, self.what)

    def action_copy(self) -> None:
        """Copy the chunk's text (OSC 52) and say so."""
        chunk = next((c for c in self.chunks if c.chunk_id == self.chunk_id), None)
        if chunk is None:
            self.app.notify("The chunk has not loaded yet.", severity="warning")
            return
        text = f"{chunk.label}\n\n{chunk.text.strip()}\n"
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied the chunk ({len(text)} characters).", title="Clipboard")

    def action_open_source(self) -> None:
        if self.opener is None:
            self.app.notify("This chunk's source cannot be opened from here.", severity="warning")
            return
        self.opener(self.chunk_id)

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)


MARK_TEXT = {
    mark: (f"{symbol} {mark.replace('_', ' ')}", f"bold {style}") for mark, (symbol, style) in MARK_SYMBOLS.items()
}


class ReviewScreen(ModalScreen[None]):
    """Step through an answer's citations; mark each source supports / does not support / unsure."""

    BINDINGS = [
        Binding("s", "mark('supports')", "Supports", id="review.supports"),
        Binding("x", "mark('does_not_support')", "Does not support", id="review.does-not-support"),
        Binding("u", "mark('unsure')", "Unsure", id="review.unsure"),
        Binding("backspace,0", "mark('')", "Clear mark", id="review.clear"),
        Binding("n,right,tab", "step(1)", "Next citation", id="review.next"),
        Binding("p,left,shift+tab", "step(-1)", "Previous citation", id="review.previous"),
        Binding("escape,q", "dismiss", "Done", id="review.close"),
    ]

    def __init__(
        self,
        *,
        question_number: int,
        prompt: str,
        items: Sequence[ReviewItem],
        marks: dict[str, str],
        loader: NeighbourLoader,
        on_mark: Callable[[str, str | None], None],
        start: int = 0,
        support: Sequence[ClaimSupport] = (),
    ) -> None:
        super().__init__(classes="haiku-modal")
        self.question_number = question_number
        self.prompt = prompt
        self.items = list(items)
        self.marks = dict(marks)
        self.loader = loader
        self.on_mark = on_mark
        self.index = max(0, min(start, len(self.items) - 1))
        self.support = list(support)

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-body review-modal") as body:
            body.border_title = f"Review Q{self.question_number}"
            body.border_subtitle = "s supports · x does not · u unsure · 0 clear · n/p next/prev · Esc done"
            yield Static(
                Content.assemble(("❯ ", "$accent"), (clean_line(self.prompt, 200), "bold")), classes="modal-title"
            )
            yield Static(id="review-status")
            yield ChunkView(classes="chunk-view")

    def on_mount(self) -> None:
        self.query_one(ChunkView).focus()
        self._refresh()

    @property
    def current(self) -> ReviewItem:
        return self.items[self.index]

    def _status(self) -> Content:
        item = self.current
        mark = self.marks.get(item.chunk_id)
        text, style = MARK_TEXT.get(mark or "", ("not reviewed yet", "italic $text-muted"))
        summary = " ".join(
            f"[{i.number}]{MARK_TEXT[self.marks[i.chunk_id]][0][0] if i.chunk_id in self.marks else '·'}"
            for i in self.items
        )
        return Content.assemble(
            (f"Citation [{item.number}] ", "bold $accent"),
            (f"({self.index + 1} of {len(self.items)})  ", "$text-muted"),
            (clean_line(item.label, 120), "bold"),
            "\nmark: ",
            (text, style),
            ("   all: " + summary, "$text-muted"),
            *self._support(item.number),
        )

    def _support(self, number: int) -> list[Any]:
        """The automatic check beside the human mark: each claim citing ``number``, its score, weak or not."""
        rows: list[Any] = []
        for claim in (c for c in self.support if c.number == number):
            verdict = ("⚠ weak support", "bold $warning") if claim.weak else ("✓ supported", "$success")
            if claim.by == "haiku-tui":
                verdict = ("✓ attributed by haiku-tui (the answer wrote no marker)", "$accent")
            rows += [
                "\nsupport ",
                (f"{claim.score:.2f} ", "bold"),
                verdict,
                (f"  “{clean_line(claim.sentence, 140)}”", "italic $text-muted"),
            ]
        return rows

    def _refresh(self) -> None:
        self.query_one("#review-status", Static).update(self._status())
        self.load(self.current.chunk_id)

    @work(thread=True, exclusive=True, group="review")
    def load(self, chunk_id: str) -> None:
        try:
            chunks = list(self.loader(chunk_id))
        except Exception as exc:
            chunks = [ChunkText(chunk_id, "could not load the chunk", f"{type(exc).__name__}: {exc}")]
        self.app.call_from_thread(self._show, chunks, chunk_id)

    async def _show(self, chunks: list[ChunkText], chunk_id: str) -> None:
        if chunk_id == self.current.chunk_id:
            await self.query_one(ChunkView).show(chunks, chunk_id)

    def action_mark(self, mark: str) -> None:
        """Mark the current citation (an empty mark clears it); saved with the session at once."""
        item = self.current
        if mark:
            self.marks[item.chunk_id] = mark
        else:
            self.marks.pop(item.chunk_id, None)
        self.on_mark(item.chunk_id, mark or None)
        self.query_one("#review-status", Static).update(self._status())

    def action_step(self, step: int) -> None:
        if len(self.items) > 1:
            self.index = (self.index + step) % len(self.items)
            self._refresh()

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)
