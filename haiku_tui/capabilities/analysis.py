"""The analysis capability: computation over the whole corpus in a sandbox, with citable evidence.

Some questions are not answered by the top five chunks: how many documents mention X, which
section is longest, how the defaults listed in three pages compare. The model writes a short
Python program; it runs in a pydantic-monty sandbox (see :mod:`.sandbox`), where it can search,
list the documents and read each one, chunk by chunk. Every chunk the program sees is recorded as
retrieved by the question (so it is citable, and a mangled id is repaired against it); a program
that succeeded or printed something is an evidence outcome; and every execution is kept in the
question's record under ``"executions"`` for the evidence pane.

State lives under ``deps.state["analysis"]``, shaped like every evidence namespace (see
:mod:`.ledger`), plus per question::

    "executions": [{"code", "stdout", "error", "success", "epoch", "chunk_ids"}]
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool, ToolFailed
from pydantic_ai.toolsets import FunctionToolset

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.evidence import EvidenceCapability, history_offset, hit_to_json
from haiku_tui.capabilities.sandbox import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_OUTPUT_CHARS,
    DEFAULT_TIMEOUT,
    Execution,
    SandboxLimits,
    SandboxUnavailable,
    run_code,
)
from haiku_tui.locations import resolve_db

if TYPE_CHECKING:
    from haiku_tui.store import ChunkRecord, KnowledgeBase, SearchHit

ANALYSIS_ID = "haiku-tui-analysis"
DESCRIPTION = (
    "Compute over the whole knowledge base with sandboxed Python: counting, aggregation, statistics "
    "and cross-document comparison, citing the chunks the computation used."
)
SANDBOX_QUERY = "<sandbox>"
"""The search entry under which chunks seen by programs are recorded."""

STORED_CODE_CHARS = 8_000
STORED_OUTPUT_CHARS = 4_000
STORED_ERROR_CHARS = 2_000
MAX_RECORDED_CHUNKS = 1_000
"""Chunks one execution records as retrieved (more stay citable through the knowledge base)."""
MAX_SEARCH_LIMIT = 50

INSTRUCTIONS = """\
You answer questions that need computation over the local knowledge base: counting, aggregation,
statistics, finding the longest or shortest, comparing documents.
- analysis_search(query) finds chunks like a search engine. Each result starts with its chunk id
  in square brackets, e.g. [3f2a9c01d4e5b6a7].
- analysis_execute_code(code) runs a Python program in a sandbox: no files, network, environment
  or subprocesses; only a small standard library (json, re, math, collections, itertools,
  functools, datetime, random, bisect, csv, decimal, copy, unicodedata); limits of 10 seconds,
  256 MB and 20000 characters of output. Top-level `await` works. These async functions read the
  knowledge base; always `await` them:
    await list_documents() -> [{"id", "title", "path", "chunks", "metadata"}]
    await get_document(id) -> {"id", "title", "path", "metadata", "text",
        "chunks": [{"chunk_id", "order", "headings", "pages", "text"}],
        "toc": [{"heading", "level", "chunk_ids", "children"}]}
    await search(query, limit=10) -> [{"chunk_id", "document_id", "title", "path", "headings",
        "pages", "rank", "score", "text"}]
  Print the result and the chunk ids that support it: every chunk the program reads is citable.
  Variables persist between executions for the same question.
- Before giving your answer, call analysis_cite with the chunk ids that support it, copied exactly.
  It returns a number for each citation: put those numbers in your answer as markers like [1].
