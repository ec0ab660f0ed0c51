"""Kill a saving process with SIGKILL at random moments: every session must still hold a committed version."""

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

from haiku_tui.sessions import SessionStore
from tests.sessions.store_child import content, fingerprint, payload

KILLS = 200
CHILD = Path(__file__).with_name("store_child.py")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_at_random_moments_leaves_only_committed_versions(tmp_path):
    db = tmp_path / "sessions.db"
    ids = ["crash-a", "crash-b", "crash-c"]
    with SessionStore(db) as store:
        for sid in ids:
            store.write_payload(payload(sid, 0), expected_revision=0)
    reported = {sid: 1 for sid in ids}  # the newest revision a child said it committed (or we verified)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    rng = random.Random(20261130)
    started = time.monotonic()
    kills = mid_write = commits = 0
    while kills < KILLS:
        child = subprocess.Popen(
            [sys.executable, "-S", str(CHILD), str(db), "crash", *ids], stdout=subprocess.PIPE, text=True, env=env
        )
        first = ""
        if rng.random() < 0.1:
            time.sleep(rng.uniform(0, 0.03))  # sometimes while it is still starting / opening the database
        else:
            assert child.stdout.readline() == "ready\n"
            if rng.random() < 0.5:  # half the time after its first commit: on a loaded box a child may commit
                first = child.stdout.readline()  # nothing within the sleep, and the test would only kill idle ones
            time.sleep(rng.uniform(0, 0.03))
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
        out = first + child.stdout.read()
        child.stdout.close()
        lines = [line.split() for line in out.split("\n")[:-1] if line and line != "ready"]
        commits += len(lines)
        for sid, revision in lines:
            reported[sid] = int(revision)

        # every session opens and holds exactly one committed version: the last reported one, or the one after
        # it if the kill landed between COMMIT and the report
        with SessionStore(db) as store:
            for sid in ids:
                data, _ = store.read_payload(sid)  # checksum + JSON + schema checked
                revision = data["revision"]
                assert revision in (reported[sid], reported[sid] + 1), (sid, revision, reported[sid])
                mid_write += revision == reported[sid] + 1
                assert data["state"]["crash"] == content(sid, revision)
                assert data["state"]["crash_fingerprint"] == fingerprint(data["state"]["crash"])
                reported[sid] = revision
    elapsed = time.monotonic() - started

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone() == (len(ids),)
    conn.close()
    with SessionStore(db) as store:
        for sid in ids:
            session = store.load(sid)  # full validation, conversation included
            assert session.revision == reported[sid]
        assert len(store.search("question")) == len(ids)
    print(
        f"\ncrash test: {kills} SIGKILLs, {commits} reported commits, {mid_write} kills between COMMIT and report, "
        f"final revisions {reported}, {elapsed:.1f} s"
    )
    assert commits > KILLS // 2  # the children really were saving when killed (at least once in half the runs)
    assert elapsed < 120
