"""The workbench and the run loop, without Textual: what the screens and ``ask`` rely on."""

from __future__ import annotations

import json

import pytest
from pydantic_ai.messages import TextPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

from haiku_tui.agent import AgentConfig
from haiku_tui.sessions.run import Finished, StepFinished, StepStarted, TextStarted
from haiku_tui.sessions.workbench import Workbench
from tests.sessions.helpers import CHUNKS, FakeKB, Researcher


def streamed(researcher: Researcher) -> FunctionModel:
    """The scripted Researcher as a streaming model (the run loop streams)."""
    from itertools import count

    ids = count(1)

    async def stream(messages, info):
        for part in researcher(messages, info).parts:
            if isinstance(part, TextPart):
                yield part.content
            else:
                yield {
                    0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args), tool_call_id=f"c{next(ids)}")
                }

    return FunctionModel(stream_function=stream, model_name="researcher")


class FilterKB(FakeKB):
    def filter_document_ids(self, predicate: str) -> list[str]:
        if "bogus" in predicate:
            raise ValueError("no such column: bogus\nat line 1")
        return ["doc-sola"]


def bench(store, model=None, kb=None) -> Workbench:
    wb = Workbench(
        AgentConfig(model="scripted", db="/data/kb", defer_loading=False),
        store=store,
        kb=kb or FilterKB(),
        model=model or streamed(Researcher()),
    )
    wb.start(None)
    assert wb.build_agent() is None
    return wb


async def events(run) -> list:
    return [event async for event in run]


async def test_a_question_runs_commits_saves_and_records_model_and_kb(store):
    wb = bench(store)
    run = wb.ask("How efficient are solar panels?")
    seen = await events(run)
    kinds = [type(e) for e in seen]
    assert kinds[-1] is Finished and seen[-1].outcome == "completed"
    assert StepStarted in kinds and StepFinished in kinds and TextStarted in kinds
    steps = [e.step.text for e in seen if isinstance(e, StepFinished)]
    assert steps[0].startswith("searched “How efficient") and steps[0].endswith("→ 2 result(s)")
    assert "cited [1]" in steps
    saved = store.load(wb.session.id)
    assert len(saved.messages) == len(wb.session.messages) > 0
    assert (saved.model, saved.db) == ("scripted", "/data/kb")
    # the view is computed once, on refresh after the commit
    assert wb.view.questions == ()
    wb.refresh()
    assert [q.citations for q in wb.view.questions] == [(1,)]
    assert wb.view.citation_ids == {1: CHUNKS[0].chunk_id}
    assert wb.view.label(CHUNKS[0].chunk_id) == "Solar Guide › Panels › Efficiency"
    assert wb.view.request_size is not None


async def test_cancel_and_failure_commit_nothing(store):
    wb = bench(store)
    run = wb.ask("How efficient are solar panels?")
    run.cancel()
    seen = await events(run)
    assert seen == [Finished("cancelled")]
    assert wb.session.messages == [] and wb.session.state == {}

    async def broken(messages, info):
        raise RuntimeError("the model server went away")
        yield ""  # pragma: no cover

    wb = bench(store, model=FunctionModel(stream_function=broken))
    seen = await events(wb.ask("anything"))
    assert seen[-1].outcome == "failed" and "went away" in seen[-1].error
    assert wb.session.messages == [] and store.list() == []


async def test_review_items_marks_and_neighbours(store):
    wb = bench(store)
    await events(wb.ask("How efficient are solar panels?"))
    wb.refresh()
    question = wb.view.questions[0].question
    items = wb.review_items(question)
    assert [(i.number, i.chunk_id) for i in items] == [(1, CHUNKS[0].chunk_id)]
    wb.set_review(question, CHUNKS[0].chunk_id, "supports")
    assert wb.save("the review mark") is None
    assert wb.view.reviews == {question: {CHUNKS[0].chunk_id: "supports"}}
    assert store.load(wb.session.id).app_data["reviews"] == {str(question): {CHUNKS[0].chunk_id: "supports"}}
    # FakeKB has no neighbours(): the copy stored with the citation is shown
    [chunk] = wb.neighbours(CHUNKS[0].chunk_id)
    assert chunk.label.endswith("(stored copy)") and chunk.text == CHUNKS[0].text
    assert wb.neighbours("ffffffffffffffff") == []