- If nothing you found supports an answer, call analysis_cite with an empty list and say so plainly.
- Never invent facts, chunk ids or citation numbers, and never write chunk ids in the answer."""

KB_FUNCTIONS = "search(query, limit=10), list_documents() and get_document(id)"


def _hint(execution: Execution, limits: SandboxLimits) -> str:
    """What the model should try next after a failed execution."""
    error = execution.error or ""
    if execution.kind == "timeout":
        return (
            f"Keep each execution under {limits.timeout:g} seconds of computation: avoid unbounded loops, "
            "and split work over several executions (variables persist between them)."
        )
    if execution.kind == "memory":
        return "Process one document at a time and keep only counts, ids or short excerpts, not whole texts."
    if execution.kind == "output":
        return (
            f"Print summaries (counts, chunk ids, short excerpts), not whole documents; at most "
            f"{limits.max_output_chars} characters are shown."
        )
    if execution.kind == "recursion":
        return "Use a loop instead of deep recursion."
    if execution.kind == "host_calls":
        return f"Call {KB_FUNCTIONS} fewer times per execution, e.g. read each document once."
    if execution.kind == "syntax":
        return "Fix the syntax error and run the corrected program."
    if "ModuleNotFoundError" in error or "ImportError" in error:
        return (
            "Only a small standard library is available (json, re, math, collections, itertools, functools, "
            f"datetime, random, bisect, csv, decimal, copy, unicodedata). Read the knowledge base with {KB_FUNCTIONS}."
        )
    if "PermissionError" in error or "FileNotFoundError" in error or "not supported in this environment" in error:
        return f"The sandbox has no file system, network or environment. Read the knowledge base with {KB_FUNCTIONS}."
    if "NameError" in error:
        return f"Define the name first; the knowledge base is read with {KB_FUNCTIONS}."
    if "'coroutine' object" in error:
        return f"{KB_FUNCTIONS} are async: write `await search(...)`, `await get_document(id)`."
    return "Fix the error and run the corrected program; variables defined before the failure are still set."


def _truncate(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def _plain(value: Any) -> Any:
    """A value the sandbox can receive: JSON types only."""
    return json.loads(json.dumps(value, default=str))


def _chunk_as_hit(chunk: ChunkRecord) -> SearchHit:
    from haiku_tui.store import SearchHit

    return SearchHit(**dataclasses.asdict(chunk), score=0.0, rank=chunk.order + 1)


def heading_tree(chunks: list[ChunkRecord]) -> list[dict[str, Any]]:
    """The document's sections as a tree: each node lists the chunks directly under its heading.

    Built from each chunk's heading path, in document order; a heading that recurs after a
    different one starts a new node, as it does in the document.
    """
    root: dict[str, Any] = {"children": [], "chunk_ids": []}
    for chunk in chunks:
        node = root
        for level, heading in enumerate(chunk.headings, start=1):
            children = node["children"]
            if not children or children[-1]["heading"] != heading:
                children.append({"heading": heading, "level": level, "chunk_ids": [], "children": []})
            node = children[-1]
        node["chunk_ids"].append(chunk.chunk_id)
    if root["chunk_ids"]:  # text before the first heading
        root["children"].insert(0, {"heading": "", "level": 0, "chunk_ids": root["chunk_ids"], "children": []})
    return root["children"]


@dataclass
class _Seen:
    """Chunks one execution showed the program, in first-seen order."""

    hits: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, hit: SearchHit) -> None:
        if hit.chunk_id not in self.hits and len(self.hits) < MAX_RECORDED_CHUNKS:
            self.hits[hit.chunk_id] = hit_to_json(hit)


@dataclass
class AnalysisCapability(EvidenceCapability):
    """Corpus computation in a sandbox, with citations (state key ``"analysis"``)."""

    namespace: str = "analysis"
    tool_prefix: str = "analysis"
    request_limit: int = 30
    max_executions: int = 15
    limits: SandboxLimits = field(default_factory=SandboxLimits)

    # per run: the program's variables after the latest execution (never in deps.state)
    _program_state: bytes | None = field(default=None, init=False, repr=False)

    @property
    def execute_tool(self) -> str:
        return f"{self.tool_prefix}_execute_code"

    @property
    def evidence_tool_names(self) -> frozenset[str]:
        """Searches and executions are evidence (compaction receipts both)."""
        return frozenset({self.search_tool, self.execute_tool})

    def get_instructions(self) -> str:
        return INSTRUCTIONS

    def get_toolset(self) -> FunctionToolset[Any]:
        search, cite = self.evidence_tools()
        owner = self

        async def execute_code(ctx: RunContext[Any], code: str) -> str:
            """Run a Python program over the knowledge base in a sandbox and return what it printed.

            Inside, `await list_documents()`, `await get_document(id)` and
            `await search(query, limit=10)` read the knowledge base; every chunk they return is
            citable by its chunk_id.

            Args:
                code: The Python program. Print the results you need, with supporting chunk ids.
            """
            return await owner.run_instance(ctx).execute(ctx, code)

        tools = [search, Tool(execute_code, name=self.execute_tool), cite]
        return FunctionToolset(tools, id=self.id, max_retries=3, sequential=True)

    # ---- execute_code ----------------------------------------------------------------------
    async def execute(self, ctx: RunContext[Any], code: str) -> str:
        """Run ``code`` in the sandbox, record what it saw and did, return its output."""
        record = self.current
        if not code.strip():
            raise ModelRetry("The program is empty: pass the Python code to run.")
        self.spend(record, "execution_calls", self.max_executions, "Execution", "executions")
        epoch = history_offset(ctx) + len(ctx.messages)
        seen = _Seen()
        try:
            functions = self._sandbox_functions(seen)
            execution = await run_code(code, functions, limits=self.limits, state=self._program_state)
        except SandboxUnavailable as error:
            raise ToolFailed(f"{error}. Use {self.search_tool} instead.") from None
        if execution.state is not None:
            self._program_state = execution.state
        if seen.hits:
            ledger.note_search(record, SANDBOX_QUERY, list(seen.hits.values()), epoch)
        if execution.success or execution.stdout:
            ledger.note_evidence(record, epoch)
        record.setdefault("executions", []).append(
            {
                "code": _truncate(code, STORED_CODE_CHARS),
                "stdout": _truncate(execution.stdout, STORED_OUTPUT_CHARS),
                "error": _truncate(execution.error, STORED_ERROR_CHARS),
                "success": execution.success,
                "epoch": epoch,
                "chunk_ids": list(seen.hits),
            }
        )
        if not execution.success:
            message = f"The program failed.\n{execution.error}\nHint: {_hint(execution, self.limits)}"
            if execution.stdout:
                message += f"\nOutput before the failure:\n{execution.stdout}"
            raise ToolFailed(message)
        parts = [execution.stdout.rstrip("\n")] if execution.stdout else []
        if execution.value is not None:
            parts.append(f"Result: {execution.value}")
        if execution.state_dropped:
            parts.append("(The program's variables were too large to keep for the next execution.)")
        return "\n".join(parts) if parts else "No output."

    def _sandbox_functions(self, seen: _Seen) -> dict[str, Any]:
        """The async functions a program calls to read the knowledge base (read-only views)."""
        kb = self.knowledge_base()
        document_filter = self.record.get("document_filter")

        async def allowed_ids() -> set[str] | None:
            if not document_filter:
                return None
            return set(await asyncio.to_thread(kb.filter_document_ids, document_filter))

        async def search(query: str, limit: int = 10) -> list[dict[str, Any]]:
            if not isinstance(query, str) or not query.strip():
                raise ValueError("search(query) needs a non-empty string")
            if not isinstance(limit, int) or isinstance(limit, bool):
                raise TypeError("limit must be an int")
            hits = await kb.asearch(query, limit=max(1, min(limit, MAX_SEARCH_LIMIT)), filter=document_filter)
            for hit in hits:
                seen.add(hit)
            return [
                {
                    "chunk_id": h.chunk_id,
                    "document_id": h.document_id,
                    "title": h.title,
                    "path": h.path,
                    "headings": list(h.headings),
                    "pages": list(h.pages),
                    "rank": h.rank,
                    "score": round(float(h.score), 6),
                    "text": h.text,
                }
                for h in hits
            ]

        async def list_documents() -> list[dict[str, Any]]:
            docs = await asyncio.to_thread(kb.documents)
            allowed = await allowed_ids()
            return _plain(
                [
                    {"id": d.id, "title": d.title, "path": d.path, "chunks": d.chunks, "metadata": d.metadata}
                    for d in docs
                    if allowed is None or d.id in allowed
                ]
            )

        async def get_document(id: str) -> dict[str, Any]:  # the name the program uses
            if not isinstance(id, str) or not id:
                raise TypeError("get_document(id) needs a document id (or path) string")
            doc = await asyncio.to_thread(kb.document, id)
            allowed = await allowed_ids()
            if doc is None or (allowed is not None and doc.id not in allowed):
                raise KeyError(f"no document {id!r}; list them with await list_documents()")
            chunks = await asyncio.to_thread(kb.document_chunks, doc.id)
            for chunk in chunks:
                seen.add(_chunk_as_hit(chunk))
            return _plain(
                {
                    "id": doc.id,
                    "title": doc.title,
                    "path": doc.path,
                    "metadata": doc.metadata,
                    "text": "\n\n".join(c.text for c in chunks),
                    "chunks": [
                        {
                            "chunk_id": c.chunk_id,
                            "order": c.order,
                            "headings": list(c.headings),
                            "pages": list(c.pages),
                            "text": c.text,
                        }
                        for c in chunks
                    ],
                    "toc": heading_tree(chunks),
                }
            )

        return {"search": search, "list_documents": list_documents, "get_document": get_document}


def create_capability(
    db_path: str | Path | None = None,
    *,
    defer_loading: bool = True,
    kb: KnowledgeBase | None = None,
    request_limit: int = 30,
    max_searches: int = 5,
    search_limit: int = 5,
    max_executions: int = 15,
    timeout: float = DEFAULT_TIMEOUT,
    max_memory: int = DEFAULT_MAX_MEMORY,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> AnalysisCapability:
    """Build the analysis capability.

    The database is ``db_path``, else ``HAIKU_RAG_DB``, else ``<data dir>/haiku.rag.lancedb``;
    an open ``kb`` is used as is. Deferred by default, like RAG. ``timeout`` (seconds of
    computation), ``max_memory`` (bytes) and ``max_output_chars`` bound each execution.
    """
    return AnalysisCapability(
        id=ANALYSIS_ID,
        description=DESCRIPTION,
        defer_loading=defer_loading,
        namespace="analysis",
        tool_prefix="analysis",
        db_path=resolve_db(db_path),
        request_limit=request_limit,
        max_searches=max_searches,
        search_limit=search_limit,
        kb=kb,
        max_executions=max_executions,
        limits=SandboxLimits(timeout=timeout, max_memory=max_memory, max_output_chars=max_output_chars),
    )
