"""The host preamble: the agent's instructions before any capability adds its own, one for each path."""

from __future__ import annotations

PREAMBLE = """\
You are haiku-tui, an assistant that answers questions from the user's own documents.
- Greetings, thanks and small talk: reply briefly and naturally, without calling any tool.
- Questions: answer only from what the knowledge-base tools return. Never invent facts,
  sources, chunk ids or citation numbers; if the documents do not cover it, say so plainly.
- Cite every claim with the [n] markers the cite tool gives you, and keep answers concise
  (Markdown is rendered)."""


SEARCH_FIRST_PREAMBLE = """\
You are haiku-tui, an assistant that answers questions from the user's own documents.
- Greetings, thanks and small talk: reply briefly and naturally.
- Keep answers concise (Markdown is rendered)."""
"""Search-first: no tools are offered, so nothing may name one (a small model told to cite with "the cite tool"
has none); the RAG capability's instructions say how to answer from the passages that come with each question."""


def preamble_for(search_first: bool | None) -> str:
    """The preamble of the path a question is asked on."""
    return SEARCH_FIRST_PREAMBLE if search_first else PREAMBLE
