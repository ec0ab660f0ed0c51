"""A question's outcome as JSON: what ``haiku-tui ask --json`` prints and the MCP server's ``ask`` returns."""

from __future__ import annotations

from typing import Any

from .views import citations_by_number, grounding_note, question_views


def answer_report(
    state: dict[str, Any], messages: list[Any], *, compaction: bool, answer: str, offset: int = 0
) -> dict[str, Any]:
    """``{"answer", "citations", "status", "policy", "unbacked", "grounding", "attributed", "unsupported",
    "support"}`` for the latest question (``offset``: the index in the whole history of ``messages[0]``).

    ``grounding`` is the line that says why the answer is not grounded (None when it is); each citation's
    ``"by"`` says who tied the answer to it: ``"model"`` (its ``[n]``) or ``"haiku-tui"`` (attributed, search-first);
    ``unsupported``: the unmarked sentences of a search-first answer that match none of its passages."""
    views = question_views(state, messages, compaction=compaction, last=1, offset=offset)
    view = views[-1] if views else None
    citations = []
    if view is not None:
        by_number = citations_by_number(state)
        for number in view.citations:
            entry = by_number.get(number)
            if entry is None:
                continue
            citations.append(
                {
                    "number": number,
                    "chunk_id": entry["chunk_id"],
                    "title": entry.get("title"),
                    "headings": list(entry.get("headings") or []),
                    "pages": list(entry.get("pages") or []),
                    "path": entry.get("path"),
                    "by": "haiku-tui" if number in view.attributed else "model",
                }
            )
    return {
        "answer": answer,
        "citations": citations,
        "status": view.policy.declaration if view is not None else "missing",
        "policy": view.policy.outcome if view is not None else "not enforced",
        "unbacked": list(view.policy.unbacked) if view is not None else [],
        "grounding": (view.grounding_note if view is not None else grounding_note("missing", (), "")) or None,
        "attributed": list(view.attributed) if view is not None else [],
        "unsupported": list(view.unsupported) if view is not None else [],
        "unconfirmed": list(view.unconfirmed) if view is not None and view.unconfirmed_note else [],
        "support": [support_entry(claim) for claim in view.support] if view is not None else [],
    }


def support_entry(claim: Any) -> dict[str, Any]:
    """One scored claim (``haiku_tui.capabilities.support.ClaimSupport``) as JSON."""
    return {
        "number": claim.number,
        "sentence": claim.sentence,
        "chunk_id": claim.chunk_id,
        "score": round(claim.score, 3),
        "lexical": round(claim.lexical, 3),
        "semantic": None if claim.semantic is None else round(claim.semantic, 3),
        "weak": claim.weak,
        "by": claim.by,
    }
