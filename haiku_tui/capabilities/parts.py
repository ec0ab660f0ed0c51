"""The capability parts haiku-tui puts in a conversation, registered with Pydantic AI on import.

A history holding one loads as its class only in a process that imported it, so the sessions
layer imports this module before it validates saved messages (otherwise Pydantic AI warns and
loads an ``UnknownCapabilityPart``). Light: it imports only Pydantic AI's messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_ai.messages import DataCapabilityPart, InstructionCapabilityPart


@dataclass(kw_only=True, repr=False)
class BudgetNoticePart(InstructionCapabilityPart, namespace="haiku_tui"):
    """The request-scoped notice that a question's request budget is spent, in the application's voice.

    Kept in the message history (kind ``haiku_tui.budget_notice``); the model sees it only in the
    request it is part of.
    """


PASSAGES_NOTE = (
    "Answer the question below using only the numbered passages in {frame}. Begin with the sentence of the "
    "passages that answers it, copied word for word, and the number of its passage in square brackets; then add at "
    "most two sentences of your own, each ending with the number of the passage it comes from. For example: The "
    "shop opens at nine on weekdays. [2] On Sundays it opens at ten [3]. If the passages do not answer the question, "
    "say that your documents do not answer it, and nothing else."
)


@dataclass(kw_only=True, repr=False)
class PassagesPart(DataCapabilityPart[str], namespace="haiku_tui", tag="passages", note=PASSAGES_NOTE):
    """The passages haiku-tui's own search found for a question answered search-first (kind ``haiku_tui.passages``).

    It is user content of the question's own request (data in a ``<passages>`` frame, the note in the
    application's voice), kept in the history and the saved session; compaction treats it like an earlier
    search's result. ``query`` and ``found`` (passages found) draw its row; neither reaches the model.
    """

    query: str = ""
    found: int = 0


__all__ = ["BudgetNoticePart", "PassagesPart"]
