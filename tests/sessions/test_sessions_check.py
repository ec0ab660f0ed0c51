"""``haiku-tui sessions check ID``: weak claims one line each (question, [n], score, sentence), or JSON."""

from __future__ import annotations

import json

from pydantic_ai import Conversation
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.support import support_lines
from haiku_tui.capabilities.views import question_views

SOLAR = (
    "Solar panels keep producing electricity in winter because they need light, not heat; cold panels are more "
    "efficient."
)
TEA = "Green tea should steep for two to three minutes in water around eighty degrees, or it turns bitter."
ANSWER = (
    "Solar panels keep producing electricity in winter, since they need light rather than heat [1]. "
    "Green tea turns bitter when steeped too long in hot water [2]. "
    "Bicycles need their chains oiled every month [5]."
)


def state(unbacked: list[int]) -> dict:
    """One question that cited [1] (the right chunk) and [2] (swapped to the wrong one); [5] unbacked."""
    namespace = ledger.new_namespace()
    record = ledger.begin_question(namespace, 0, "winter panels and tea?")
    ledger.declare(record, ["c1", "c2"], 1)
    namespace["in_progress"] = False
    for number, (chunk_id, text) in enumerate([("c1", SOLAR), ("c2", SOLAR), ("c3", TEA)], start=1):
        namespace["citation_index"][chunk_id] = {"index": number, "chunk_id": chunk_id, "text": text,
                                                 "title": "t", "headings": [], "pages": [], "path": "p"}
    return {"rag": namespace, ledger.POLICY_KEY: {"unbacked": {"0": unbacked}}}


def saved(store) -> str:
    session = store.new(model="extractive")
    session.commit_run(
        Conversation(
            messages=[
                ModelRequest(parts=[UserPromptPart("winter panels and tea?")], run_id="r"),
                ModelResponse(parts=[TextPart(ANSWER)], run_id="r"),
            ]
        ),
        state([5]),
    )
    return store.save(session).id


def cli(*argv: str) -> int:
    from haiku_tui.cli import main

    return main(["sessions", *argv])


def test_check_prints_the_swapped_and_the_unbacked_claims(store, capsys):
    session_id = saved(store)
    assert cli("--sessions-db", str(store.path), "check", session_id, "--lexical") == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2, out
    assert lines[0].startswith("Q1  [2]  0.") and "Green tea turns bitter" in lines[0]
    assert lines[1].startswith("Q1  [5]    —  ") and "Bicycles" in lines[1]
    assert "2 of 3 cited claim(s) weakly supported (lexical only)" in err


def test_check_json(store, capsys):
    session_id = saved(store)
    assert cli("--sessions-db", str(store.path), "check", session_id[:6], "--lexical", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checked"] == 3 and data["semantic"] is False
    assert [(r["number"], r["weak"], r["chunk_id"]) for r in data["weak"]] == [(2, True, "c2"), (5, True, None)]
    assert data["weak"][0]["score"] < 0.43


def test_check_unknown_session_is_one_line(store, capsys):
    assert cli("--sessions-db", str(store.path), "check", "nope") == 1
    err = capsys.readouterr().err
    assert err.startswith("haiku-tui: error:") and len(err.strip().splitlines()) == 1


def test_views_carry_unbacked_markers_and_export_lines():
    messages = [
        ModelRequest(parts=[UserPromptPart("winter panels and tea?")], run_id="r"),
        ModelResponse(parts=[TextPart(ANSWER)], run_id="r"),
    ]
    (view,) = question_views(state([5]), messages)
    assert view.policy.unbacked == (5,) and view.badge_note == "[5] unbacked"
    assert set(view.weak()) == {2}
    lines = support_lines(view.support)
    assert lines[0].startswith("**Claim support:** 2 of 3") and any("[5] no citation" in line for line in lines)
    (clean,) = question_views(state([]), messages[:1] + [ModelResponse(parts=[TextPart(ANSWER.split(" Green")[0])])])
    assert clean.badge_note == "" and support_lines(clean.support) == []


def test_ask_json_report_names_unbacked_markers_and_support():
    from haiku_tui.capabilities.report import answer_report

    messages = [
        ModelRequest(parts=[UserPromptPart("winter panels and tea?")], run_id="r"),
        ModelResponse(parts=[TextPart(ANSWER)], run_id="r"),
    ]
    data = answer_report(state([5]), messages, compaction=True, answer=ANSWER)
    assert data["unbacked"] == [5]
    assert [(s["number"], s["weak"]) for s in data["support"]] == [(1, False), (2, True), (5, True)]
    assert json.loads(json.dumps(data))["support"][0]["sentence"].startswith("Solar panels keep")
