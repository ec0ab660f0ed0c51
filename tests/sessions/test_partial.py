"""A session opened with its newest runs only runs, commits and appends like a whole one; a run copies only
what it may change, and a save reads and writes only the state rows a run changed."""

from __future__ import annotations

import json

import pytest
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

from haiku_tui.capabilities.wire import question_starts
from haiku_tui.cli.ask import run_question
from haiku_tui.sessions import SessionStateError
from haiku_tui.sessions.payload import DETAILS, UNREAD
from haiku_tui.sessions.run import QuestionRun
from tests.sessions.helpers import Researcher, make_agent

PROMPTS = [
    "How efficient are solar panels?", "How do I feed a sourdough starter?", "How do I clean solar panels?",
    "How do I bake sourdough bread?", "Tell me nothing about solar panels", "How efficient are panels in winter?",
]


def streaming(researcher: Researcher) -> FunctionModel:
    async def stream(messages, info):
        for part in researcher(messages, info).parts:
            if isinstance(part, ToolCallPart):
                yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args))}
            else:
                yield part.content

    return FunctionModel(stream_function=stream)


async def asked(session, kb, prompt: str, store, window: int) -> Researcher:
    researcher = Researcher()
    run = QuestionRun(make_agent(streaming(researcher), kb), session, prompt, store=store, window=window)
    finished = await run_question(run)
    assert finished.outcome == "completed", finished.error
    return researcher


async def grown(store, kb, questions: int, window: int = 2):
    session = store.new(model="researcher")
    for prompt in PROMPTS[:questions]:
        await asked(session, kb, prompt, store, window)
    return session


def held(state: dict, first: int) -> dict:
    """``state`` without the details of the records a partial load from message ``first`` leaves unread."""
    out = dict(state)
    records = state["rag"]["questions"]
    out["rag"] = {**state["rag"], "questions": [
        r if r["question"] >= first or r is records[-1] else {k: v for k, v in r.items() if k not in DETAILS}
        for r in records
    ]}
    return out


async def test_a_partial_session_runs_commits_and_appends_like_a_whole_one(store, kb):
    whole = await grown(store, kb, 5)
    partial = store.load(whole.id, questions=2)
    first = partial.first_message
    assert 0 < first < whole.message_count == partial.message_count
    assert partial.messages == whole.messages[first:] and held(partial.state, first) == held(whole.state, first)
    older = [r for r in partial.state["rag"]["questions"] if r["question"] < first]
    assert older and all(r["searches"] is UNREAD for r in older)  # the older questions' hits stay unread …
    with pytest.raises(ValueError, match="open it whole"):
        list(older[0]["searches"])  # … and using them says so, never passes for "no searches"
    assert len(question_starts(partial.messages)) == 3  # the window (2) and the one before it
    assert partial.title == whole.title == PROMPTS[0]

    before = whole.message_count
    in_memory = await asked(whole, kb, PROMPTS[5], None, window=2)  # the whole session, not saved
    researcher = await asked(partial, kb, PROMPTS[5], store, window=2)
    assert researcher.sent[0][:-1] == in_memory.sent[0][:-1]  # the model got what the whole session gives it
    assert partial.state["rag"]["questions"][-1]["question"] == before
    assert partial.title == PROMPTS[0]  # kept: its first question is not held

    reloaded = store.load(whole.id)
    assert reloaded.messages[:before] == whole.messages[:before]
    assert reloaded.messages[before:] == partial.messages[before - partial.first_message :]
    assert held(reloaded.state, first) == held(partial.state, first) and reloaded.title == PROMPTS[0]
    assert reloaded.state["rag"]["questions"][:len(older)] == whole.state["rag"]["questions"][:len(older)]  # kept
    starts = question_starts(reloaded.messages)
    assert [q["question"] for q in reloaded.state["rag"]["questions"]] == starts and len(starts) == 6
    assert store.list()[0].questions == 6 and store.list()[0].messages == reloaded.message_count
    assert [h.session.id for h in store.search("winter")] == [whole.id]  # the appended question is searchable


