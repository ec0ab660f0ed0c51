"""The form of a session as exported and handed around: one JSON document, plus pure helpers over it.

Nothing here imports Pydantic AI, so the store's low-level path (and a process that only moves
payloads around) starts fast. The store keeps a payload in pieces (see :func:`split_state` and
``haiku_tui.sessions.store``) so that a save writes only what a run added. A payload looks like::

    {
      "format": "haiku-tui.session",
      "schema_version": 1,
      "id": "…", "revision": 3,
      "metadata": {"title": …, "title_manual": false, "model": …, "db": …,
                   "created_at": "…Z", "updated_at": "…Z"},
      "conversation": {…},   # ConversationTypeAdapter.dump_python(conv, mode="json")
      "state": {…},          # the whole deps.state namespace map, every key kept
      "app_data": {…}        # the app's own per-session data (review marks …)
    }
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .errors import SessionCorrupt, UnsupportedSchema

FORMAT = "haiku-tui.session"
SCHEMA_VERSION = 1
"""Version of the per-session payload this haiku-tui writes."""
TITLE_MAX = 60
"""Length of an automatic title (from the first question)."""
MANUAL_TITLE_MAX = 200
"""Length a title given by hand or brought by an import is cut to."""
DEFAULT_TITLE = "New session"

# Payload migrations: version N -> a function turning an N payload into an N+1 payload.
PAYLOAD_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def now_iso() -> str:
    """The current UTC time as ``2026-11-30T12:00:00.123456Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(payload: dict[str, Any]) -> str:
    """Canonical JSON text of a payload (what is stored and checksummed)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def checksum(text: str) -> str:
    """SHA-256 of a stored JSON text (a session's head row, a message batch, a state row)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_title(prompt: str, limit: int = TITLE_MAX) -> str:
    """A one-line title from a question: whitespace collapsed, cut at a word boundary near ``limit``."""
    text = " ".join(str(prompt).split())
    if not text:
        return DEFAULT_TITLE
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def clean_title(title: object) -> str:
    """A title as stored: on one line (whitespace collapsed), at most ``MANUAL_TITLE_MAX`` characters; may be empty."""
    return " ".join(str(title).split())[:MANUAL_TITLE_MAX]


def upgrade(payload: Any, *, where: str) -> dict[str, Any]:
    """Check a parsed payload's shape and version, migrating an older version to the current one.

    Raises ``UnsupportedSchema`` for a newer/unknown version and ``SessionCorrupt`` for a wrong shape;
    ``where`` names the row or file in the message.
    """
    if not isinstance(payload, dict):
        raise SessionCorrupt(f"{where} is not a session (expected a JSON object); nothing was changed")
    version = payload.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise UnsupportedSchema(
            f"{where} has no valid schema_version ({version!r}); this haiku-tui reads versions 1..{SCHEMA_VERSION}; "
            "nothing was changed"
        )
    if version > SCHEMA_VERSION or version < 1:
        raise UnsupportedSchema(
            f"{where} uses session schema version {version}, but this haiku-tui reads versions 1..{SCHEMA_VERSION} "
            "(was it written by a newer haiku-tui?); nothing was changed"
        )
    while payload["schema_version"] < SCHEMA_VERSION:
        payload = PAYLOAD_MIGRATIONS[payload["schema_version"]](payload)
    for key, kind in (("metadata", dict), ("conversation", dict), ("state", dict), ("app_data", dict)):
        if not isinstance(payload.get(key), kind):
            raise SessionCorrupt(f"{where}: field {key!r} is missing or not a JSON object; nothing was changed")
    if not isinstance(payload.get("id"), str) or not payload["id"]:
        raise SessionCorrupt(f"{where}: field 'id' is missing; nothing was changed")
    return payload


# ---------------------------------------------------------------------------------------------------------
# Reading the conversation's JSON form (messages as dumped by ModelMessagesTypeAdapter, mode="json")


@dataclass
class Turn:
    """One question of the conversation: the user's prompt and the answer the run ended with."""

    number: int  # 1-based position in the conversation
    prompt: str
    answer: str
    run_id: str | None
    first_message: int  # index in messages where the turn starts


def _prompt_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal: strings and file/image parts
        return "\n".join(item for item in content if isinstance(item, str))
    return ""


def turns_from_messages(messages: list[dict[str, Any]]) -> list[Turn]:
    """The conversation's questions, in order, from its JSON messages.

    A turn starts at a request carrying a user prompt from a new run (a user prompt added inside the same run,
    such as a policy redirect, belongs to the running question). The answer is the text of the last response
    of the turn that has any text.
    """
    turns: list[Turn] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        parts = message.get("parts") or []
        run_id = message.get("run_id")
        if message.get("kind") == "request":
            prompts = [
                _prompt_text(p.get("content"))
                for p in parts
                if isinstance(p, dict) and p.get("part_kind") == "user-prompt"
            ]
            if not prompts:
                continue
            if turns and run_id is not None and turns[-1].run_id == run_id:
                continue
            turns.append(Turn(len(turns) + 1, "\n".join(prompts), "", run_id, index))
        elif message.get("kind") == "response" and turns:
            texts = [p.get("content") or "" for p in parts if isinstance(p, dict) and p.get("part_kind") == "text"]
            if texts:
                turns[-1].answer = "".join(texts)
    return turns


def _evidence_namespaces(state: Any) -> list[dict[str, Any]]:
    # Same test as haiku_tui.capabilities.ledger.is_evidence_namespace (kept here: no capability import).
    if not isinstance(state, dict):
        return []
    return [ns for ns in state.values() if isinstance(ns, dict) and "citation_index" in ns and "questions" in ns]


def question_count(state: dict[str, Any], turns: list[Turn] | int) -> int:
    """Questions asked: the conversation's turns (a list or their number), or the evidence record's questions
    if it knows more."""
    recorded = {
        r.get("question")
        for ns in _evidence_namespaces(state)
        if isinstance(ns.get("questions"), list)
        for r in ns["questions"]
        if isinstance(r, dict)
    }
    return max(turns if isinstance(turns, int) else len(turns), len(recorded))


def citation_count(state: dict[str, Any]) -> int:
    """Distinct chunks cited across the conversation (keys of every namespace's ``citation_index``)."""
    cited: set[str] = set()
    for ns in _evidence_namespaces(state):
        if isinstance(ns["citation_index"], dict):
            cited.update(ns["citation_index"])
    return len(cited)


def turn_text(turn: Turn) -> str:
    """What full-text search indexes of one turn: its prompt and its answer."""
    return "\n\n".join(part for part in (turn.prompt, turn.answer) if part)


# ---------------------------------------------------------------------------------------------------------
# The state map in rows: a save rewrites only the rows a run changed.

StateRow = tuple[str, Any]
"""(kind, value): kind "leaf" (value is the JSON value), "dict" or "list" (a container; value None), "record" (a
question record: stored with its :data:`DETAILS` as nulls) or "detail" (one of a record's details, its own row)."""

RECORDS = "questions"
"""The field of an evidence namespace holding its per-question records."""
DETAILS = ("searches", "executions")
"""The bulky fields of a question record (search hits with snippets, programs and their output): read only by
the views of that question (and the run asking it), each stored in a row of its own so that a partial load
(:meth:`SessionStore.load` with ``questions``) leaves those of older questions unread."""


class Unread:
    """Stands for a record's detail a partial load did not read: any use of it (iterating it, its length, JSON)
    fails with a line saying so, never passes for "no searches"."""

    __slots__ = ()

    def __iter__(self) -> Any:
        raise ValueError(
            "this session was opened with its newest questions only: an earlier question's searches and programs "
            "were not read; open it whole"
        )

    __len__ = __iter__

    def __repr__(self) -> str:
        return "<unread>"


UNREAD = Unread()


def _record_container(value: Any) -> bool:
    """A dict or list of JSON objects (per-question records, citation entries): stored one row per item."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return bool(items) and all(isinstance(item, dict) for item in items)


def split_state(state: dict[str, Any]) -> dict[str, StateRow]:
    """The state map as rows keyed by JSON path text: ``["ns"]``, ``["ns","field"]``, ``["ns","field",key]``.

    A namespace is a container row and each of its fields a row; a field holding records (a list or dict of
    objects, e.g. ``questions`` or ``citation_index``) is a container row with one row per record, so a run
    that adds a question writes that question's row, not every question's. A question record's
    :data:`DETAILS` are rows of their own below it (``["ns","questions",3,"searches"]``).
    """
    rows: dict[str, StateRow] = {}
    for name, namespace in state.items():
        if not isinstance(namespace, dict):
            rows[_path(name)] = ("leaf", namespace)
            continue
        rows[_path(name)] = ("dict", None)
        for field, value in namespace.items():
            if not _record_container(value):
                rows[_path(name, field)] = ("leaf", value)
                continue
            container = _path(name, field)
            rows[container] = ("dict" if isinstance(value, dict) else "list", None)
            prefix = container[:-1] + ","  # the record rows' paths, written out: thousands per save
            if isinstance(value, dict):
                for key, item in value.items():
                    rows[prefix + _quote(str(key)) + "]"] = ("leaf", item)
            elif field == RECORDS:
                for index, item in enumerate(value):
                    path = f"{prefix}{index}"
                    rows[path + "]"] = ("record", item)
                    for detail in DETAILS:
                        if detail in item:
                            rows[f'{path},"{detail}"]'] = ("detail", item[detail])
            else:
                for index, item in enumerate(value):
                    rows[f"{prefix}{index}]"] = ("leaf", item)
    return rows


def row_value(kind: str, value: Any) -> Any:
    """What a row stores of its value: a record without its details (nulls in their places, so the joined
    record keeps its key order), anything else as it is."""
    if kind == "record" and isinstance(value, dict):
        return {k: None if k in DETAILS else v for k, v in value.items()}
    return value


def join_state(rows: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """The state map from ``(path, kind, value)`` rows in their stored order (inverse of :func:`split_state`)."""
    state: dict[str, Any] = {}
    lists: list[tuple[dict[str, Any], str]] = []
    paths = json.loads("[" + ",".join(path for path, _, _ in rows) + "]")
    for path, (_, kind, value) in zip(paths, rows):
        parent: Any = state
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        if kind == "dict":
            parent[key] = {}
        elif kind == "list":
            parent[key] = {}  # filled by index, turned into a list below
            lists.append((parent, key))
        else:  # a leaf, a record (its details follow it) or a detail
            parent[key] = value
    for parent, key in lists:
        parent[key] = [item for _, item in sorted(parent[key].items())]
    return state


def _path(*steps: Any) -> str:
    """The JSON text of a path (``dumps`` of the list, written out: one call per state row adds up)."""
    return "[" + ",".join(str(s) if isinstance(s, int) else _quote(str(s)) for s in steps) + "]"


_quote = json.encoder.encode_basestring  # type: ignore[attr-defined]


_ID_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


def valid_id(value: str) -> bool:
    return bool(_ID_RE.match(value))
