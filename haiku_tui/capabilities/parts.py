"""The capability parts haiku-tui puts in a conversation, registered with Pydantic AI on import.

A history holding one loads as its class only in a process that imported it, so the sessions
layer imports this module before it validates saved messages (otherwise Pydantic AI warns and
loads an ``UnknownCapabilityPart``). Light: it imports only Pydantic AI's messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic_ai.messages import InstructionCapabilityPart


@dataclass(kw_only=True, repr=False)
class BudgetNoticePart(InstructionCapabilityPart, namespace="haiku_tui"):
    """The request-scoped notice that a question's request budget is spent, in the application's voice.

    Kept in the message history (kind ``haiku_tui.budget_notice``); the model sees it only in the
    request it is part of.
    """


__all__ = ["BudgetNoticePart"]
