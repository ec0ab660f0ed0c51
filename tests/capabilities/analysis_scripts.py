"""Scripted-model steps for the analysis capability (on top of ``scripts.py``)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from haiku_tui.capabilities.analysis import ANALYSIS_ID
from tests.capabilities.scripts import Step, call, ids_in

EXECUTE = "analysis_execute_code"

COUNT_WATER = """\
docs = await list_documents()
mentions = []
for d in docs:
    doc = await get_document(d["id"])
    ids = [c["chunk_id"] for c in doc["chunks"] if "water" in c["text"].lower()]
    if ids:
        mentions.append((doc["title"], ids[0]))
print(len(mentions), "documents mention water")
for title, chunk_id in mentions:
    print(f"[{chunk_id}] {title}")
"""

LIST_TITLES = """\
for d in await list_documents():
    print(d["title"], d["chunks"])
"""


def load_analysis():
    """Load the analysis capability."""
    return call("load_capability", id=ANALYSIS_ID)


def execute(code: str):
    return call(EXECUTE, code=code)


def analysis_cite(*ids: str):
    return call("analysis_cite", chunk_ids=list(ids))


def execution_return(messages: list[ModelMessage]) -> ToolReturnPart:
    """The newest analysis_execute_code return the model was sent."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, ToolReturnPart) and part.tool_name == EXECUTE:
                    return part
    raise AssertionError("no execution result in the request")


def printed_ids(messages: list[ModelMessage]) -> list[str]:
    """Chunk ids the newest execution printed at the start of a line, as ``[id]``."""
    return ids_in(str(execution_return(messages).content))


def cite_printed(n: int = 1) -> Step:
    """Cite the first ``n`` chunk ids the newest execution printed."""
    return lambda messages, info: analysis_cite(*printed_ids(messages)[:n])
