"""``haiku-tui ask --session`` with an Anthropic model, against the loopback Messages API server
(``tests/anthropic_server.py``, its prompt cache as Anthropic describes it), three questions in one session: where the
cache points sit in what goes on the wire, what stays the same from request to request, what the cache can serve at
each new question, and that the cached tokens the server reports reach what the status bar and the wire inspector
show."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from haiku_tui.capabilities.wire import question_starts, response_tokens, wire_requests
from haiku_tui.cli import main
from haiku_tui.sessions import SessionStore
from haiku_tui.sessions.view import conversation_view
from haiku_tui.tui.text import tokens_text
from tests.anthropic_server import cache_blocks

MODEL = "anthropic:claude-sonnet-5-5"  # Pydantic AI's current Sonnet (its deprecation notes name it for 4.5)
QUESTIONS = [
    "Do solar panels work in winter?",
    "How often do I feed the starter?",
    "How often should I oil a bicycle chain?",
]
EPHEMERAL = {"type": "ephemeral", "ttl": "5m"}


@pytest.fixture
def session(anthropic_server, kb_path, capsys) -> list[list[dict[str, Any]]]:
    """The three questions asked as a user asks them (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL`` set by the
    fixture); the request bodies of each question."""
    asked: list[list[dict[str, Any]]] = []
    for i, question in enumerate(QUESTIONS):
        before = len(anthropic_server.requests)
        code = main(["ask", "--db", kb_path, "--model", MODEL, "--session", "cache", *(["--new"] if i == 0 else []),
                     question])
        out = capsys.readouterr().out
        assert code == 0 and re.search(r"\[\d+\]\n\nSources:\n\[\d+\] ", out) and "not grounded" not in out, out
        asked.append([r.body for r in anthropic_server.requests[before:]])
    return asked


def prefix(body: dict[str, Any], end: int) -> list[str]:
    """The cache's blocks of ``body`` (tools, system, messages; JSON without ``cache_control``) before ``end``."""
    return [text for text, _ in cache_blocks(body)[:end]]


def search_result_at(body: dict[str, Any]) -> int:
    """The cache position of the last ``rag_search`` result in ``body`` (its question's: one search each)."""
    blocks = [json.loads(text)[1] for text, _ in cache_blocks(body)]
    calls = {b["id"] for b in blocks if b.get("type") == "tool_use" and b.get("name") == "rag_search"}
    return max(i for i, b in enumerate(blocks) if b.get("type") == "tool_result" and b["tool_use_id"] in calls)


def test_cache_points_sit_on_the_tools_the_instructions_and_the_history_and_never_move(session):
    bodies = [body for question in session for body in question]
    for body in bodies:
        # the history's point is Anthropic's automatic one: the server puts it on the last block and moves it on
        assert body["cache_control"] == EPHEMERAL
        assert body["system"][-1]["cache_control"] == EPHEMERAL
        # the last tool that is not deferred (Anthropic refuses the point on a deferred one, and deferred tools are
        # outside the cache's prefix: they are revealed in the history)
        visible = [t for t in body["tools"] if not t.get("defer_loading")]
        assert visible[-1]["cache_control"] == EPHEMERAL
        assert all("cache_control" not in t for t in body["tools"] if t is not visible[-1])
        assert len([marked for _, marked in cache_blocks(body) if marked]) <= 4  # Anthropic's limit
    # instructions and tool definitions are the same in every request of the session: nothing above the history
    # changes per request (Pydantic AI's note on <system> blocks is there from the first, not from the first load)
    assert all(body["system"] == bodies[0]["system"] and body["tools"] == bodies[0]["tools"] for body in bodies)
    assert {t["name"] for t in bodies[0]["tools"]} == {"load_capability", "rag_search", "rag_cite"}


def test_each_request_extends_the_one_before_and_a_new_question_keeps_the_history_before_the_last_slot(session):
    for question in session:  # within a question, every request starts with all of the one before
        for before, after in zip(question, question[1:]):
            assert prefix(after, len(cache_blocks(before))) == prefix(before, len(cache_blocks(before)))
    for earlier, later in zip(session, session[1:]):
        last, first = earlier[-1], later[0]
        # the previous question's slot is rewritten once, when it becomes earlier (its search result keeps what it
        # cited in full and a receipt for the rest): everything before it is what the cache serves
        slot = search_result_at(last)
        assert prefix(first, slot) == prefix(last, slot)
        assert prefix(first, slot + 1) != prefix(last, slot + 1)
    # and once rewritten, it stays: the third question starts with the second's first request, less its question
    second, third = session[1][0], session[2][0]
    end = len(cache_blocks(second)) - 1
    assert prefix(third, end) == prefix(second, end)


def test_the_cached_tokens_the_server_reports_reach_the_status_bar_and_the_wire_inspector(session, anthropic_server):
    usages = anthropic_server.usages
    firsts = [sum(len(q) for q in session[:i]) for i in range(3)]
    assert usages[firsts[0]].cache_read == 0
    for i in firsts[1:]:  # a new question reads at least the tools, instructions and the history before the slot
        assert usages[i].cache_read > usages[firsts[0]].cache_creation
    assert all(u.cache_read > 0 for u in usages[1:])

    with SessionStore() as store:
        saved = store.load(store.resolve("cache"))
    messages = saved.messages
    responses = [m for m in messages if getattr(m, "kind", "") == "response"]
    assert len(responses) == len(usages)
    for response, usage in zip(responses, usages):  # each request's usage, as Pydantic AI read it
        tokens = response_tokens(response)
        total = usage.input + usage.cache_creation + usage.cache_read
        assert (tokens.cached, tokens.input) == (usage.cache_read, total)
        assert not tokens.estimated

    view, _ = conversation_view(saved)  # the status bar's session tokens
    assert view.tokens is not None and view.tokens.cached == sum(u.cache_read for u in usages)
    assert "cached) / " in tokens_text(view.tokens)

    last = question_starts(messages)[-1]  # the wire inspector's requests of the third question
    shown = wire_requests(saved.state, messages, last)
    assert [r.tokens.cached for r in shown] == [u.cache_read for u in usages[firsts[2]:]]
    assert all(r.repeated for r in shown)

