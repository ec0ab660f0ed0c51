"""Schema 2: a save appends what the run added; schema-1 files migrate (backup first, kills lose nothing);
a store that cannot be written says so in one line."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from haiku_tui.sessions import SessionCorrupt, SessionStore, SessionStoreUnavailable, StaleSession
from haiku_tui.sessions import payload as _payload
from haiku_tui.sessions.layout import create_v1
from haiku_tui.sessions.migrate import DB_SCHEMA_VERSION
from tests.sessions.test_store import chat, raw

CHILD = Path(__file__).with_name("store_child.py")


def record(q: int, prompt: str) -> dict:
    return {"question": q, "prompt": prompt, "searches": [], "evidence_epoch": None, "declaration": None, "requests": 1}


def test_a_save_appends_the_run_and_rewrites_only_changed_state_rows(store):
    session = store.new()
    pairs = [("q0", "a0")]
    state = {"rag": {"citation_index": {}, "questions": [record(0, "q0")], "question": 0, "in_progress": False}}
    session.commit_run(chat(*pairs), state)
    store.save(session)
    first_batch = raw(store, "SELECT start, count, data FROM session_messages")
    rows_before = dict(raw(store, "SELECT path, data FROM session_state"))

    conversation = chat(*pairs, ("q1", "a1"), of=session)
    conversation.messages[:2] = session.conversation.messages  # a run continues the same message objects
    state = session.working_state()
    state["rag"]["questions"].append(record(2, "q1"))
    state["rag"]["question"] = 2
    session.commit_run(conversation, state)
    store.save(session)

    batches = raw(store, "SELECT start, count, data FROM session_messages ORDER BY start")
    assert batches[0] == first_batch[0] and [b[:2] for b in batches] == [(0, 2), (2, 2)]  # appended, not rewritten
    rows_after = dict(raw(store, "SELECT path, data FROM session_state"))
    changed = {p for p in rows_after if rows_before.get(p) != rows_after[p]}
    assert changed == {'["rag","questions",1]', '["rag","questions",1,"searches"]', '["rag","question"]'}
    loaded = store.load(session.id)
    assert loaded.messages == session.messages and loaded.state == session.state
    assert [h.session.id for h in store.search("a1")] == [session.id]
    assert store.list()[0].questions == 2 and store.list()[0].messages == 4


def test_a_copy_whose_history_was_rewritten_is_stored_whole(store):
    session = store.new()
    session.commit_run(chat(("q0", "a0")), {})
    store.save(session)
    other = chat(("other", "history"), of=session)  # same conversation id, different messages
    session.commit_run(other, {})
    store.save(session)
    assert raw(store, "SELECT start, count FROM session_messages") == [(0, 2)]
    assert store.load(session.id).turns()[0].prompt == "other"
    assert store.search("q0") == [] and len(store.search("history")) == 1


def _v1_database(path: Path, sessions: int, *, blob: int = 200) -> dict[str, dict]:
    """A schema-1 sessions.db (one whole payload per row) like haiku-tui wrote before schema 2."""
    conn = sqlite3.connect(path)
    create_v1(conn)
    conn.execute(
        "CREATE VIRTUAL TABLE session_fts USING fts5(title, body, content='sessions', content_rowid='num')"
    )
    conn.execute("PRAGMA user_version=1")
    written = {}
    for i in range(sessions):
        sid = f"old{i:04d}"
        data = {
            "format": "haiku-tui.session",
            "schema_version": 1,
            "id": sid,
            "revision": 3,
            "metadata": {
                "title": f"Old session {i}",
                "title_manual": False,
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": f"2026-01-02T00:00:{i % 60:02d}Z",
            },
            "conversation": {
                "messages": [
                    {
                        "kind": "request",
                        "run_id": f"r{i}",
                        "parts": [{"part_kind": "user-prompt", "content": f"old question {i}"}],
                    },
                    {
                        "kind": "response",
                        "run_id": f"r{i}",
                        "parts": [{"part_kind": "text", "content": "x" * blob + f" answer {i}"}],
                    },
                ]
            },
            "state": {
                "rag": {"citation_index": {}, "questions": [record(0, f"old question {i}")], "question": 0},
                "other": [1, 2],
            },
            "app_data": {"reviews": {}},
        }
        text = _payload.dumps(data)
        conn.execute(
            "INSERT INTO sessions (id, revision, schema_version, title, created_at, updated_at, questions, messages, "
            "body, payload, checksum) VALUES (?, 3, 1, ?, ?, ?, 1, 2, ?, ?, ?)",
            (sid, data["metadata"]["title"], "2026-01-01T00:00:00Z", data["metadata"]["updated_at"],
             f"old question {i}", text, _payload.checksum(text)),
        )
        written[sid] = data
    conn.commit()
    conn.close()
    return written


def test_schema_1_migrates_after_a_backup_and_keeps_a_damaged_row_refused(tmp_path):
    path = tmp_path / "sessions.db"
    written = _v1_database(path, 3)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sessions SET payload=replace(payload, 'answer 2', 'tampered') WHERE id='old0002'")
    conn.commit()
    conn.close()
    before = sqlite3.connect(path).execute("SELECT * FROM sessions ORDER BY num").fetchall()
    with SessionStore(path) as store:
        for sid in ("old0000", "old0001"):
            loaded = store.load(sid)
            assert loaded.messages_json() and loaded.revision == 3
            assert (
                loaded.state == written[sid]["state"]
                and loaded.turns()[0].prompt == written[sid]["state"]["rag"]["questions"][0]["prompt"]
            )
        with pytest.raises(SessionCorrupt, match="checksum"):
            store.load("old0002")
        assert [h.session.id for h in store.search("question 1")] == ["old0001"]
        session = store.load("old0001")
        session.rename("renamed after migration")
        store.save(session)
        assert store.delete("old0002")
    backup = tmp_path / "sessions.db.v1-backup"
    conn = sqlite3.connect(backup)
    assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    assert conn.execute("SELECT * FROM sessions ORDER BY num").fetchall() == before  # the schema-1 rows, as they were
    conn.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (DB_SCHEMA_VERSION,)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_kill_during_migration_loses_nothing(tmp_path):
    rng = random.Random(7)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    for attempt in range(8):
        path = tmp_path / f"s{attempt}.db"
        written = _v1_database(path, 300, blob=3000)
        child = subprocess.Popen([sys.executable, "-S", str(CHILD), str(path), "open"], env=env, stdout=subprocess.PIPE)
        time.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        with SessionStore(path) as store:  # a killed migration left schema 1 (migrated again now) or schema 2
            assert store.count() == len(written)
            for sid in rng.sample(sorted(written), 20):
                data, _ = store.read_payload(sid)
                assert data["state"] == written[sid]["state"]
                assert data["conversation"]["messages"] == written[sid]["conversation"]["messages"]
        assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_read_only_or_full_store_says_so_and_keeps_the_session(store):
    session = store.new()
    session.commit_run(chat(("q", "a")), {})
    store.save(session)
    session.commit_run(chat(("q", "a"), ("q2", "a2"), of=session), {})
    store._conn.execute("PRAGMA query_only=1")
    with pytest.raises(SessionStoreUnavailable, match="read only; nothing was saved"):
        store.save(session)
    store._conn.execute("PRAGMA query_only=0")
    page_count = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={page_count}")
    session.app_data["big"] = "y" * 200_000
    with pytest.raises(SessionStoreUnavailable, match="full; nothing was saved"):
        store.save(session)
    store._conn.execute("PRAGMA max_page_count=1073741823")
    assert store.load(session.id).revision == 1  # the stored copy is intact
    assert store.save(session).revision == 2  # and the same copy saves once there is room


def test_sessions_list_on_a_read_only_store_lists(tmp_path, monkeypatch, capsys):
    from haiku_tui.cli import main

    path = tmp_path / "sessions.db"
    with SessionStore(path) as store:
        session = store.new(title="Kept")
        store.save(session)
    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda target, *a, **k: real_connect(f"file:{target}?mode=ro", *a, uri=True, **k)
    )
    assert main(["sessions", "--sessions-db", str(path), "list"]) == 0
    assert "Kept" in capsys.readouterr().out
    with SessionStore(path) as store:
        session = store.load(session.id)
        session.rename("Changed")
        with pytest.raises(SessionStoreUnavailable, match="read only") as error:
            store.save(session)
    assert "move it aside" not in str(error.value)


def test_stale_append_is_refused(store):
    session = store.new()
    session.commit_run(chat(("q", "a")), {})
    store.save(session)
    other = store.load(session.id)
    other.commit_run(chat(("q", "a"), ("q2", "a2"), of=other), {})
    store.save(other)
    session.commit_run(chat(("q", "a"), ("q3", "a3"), of=session), {})
    with pytest.raises(StaleSession):
        store.save(session)
    assert [t.prompt for t in store.load(session.id).turns()] == ["q", "q2"]


@pytest.mark.parametrize(
    ("fault", "said"),
    [("attempt to write a readonly database", "read only"), ("database or disk is full", "full"),
     ("unable to open database file", "cannot be written or read")],
)
def test_an_intact_store_that_cannot_open_is_never_called_damaged(tmp_path, monkeypatch, capsys, fault, said):
    from haiku_tui.cli import main

    path = tmp_path / "sessions.db"
    SessionStore(path).close()
    real_connect = sqlite3.connect

    class Faulty:  # what SQLite says when the folder is read-only or the disk is full
        def __init__(self, conn):
            self._conn = conn

        def execute(self, sql, *args):
            if sql.startswith("PRAGMA journal_mode"):
                raise sqlite3.OperationalError(fault)
            return self._conn.execute(sql, *args)

        def close(self):
            self._conn.close()

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: Faulty(real_connect(*a, **k)))
    assert main(["sessions", "--sessions-db", str(path), "list"]) == 1
    err = capsys.readouterr().err
    assert said in err and "nothing was saved" in err and "move it aside" not in err and err.count("\n") == 1


def test_peek_reads_the_newest_runs_and_the_state_without_the_rest(store):
    session = store.new(title="Peeked")
    pairs: list[tuple[str, str]] = []
    for i in range(5):
        pairs.append((f"q{i}", f"a{i}"))
        conversation = chat(*pairs, of=session)
        conversation.messages[: 2 * i] = session.conversation.messages
        session.commit_run(conversation, {"rag": {"note": i}})
        store.save(session)
    peek = store.peek("Peeked", runs=2)
    assert peek.first_message == 6 and len(peek.messages) == 4
    assert peek.messages == session.messages[6:] and peek.state == {"rag": {"note": 4}}
    assert peek.summary.id == session.id and peek.summary.questions == 5
    raw(store, "UPDATE session_messages SET data=replace(data, 'a4', 'zz') WHERE start=8")
    with pytest.raises(SessionCorrupt, match="message batch at 8"):
        store.peek(session.id)


def test_a_row_the_migration_could_not_split_is_read_whole_and_split_by_its_next_save(tmp_path):
    path = tmp_path / "sessions.db"
    written = _v1_database(path, 2)
    data = written["old0001"]
    del data["metadata"]["created_at"]  # nothing to index it by: left whole
    text = _payload.dumps(data)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sessions SET payload=?, checksum=? WHERE id='old0001'", (text, _payload.checksum(text)))
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        assert raw(store, "SELECT COUNT(*) FROM session_messages WHERE num=2") == [(0,)]
        session = store.load("old0001")
        assert session.turns()[0].prompt == "old question 1"
        session.commit_run(chat(("old question 1", "x"), ("new question", "y"), of=session), session.state)
        store.save(session)
        assert [t.prompt for t in store.load("old0001").turns()] == ["old question 1", "new question"]
        assert raw(store, "SELECT COUNT(*) FROM session_messages WHERE num=2") == [(2,)]
        assert store.load("old0000").revision == 3
