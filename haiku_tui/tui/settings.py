"""The theme, remembered in the one user config file (``<data dir>/config.toml``, ``theme = "nord"``)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Container

from haiku_tui.agent.models import config_path
from haiku_tui.text import one_line

_THEME_LINE = re.compile(r"^theme\s*=.*$", re.M)


def load_theme(available: Container[str]) -> str | None:
    """The remembered theme when it is one of ``available`` (a broken or missing file: none)."""
    try:
        theme = tomllib.loads(config_path().read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError):
        return None
    return theme if isinstance(theme, str) and theme in available else None


def save_theme(theme: str) -> str | None:
    """Write ``theme = "<name>"`` into the config file, keeping everything else; the error line on failure."""
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        line = f'theme = "{theme}"'
        if _THEME_LINE.search(text.split("\n[", 1)[0]):
            head, sep, tail = text.partition("\n[")
            text = _THEME_LINE.sub(line, head, count=1) + sep + tail
        else:
            text = f"{line}\n{text}"
        tomllib.loads(text)  # never write a file the model settings could not read
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except (OSError, ValueError) as exc:
        return f"could not save the theme in {path}: {one_line(str(exc), 200)}"
    return None
