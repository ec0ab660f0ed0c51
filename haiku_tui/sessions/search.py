"""Full-text search over sessions: a title row and one row per question in ``session_text``, FTS5 when SQLite
has it (BM25, title words weigh 5×), else ``LIKE``. Every word must occur somewhere in a session (its title or
any of its questions and answers); each word also matches as a prefix."""

from __future__ import annotations

import sqlite3

from . import layout


def like_escape(term: str) -> str:
    """``term`` for a ``LIKE … ESCAPE '\\'`` pattern (its ``%`` and ``_`` taken literally)."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_sessions(
    conn: sqlite3.Connection, fts: bool, query: str, *, limit: int, mark: tuple[str, str]
) -> list[tuple[int, str]]:
    """``(session row number, snippet)`` of the best matches, best first ("" when only the title matched)."""
    terms = [t for t in str(query).split() if any(ch.isalnum() for ch in t)]
    if not terms:
        return []
    scores: dict[int, float] | None = None
    for term in terms:
        found = _term_scores(conn, fts, term)
        scores = found if scores is None else {n: s + found[n] for n, s in scores.items() if n in found}
    ranked = sorted(scores or {}, key=lambda n: (scores or {})[n])[: max(0, int(limit))]
    return [(num, _snippet(_context(conn, num, terms), terms, mark)) for num in ranked]


def _context(conn: sqlite3.Connection, num: int, terms: list[str]) -> str:
    """The first question (prompt and answer) holding a term, with the questions either side of it."""
    for term in terms:
        row = conn.execute(
            "SELECT start, body FROM session_text WHERE num=? AND start>=0 AND body LIKE ? ESCAPE '\\' "
            "ORDER BY start LIMIT 1",
            (num, "%" + like_escape(term) + "%"),
        ).fetchone()
        if row is None:
            continue
        start, body = row
        before = conn.execute(
            "SELECT body FROM session_text WHERE num=? AND start>=0 AND start<? ORDER BY start DESC LIMIT 1",
            (num, start),
        ).fetchone()
        after = conn.execute(
            "SELECT body FROM session_text WHERE num=? AND start>? ORDER BY start LIMIT 1", (num, start)
        ).fetchone()
        return "\n\n".join(text for text in (before and before[0], body, after and after[0]) if text)
    return ""


def _term_scores(conn: sqlite3.Connection, fts: bool, term: str) -> dict[int, float]:
    """Session row number → score (lower is better) of the sessions where ``term`` occurs."""
    if fts:
        try:
            rows = conn.execute(
                f"SELECT t.num, MIN(bm25({layout.FTS_TABLE}, 5.0, 1.0)) FROM {layout.FTS_TABLE} "
                f"JOIN session_text t ON t.tid = {layout.FTS_TABLE}.rowid WHERE {layout.FTS_TABLE} MATCH ? "
                "GROUP BY t.num",
                ('"' + term.replace('"', '""') + '"*',),
            ).fetchall()
            return {num: score for num, score in rows}
        except sqlite3.OperationalError:
            pass  # fall back to LIKE
    pattern = "%" + like_escape(term) + "%"
    rows = conn.execute(
        "SELECT s.num, s.updated_at FROM sessions s WHERE s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM "
        "session_text t WHERE t.num = s.num AND t.body LIKE ? ESCAPE '\\')",
        (pattern, pattern),
    ).fetchall()
    order = sorted(rows, key=lambda r: r[1], reverse=True)  # newest first, like the list
    return {num: float(rank) for rank, (num, _) in enumerate(order)}


def _snippet(body: str, terms: list[str], mark: tuple[str, str], width: int = 60) -> str:
    """A one-line snippet around the first term found in ``body``, the term marked."""
    lower = body.lower()
    for term in terms:
        at = lower.find(term.lower())
        if at >= 0:
            start, end = max(0, at - width), min(len(body), at + len(term) + width)
            text = body[start:at] + mark[0] + body[at : at + len(term)] + mark[1] + body[at + len(term) : end]
            return ("…" if start else "") + " ".join(text.split()) + ("…" if end < len(body) else "")
    return ""
