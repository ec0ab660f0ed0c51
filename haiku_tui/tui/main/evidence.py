"""The live evidence pane and the policy log, drawn from ``question_views``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from haiku_tui.store.records import page_range
from haiku_tui.tui.main.typing import TypesIntoPrompt
from haiku_tui.tui.text import clean_line
from haiku_tui.tui.textual_private import drop_last_option

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import EvidenceItem, Program, QuestionView

STATUS_STYLE = {
    "current": ("current", "$text-muted", ""),
    "cited": ("cited", "bold $text 100% on $success 60%", "$success"),
    "retained": ("retained", "bold $text on $primary 70%", "$primary"),
    "receipted": ("receipt", "italic $text-muted", "$text-muted"),
}
STATUS_HELP = {
    "cited": "cited by this question's answer",
    "retained": "cited earlier: later requests still carry it in full",
    "receipted": "earlier and uncited: later requests carry only a receipt",
    "current": "retrieved for this question, not cited",
}
"""What each status means (F1 help of the evidence pane)."""
SNIPPET_CHARS = 180
PROGRAM_LINES = 4
WINDOW = 12
"""Questions the evidence pane lists at first (newest first); scrolling near the end lists the next ones."""


def item_id(question: int, chunk_id: str) -> str:
    return f"{question}:{chunk_id}"


def item_prompt(item: EvidenceItem, mark: str | None = None, *, weak: bool = False) -> Content:
    """One evidence row: ``[n] #rank score  Title › Heading  status`` then the snippet; ``weak``: a claim
    citing it scored under the support threshold."""
    tag, tag_style, accent = STATUS_STYLE[item.status]
    dim = item.status == "receipted"
    head: list[Any] = []
    if item.citation is not None:
        head.append((f"[{item.citation}] ", f"bold {accent or '$text'}"))
    head.append((f"#{item.rank} ", "bold"))
    head.append((f"{item.score:.3f}  ", "$text-muted"))
    label = clean_line(item.label, 120)
    if item.pages:
        label += f" ({page_range(item.pages)})"
    head.append((label, "italic $text-muted" if dim else "bold"))
    head.append("  ")
    head.append((f" {tag} ", tag_style))
    if item.attributed:
        head.append((" attributed by haiku-tui", "italic $accent"))
    if mark:
        from haiku_tui.tui.main.turn import MARK_SYMBOLS

        symbol, style = MARK_SYMBOLS.get(mark, ("", ""))
        head.append((f" {symbol} {mark.replace('_', ' ')}", f"bold {style}"))
    if weak:
        head.append((" ⚠ weak support", "bold $warning"))
    snippet = clean_line(item.snippet, SNIPPET_CHARS)
    return Content.assemble(*head, "\n", ("  " + snippet, "$text-muted" if dim else ""))


def query_prompt(query: str, prompt: str) -> Content:
    """The ``⌕ “query”`` row above the items one search found."""
    from haiku_tui.capabilities.views import query_shown  # not at start-up: the views module loads Pydantic AI

    shown, combined = query_shown(query, prompt)
    return Content.assemble(
        ("⌕ ", "$accent"),
        (f"“{clean_line(shown, 100)}”", "italic $text-muted"),
        ("  · searched with the question before" if combined else "", "$text-muted"),
    )


def program_prompt(program: Program) -> Content:
    """One program the analysis capability ran: its code, then what it printed or its error."""
    code = "\n".join("  " + clean_line(line, 100) for line in program.code.strip().splitlines()[:PROGRAM_LINES])
    result = program.stdout.strip() if program.success else program.error.strip()
    return Content.assemble(
        ("▶ program ", "bold $accent"),
        ("ran" if program.success else "failed", "$success" if program.success else "$error"),
        "\n",
        (code, "$text-muted"),
        "\n",
        ("  → " + clean_line(result or "no output", SNIPPET_CHARS), "" if program.success else "$error"),
    )


def question_header(view: QuestionView, shown: int) -> Content:
    retrieved = len(view.items)
    cited = len(view.citations)
    return Content.assemble(
        (f"Q{view.number} ", "bold $accent"),
        ("❯ ", "$accent"),
        (clean_line(view.prompt, 90), "bold"),
        (f"  {retrieved} retrieved · {cited} cited", "$text-muted"),
        ("" if shown == retrieved else f" · {shown} shown", "$text-muted"),
    )


class EvidencePane(TypesIntoPrompt, OptionList):
    """Every retrieved chunk, grouped by question (newest first), with its status."""

    HELP_TITLE = "Live evidence"
    ALLOW_MAXIMIZE = True

    BINDINGS = [
        Binding("c", "toggle_cited", "All / cited only", id="evidence.toggle-cited"),
        Binding("enter", "select", "Open chunk", id="evidence.open"),
        Binding("r", "screen.review", "Review citations", id="evidence.review", show=False),
    ]

    cited_only: reactive[bool] = reactive(False, init=False)

    class OpenChunk(Message):
        def __init__(self, item: EvidenceItem, question: int) -> None:
            super().__init__()
            self.item = item
            self.question = question

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: dict[str, tuple[int, EvidenceItem]] = {}
        self._views: Sequence[QuestionView] = ()
        self._reviews: Mapping[int, Mapping[str, str]] = {}
        self._listed = 0
        """How many of the newest questions are listed."""

    def on_mount(self) -> None:
        self._update_title()
        self.show_views((), {})

    def _update_title(self) -> None:
        self.border_title = "Live evidence · " + ("cited only" if self.cited_only else "all")
        self.border_subtitle = "c all/cited · ⏎ open"

    def watch_cited_only(self) -> None:
        self._update_title()
        self.show_views(self._views, self._reviews)

    def action_toggle_cited(self) -> None:
        """Show every retrieved chunk or only the cited ones."""
        self.cited_only = not self.cited_only

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """F1 help: this pane's keys and what each status means."""
        from haiku_tui.tui.help import binding_rows

        statuses = [(STATUS_STYLE[status][0], text) for status, text in STATUS_HELP.items()]
        return [
            ("Evidence pane", [("↑ ↓", "Move between chunks"), *binding_rows(EvidencePane)]),
            ("Statuses", statuses),
        ]

    def show_views(self, views: Sequence[QuestionView], reviews: Mapping[int, Mapping[str, str]] | None = None) -> None:
        """Redraw from views (oldest first, as ``question_views`` returns them); keeps the highlight.

        Only the newest questions (``WINDOW``, or as many as were listed already) are drawn, so a
        step or a commit costs the same in a long session as in a short one."""
        same_questions = len(views) == len(self._views) and (
            not views or views[-1].question == self._views[-1].question
        )
        self._views = tuple(views)
        self._reviews = reviews or {}
        keep = None
        if same_questions and self.highlighted is not None and self.option_count:
            keep = self.get_option_at_index(self.highlighted).id
        else:
            self._listed = 0
        self.items = {}
        self._listed = min(len(self._views), max(WINDOW, self._listed))
        options: list[Option | None] = []
        for view in self._newest(0, self._listed):
            self._question_options(view, options)
        if not options:
            options.append(
                Option(
                    Content.styled(
                        "No evidence yet. Chunks the agent retrieves appear here as it searches.",
                        "italic $text-muted",
                    ),
                    disabled=True,
                )
            )
        self.set_options(options)
        if keep and keep in self.items:
            self.highlighted = self.get_option_index(keep)
        elif self.items:  # a new question: its first chunk, with the question header in view
            self.highlighted = self.get_option_index(next(iter(self.items)))
            self.scroll_home(animate=False)

    def _newest(self, start: int, stop: int) -> list[QuestionView]:
        """Views ``start``..``stop`` counted from the newest."""
        count = len(self._views)
        return [self._views[count - 1 - i] for i in range(start, min(stop, count))]

    def _question_options(self, view: QuestionView, options: list[Option | None]) -> None:
        """Append one question's rows (header, programs, queries and items) to ``options``."""
        shown = [i for i in view.items if not self.cited_only or i.citation in view.citations]
        if options:
            options.append(None)
        options.append(Option(question_header(view, len(shown)), id=f"q{view.question}", disabled=True))
        options.extend(Option(program_prompt(program), disabled=True) for program in view.programs)
        marks = self._reviews.get(view.question, {})
        weak = view.weak()
        query = None
        for item in shown:
            if item.query != query:
                query = item.query
                options.append(Option(query_prompt(query, view.prompt), disabled=True))
            oid = item_id(view.question, item.chunk_id)
            if oid in self.items:
                continue
            self.items[oid] = (view.question, item)
            options.append(Option(item_prompt(item, marks.get(item.chunk_id), weak=item.citation in weak), id=oid))
        if not shown:
            note = "nothing cited" if self.cited_only and view.items else "nothing retrieved"
            options.append(Option(Content.styled(f"  {note}", "italic $text-muted"), disabled=True))

    def list_more(self, questions: int = WINDOW) -> bool:
        """List the next ``questions`` older questions below the ones shown (appending costs only those)."""
        if self._listed >= len(self._views):
            return False
        options: list[Option | None] = [None]
        for view in self._newest(self._listed, self._listed + questions):
            self._question_options(view, options)
        self._listed = min(len(self._views), self._listed + questions)
        self.add_options(options)
        return True

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new + 2 * self.size.height >= self.virtual_size.height and self._listed < len(self._views):
            self.call_after_refresh(self.list_more)

    def _list_until(self, found: Any) -> bool:
        """List older questions until ``found()`` is true or every question is listed."""
        while not found():
            if not self.list_more():
                return False
        return True

    def focus_item(self, question: int, chunk_id: str) -> bool:
        """Highlight (and scroll to) one item; falls back to the newest row of that chunk."""
        oid = item_id(question, chunk_id)
        age = next((n for n, view in enumerate(reversed(self._views)) if view.question == question), -1)
        self._list_until(lambda: self._listed > age)
        if oid not in self.items:
            if not self._list_until(lambda: any(i.chunk_id == chunk_id for _, i in self.items.values())):
                return False
            oid = next(k for k, (_, item) in self.items.items() if item.chunk_id == chunk_id)
        self.highlighted = self.get_option_index(oid)
        self.scroll_to_highlight(top=True)
        return True

    @property
    def highlighted_item(self) -> tuple[int, EvidenceItem] | None:
        if self.highlighted is None or not self.option_count:
            return None
        option = self.get_option_at_index(self.highlighted)
        return self.items.get(option.id or "")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        entry = self.items.get(event.option.id or "")
        if entry is not None:
            self.post_message(self.OpenChunk(entry[1], entry[0]))