async def test_a_partial_session_keeps_the_guarantees(store, kb):
    whole = await grown(store, kb, 4)
    partial = store.load(whole.id, questions=1)
    with pytest.raises(ValueError, match="opened with its newest 2 question"):
        partial.window(3)
    with pytest.raises(ValueError, match="partially"):
        partial.to_payload()
    with pytest.raises(ValueError, match="partially"):
        partial.turns()
    assert store.load(whole.id, questions=50).first_message == 0  # fewer questions than asked: all of them

    await asked(whole, kb, PROMPTS[4], store, window=1)  # another copy saved meanwhile
    run = QuestionRun(make_agent(streaming(Researcher()), kb), partial, PROMPTS[5], store=store, window=1)
    finished = await run_question(run)
    assert finished.outcome == "failed" and "saved elsewhere" in finished.error
    assert store.load(whole.id).messages == whole.messages  # nothing of the stale copy was written


async def test_a_run_copies_what_it_may_change_and_a_commit_keeps_the_rest(store, kb):
    session = await grown(store, kb, 3)
    committed = session.state
    records = committed["rag"]["questions"]
    working = session.working_state()
    assert working["rag"]["questions"][0] is records[0]  # earlier records are shared …
    assert working["rag"]["questions"][-1] is not records[-1]  # … the last one (a resumed question) is not
    assert all(working["rag"]["citation_index"][c] is not e for c, e in committed["rag"]["citation_index"].items())
    working["rag"]["citation_index"][records[0]["declaration"]["chunk_ids"][0]]["title"] = "changed"
    working["rag"]["document_filter"] = "x"
    assert "changed" not in json.dumps(committed) and committed["rag"]["document_filter"] is None

    researcher = Researcher()
    run = QuestionRun(make_agent(streaming(researcher), kb), session, PROMPTS[3], store=store, window=2)
    await run_question(run)
    assert session.state["rag"]["questions"][0] is records[0]  # left alone by the run: the same object
    assert len(session.state["rag"]["questions"]) == 4

    bad = session.working_state()
    bad["rag"]["questions"].append({"question": 99, "prompt": object()})
    with pytest.raises(SessionStateError, match="not plain JSON"):
        session.commit_run(session.conversation, bad)
    assert len(session.state["rag"]["questions"]) == 4


async def test_a_save_reads_and_writes_only_the_rows_a_run_changed(store, kb):
    """The statements a save runs on the state rows do not grow with the session."""

    async def state_statements(questions: int) -> list[str]:
        session = await grown(store, kb, questions, window=1)
        seen: list[str] = []
        store._conn.set_trace_callback(seen.append)
        try:
            await asked(session, kb, PROMPTS[5], store, window=1)
        finally:
            store._conn.set_trace_callback(None)
        return [s for s in seen if "session_state" in s]

    short, long = await state_statements(1), await state_statements(5)
    assert len(long) == len(short) <= 12
    assert not any(
        "SELECT rid, path, kind, checksum FROM session_state WHERE num=" in s and "path=" not in s for s in long
    )


def test_a_partial_load_refuses_a_damaged_newest_batch(store):
    import sqlite3

    from tests.sessions.test_store import chat

    session = store.new()
    session.commit_run(chat(("q0", "a0"), ("q1", "a1")), {})
    store.save(session)
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE session_messages SET data = replace(data, 'a1', 'zz')")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="does not match its checksum"):
        store.load(session.id, questions=1)


def _detail_rows(store, session_id: str) -> list[tuple[str, int]]:
    """(path, rid) of the session's question detail rows, oldest question first."""
    from tests.sessions.test_store import raw

    return raw(
        store, "SELECT path, rid FROM session_state WHERE kind='detail' AND num=(SELECT num FROM sessions WHERE id=?) "
        "ORDER BY rid", session_id,
    )


async def test_older_questions_details_are_never_read_by_a_partial_load(store, kb):
    """The statements a partial load runs leave the rows of older questions' searches alone, and the state it
    gives holds them as unread; the latest record's details are read even when its question is older."""
    whole = await grown(store, kb, 5)
    details = _detail_rows(store, whole.id)
    assert [json.loads(p)[-1] for p, _ in details] == ["searches"] * 5  # one row per question record
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    try:
        partial = store.load(whole.id, questions=1)
    finally:
        store._conn.set_trace_callback(None)
    older = json.loads(details[0][0])
    named = [s for s in seen if "json_each" in s]  # the detail rows read, by path (a JSON list of paths)
    assert len(named) == 1 and json.dumps(details[-1][0])[1:-1] in named[0]  # the window's is read …
    assert not any(json.dumps(p)[1:-1] in named[0] for p, _ in details[:2])  # … older ones are not named
    state_reads = [s for s in seen if "FROM session_state" in s]
    assert state_reads and all("kind IN (" in s or "kind='detail'" in s for s in state_reads)  # nor all rows read
    assert partial.state["rag"]["questions"][older[2]]["searches"] is UNREAD
    assert partial.state["rag"]["questions"][-1]["searches"] == whole.state["rag"]["questions"][-1]["searches"]


