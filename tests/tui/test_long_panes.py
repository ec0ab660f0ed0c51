"""The evidence pane and the policy log over a 1000-question session: windowed, incremental, nothing dropped."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult
from textual.containers import Vertical

from haiku_tui.capabilities.views import EvidenceItem, PolicyView, QuestionView
from haiku_tui.tui.main.evidence import WINDOW, EvidencePane, PolicyLog


def view(n: int) -> QuestionView:
    item = EvidenceItem(f"c{n}", "search", f"query {n}", 1, 0.5, f"Doc {n}", (), (), "doc.md", "text", "cited", n + 1)
    policy = PolicyView(True, "kb", False, "grounded", False, "grounded")
    return QuestionView(n, n + 1, f"question {n}", "answer", (), (item,), (n + 1,), policy, n == 999)


class Panes(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield EvidencePane(id="evidence")
            yield PolicyLog(id="policy")


async def test_long_session_panes_window_and_update_one_question() -> None:
    views = [view(n) for n in range(1000)]
    app = Panes()
    async with app.run_test(size=(100, 40)) as pilot:
        evidence, policy = app.query_one(EvidencePane), app.query_one(PolicyLog)
        evidence.show_views(views, {})
        policy.show_views(views)
        await pilot.pause()
        assert len(evidence.items) == WINDOW  # newest first, the rest listed on demand
        assert evidence.highlighted_item is not None and evidence.highlighted_item[0] == 999
        assert policy.option_count == 1000 and policy.highlighted == 999
        # a citation in the first question lists older questions until it is there
        assert evidence.focus_item(0, "c0")
        assert len(evidence.items) == 1000 and evidence.highlighted_item[0] == 0
        # a commit adds one question: one more policy line, the evidence pane back to its window
        views.append(view(1000))
        evidence.show_views(views, {})
        policy.show_views(views)
        await pilot.pause()
        assert len(evidence.items) == WINDOW and evidence.highlighted_item[0] == 1000
        assert policy.option_count == 1001 and policy.get_option_at_index(1000).id == "p1000"
        # a changed newest line replaces only that line; a different session redraws the log
        violation = PolicyView(True, "kb", False, "missing", True, "violation")
        policy.show_views(views[:-1] + [replace(views[-1], policy=violation)])
        assert policy.option_count == 1001 and "VIOLATION" in str(policy.get_option_at_index(1000).prompt)
        policy.show_views(views[:3])
        assert policy.option_count == 3
        # scrolling near the end lists the next questions
        evidence.scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert len(evidence.items) > WINDOW
