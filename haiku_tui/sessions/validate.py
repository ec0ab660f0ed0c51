"""Whole-payload checks for imported sessions: the state and app data an import brings must have the shapes
the capabilities and the app read, or the import is refused with one line naming the first bad field.

The conversation is validated by Pydantic AI when the session is built; this checks what JSON alone does
not: the evidence ledger (``haiku_tui.capabilities.ledger``), the citation policy and the review marks.
"""

from __future__ import annotations

from typing import Any

from .errors import SessionCorrupt

def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_int(v) for v in value)


def _optional(check: Any) -> Any:
    return lambda value: value is None or check(value)


_CITATION = {
    "index": _int,
    "chunk_id": lambda v: isinstance(v, str),
    "title": lambda v: isinstance(v, str),
    "path": lambda v: isinstance(v, str),
    "headings": _str_list,
    "pages": _int_list,
    "text": lambda v: isinstance(v, str),
}
_HIT = {"chunk_id": lambda v: isinstance(v, str)}
_DECLARATION = {"epoch": _int, "chunk_ids": _str_list}


def _fields(where: str, value: Any, checks: dict[str, Any], *, required: bool = True) -> None:
    if not isinstance(value, dict):
        raise _bad(where, "is not an object")
    for key, check in checks.items():
        if key not in value:
            if required:
                raise _bad(f"{where}.{key}", "is missing")
            continue
        if not check(value[key]):
            raise _bad(f"{where}.{key}", f"has the wrong type ({type(value[key]).__name__})")


def _bad(where: str, what: str) -> SessionCorrupt:
    return SessionCorrupt(f"the imported session's {where} {what}; nothing was imported")


def _check_question(where: str, record: Any) -> None:
    _fields(where, record, {"question": _int, "prompt": lambda v: isinstance(v, str)})
    _fields(
        where,
        record,
        {
            "searches": lambda v: isinstance(v, list),
            "evidence_epoch": _optional(_int),
            "declaration": lambda v: v is None or isinstance(v, dict),
            "requests": _int,
        },
        required=False,
    )
    for i, search in enumerate(record.get("searches") or []):
        _fields(f"{where}.searches[{i}]", search, {"query": lambda v: isinstance(v, str), "epoch": _int})
        if not isinstance(search.get("hits"), list):
            raise _bad(f"{where}.searches[{i}].hits", "is not a list")
        for j, hit in enumerate(search["hits"]):
            _fields(f"{where}.searches[{i}].hits[{j}]", hit, _HIT)
    if record.get("declaration") is not None:
        _fields(f"{where}.declaration", record["declaration"], _DECLARATION)


def check_state(state: Any) -> None:
    """Refuse a state map whose evidence namespaces or citation policy the capabilities could not read."""
    if not isinstance(state, dict):
        raise _bad("state", "is not an object")
    for name, namespace in state.items():
        if not isinstance(namespace, dict):
            continue
        if name == "citation_policy" and not _int_list(namespace.get("violations", [])):
            raise _bad("state.citation_policy.violations", "is not a list of question numbers")
        if "citation_index" not in namespace and "questions" not in namespace:
            continue  # another capability's namespace: kept as it is
        where = f"state.{name}"
        _fields(
            where,
            namespace,
            {"citation_index": lambda v: isinstance(v, dict), "questions": lambda v: isinstance(v, list)},
        )
        _fields(
            where,
            namespace,
            {"document_filter": _optional(lambda v: isinstance(v, str)), "question": _optional(_int),
             "in_progress": lambda v: isinstance(v, bool)},
            required=False,
        )
        for chunk_id, entry in namespace["citation_index"].items():
            _fields(f"{where}.citation_index[{chunk_id!r}]", entry, _CITATION)
            if entry["chunk_id"] != chunk_id:
                raise _bad(f"{where}.citation_index[{chunk_id!r}].chunk_id", "names another chunk")
        previous = None
        for i, record in enumerate(namespace["questions"]):
            _check_question(f"{where}.questions[{i}]", record)
            if previous is not None and record["question"] <= previous:
                raise _bad(f"{where}.questions[{i}].question", "does not follow the question before it")
            previous = record["question"]


def check_app_data(app_data: Any) -> None:
    """Refuse app data the app could not show: review marks must be ``{"<question>": {chunk_id: mark}}``."""
    from .model import REVIEW_MARKS

    if not isinstance(app_data, dict):
        raise _bad("app_data", "is not an object")
    reviews = app_data.get("reviews")
    if reviews is None:
        return
    if not isinstance(reviews, dict):
        raise _bad("app_data.reviews", "is not an object")
    for question, marks in reviews.items():
        where = f"app_data.reviews[{question!r}]"
        if not (isinstance(question, str) and question.lstrip("-").isdigit()):
            raise _bad(where, "is not keyed by a question number")
        if not isinstance(marks, dict):
            raise _bad(where, "is not an object of chunk id → mark")
        for chunk_id, mark in marks.items():
            if mark not in REVIEW_MARKS:
                raise _bad(f"{where}[{chunk_id!r}]", f"is not a review mark (one of {', '.join(REVIEW_MARKS)})")


def check_import(payload: dict[str, Any]) -> None:
    """Validate everything an import brings besides the conversation (raises ``SessionCorrupt``)."""
    check_state(payload.get("state"))
    check_app_data(payload.get("app_data"))
