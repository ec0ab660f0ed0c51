"""Reviewed citations as evaluation cases, and the latest figures they gave (beside the sessions database).

Every citation a user marked *supports* in the review screen says: this question should find this
document. :func:`review_cases` turns them into :class:`~haiku_tui.store.evaluation.Case` objects
(question → the cited chunk's document path), so ``haiku-tui eval --from-reviews`` and the
knowledge-base screen can rerun them after a re-index, a new embedder or a sync.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from haiku_tui import locations
from haiku_tui.capabilities.ledger import evidence_namespaces, prompt_of
from haiku_tui.store.evaluation import Case, Evaluation, evaluation_json

from .model import ReviewMark

if TYPE_CHECKING:
    from .store import SessionStore

FIGURES_FILE = "review-evaluations.json"
"""The latest ``--from-reviews`` figures per knowledge base, beside ``sessions.db``."""


@dataclass
class ReviewCases:
    """The cases of the sessions made on one knowledge base, and what was left out (one line each)."""

    cases: list[Case] = field(default_factory=list)
    sessions: int = 0
    other_kb: int = 0
    notices: list[str] = field(default_factory=list)


def _same_kb(session_db: str | None, kb_uri: str | None) -> bool:
    if kb_uri is None or not session_db:
        return True
    try:
        return locations.resolve_db(session_db) == locations.resolve_db(kb_uri)
    except OSError:
        return session_db == kb_uri


def review_cases(store: SessionStore, kb_uri: str | None = None) -> ReviewCases:
    """Every citation marked *supports* in the sessions of ``store`` made on ``kb_uri`` (None: all) as a case:
    the question's words → the cited chunk's document path. A question reviewed twice is one case per document."""
    found = ReviewCases()
    seen: set[tuple[str, str]] = set()
    for summary in store.list():
        if not summary.supported or not summary.citations:
            continue
        if not _same_kb(summary.db, kb_uri):
            found.other_kb += 1
            continue
        try:
            peek = store.peek(summary.id, runs=1)
        except Exception as exc:  # a damaged session costs its cases, never the others'
            found.notices.append(f"session {summary.id} was left out: {exc}")
            continue
        reviews = peek.app_data.get("reviews")
        if not isinstance(reviews, dict):
            continue
        index: dict[str, Any] = {}
        for namespace in evidence_namespaces(peek.state).values():
            index.update(namespace.get("citation_index", {}))
        added = 0
        for question, marks in reviews.items():
            if not (isinstance(question, str) and question.isdigit() and isinstance(marks, dict)):
                continue
            prompt = prompt_of(peek.state, int(question)).strip()
            for chunk_id, mark in marks.items():
                entry = index.get(chunk_id)
                if mark != ReviewMark.SUPPORTS or not prompt or not isinstance(entry, dict) or not entry.get("path"):
                    continue
                key = (prompt, str(entry["path"]))
                if key not in seen:
                    seen.add(key)
                    found.cases.append(Case(prompt, (str(entry["path"]),)))
                    added += 1
        found.sessions += bool(added)
    return found


def figures_path(store: SessionStore) -> Path:
    return Path(store.path).parent / FIGURES_FILE


def save_figures(store: SessionStore, kb_uri: str, evaluation: Evaluation) -> None:
    """Keep ``evaluation`` as the latest review figures of ``kb_uri``, with the time (written atomically)."""
    when = datetime.now(UTC).isoformat(timespec="seconds")
    path = figures_path(store)
    data = _read(path)
    data[kb_uri] = {"when": when, **evaluation_json(evaluation)}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".review-evaluations-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def latest_figures(store: SessionStore, kb_uri: str) -> dict[str, Any] | None:
    """The latest review figures saved for ``kb_uri`` (``evaluation_json`` plus ``"when"``), if any."""
    figures = _read(figures_path(store)).get(kb_uri)
    return figures if isinstance(figures, dict) and isinstance(figures.get("recall"), (int, float)) else None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def evaluate_reviews(store: SessionStore, kb: Any, *, k: int = 5) -> tuple[ReviewCases, Evaluation | None]:
    """Rerun the reviewed citations of ``kb``'s sessions through its search and keep the figures (None: no cases)."""
    from haiku_tui.store.evaluation import evaluate

    found = review_cases(store, kb.uri)
    if not found.cases:
        return found, None
    evaluation = evaluate(lambda question, limit: kb.search(question, limit=limit), found.cases, k=k)
    save_figures(store, kb.uri, evaluation)
    return found, evaluation
