"""A child process for the multi-process and crash tests: moves raw payloads through the store's low-level
path (stdlib + ``haiku_tui.sessions.store`` only, so it starts fast).

    python store_child.py DB hammer ROUNDS ID...   load/modify/save each id ROUNDS times; prints "ok stale"
    python store_child.py DB crash ID...           save forever, printing "ID REVISION" after each commit
    python store_child.py DB open                   open the store (migrating an older database), then exit
"""

from __future__ import annotations

import hashlib
import json
import sys


def content(session_id: str, revision: int) -> dict:
    """The state a crash-test session holds at a revision (deterministic, up to ~24 KB)."""
    seed = hashlib.sha256(f"{session_id}:{revision}".encode()).hexdigest()
    return {"revision_seen": revision, "blob": seed * (1 + (revision * 37) % 400)}


def fingerprint(value: dict) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def payload(session_id: str, revision: int) -> dict:
    """A raw session payload whose state is ``content(id, revision + 1)`` (the revision it will be saved as)."""
    state = {"crash": content(session_id, revision + 1)}
    state["crash_fingerprint"] = fingerprint(state["crash"])
    return {
        "format": "haiku-tui.session",
        "schema_version": 1,
        "id": session_id,
        "revision": revision,
        "metadata": {"title": f"crash {session_id}", "title_manual": True},
        "conversation": {
            "messages": [
                {
                    "kind": "request",
                    "run_id": f"r{revision}",
                    "parts": [{"part_kind": "user-prompt", "content": f"question {revision + 1}"}],
                },
                {
                    "kind": "response",
                    "run_id": f"r{revision}",
                    "parts": [{"part_kind": "text", "content": state["crash"]["blob"][:200]}],
                },
            ]
        },
        "state": state,
        "app_data": {},
    }


def main() -> None:
    from haiku_tui.sessions.errors import StaleSession
    from haiku_tui.sessions.store import SessionStore

    db, mode, *rest = sys.argv[1:]
    store = SessionStore(db)
    if mode == "open":
        return
    if mode == "hammer":
        rounds, ids = int(rest[0]), rest[1:]
        ok = stale = 0
        for i in range(rounds):
            for sid in ids:
                data, checksum = store.read_payload(sid)
                data["app_data"].setdefault("log", []).append(i)
                try:
                    store.write_payload(data, expected_revision=data["revision"], expected_checksum=checksum)
                    ok += 1
                except StaleSession:
                    stale += 1
        print(ok, stale, flush=True)
    elif mode == "crash":
        ids = rest
        print("ready", flush=True)
        i = 0
        while True:
            sid = ids[i % len(ids)]
            i += 1
            data, checksum = store.read_payload(sid)
            revision, _ = store.write_payload(
                payload(sid, data["revision"]), expected_revision=data["revision"], expected_checksum=checksum
            )
            sys.stdout.write(f"{sid} {revision}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