async def test_malformed_review_marks_are_ignored_with_a_notice(store):
    wb = bench(store)
    await events(wb.ask("How efficient are solar panels?"))
    wb.session.app_data["reviews"] = {"0": "zz", "x": {}, "2": {"abc": "great"}}
    store.save(wb.session)
    again = Workbench(AgentConfig(model="scripted"), store=store, kb=FakeKB())
    notice = again.start(wb.session.id)
    assert again.session.id == wb.session.id
    assert notice == "3 malformed review mark(s) in this session were ignored"
    assert again.view.reviews == {}
    again.set_review(0, CHUNKS[0].chunk_id, "unsure")  # a mark can be set over the malformed entry
    assert again.view.reviews == {0: {CHUNKS[0].chunk_id: "unsure"}}


async def test_filter_is_checked_applied_and_saved(store):
    wb = bench(store)
    with pytest.raises(ValueError, match="^no such column: bogus at line 1$"):
        wb.set_filter("bogus = 1")
    assert wb.session.document_filter is None
    await events(wb.ask("How efficient are solar panels?"))
    assert wb.set_filter("path LIKE '%solar%'") == (1, None)
    assert store.load(wb.session.id).document_filter == "path LIKE '%solar%'"
    assert wb.set_filter("  ") == (None, None)
    assert wb.session.document_filter is None


async def test_open_reload_and_a_deleted_session(store):
    wb = bench(store)
    await events(wb.ask("How efficient are solar panels?"))
    first = wb.session.id
    wb.new()
    assert wb.session.id != first and wb.view.questions == ()
    with pytest.raises(Exception, match="ffff"):
        wb.open("ffff")
    wb.open(first[:6])
    assert wb.session.id == first and len(wb.view.questions) == 1
    store.delete(first)
    assert wb.reload() == "deleted"
    assert wb.session.id != first and wb.session.messages == []
    assert "no session" in wb.start("nope") and wb.session.messages == []  # a bad id: a new session and why


async def test_a_reopened_session_answers_with_its_saved_model(store, monkeypatch):
    """Reopening applies the model the session was saved with; one that cannot be used leaves the
    current model and says so in one line; a model chosen on the command line wins at start."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("HAIKU_TUI_API_KEY", raising=False)
    saved = store.new(model="openai:gpt-4o", db="/data/kb")
    saved.rename("made with gpt-4o")
    store.save(saved)
    wb = Workbench(AgentConfig(model="extractive", db="/data/kb"), store=store, kb=FilterKB())
    wb.start(None)
    assert wb.build_agent() is None
    notice = wb.open(saved.id)
    assert notice is not None and "openai:gpt-4o" in notice and "answering with extractive" in notice
    assert "\n" not in notice and wb.config.model == "extractive" and wb.agent is not None

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    wb.new()
    assert wb.open(saved.id) is None
    assert wb.config.model == "openai:gpt-4o" and wb.agent.model.model_name == "gpt-4o"

    pinned = Workbench(AgentConfig(model="extractive", db="/data/kb"), store=store, kb=FilterKB())
    assert pinned.start(saved.id, keep_model=True) is None and pinned.config.model == "extractive"


async def test_live_views_rebuild_only_the_newest_questions(store, monkeypatch):
    """A running step rebuilds the newest questions' views only; older ones are the committed views."""
    from haiku_tui.capabilities.views import question_views
    from haiku_tui.sessions import workbench

    monkeypatch.setattr(workbench, "LIVE_REBUILT", 1)
    wb = bench(store)
    for prompt in ("How efficient are solar panels?", "And in winter?", "How much do they cost?"):
        await events(wb.ask(prompt))
    wb.refresh()  # what the screen does after each commit
    state = wb.session.working_state()
    live = wb.live_questions(state)
    assert [v.number for v in live] == [1, 2, 3]
    assert live[:2] == list(wb.view.questions[:2]) and live[0] is wb.view.questions[0]
    assert live[2] == question_views(state, wb.session.messages)[2]


async def test_the_configured_bound_on_cited_text_reaches_each_run_and_a_bad_setting_is_one_line(store):
    from haiku_tui.agent.config import HISTORY_WINDOW, RETAINED_CHARS
    from haiku_tui.agent.models import config_path
    from haiku_tui.sessions.run import QuestionRun

    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('retained_chars = 700\nhistory_window = "all"\n')
    wb = bench(store)
    assert (wb.history_window, wb.retained_chars) == (HISTORY_WINDOW, 700)
    assert "'history_window' must be a whole number" in wb.settings_error and "retained_chars" not in wb.settings_error
    run = wb.ask("How efficient are solar panels?")
    assert run.deps.retained_chars == 700
    assert (await events(run))[-1].outcome == "completed"
    assert QuestionRun(wb.agent, wb.session, "Again?").deps.retained_chars == RETAINED_CHARS
    config_path().write_text("retained_chars = -3\n")
    assert "'retained_chars' must be a whole number ≥ 0" in bench(store).settings_error
