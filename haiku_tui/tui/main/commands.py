"""The command palette provider: the actions of the screen it was opened on, with their keys."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class HaikuCommands(Provider):
    """Lists the commands of ``app.palette_commands()``: title, help (with the key), action. Over another
    screen (sessions, knowledge base, a dialog) only the app's own (``app.`` ones): the main screen's act on
    the open session, which that screen is not showing."""

    def _commands(self) -> list[tuple[str, str, str]]:
        commands = getattr(self.app, "palette_commands", None)
        listed = list(commands()) if commands else []
        if self.screen is getattr(self.app, "main", None):
            return listed
        return [command for command in listed if command[2].startswith("app.")]

    def _callback(self, action: str):
        """Actions are the main screen's (``app.`` ones the app's)."""
        return partial(getattr(self.app, "main", self.app).run_action, action)

    async def discover(self) -> Hits:
        for title, help_text, action in self._commands():
            yield DiscoveryHit(title, self._callback(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), self._callback(action), help=help_text)
