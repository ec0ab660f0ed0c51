"""``haiku-tui mcp``: an MCP client lists and calls the tools over stdio."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.serve.servers import ROOT

pytest.importorskip("mcp")
pytestmark = pytest.mark.slow


def structured(result) -> object:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(result.content[0].text)


async def test_mcp_client_lists_and_calls_the_tools(kb_path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haiku_tui.cli", "mcp", "--db", str(kb_path)],
        cwd=str(ROOT),
        env={"HAIKU_TUI_DATA_DIR": os.environ["HAIKU_TUI_DATA_DIR"]},
    )
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"search", "fetch_document", "ask"} <= set(tools)
        assert "chunk_id" in tools["search"].description

        hits = structured(await client.call_tool("search", {"query": "sourdough starter feeding", "limit": 3}))
        assert 1 <= len(hits) <= 3
        top = hits[0]
        assert len(top["chunk_id"]) == 16 and top["title"] == "Sourdough bread"
        assert top["label"].startswith("Sourdough bread") and "starter" in top["text"].lower()

        document = structured(await client.call_tool("fetch_document", {"document": top["document_id"]}))
        assert document["title"] == "Sourdough bread"
        assert top["chunk_id"] in [c["chunk_id"] for c in document["chunks"]]

        missing = await client.call_tool("fetch_document", {"document": "no-such-doc"})
        assert missing.is_error and "no document" in missing.content[0].text

        answer = structured(await client.call_tool("ask", {"question": "How often should I feed a sourdough starter?"}))
        assert "[1]" in answer["answer"] and answer["status"] == "grounded"
        assert answer["citations"][0]["number"] == 1 and answer["citations"][0]["title"] == "Sourdough bread"
