"""Question recall in the prompt box: this session's questions first, then other sessions'."""

from __future__ import annotations

from haiku_tui.sessions.history import PromptHistory


def test_walks_session_then_other_sessions_and_restores_the_draft():
    history = PromptHistory(session=["q1", "q2"], others=["old", "q1"])
    assert history.older("half typed") == "q2"
    assert history.older("q2") == "q1"
    assert history.older("q1") == "old"
    assert history.older("old") is None
    assert history.newer() == "q1"
    assert history.newer() == "q2"
    assert history.newer() == "half typed"
    assert history.newer() is None


def test_a_new_question_becomes_newest_and_ends_recall():
    history = PromptHistory(session=["a", "b"])
    history.older("")
    history.add("a")
    assert not history.recalling
    assert history.older("") == "a"
    assert history.older("") == "b"
