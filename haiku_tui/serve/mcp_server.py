"""``haiku-tui mcp``: the knowledge base as an MCP server over stdio.

Tools: ``search`` (cite-ready results: chunk ids, labels, sources), ``fetch_document`` (a
document's text, chunk by chunk) and ``ask`` (a grounded answer with its numbered citations,
from the same agent as the app). Text from documents and models is sanitised before it leaves.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from haiku_tui.text import terminal_safe

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from haiku_tui.agent import AgentConfig
    from haiku_tui.store import KnowledgeBase

MAX_LIMIT = 20


def _chunk_json(chunk: Any) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "document_id": chunk.document_id,
        "label": terminal_safe(chunk.label()),
        "title": terminal_safe(chunk.title),
        "path": terminal_safe(chunk.path),
        "headings": [terminal_safe(h) for h in chunk.headings],
        "pages": list(chunk.pages),
        "text": terminal_safe(chunk.text),
    }


def create_server(config: AgentConfig, kb: KnowledgeBase) -> MCPServer:
    """The MCP server over ``kb``; ``ask`` runs the agent built from ``config``, on the first question (so
    the server answers ``search`` without waiting for the agent framework to import). A model other than
    the offline ``extractive`` one is resolved here, so one that cannot be used fails at start
    (``ModelConfigError``)."""
    from haiku_tui.store.lancedb_import import models_built_on_first_use

    with models_built_on_first_use():  # the SDK's ~200 protocol types: a stdio server uses a few
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError

    from haiku_tui.agent import choose_model, is_extractive, resolve_model
    from haiku_tui.store.errors import StoreError

    choice = choose_model(config.model, config.base_url, config.api_key, config.timeout)
    if choice.base_url or not is_extractive(choice.name):  # a provider's or a server's model: a bad one fails now
        resolve_model(choice.name, choice.base_url, choice.api_key)
    if config.reranker:  # search reranks from the start; the agent then finds it on the knowledge base
        from haiku_tui.agent.config import make_reranker

        kb.reranker = make_reranker(config.reranker, config.reranker_model, on_fault=config.on_reranker_fault)
        config = dataclasses.replace(config, reranker=None)
    server = MCPServer(
        "haiku-tui",
        instructions="Search a local document knowledge base; cite results by chunk id, or ask for a grounded answer.",
    )
    agent: Any = None  # built by the first `ask`

    @server.tool()
    def search(query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Search the knowledge base. Each result has a chunk_id to cite, a label (title › headings), its source and text."""  # noqa: E501 - the tool's description, one line
        if not query.strip():
            raise ToolError("the query is empty: pass the words to search for")
        try:
            hits = kb.search(query, limit=max(1, min(limit, MAX_LIMIT)))
        except StoreError as exc:
            raise ToolError(str(exc)) from None
        return [{"rank": hit.rank, "score": round(float(hit.score), 6), **_chunk_json(hit)} for hit in hits]

    @server.tool()
    def fetch_document(document: str) -> dict[str, Any]:
        """Fetch one document by its id or path: its title, path and every chunk in order."""
        record = kb.document(document)
        if record is None:
            raise ToolError(f"no document {document!r}: pass a document_id or path from search results")
        return {
            "document_id": record.id,
            "title": terminal_safe(record.title),
            "path": terminal_safe(record.path),
            "chunks": [_chunk_json(chunk) for chunk in kb.document_chunks(record.id)],
        }

    @server.tool()
    async def ask(question: str) -> dict[str, Any]:
        """Ask a question: a grounded answer with [n] markers and the numbered citations behind them."""
        nonlocal agent
        if not question.strip():
            raise ToolError("the question is empty")
        from haiku_tui.agent import build_agent, describe_error, run_limits
        from haiku_tui.capabilities import Deps
        from haiku_tui.capabilities.report import answer_report

        deps = Deps()
        try:
            if agent is None:
                agent = build_agent(config, kb=kb)
            result = await agent.run(question, deps=deps, usage_limits=run_limits())
        except Exception as exc:  # the client gets one line, never a traceback
            raise ToolError(describe_error(exc)) from None
        data = answer_report(
            deps.state, result.all_messages(), compaction=config.compaction, answer=terminal_safe(result.output)
        )
        for citation in data["citations"]:
            citation.update(
                title=terminal_safe(citation["title"] or ""),
                path=terminal_safe(citation["path"] or ""),
                headings=[terminal_safe(h) for h in citation["headings"]],
            )
        return data

    return server


def serve(server: MCPServer) -> None:
    """Serve MCP over stdin/stdout until the client closes the pipe."""
    import anyio

    anyio.run(server.run_stdio_async)
