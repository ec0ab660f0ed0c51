"""The SQLite store: operations, optimistic concurrency, damaged and future rows, secrets."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pydantic_ai import Conversation
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from haiku_tui import locations
from haiku_tui.sessions import (
    AmbiguousSessionId,
    Session,
    SessionCorrupt,
    SessionNotFound,
    SessionStore,
    StaleSession,
    UnsupportedSchema,
)
from haiku_tui.sessions.migrate import DB_SCHEMA_VERSION


def chat(*pairs: tuple[str, str], of: Session | None = None) -> Conversation:
    """A conversation of (question, answer) turns, each its own run (continuing ``of``'s conversation id)."""
    messages = []
    for i, (question, answer) in enumerate(pairs):
        run = f"run-{i}"
        messages.append(ModelRequest(parts=[UserPromptPart(question)], run_id=run))
        messages.append(ModelResponse(parts=[TextPart(answer)], run_id=run))
    if of is not None:
        return Conversation(messages=messages, conversation_id=of.conversation.conversation_id)
    return Conversation(messages=messages)


def committed(store: SessionStore, *pairs: tuple[str, str], state=None) -> Session:
    session = store.new()
    session.commit_run(chat(*pairs), state or {})
    return store.save(session)


def raw(store: SessionStore, sql: str, *params):
    conn = sqlite3.connect(store.path)
    try:
        with conn:
            return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_default_location_and_wal(store, _isolated_data_dir):
    assert store.path == locations.sessions_db_path() == _isolated_data_dir / "sessions.db"
    assert raw(store, "PRAGMA journal_mode")[0][0] == "wal"
    assert raw(store, "PRAGMA user_version")[0][0] == DB_SCHEMA_VERSION


def test_create_list_open_rename_delete(store):
    empty = store.save(store.new(model="openai:gpt-4o"))
    older = committed(store, ("What is WAL?", "A journal mode."))
    newer = committed(store, ("Why SQLite?", "It is embedded."), ("And FTS5?", "Full text."))
    listed = store.list()
    assert [s.id for s in listed] == [newer.id, older.id, empty.id]
    assert (listed[0].questions, listed[0].messages, listed[0].title) == (2, 4, "Why SQLite?")
    assert (listed[2].questions, listed[2].title, listed[2].model) == (0, "New session", "openai:gpt-4o")
    assert store.list(limit=1)[0].id == newer.id

    assert store.load(newer.id[:6]).messages == newer.messages  # unique prefix
    assert store.open(newer.id).title == "Why SQLite?"
    assert store.rename(older.id, "  WAL   notes ") == "WAL notes"
    assert store.load(older.id).title_manual is True
    assert store.delete(empty.id) is True and store.delete(empty.id) is False
    with pytest.raises(SessionNotFound, match="no session"):
        store.load(empty.id)
    assert store.count() == 2


def test_ambiguous_prefix(store):
    for sid in ("abc111", "abc222"):
        session = store.new()
        session.id = sid
        store.save(session)
    with pytest.raises(AmbiguousSessionId):
        store.load("abc")
    assert store.load("abc1").id == "abc111"


def test_counts_of_questions_and_citations_from_the_state(store):
    state = {
        "rag": {
            "citation_index": {"c1": {"index": 1}, "c2": {"index": 2}},
            "questions": [{"question": 0, "prompt": "q"}, {"question": 2, "prompt": "r"}],
        },
        "analysis": {"citation_index": {"c3": {"index": 3}, "c1": {"index": 1}}, "questions": []},
    }
    session = committed(store, ("q", "a [1]"), ("r", "b [2]"), state=state)
    summary = store.list()[0]
    assert (summary.questions, summary.citations) == (2, 3)
    assert (session.question_count, session.citation_count) == (2, 3)


def test_full_text_search(store):
    a = committed(store, ("How do I feed a sourdough starter?", "Daily, with flour and water."))
    b = committed(store, ("Solar panel efficiency?", "About twenty percent [1]."))
    store.rename(b.id, "Energy notes")
    hits = store.search("sourdough")
    assert [h.session.id for h in hits] == [a.id] and "**sourdough**" in hits[0].snippet
    assert [h.session.id for h in store.search("twenty")] == [b.id]  # answer text
    assert [h.session.id for h in store.search("energy")] == [b.id]  # renamed title
    assert [h.session.id for h in store.search("effic")] == [b.id]  # prefix
    assert store.search("flour water")[0].session.id == a.id  # all words
    assert store.search("flour solar") == []
    assert store.search('"unbalanced (quote* AND') == []  # never an FTS syntax error
    assert store.search("  ") == []
    store.delete(a.id)
    assert store.search("sourdough") == []


def test_search_falls_back_to_like_without_fts5(store, monkeypatch):
    a = committed(store, ("How do I feed a sourdough starter?", "Daily, with 100% flour_water."))
    monkeypatch.setattr(store._text, "fts", False)
    hits = store.search("SOURDOUGH starter")
    assert [h.session.id for h in hits] == [a.id] and "**sourdough**" in hits[0].snippet
    assert [h.session.id for h in store.search("100%")] == [a.id]
    assert store.search("100_") == []  # LIKE wildcards are escaped
    # a write made without FTS5 marks the index stale; the next FTS5 open rebuilds it
    b = committed(store, ("Solar panel efficiency?", "About twenty percent."))
    assert raw(store, "SELECT value FROM store_meta WHERE key='fts_stale'") == [("1",)]
    with SessionStore() as reopened:
        assert [h.session.id for h in reopened.search("twenty")] == [b.id]
    assert raw(store, "SELECT value FROM store_meta WHERE key='fts_stale'") == []


# -- optimistic concurrency ----------------------------------------------------------------------------------


def test_stale_copy_is_refused_and_nothing_is_written(store):
    session = committed(store, ("q1", "a1"))
    mine, theirs = store.load(session.id), SessionStore().load(session.id)
    theirs.app_data["reviews"] = {"0": {"c": "supports"}}
    SessionStore().save(theirs)
    before = raw(store, "SELECT revision, checksum FROM sessions")
    mine.commit_run(chat(("q1", "a1"), ("q2", "a2"), of=mine), {})
    with pytest.raises(StaleSession, match=r"saved elsewhere.*stored revision 2.*revision 1.*nothing was saved"):
        store.save(mine)
    assert raw(store, "SELECT revision, checksum FROM sessions") == before
    assert store.load(session.id).app_data == {"reviews": {"0": {"c": "supports"}}}


def test_saving_a_deleted_or_renamed_elsewhere_session_is_refused(store):
    session = committed(store, ("q1", "a1"))
    store.rename(session.id, "renamed by the CLI")  # by id: advances the stored revision
    with pytest.raises(StaleSession):
        store.save(session)
    fresh = store.load(session.id)
    store.delete(session.id)
    with pytest.raises(StaleSession, match="deleted"):
        store.save(fresh)
    assert store.count() == 0


def test_same_revision_but_changed_content_is_refused(store):
    session = committed(store, ("q1", "a1"))
    data = json.loads(raw(store, "SELECT payload FROM sessions")[0][0])
    data["app_data"] = {"rewritten": True}
    text = json.dumps(data)
    raw(store, "UPDATE sessions SET payload=?, checksum=?", text, hashlib.sha256(text.encode()).hexdigest())
    with pytest.raises(StaleSession, match="changed outside haiku-tui"):
        store.save(session)
    assert json.loads(raw(store, "SELECT payload FROM sessions")[0][0])["app_data"] == {"rewritten": True}


def _saver(path: str, session_ids: list[str], rounds: int, results) -> None:
    ok = stale = 0
    with SessionStore(path) as store:
        for i in range(rounds):
            for sid in session_ids:
                session = store.load(sid)
                session.app_data.setdefault("log", []).append(i)
                try:
                    store.save(session)
                    ok += 1
                except StaleSession:
                    stale += 1
    results.append((ok, stale))


def test_threads_saving_different_and_same_sessions(store):
    a, b, shared = (committed(store, (f"q{i}", f"a{i}")) for i in range(3))
    results: list[tuple[int, int]] = []
    threads = [
        threading.Thread(target=_saver, args=(str(store.path), [a.id, shared.id], 40, results)),
        threading.Thread(target=_saver, args=(str(store.path), [b.id, shared.id], 40, results)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(stale for _, stale in results) <= 80
    revisions = {s.id: s.revision for s in store.list()}
    assert revisions[a.id] == revisions[b.id] == 41  # private sessions: every save landed
    shared_ok = sum(ok for ok, _ in results) - 80
    assert revisions[shared.id] == 1 + shared_ok  # shared: exactly the saves that were not refused
    assert len(store.load(shared.id).app_data["log"]) == shared_ok  # and none lost another's append
    assert raw(store, "PRAGMA integrity_check") == [("ok",)]


def test_two_processes_on_one_store(store):
    shared = committed(store, ("q", "a"))
    own = [committed(store, (f"own{i}", "a")) for i in range(2)]
    child = Path(__file__).with_name("store_child.py")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    procs = [
        subprocess.Popen(
            [sys.executable, str(child), str(store.path), "hammer", "40", own[i].id, shared.id],
            stdout=subprocess.PIPE, text=True, env=env,
        )
        for i in range(2)
    ]
    outputs = [p.communicate(timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    results = [tuple(map(int, out.split())) for out in outputs]
    revisions = {s.id: s.revision for s in store.list()}
    assert revisions[own[0].id] == revisions[own[1].id] == 41  # private sessions: every save landed
    shared_ok = sum(ok for ok, _ in results) - 80
    assert shared_ok >= 1 and revisions[shared.id] == 1 + shared_ok  # shared: exactly the saves not refused
    assert len(store.load(shared.id).app_data["log"]) == shared_ok  # and none lost another's append
    assert raw(store, "PRAGMA integrity_check") == [("ok",)]


def test_one_stale_when_two_copies_race_on_the_same_revision(store):
    session = committed(store, ("q", "a"))
    copies = [SessionStore().load(session.id) for _ in range(2)]
    barrier, outcomes = threading.Barrier(2), []

    def save(copy: Session) -> None:
        copy.app_data["by"] = id(copy)
        barrier.wait()
        try:
            SessionStore().save(copy)
            outcomes.append("saved")
        except StaleSession:
            outcomes.append("stale")

    threads = [threading.Thread(target=save, args=(c,)) for c in copies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["saved", "stale"]
    assert store.load(session.id).revision == 2


# -- damaged rows, unknown versions --------------------------------------------------------------------------


def test_corrupt_json_row_is_refused_and_never_overwritten(store):
    session = committed(store, ("q", "a"))
    raw(store, "UPDATE sessions SET payload='{\"truncated'")
    before = raw(store, "SELECT * FROM sessions")
    with pytest.raises(SessionCorrupt, match="invalid.*nothing was changed"):
        store.load(session.id)
    with pytest.raises(SessionCorrupt):
        store.save(session)
    with pytest.raises(SessionCorrupt):
        store.rename(session.id, "new title")
    with pytest.raises(SessionCorrupt):
        store.export_json(session.id)
    assert raw(store, "SELECT * FROM sessions") == before
    assert store.list()[0].id == session.id  # still listed, can be deleted
    assert store.delete(session.id)


def test_checksum_mismatch_is_corrupt(store):
    session = committed(store, ("q", "a"))
    text = raw(store, "SELECT payload FROM sessions")[0][0].replace('"q"', '"tampered"')
    raw(store, "UPDATE sessions SET payload=?", text)
    with pytest.raises(SessionCorrupt, match="checksum"):
        store.load(session.id)
    with pytest.raises(SessionCorrupt, match="checksum"):
        store.save(session)
    assert raw(store, "SELECT payload FROM sessions")[0][0] == text


def test_damaged_message_batch_or_state_row_is_corrupt_and_kept(store):
    session = committed(store, ("q", "a"), state={"rag": {"note": "x"}})
    raw(store, "UPDATE session_messages SET data=replace(data, '\"a\"', '\"tampered\"')")
    with pytest.raises(SessionCorrupt, match="message batch at 0 does not match its checksum"):
        store.load(session.id)
    raw(store, "UPDATE session_messages SET data=replace(data, '\"tampered\"', '\"a\"')")
    assert store.load(session.id).messages == session.messages
    raw(store, "UPDATE session_state SET data='\"y\"' WHERE path='[\"rag\",\"note\"]'")
    with pytest.raises(SessionCorrupt, match=r'state row \["rag","note"\] does not match'):
        store.load(session.id)
    session.commit_run(session.conversation, {"rag": {"note": "z"}})
    with pytest.raises(SessionCorrupt, match="does not match"):  # the damaged row is never overwritten
        store.save(session)
    assert raw(store, "SELECT data FROM session_state WHERE path='[\"rag\",\"note\"]'") == [('"y"',)]
    raw(store, "DELETE FROM session_state WHERE path='[\"rag\",\"note\"]'")
    with pytest.raises(SessionCorrupt, match="state row"):  # a lost row is caught by the head's count
        store.load(session.id)


def test_row_failing_validation_is_corrupt(store):
    session = committed(store, ("q", "a"))
    batch = json.loads(raw(store, "SELECT data FROM session_messages")[0][0])
    batch[0]["kind"] = "gossip"
    text = json.dumps(batch)
    raw(store, "UPDATE session_messages SET data=?, checksum=?", text, hashlib.sha256(text.encode()).hexdigest())
    with pytest.raises(SessionCorrupt, match="failed validation.*nothing was changed"):
        store.load(session.id)
    data = json.loads(raw(store, "SELECT payload FROM sessions")[0][0])
    del data["parts"]
    data["state"] = []  # not a namespace map
    text = json.dumps(data)
    raw(store, "UPDATE sessions SET payload=?, checksum=?", text, hashlib.sha256(text.encode()).hexdigest())
    with pytest.raises(SessionCorrupt, match="'state'"):
        store.load(session.id)


def test_future_session_schema_is_refused_and_never_overwritten(store):
    session = committed(store, ("q", "a"))
    data = json.loads(raw(store, "SELECT payload FROM sessions")[0][0])
    data["schema_version"] = 99
    text = json.dumps(data)
    raw(
        store,
        "UPDATE sessions SET payload=?, checksum=?, schema_version=99",
        text,
        hashlib.sha256(text.encode()).hexdigest(),
    )
    with pytest.raises(UnsupportedSchema, match="version 99.*nothing was changed"):
        store.load(session.id)
    with pytest.raises(UnsupportedSchema, match="newer"):
        store.save(session)
    assert store.list()[0].supported is False
    assert raw(store, "SELECT payload FROM sessions")[0][0] == text


def test_future_database_version_is_refused_without_change(tmp_path):
    path = tmp_path / "sessions.db"
    SessionStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=7")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(UnsupportedSchema, match="schema version 7.*nothing was changed"):
        SessionStore(path)
    assert path.read_bytes() == before


def test_not_a_database_is_refused_without_change(tmp_path):
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(SessionCorrupt, match="not a usable sessions database.*nothing was changed"):
        SessionStore(path)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_payload_migrations_run_on_read(store, monkeypatch):
    from haiku_tui.sessions import payload

    session = committed(store, ("q", "a"))
    data = json.loads(raw(store, "SELECT payload FROM sessions")[0][0])
    monkeypatch.setattr(payload, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(
        payload.PAYLOAD_MIGRATIONS, 1, lambda d: {**d, "schema_version": 2, "app_data": {"migrated": True}}
    )
    loaded = store.load(session.id)
    assert loaded.app_data == {"migrated": True} and data["schema_version"] == 1
    store.save(loaded)
    assert json.loads(raw(store, "SELECT payload FROM sessions")[0][0])["schema_version"] == 2


# -- secrets ------------------------------------------------------------------------------------------------

KEY = "sk-proj-Zx81kQ2mN4vB7cD9eF0gH1iJ2kL3mN4o"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"


def test_no_secret_is_ever_written(store):
    session = store.new(model="openai:gpt-4o", db=f"https://alice:{KEY}@kb.example.com/team?api_key={KEY}&x=1")
    session.model = f"http://bob:hunter2@localhost:11434/v1?token={TOKEN}"
    session.commit_run(
        chat((f"my key is {KEY}, why does it fail?", f"Do not share keys like {KEY}. Authorization: Bearer {TOKEN}")),
        {"rag": {"api_key": "plain-secret-value", "note": f"OPENAI_API_KEY={KEY}"}, "future": {"password": "hunter2"}},
    )
    session.app_data["settings"] = {"ANTHROPIC_API_KEY": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "theme": "dark"}
    store.save(session)
    session.rename(f"debugging {KEY}")
    store.save(session)
    store.close()
    blob = file_bytes(store.path)
    for secret in (KEY, TOKEN, "hunter2", "plain-secret-value", "sk-ant-api03", "alice", "bob:"):
        assert secret.encode() not in blob, secret
    with SessionStore() as reopened:
        loaded = reopened.load(session.id)
        assert loaded.db == "https://kb.example.com/team"
        assert loaded.model == "http://localhost:11434/v1"
        assert loaded.app_data["settings"] == {"ANTHROPIC_API_KEY": "[redacted]", "theme": "dark"}
        assert loaded.state["future"] == {"password": "[redacted]"}
        assert "[redacted]" in loaded.turns()[0].prompt and "why does it fail?" in loaded.turns()[0].prompt
        assert loaded.title == "debugging [redacted]"
        exported = reopened.export_json(session.id) + reopened.export_markdown(session.id)
        assert KEY not in exported and TOKEN not in exported


def test_scrubbing_leaves_ordinary_text_alone():
    from haiku_tui.sessions.scrub import scrub_json, scrub_location

    text = {
        "prose": "A task-management-system-architecture needs a secret: patience. The token bucket is 10/s.",
        "input_tokens": 12,
        "max_tokens": "4096",
        "path": "/home/me/kb.lancedb",
    }
    assert scrub_json(text) is text
    assert scrub_location("openai:gpt-4o") == "openai:gpt-4o"
    assert scrub_location("s3://bucket/kb") == "s3://bucket/kb"
