"""``haiku-tui serve``: the app in a browser, through textual-serve.

Every browser tab that opens the page starts its own ``haiku-tui`` process (Textual's web
driver) with the same knowledge base, model and sessions as the terminal app.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence


def app_command(app_args: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser session."""
    return shlex.join([sys.executable, "-m", "haiku_tui.cli", *app_args])


def serve(app_args: Sequence[str], *, host: str, port: int) -> None:
    """Serve the app at ``http://host:port/`` until interrupted."""
    from textual_serve.server import Server

    Server(app_command(app_args), host=host, port=port, title="haiku-tui").serve()
