"""After each commit the workbench rebuilds only the question views the commit can change; the result is
exactly the full rebuild (every question's view), through citations of older chunks, unbacked markers a
later citation backs, review marks, a cancelled run, a policy violation and compaction's receipts."""

from __future__ import annotations

import json
import re

from pydantic_ai.messages import ModelRequest, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

from haiku_tui.agent import AgentConfig
from haiku_tui.capabilities import views as views_module
from haiku_tui.sessions.view import conversation_view
from haiku_tui.sessions.workbench import Workbench
from tests.sessions.helpers import CHUNKS, REDIRECT, FakeKB

SOLAR, CLEANING, STARTER, BAKING = (c.chunk_id for c in CHUNKS)


def scripted() -> FunctionModel:
    """Prompts say what to do: ``search <words> | cite <ids or 'top' or 'none'> | say <extra text>``; a prompt
    without ``cite`` answers undeclared and ignores the policy's redirect (a violation)."""

    def respond(messages, info) -> list:
        last = next(m for m in reversed(messages) if isinstance(m, ModelRequest))
        prompt = next(
            p.content for m in reversed(messages) if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and REDIRECT not in str(p.content)
        )
        plan = dict(part.strip().split(" ", 1) for part in prompt.split("|"))
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            if any(REDIRECT in str(p.content) for p in last.parts if isinstance(p, UserPromptPart)):
                return [TextPart("Still undeclared.")]
            return [ToolCallPart("rag_search", {"query": plan["search"]})]
        if returns[-1].tool_name == "rag_search":
            if "cite" not in plan:
                return [TextPart(f"Undeclared answer. {plan.get('say', '')}")]
            ids = re.findall(r"^\[([0-9a-f]{16})\]", str(returns[-1].content), re.MULTILINE)
            wanted = {"top": ids[:1], "none": []}.get(plan["cite"], plan["cite"].split())
            return [ToolCallPart("rag_cite", {"chunk_ids": wanted})]
        numbers = "".join(f"[{n}]" for n in re.findall(r"\[(\d+)\]", str(returns[-1].content)))
        return [TextPart(f"An answer about {plan['search']} {numbers}. {plan.get('say', '')}".strip())]

    async def stream(messages, info):
        for part in respond(messages, info):
            if isinstance(part, TextPart):
                yield part.content
            else:
                yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args))}

    return FunctionModel(stream_function=stream, model_name="scripted")


def assert_same_as_full_rebuild(wb: Workbench) -> None:
    full, _ = conversation_view(
        wb.session, compaction=wb.config.compaction, window=wb.history_window, retained=wb.retained_chars
    )
    assert wb.view.questions == full.questions
    assert (wb.view.citations, wb.view.reviews, wb.view.tokens, wb.view.request_size, wb.view.kept) == (
        full.citations, full.reviews, full.tokens, full.request_size, full.kept,
    )


async def answer(wb: Workbench, prompt: str, *, cancel: bool = False) -> str:
    run = wb.ask(prompt)
    if cancel:
        run.cancel()
    outcome = [event async for event in run][-1].outcome
    if outcome == "completed":
        wb.refresh()  # what the screen does after each commit
    return outcome


async def test_views_updated_per_commit_equal_the_full_rebuild(store, monkeypatch):
    built: list[int] = []
    full_build = views_module.question_views

    def counting(*args, **kwargs):
        views = full_build(*args, **kwargs)
        built.append(len(views))
        return views

    wb = Workbench(AgentConfig(model="scripted", db="/data/kb", defer_loading=False), store=store, kb=FakeKB(),
                   model=scripted())
    wb.start(None)
    assert wb.build_agent() is None
    script = [
        "search solar panels efficiency | cite top | say See also [3].",  # [3]: no such citation yet
        "search sourdough starter flour bake | cite none",  # retrieves the starter and baking chunks, cites nothing
        f"search bake sourdough starter | cite {BAKING} {STARTER}",  # older hits cited; [3] now backs question 1
        f"search clean solar panels | cite {CLEANING}",
        "search solar | say nothing declared",  # a policy violation
        f"search solar panels water | cite {SOLAR}",  # re-cites [1]: retained for every older question now
    ]
    rebuilt: list[int] = []  # views built per commit
    for number, prompt in enumerate(script):
        if number == 2:
            assert await answer(wb, "search anything | cite top", cancel=True) == "cancelled"
            assert_same_as_full_rebuild(wb)
        if number == 3:
            first = wb.view.questions[0]
            wb.set_review(first.question, SOLAR, "supports")
        monkeypatch.setattr(views_module, "question_views", counting)
        built.clear()
        assert await answer(wb, prompt) == "completed"
        monkeypatch.setattr(views_module, "question_views", full_build)
        assert_same_as_full_rebuild(wb)
        rebuilt.append(built[0])
        if number == 1:  # the first question's uncited hit is a compaction receipt, its cited one retained
            assert [i.status for i in wb.view.questions[0].items] == ["retained", "receipted"]
    # question 3 cited [2] [3]: rebuilt are questions 2 (previous latest) and 3, and 1 (its [3] is now backed);
    # the violation cited nothing new: questions 4 and 5, and 1 (its hit question 4 cited is now "retained")
    assert rebuilt[2] == 3 and rebuilt[4] == 3 and rebuilt[0] == 1
    questions = wb.view.questions
    assert [v.citations for v in questions] == [(1,), (), (2, 3), (4,), (), (1,)]
    assert questions[0].support[-1].chunk_id == STARTER  # the unbacked [3] of question 1 is now backed
    assert questions[1].items[0].citation is not None and questions[1].items[0].status == "retained"
    assert questions[4].policy.outcome == "violation"
    assert wb.view.reviews == {questions[0].question: {SOLAR: "supports"}}


async def test_a_bound_on_the_capsule_marks_older_cited_items_as_receipts_and_commits_match_the_full_rebuild(store):
    """With ``retained_chars`` room for one chunk, the evidence pane marks "retained" only what the next
    request carries in full: a newer citation turns an older question's cited item into a receipt."""
    wb = Workbench(AgentConfig(model="scripted", db="/data/kb", defer_loading=False), store=store, kb=FakeKB(),
                   model=scripted())
    wb.start(None)
    assert wb.build_agent() is None
    wb.retained_chars = 80  # the solar chunk (78 characters) fits; with the cleaning one (48) it does not
    for prompt in (f"search solar panels efficiency | cite {SOLAR}", f"search clean solar panels | cite {CLEANING}"):
        assert await answer(wb, prompt) == "completed"
        assert_same_as_full_rebuild(wb)
    first = {i.chunk_id: i.status for i in wb.view.questions[0].items}
    assert first[SOLAR] == "retained"  # the second question's requests carried it in full
    assert await answer(wb, "search sourdough | cite none") == "completed"
    assert_same_as_full_rebuild(wb)
    first = {i.chunk_id: i.status for i in wb.view.questions[0].items}
    second = {i.chunk_id: i.status for i in wb.view.questions[1].items}
    assert (first[SOLAR], second[CLEANING]) == ("receipted", "retained")  # the newer citation took the room
    assert wb.view.kept == {CLEANING}
