"""Grounding in the main screen: the status bar fits 120 columns with tokens and the saving (every width:
``test_status``); an unbacked marker is in the badge and the policy log and is not a link; weak support is
marked on the cited item."""

from __future__ import annotations


from tests.tui.conftest import ask, make_app, settle

from haiku_tui.capabilities.wire import Tokens
from haiku_tui.tui.main.status import elide_middle
from haiku_tui.tui.text import tokens_text

TEA = "how long should green tea steep"
SOLAR = "how do solar panels work in winter"
LONG_DB = "/home/someone/projects/research/knowledge-bases/very-long-directory-name/more/small.lancedb"


def test_elide_middle_keeps_the_end_of_a_path():
    assert elide_middle("short", 10) == "short"
    cut = elide_middle(LONG_DB, 30)
    assert len(cut) == 30 and cut.endswith("small.lancedb") and "…" in cut
    assert elide_middle(LONG_DB, 17) == "/ho…small.lancedb"  # tight: the file name stays whole, the head gives way


def test_tokens_are_labelled_estimated_unless_reported():
    assert tokens_text(Tokens(1200, 80, estimated=True)) == "≈ 1.2k in / 80 out (estimated)"
    assert tokens_text(Tokens(1200, 80)) == "1.2k in / 80 out"
    assert tokens_text(Tokens(1200, 80, cached=900)) == "1.2k in (900 cached) / 80 out"


async def test_status_bar_fits_120_columns_with_tokens_and_saving(small_kb):
    app = make_app(small_kb, db=LONG_DB)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, SOLAR)
        await ask(pilot, TEA)
        status = app.main.query_one("#status")
        text = str(status.render())
        assert len(text) <= 118 and status.size.width <= 120  # the bar's padding takes 2
        assert "extractive (retrieval-only) │ request " in text and " chars (−" in text
        db = text.rsplit("│", 1)[-1]
        assert "session tokens ≈ " in text and db.endswith("/small.lancedb") and "…" in db  # the path gave way


async def test_unbacked_marker_in_badge_and_policy_log_not_a_link(small_kb):
    from pydantic_ai.messages import TextPart

    app = make_app(small_kb)
    async with app.run_test(size=(140, 40)) as pilot:
        await ask(pilot, SOLAR)
        # the answer says [7], which no cite call gave: record it as the policy does and redraw
        session = app.session
        response = session.messages[-1]
        response.parts = [TextPart("Panels need light [1], as [7] says.")]
        session.state.setdefault("citation_policy", {}).setdefault("unbacked", {})["0"] = [7]
        app.workbench.refresh()
        app.main.refresh_panes()
        turn = app.main.turn_log.turns[0]
        await turn.show_view(app.workbench.view.questions[0], app.workbench.view.citation_ids)
        await settle(pilot)
        footer = str(turn.query_one(".turn-footer").render())
        assert "✓ grounded" in footer and "[7] unbacked" in footer
        assert "(cite:1)" in turn.answer.source and "(cite:7)" not in turn.answer.source
        policy = str(app.main.policy_log.get_option_at_index(0).prompt)
        assert "[7] unbacked" in policy
