"""The evidence ledger: what every question retrieved and cited, as plain JSON in ``deps.state``.

An evidence capability owns one namespace of the state map (``"rag"``, ``"analysis"``) shaped as::

    {
      "citation_index": {chunk_id: {"index": 1, "chunk_id", "document_id", "title", "path",
                                    "headings": [...], "pages": [...], "text", "capability"}},
      "document_filter": None | "SQL predicate",
      "question": None | int,        # identity of the latest question
      "in_progress": bool,           # a run of that question has not finished yet
      "questions": [{
          "question": int,           # identity: messages in history when it was asked
          "prompt": str,
          "searches": [{"query": str, "epoch": int, "hits": [hit, ...]}],
          "evidence_epoch": None | int,   # latest epoch that produced evidence
          "declaration": None | {"epoch": int, "chunk_ids": [...]},
          "requests": int,           # model requests while the capability was loaded
          # search-first only: the search's "by": "haiku-tui"; "passages": {label: chunk_id};
          # "attribution": [{"sentence", "chunk_id" | None, "score"}]; the declaration's "attributed": [...]
      }],
    }

Epochs count messages: a question's identity is the number of messages already in history when
it was asked, and an event's epoch is the number of messages in history when its tool ran, so
every capability computes the same numbers without sharing a counter.

Everything here is pure: no I/O, no Pydantic AI.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any, Literal

from haiku_tui.capabilities.errors import HistoryRegression

CitationStatus = Literal["grounded", "ungrounded", "missing"]

POLICY_KEY = "citation_policy"


def new_namespace() -> dict[str, Any]:
    """An empty evidence namespace."""
    return {"citation_index": {}, "document_filter": None, "question": None, "in_progress": False, "questions": []}


def is_evidence_namespace(value: Any) -> bool:
    """True for a namespace written by an evidence capability (has a citation index and questions)."""
    return isinstance(value, dict) and "citation_index" in value and "questions" in value


def evidence_namespaces(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every evidence namespace in a state map, by key."""
    return {key: value for key, value in state.items() if is_evidence_namespace(value)}


def find_question(namespace: dict[str, Any], question: int) -> dict[str, Any] | None:
    """The record of ``question`` in one namespace, if that capability saw it.

    Records are kept in increasing identity (:func:`begin_question` refuses anything else), so this is a
    binary search: views and capabilities look questions up per question, on sessions of thousands.
    """
    records = namespace.get("questions", [])
    at = bisect_right(records, question, key=_identity)
    if at and records[at - 1]["question"] == question:
        return records[at - 1]
    return None


def prompt_of(state: dict[str, Any], question: int) -> str:
    """The words of ``question`` as its first record holds them ("" when no namespace saw it)."""
    return next((r["prompt"] for ns in evidence_namespaces(state).values() if (r := find_question(ns, question))), "")


def _identity(record: dict[str, Any]) -> int:
    return record["question"]


def current_record(namespace: dict[str, Any]) -> dict[str, Any] | None:
    """The record of the namespace's latest question."""
    if namespace.get("question") is None:
        return None
    return find_question(namespace, namespace["question"])


def begin_question(namespace: dict[str, Any], question: int, prompt: str) -> dict[str, Any]:
    """Start the record of a new question; identities only grow (history is append-only)."""
    previous = namespace.get("question")
    if previous is not None and question <= previous:
        raise HistoryRegression(
            f"question identity went backwards ({question} after {previous}): the message history "
            "passed to this run is shorter than the one the carried state was recorded with. Pass the "
            "whole history saved with this state, or start a new conversation with an empty state."
        )
    record = {
        "question": question,
        "prompt": prompt,
        "searches": [],
        "evidence_epoch": None,
        "declaration": None,
        "requests": 0,
    }
    namespace["questions"].append(record)
    namespace["question"] = question
    namespace["in_progress"] = True
    return record


def note_search(record: dict[str, Any], query: str, hits: list[dict[str, Any]], epoch: int) -> list[dict[str, Any]]:
    """Merge a search's hits into the question record; a repeated query keeps earlier hits.

    Returns the merged hit list for that query.
    """
    for search in record["searches"]:
        if search["query"] == query:
            known = {hit["chunk_id"] for hit in search["hits"]}
            search["hits"].extend(hit for hit in hits if hit["chunk_id"] not in known)
            search["epoch"] = epoch
            break
    else:
        search = {"query": query, "epoch": epoch, "hits": list(hits)}
        record["searches"].append(search)
    note_evidence(record, epoch)
    return search["hits"]