OUTCOME_STYLE = {
    "not enforced": "$text-muted",
    "grounded": "bold $success",
    "ungrounded": "bold $warning",
    "missing": "bold $warning",
    "redirected": "bold $accent",
    "violation": "bold $error",
}


def policy_line(view: QuestionView) -> Content:
    """One line of the policy log."""
    policy = view.policy
    parts: list[Any] = [
        (f"Q{view.number} ", "bold $accent"),
        ("● enforced" if policy.enforced else "○ not enforced", "bold" if policy.enforced else "$text-muted"),
        (f" ({policy.reason})", "$text-muted"),
        "  redirect: ",
        ("asked", "bold $accent") if policy.redirect_asked else ("no", "$text-muted"),
        "  declared: ",
        (policy.declaration, OUTCOME_STYLE.get(policy.declaration, "")),
        "  outcome: ",
        (policy.outcome, OUTCOME_STYLE.get(policy.outcome, "")),
    ]
    if policy.violation:
        parts.append(("  ✗ VIOLATION: answered without declaring its grounding", "bold $error"))
    if policy.unbacked:
        parts.append((f"  ✗ {view.badge_note} (no cite call gave these numbers)", "bold $error"))
    weak = view.weak()
    if weak:
        parts.append(("  ⚠ weak support: " + " ".join(f"[{n}]" for n in sorted(weak)), "bold $warning"))
    if view.attributed:
        parts.append((f"  {view.attribution_note}", "italic $accent"))
    if view.unsupported:
        parts.append((f"  ⚠ {len(view.unsupported)} sentence(s) match no passage", "bold $warning"))
    if view.unconfirmed_note:
        parts.append((f"  ⚠ {view.unconfirmed_note}", "bold $warning"))
    if view.grounding_note:
        parts.append((f"  {view.grounding_note}", "italic $warning"))
    return Content.assemble(*parts)


