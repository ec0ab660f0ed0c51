"""A saved session opened at start-up is shown from its newest runs, then loaded whole."""

from __future__ import annotations


from haiku_tui.agent import AgentConfig
from haiku_tui.sessions import SessionStore
from haiku_tui.sessions.workbench import PEEK_RUNS, Workbench


def saved(tmp_path, questions: int) -> tuple[SessionStore, str]:
    from bench.bench_keys import saved_session

    store = SessionStore(tmp_path / "sessions.db")
    return store, saved_session(store, questions)


def test_preview_shows_the_newest_questions_numbered_as_in_the_whole_session(tmp_path):
    store, session_id = saved(tmp_path, 60)
    bench = Workbench(AgentConfig(model="extractive"), store=store)
    assert bench.start(session_id, preview=True) is None
    assert bench.session is None and bench.preview is not None  # nothing that could be saved yet
    preview = bench.view.questions
    assert [q.number for q in preview] == list(range(60 - PEEK_RUNS + 1, 61))
    bench.finish_start()
    assert bench.preview is None and bench.session is not None and bench.session.id == session_id
    whole = bench.view.questions
    assert len(whole) == 60
    for shown, loaded in zip(preview, whole[-PEEK_RUNS:], strict=True):
        assert (shown.question, shown.number, shown.prompt, shown.answer, shown.citations, shown.steps) == (
            loaded.question, loaded.number, loaded.prompt, loaded.answer, loaded.citations, loaded.steps)


def test_a_session_that_cannot_be_loaded_whole_gives_a_new_one_and_the_reason(tmp_path):
    store, session_id = saved(tmp_path, 12)
    bench = Workbench(AgentConfig(model="extractive"), store=store)
    bench.start(session_id, preview=True)
    store.delete(session_id)  # gone between the preview and the whole load
    notice = bench.finish_start()
    assert notice and bench.session is not None and bench.session.id != session_id
    assert not bench.view.questions


def test_a_short_or_missing_session_needs_no_preview(tmp_path):
    store, session_id = saved(tmp_path, 3)
    bench = Workbench(AgentConfig(model="extractive"), store=store)
    bench.start(session_id, preview=True)
    assert [q.number for q in bench.view.questions] == [1, 2, 3]
    bench.finish_start()
    assert bench.finish_start() is None  # nothing left to load
    notice = Workbench(AgentConfig(model="extractive"), store=store).start("nosuchsession", preview=True)
    assert notice and "nosuchsession" in notice