def note_evidence(record: dict[str, Any], epoch: int) -> None:
    """Record that evidence arrived at ``epoch`` (it makes earlier declarations stale)."""
    current = record.get("evidence_epoch")
    record["evidence_epoch"] = epoch if current is None else max(current, epoch)


def declare(record: dict[str, Any], chunk_ids: list[str], epoch: int) -> dict[str, Any]:
    """Record a declaration; one made with no newer evidence since the last one extends it.

    So a second, empty cite cannot narrow an answer already declared grounded, while a
    declaration made after new evidence replaces the stale one.
    """
    existing = record.get("declaration")
    evidence = record.get("evidence_epoch")
    if existing is not None and (evidence is None or evidence < existing["epoch"]):
        merged = existing["chunk_ids"] + [c for c in chunk_ids if c not in existing["chunk_ids"]]
        record["declaration"] = {"epoch": epoch, "chunk_ids": merged}
    else:
        record["declaration"] = {"epoch": epoch, "chunk_ids": list(dict.fromkeys(chunk_ids))}
    return record["declaration"]


def retrieved_ids(record: dict[str, Any]) -> list[str]:
    """Chunk ids a question retrieved, in first-seen order."""
    seen: dict[str, None] = {}
    for search in record.get("searches", []):
        for hit in search["hits"]:
            seen.setdefault(hit["chunk_id"], None)
    return list(seen)


def next_citation_number(state: dict[str, Any]) -> int:
    """The next conversation-wide citation number, across every evidence namespace."""
    numbers = [c["index"] for ns in evidence_namespaces(state).values() for c in ns["citation_index"].values()]
    return max(numbers, default=0) + 1


def citation_for(state: dict[str, Any], chunk_id: str) -> dict[str, Any] | None:
    """The citation entry of a chunk in any evidence namespace."""
    for namespace in evidence_namespaces(state).values():
        if chunk_id in namespace["citation_index"]:
            return namespace["citation_index"][chunk_id]
    return None


def _question_records(state: dict[str, Any], question: int) -> list[dict[str, Any]]:
    return [r for ns in evidence_namespaces(state).values() if (r := find_question(ns, question)) is not None]


def evidence_horizon(state: dict[str, Any], question: int) -> int | None:
    """The latest epoch at which any evidence capability produced evidence for ``question``."""
    epochs = [r["evidence_epoch"] for r in _question_records(state, question) if r["evidence_epoch"] is not None]
    return max(epochs, default=None)


def current_declarations(state: dict[str, Any], question: int) -> list[dict[str, Any]]:
    """Declarations for ``question`` made after the last evidence any capability produced for it.

    A cite in the same response as a search (same epoch) could not have read the results, so it
    is not current; nor is one followed by a search of another capability.
    """
    return _current(_question_records(state, question))