class PolicyLog(TypesIntoPrompt, OptionList):
    """One line per question: enforced or not and why, redirect asked, declaration, outcome, violation."""

    HELP_TITLE = "Policy log"
    ALLOW_MAXIMIZE = True

    BINDINGS = [
        Binding("enter", "select", "Show that answer", id="policy.show"),
    ]

    class ShowQuestion(Message):
        def __init__(self, question: int) -> None:
            super().__init__()
            self.question = question

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """F1 help: this pane's keys."""
        from haiku_tui.tui.help import binding_rows

        return [("Policy log", [("↑ ↓", "Move between questions"), *binding_rows(PolicyLog)])]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._keys: list[tuple[int, str]] = []
        """(question, prompt) of each line shown."""
        self._last: Content | None = None

    def on_mount(self) -> None:
        self.border_title = "Policy log"
        self.show_views(())

    def show_views(self, views: Sequence[QuestionView]) -> None:
        """One line per question, oldest first, the newest highlighted. When the older questions are the
        ones listed already, only the newest line is drawn (a step or a commit costs one line, not the log)."""
        keys = [(v.question, v.prompt) for v in views]
        last = policy_line(views[-1]) if views else None
        shown = len(self._keys)
        if shown and len(keys) in (shown, shown + 1) and keys[:shown] == self._keys:
            if len(keys) == shown and last == self._last:
                return
            if len(keys) > shown:  # a new question: the one before it may have changed at its commit
                previous = policy_line(views[-2])
                if previous != self._last:
                    drop_last_option(self)
                    self.add_option(Option(previous, id=f"p{views[-2].question}"))
            else:
                drop_last_option(self)
            self.add_option(Option(last, id=f"p{views[-1].question}"))
        else:
            options = [Option(policy_line(v), id=f"p{v.question}") for v in views[:-1]]
            options += [Option(last, id=f"p{views[-1].question}")] if views else []
            self.set_options(
                options or [Option(Content.styled("No questions yet.", "italic $text-muted"), disabled=True)]
            )
        self._keys, self._last = keys, last
        if views:
            self.highlighted = len(views) - 1
            self.scroll_to_highlight()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        oid = event.option.id or ""
        if oid.startswith("p"):
            self.post_message(self.ShowQuestion(int(oid[1:])))
