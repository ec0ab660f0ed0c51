"""Question history for the prompt box: ↑/↓ walk this session's questions, then other sessions'."""

from __future__ import annotations

from collections.abc import Iterable


class PromptHistory:
    """Recall of earlier questions, newest first; the text being typed is kept as a draft.

    ``session`` and ``others`` are oldest-first; duplicates keep their newest place.
    """

    def __init__(self, session: Iterable[str] = (), others: Iterable[str] = ()) -> None:
        self._entries: list[str] = []  # newest first
        for prompt in [*others, *session]:
            self.add(prompt)
        self._pos = -1
        self._draft = ""

    def add(self, prompt: str) -> None:
        """Remember a question just asked (it becomes the newest entry) and end any recall."""
        prompt = prompt.strip()
        if prompt:
            if prompt in self._entries:
                self._entries.remove(prompt)
            self._entries.insert(0, prompt)
        self._pos = -1

    @property
    def recalling(self) -> bool:
        return self._pos >= 0

    def older(self, current: str) -> str | None:
        """The entry before the one shown (``current`` is saved as the draft on the first step)."""
        if self._pos + 1 >= len(self._entries):
            return None
        if self._pos < 0:
            self._draft = current
        self._pos += 1
        return self._entries[self._pos]

    def newer(self) -> str | None:
        """The entry after the one shown, or the draft when stepping past the newest."""
        if self._pos < 0:
            return None
        self._pos -= 1
        return self._draft if self._pos < 0 else self._entries[self._pos]

    def reset(self) -> None:
        self._pos = -1