def _current(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The current declarations among one question's records (one per capability)."""
    horizon = max((r["evidence_epoch"] for r in records if r["evidence_epoch"] is not None), default=None)
    return [
        r["declaration"]
        for r in records
        if r["declaration"] is not None and (horizon is None or r["declaration"]["epoch"] > horizon)
    ]


def newest_first(state: dict[str, Any], before: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """Each question before ``before`` with its records (one per namespace that saw it, in namespace order),
    newest first and lazily: a caller that stops early reads only the newest records, however long the ledger."""
    streams = []
    for namespace in evidence_namespaces(state).values():
        records = namespace["questions"]
        streams.append(_back_from(records, bisect_left(records, before, key=_identity)))
    group: list[dict[str, Any]] = []
    for record in heapq.merge(*streams, key=_identity, reverse=True):
        if group and group[0]["question"] != record["question"]:
            yield group[0]["question"], group
            group = []
        group.append(record)
    if group:
        yield group[0]["question"], group


def _back_from(records: list[dict[str, Any]], at: int) -> Iterator[dict[str, Any]]:
    for i in range(at - 1, -1, -1):
        yield records[i]


def current_ids(records: list[dict[str, Any]]) -> list[str]:
    """Chunk ids one question's records (one per capability) currently declare."""
    out: dict[str, None] = {}
    for declaration in _current(records):
        out.update(dict.fromkeys(declaration["chunk_ids"]))
    return list(out)


def until_all_cited(
    state: dict[str, Any], before: int, seen: set[str]
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """:func:`newest_first`, until ``seen`` (which the caller fills with the chunk ids it met) holds every chunk
    of the citation indexes: whatever an older question cited, a newer one cited again."""
    cited = {chunk_id for namespace in evidence_namespaces(state).values() for chunk_id in namespace["citation_index"]}
    for question, records in newest_first(state, before):
        if cited and len(seen) >= len(cited) and cited <= seen:
            return
        yield question, records


def citation_status(state: dict[str, Any], question: int) -> CitationStatus:
    """Status of ``question``: grounded (cited evidence), ungrounded (cited ``[]``) or missing."""
    declarations = current_declarations(state, question)
    if not declarations:
        return "missing"
    return "grounded" if any(d["chunk_ids"] for d in declarations) else "ungrounded"


def cited_ids(state: dict[str, Any], question: int) -> list[str]:
    """Chunk ids currently declared for ``question``, across capabilities."""
    return current_ids(_question_records(state, question))


def attributed_ids(state: dict[str, Any], question: int) -> list[str]:
    """Chunk ids ``question`` declares that haiku-tui attributed its answer to (no ``[n]`` of the model's)."""
    out: dict[str, None] = {}
    for declaration in current_declarations(state, question):
        out.update(dict.fromkeys(declaration.get("attributed") or ()))
    return list(out)


def searched_by(state: dict[str, Any], question: int) -> str:
    """Who searched for ``question``: ``"haiku-tui"`` (search-first), ``"model"`` (a search tool) or ``""``."""
    searches = [s for r in _question_records(state, question) for s in r.get("searches", ())]
    if any(s.get("by") == "haiku-tui" for s in searches):
        return "haiku-tui"
    return "model" if searches or has_evidence(state, question) else ""


def unconfirmed(state: dict[str, Any], question: int) -> list[int]:
    """The markers of ``question``'s search-first answer that back none of its sentences (a bare ``[1]``, or a
    sentence its passage does not hold): registered, not declared."""
    return sorted({n for r in _question_records(state, question) for n in r.get("unconfirmed") or ()})


def echoed(state: dict[str, Any], question: int) -> bool:
    """True when ``question``'s search-first answer wrote its request (instructions, passages) back."""
    return any(r.get("echoed") for r in _question_records(state, question))


def note_asked_again(state: dict[str, Any], question: int, lines: list[str]) -> None:
    """Record on ``question``'s records why it was asked again (search-first, or with fewer earlier questions
    for the model's context), shown when the session is reopened and exported."""
    for record in _question_records(state, question):
        record["asked_again"] = list(lines)


def asked_again(state: dict[str, Any], question: int) -> list[str]:
    """Why ``question`` was asked again, in order (empty when it was not)."""
    lines = next((r["asked_again"] for r in _question_records(state, question) if r.get("asked_again")), [])
    return [str(line) for line in lines] if isinstance(lines, list) else []


def attribution(state: dict[str, Any], question: int) -> list[dict[str, Any]]:
    """The unmarked sentences of ``question``'s search-first answer, each with the chunk it was attributed to
    (``"chunk_id"`` None: none) and its score."""
    return [a for r in _question_records(state, question) for a in r.get("attribution") or ()]


def has_evidence(state: dict[str, Any], question: int) -> bool:
    """True when ``question`` produced an evidence outcome in some capability."""
    return evidence_horizon(state, question) is not None


def cited_before(state: dict[str, Any], question: int) -> bool:
    """True when a question before ``question`` cited something (it stays available later): found from the
    newest question back, so it usually reads one record."""
    return any(current_ids(records) for _, records in newest_first(state, question))


def violations(state: dict[str, Any]) -> list[int]:
    """Questions the citation policy recorded as violations."""
    return list(state.get(POLICY_KEY, {}).get("violations", []))