async def test_a_schema_2_store_migrates_after_a_backup_and_its_records_split_at_their_next_save(
    store, kb, monkeypatch
):
    import sqlite3

    from haiku_tui.sessions import SessionStore, payload
    from tests.sessions.test_store import raw

    split = payload.split_state

    def schema_2(state: dict) -> dict:
        """``split_state`` as haiku-tui wrote it at schema 2: a record and its details in one leaf row."""
        rows = split(state).items()
        return {
            path: ("leaf", value) if kind == "record" else (kind, value)
            for path, (kind, value) in rows
            if kind != "detail"
        }

    monkeypatch.setattr(payload, "split_state", schema_2)
    whole = await grown(store, kb, 4)
    monkeypatch.setattr(payload, "split_state", split)
    raw(store, "DROP INDEX session_state_by_kind")
    raw(store, "PRAGMA user_version=2")
    store.close()
    before = sqlite3.connect(store.path).execute("SELECT * FROM session_state ORDER BY rid").fetchall()

    store = SessionStore(store.path)  # migrates, after a copy of the schema-2 file
    backup = sqlite3.connect(store.path.with_name("sessions.db.v2-backup"))
    assert backup.execute("SELECT * FROM session_state ORDER BY rid").fetchall() == before
    assert raw(store, "PRAGMA user_version") == [(3,)] and _detail_rows(store, whole.id) == []
    partial = store.load(whole.id, questions=1)
    assert partial.state == whole.state  # nothing to leave unread: the records hold their searches
    await asked(partial, kb, PROMPTS[4], store, window=1)
    assert len(_detail_rows(store, whole.id)) == 5  # written in the new layout by the next save
    reloaded = store.load(whole.id)
    assert reloaded.state == partial.state and reloaded.messages[: whole.message_count] == whole.messages
    assert reloaded.state["rag"]["questions"][:4] == whole.state["rag"]["questions"]
    store.close()


async def test_damaged_or_lost_detail_rows_are_refused_when_read_and_never_overwritten(store, kb):
    from haiku_tui.sessions import SessionCorrupt
    from tests.sessions.test_store import raw

    whole = await grown(store, kb, 4)
    old_rid = _detail_rows(store, whole.id)[0][1]
    raw(store, "UPDATE session_state SET data=replace(data, 'Solar', 'Lunar') WHERE rid=?", old_rid)
    partial = store.load(whole.id, questions=1)  # the damaged row is an older question's: not read …
    with pytest.raises(SessionCorrupt, match="does not match its checksum"):
        store.load(whole.id)  # … but a whole load refuses it
    await asked(partial, kb, PROMPTS[4], store, window=1)  # a run and its save leave it as it is
    assert "Lunar" in raw(store, "SELECT data FROM session_state WHERE rid=?", old_rid)[0][0]

    newest = _detail_rows(store, whole.id)[-1][1]  # the question just asked: in the window
    raw(store, "UPDATE session_state SET checksum='x' WHERE rid=?", newest)
    with pytest.raises(SessionCorrupt, match="does not match its checksum"):
        store.load(whole.id, questions=1)  # the window's own details are checked
    raw(store, "DELETE FROM session_state WHERE rid=?", newest)
    with pytest.raises(SessionCorrupt, match="state row"):
        store.load(whole.id, questions=1)  # a lost one is missed


async def test_an_unread_detail_is_never_written_or_copied(store, kb):
    from haiku_tui.sessions import SessionStateError

    whole = await grown(store, kb, 4)
    partial = store.load(whole.id, questions=1)
    working = partial.working_state()
    working["rag"]["questions"][0] = dict(working["rag"]["questions"][0], requests=9)  # changes an older record
    with pytest.raises(SessionStateError, match="not plain JSON"):
        partial.commit_run(partial.conversation, working, partial.first_message)  # unread searches are not "none"
    moved = partial.working_state()
    moved["rag"]["questions"].insert(0, moved["rag"]["questions"][0])  # an unread detail in another row
    partial._state = moved
    partial.dirty = True
    with pytest.raises(ValueError, match="was not read"):
        store.save(partial)
    assert store.load(whole.id).state == whole.state
