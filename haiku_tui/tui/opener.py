"""The command that opens a citation's source at its place: ``$VISUAL``/``$EDITOR`` at the line, else the
system opener."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from haiku_tui.store.locate import SourceLocation

_PLUS_LINE = frozenset(
    {"vi", "vim", "nvim", "view", "nano", "emacs", "emacsclient", "micro", "kak", "hx", "helix", "joe", "mg"}
)
_COLON_LINE = {"code": ["-g"], "codium": ["-g"], "subl": [], "zed": [], "gedit": []}
_PAGE_VIEWERS = {"zathura": "--page={page}", "evince": "--page-label={page}", "okular": "--page={page}"}


def open_command(where: SourceLocation, env: Mapping[str, str]) -> tuple[list[str], bool]:
    """``(argv, in_terminal)``: how to open ``where``; ``in_terminal`` when the program takes over the terminal.

    Text formats go to ``$VISUAL`` or ``$EDITOR`` at the line; PDFs to a viewer that takes a page
    (zathura, evince, okular) when one is installed, else to the system opener.
    """
    path = where.path
    if where.page is not None or Path(path).suffix.lower() == ".pdf":
        for viewer, flag in _PAGE_VIEWERS.items():
            if shutil.which(viewer):
                return [viewer, *([flag.format(page=where.page)] if where.page else []), path], False
        return [_system_opener(), path], False
    editor = env.get("VISUAL") or env.get("EDITOR")
    if not editor:
        return [_system_opener(), path], False
    argv = shlex.split(editor)
    name = Path(argv[0]).name
    if where.line and name in _PLUS_LINE:
        return [*argv, f"+{where.line}", path], True
    if name in _COLON_LINE:
        return [*argv, *_COLON_LINE[name], f"{path}:{where.line}" if where.line else path], False
    return [*argv, path], True


def _system_opener() -> str:
    return "open" if sys.platform == "darwin" else "xdg-open"
