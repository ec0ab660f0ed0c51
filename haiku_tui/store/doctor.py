"""Check a knowledge base by reading all of it, and rebuild a damaged one from its source files.

The rebuild never deletes: the damaged folder is moved aside (``NAME.damaged-YYYYmmdd-HHMMSS``)
and a new knowledge base is built at the same place from the documents' files still on disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import locations
from .errors import StoreError, damaged
from .records import IngestReport

if TYPE_CHECKING:
    from .kb import KnowledgeBase


@dataclass
class RebuildReport:
    moved_aside: str
    missing_sources: list[str] = field(default_factory=list)
    ingest: IngestReport = field(default_factory=IngestReport)


def check(kb: KnowledgeBase) -> list[str]:
    """One line per problem found (empty when every table reads back and search works)."""
    from .tables import CHUNKS, DOCUMENTS, SETTINGS

    problems = []
    for name in (SETTINGS, DOCUMENTS, CHUNKS):
        try:
            table = kb.storage.table(name)
            if table is not None:
                table.to_arrow()
        except Exception as exc:  # a missing or corrupt data file
            problems.append(f"{name} table unreadable: {_reason(exc)}")
    if not problems and kb.info()["documents"]:
        try:
            kb.search("check", limit=1)
        except Exception as exc:
            problems.append(f"search fails: {_reason(exc)}")
    return problems


def rebuild(kb: KnowledgeBase) -> RebuildReport:
    """Move the knowledge base aside and re-ingest its documents' source files into a new one."""
    from .kb import KnowledgeBase

    if locations.is_uri(kb.uri):
        raise StoreError(f"cannot rebuild a remote knowledge base ({kb.uri}); rebuild it with `haiku-tui add`")
    try:
        paths = [d.path for d in kb.documents()]
    except Exception as exc:
        raise StoreError(
            f"the documents table is unreadable too ({_reason(exc)}); add the files again with --db NEW"
        ) from None
    embedder = kb.embedder
    kb.close()
    here = Path(kb.uri)
    aside = here.with_name(f"{here.name}.damaged-{datetime.now():%Y%m%d-%H%M%S}")
    here.rename(aside)
    present = [p for p in paths if Path(p).is_file()]
    report = RebuildReport(str(aside), missing_sources=[p for p in paths if p not in present])
    fresh = KnowledgeBase.open(here, embedder=embedder)
    report.ingest = fresh.add(present) if present else IngestReport()
    return report


def _reason(exc: BaseException) -> str:
    found = damaged(exc)
    if found is not None:
        return f"a data file {found.what}"
    return re.sub(r",\s*/(?:rustc|root/\.cargo)/\S+", "", " ".join(str(exc).split()))[:200]
