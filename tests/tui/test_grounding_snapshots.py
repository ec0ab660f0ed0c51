"""SVG snapshots of the grounding screens: the wire inspector, the review screen with support scores, and
an answer whose badge names an unbacked marker. Regenerate with ``--snapshot-update`` and look at them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from tests.kb_fixture import build_small_kb
from tests.capabilities.scripts import Script, cite_top, load, search, text
from tests.tui.conftest import ask, make_app, settle
from tests.tui.test_main_snapshots import SOLAR, TEA, snap


@pytest.fixture(scope="module")
def fixed_kb():
    """The small knowledge base at a fixed path: chunk ids (shown in the inspector) derive from it."""
    root = Path(tempfile.gettempdir()) / "haiku-tui-wire-snapshot"
    shutil.rmtree(root, ignore_errors=True)
    kb = build_small_kb(root / "small.lancedb")
    yield kb
    kb.close()
    shutil.rmtree(root, ignore_errors=True)


def test_wire_inspector(snap_compare, fixed_kb):
    """The wire inspector on Q2 of two questions: the title "Wire inspector · Q2" with the question,
    a bar per question (Q1 all █, Q2 █ then ░ for what compaction saved, with "sent / full chars"),
    then Request 1–3, the last one selected (▶): each with chars, "…k repeat the request before" (what a prompt
    cache can serve), "(… without compaction)" and "≈ … in / … out (estimated) tokens"; under each the labelled parts
    (evidence retained: Q1's cited search result as it was sent, instructions, prompt, tool call, evidence current,
    tool result) with sizes, and a collapsed "unchanged history: N part(s)" fold."""
    script = Script(load(), search("solar panels winter"), cite_top(), text("Panels need light [1]."))
    script.extend(search("green tea steep"), cite_top(), text("Steep it three minutes [2]."))

    async def run(pilot):
        await ask(pilot, SOLAR)
        await ask(pilot, TEA)
        pilot.app.main.turn_log.focus_selected()
        await pilot.press("w")
        await settle(pilot)

    assert snap(snap_compare, make_app(fixed_kb, model=script.model), run, size=(140, 50))


def test_review_with_support_scores(snap_compare, small_kb):
    """The review screen of an answer citing [1]: "Citation [1] (1 of 1)", the mark line "not reviewed
    yet", then a "support 0.xx ✓ supported" (or "⚠ weak support") line with the claim's sentence,
    above the cited chunk among its neighbours."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        pilot.app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)

    assert snap(snap_compare, make_app(small_kb), run)


def test_badge_with_unbacked_marker(snap_compare, small_kb):
    """An answer that says [7] with no citation behind it: the footer reads "✓ grounded" then a red
    "[7] unbacked"; [7] in the answer is plain text (no link) while [1] is a link; the policy log line
    ends "✗ [7] unbacked (no cite call gave these numbers)"."""
    from pydantic_ai.messages import TextPart

    async def run(pilot):
        app = pilot.app
        await ask(pilot, SOLAR)
        session = app.session
        session.messages[-1].parts = [TextPart("Panels need light [1], as [7] says.")]
        session.state.setdefault("citation_policy", {}).setdefault("unbacked", {})["0"] = [7]
        app.workbench.refresh()
        app.main.refresh_panes()
        turn = app.main.turn_log.turns[0]
        await turn.show_view(app.workbench.view.questions[0], app.workbench.view.citation_ids)

    assert snap(snap_compare, make_app(small_kb), run)
