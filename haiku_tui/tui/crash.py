"""An uncaught exception in the app: the whole traceback goes to a crash log, the terminal gets one line."""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from haiku_tui.tui.text import clean_line


def write_crash_log(error: BaseException) -> Path | None:
    """Write ``error``'s traceback (secrets redacted) to ``<data dir>/crash-<time>.log``; None if it cannot be."""
    from haiku_tui import locations
    from haiku_tui.sessions.scrub import scrub_text

    text = "".join(traceback.format_exception(error))
    inner = getattr(error, "error", None)  # a worker's failure (WorkerFailed) holds the traceback that matters
    if isinstance(inner, BaseException) and inner is not error:
        text = "".join(traceback.format_exception(inner)) + "\n" + text
    try:
        path = locations.data_dir() / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
        path.write_text(scrub_text(text), encoding="utf-8")
    except OSError:
        return None
    return path


def crash_line(error: BaseException, log: Path | None) -> str:
    """The one line the terminal shows after a crash: what happened, where the details are, what to do."""
    from haiku_tui.sessions.scrub import scrub_text

    what = clean_line(scrub_text(f"{type(error).__name__}: {error}"), 200)
    where = f"the details are in {log}" if log is not None else "no crash log could be written"
    return (
        f"haiku-tui stopped on an unexpected error ({what}); {where}. Saved answers are kept; "
        "please report it with that file."
    )
