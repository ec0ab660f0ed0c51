"""Secondary screens of the haiku-tui app and the small modals they share.

* :class:`SessionsScreen` — saved sessions: search, open, new, rename, delete, export.
* :class:`KnowledgeScreen` — the knowledge base: documents, ingest with progress, delete, search playground.
* :mod:`.dialogs` — ``TextInputDialog``, ``ConfirmDialog``, ``TextViewDialog``.
"""

from __future__ import annotations

from .dialogs import ConfirmDialog, TextInputDialog, TextViewDialog
from .knowledge import KnowledgeScreen
from .sessions import SessionsScreen

__all__ = ["ConfirmDialog", "KnowledgeScreen", "SessionsScreen", "TextInputDialog", "TextViewDialog"]

