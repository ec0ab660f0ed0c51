"""Each command imports only what it uses: the import set of a whole process, per command.

A new import on these paths costs every run of the command (an agent framework ~1 s, pandas ~0.3 s,
the LanceDB catalog's REST client ~0.5 s on this box), so they are checked here, in fresh processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from tests.kb_fixture import write_documents

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CATALOG_API = ("lance_namespace_urllib3_client.api", "lance_namespace_urllib3_client.api_client")
NOT_FOR_THE_STORE = ("pydantic_ai", "pandas", "textual", *CATALOG_API)

PROBE = """
import json, os, sys
from haiku_tui.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open(os.environ["IMPORT_PROBE"], "w") as out:
        json.dump(sorted(sys.modules), out)
sys.exit(code)
"""


def imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules a whole ``haiku-tui ARGS…`` process imported (it must succeed)."""
    probe = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env={**os.environ, "IMPORT_PROBE": str(probe)},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(probe.read_text()))


def test_store_commands_import_no_agent_framework_pandas_or_catalog_client(tmp_path):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb.lancedb")
    one = tmp_path / "one.md"
    one.write_text("# One note\n\nA kettle boils water for tea.\n", encoding="utf-8")
    runs = {
        "add": ("add", str(docs), "--db", db),  # a new knowledge base: the built-in embedder embeds every chunk
        "list": ("list", "--db", db),
        "info": ("info", "--db", db),
        "search": ("search", "green tea temperature", "--db", db),  # the query is embedded too
        "add one": ("add", str(one), "--db", db),
    }
    for name, args in runs.items():
        modules = imported(tmp_path, *args)
        assert "lancedb" in modules, name  # the probe sees the real work
        assert not modules & set(NOT_FOR_THE_STORE), (name, sorted(modules & set(NOT_FOR_THE_STORE)))


def test_sessions_list_imports_no_store_agent_or_ui(tmp_path):
    modules = imported(tmp_path, "sessions", "list")
    assert not modules & {"lancedb", "pyarrow", "numpy", "pydantic_ai", "textual"}


async def test_mcp_answers_search_without_importing_the_agent_framework(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from tests.kb_fixture import build_small_kb

    db = tmp_path / "kb.lancedb"
    build_small_kb(db).close()
    probe = tmp_path / "modules.json"
    server = StdioServerParameters(
        command=sys.executable, args=["-c", PROBE, "mcp", "--db", str(db)], cwd=str(ROOT),
        env={"HAIKU_TUI_DATA_DIR": os.environ["HAIKU_TUI_DATA_DIR"], "IMPORT_PROBE": str(probe)},
    )
    async with Client(server) as client:
        found = await client.call_tool("search", {"query": "green tea temperature", "limit": 2})
        assert not found.is_error and "Green tea" in found.content[0].text
    modules = set(json.loads(probe.read_text()))
    assert "lancedb" in modules and not modules & set(NOT_FOR_THE_STORE)


class _CloudStandIn(BaseHTTPRequestHandler):
    """A loopback stand-in for LanceDB Cloud's table listing."""

    seen: ClassVar[list[tuple[str, str | None]]] = []

    def do_GET(self) -> None:
        # the path without its query: lancedb 0.41 asks for ``?limit=100``, 0.40 for no limit
        type(self).seen.append((self.path.split("?", 1)[0], self.headers.get("x-api-key")))
        body = json.dumps({"tables": ["chunks", "documents"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


CLOUD_PROBE = """
import json, sys
from haiku_tui.store.lancedb_import import import_lancedb

lancedb = import_lancedb()
db = lancedb.connect("db://team-db", api_key="sk-test", host_override=sys.argv[1])
tables = list(db.list_tables().tables)
api_loaded = [m for m in {api!r} if m in sys.modules]
from lance_namespace_urllib3_client import ApiClient, TableApi  # a REST catalog still gets the whole client
print(json.dumps({{"tables": tables, "api_loaded": api_loaded, "client": ApiClient.__name__ + TableApi.__name__}}))
"""


def test_lancedb_cloud_uri_connects_through_the_remote_client():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CloudStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        done = subprocess.run(
            [sys.executable, "-c", CLOUD_PROBE.format(api=CATALOG_API), f"http://127.0.0.1:{server.server_port}"],
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"tables": ["chunks", "documents"], "api_loaded": [], "client": "ApiClientTableApi"}
    assert ("/v1/namespace/$/table/list", "sk-test") in _CloudStandIn.seen


AFTER_IMPORT = """
import json, sys
from haiku_tui.store.lancedb_import import import_lancedb

lancedb = import_lancedb()
held = "pandas" in sys.modules
from lance_namespace import ListTablesResponse
from pydantic import BaseModel

built_at_import = ListTablesResponse.__pydantic_complete__
listing = ListTablesResponse.model_validate({"tables": ["chunks"]}).tables


class Later(BaseModel):
    name: str


import pandas as pd
import pyarrow as pa

table = lancedb.connect(sys.argv[1]).create_table("t", pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
import overrides
print(json.dumps({
    "pandas_imported_by_lancedb": held,
    "series": str(pa.array(pd.Series([1, 2])).type),
    "timestamp": str(pa.scalar(pd.Timestamp("2020-01-01")).type),
    "frame": type(table.to_pandas()).__name__,
    "real_overrides": getattr(overrides, "__file__", None) is not None,
    "catalog_model_built_at_import": built_at_import,
    "catalog_model_validates": listing,
    "later_model_built_at_once": Later.__pydantic_complete__,
}))
"""


def test_what_lancedb_imports_later_still_works(tmp_path):
    """pandas, the overrides package and the catalog models' validators are only kept out of lancedb's import:
    pandas data still goes in and out, the real overrides package is what other code imports afterwards, a
    catalog model builds its validator on first use, and models defined later build at once as usual."""
    done = subprocess.run(
        [sys.executable, "-c", AFTER_IMPORT, str(tmp_path / "db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "pandas_imported_by_lancedb": False, "series": "int64", "timestamp": "timestamp[us]", "frame": "DataFrame",
        "real_overrides": True, "catalog_model_built_at_import": False, "catalog_model_validates": ["chunks"],
        "later_model_built_at_once": True,
    }


def test_mcp_search_reranks_before_any_ask(tmp_path):
    from haiku_tui.agent.config import AgentConfig
    from haiku_tui.serve.mcp_server import create_server
    from tests.kb_fixture import build_small_kb

    pytest.importorskip("mcp")
    with build_small_kb(tmp_path / "kb.lancedb") as kb:
        create_server(AgentConfig(model="extractive", reranker="http://127.0.0.1:9", reranker_model="m"), kb)
        assert kb.reranker is not None and kb.reranker.describe() == "http://127.0.0.1:9/rerank (m)"


MCP_TYPES_PROBE = """
import json, sys
from pydantic import BaseModel
from haiku_tui.agent.config import AgentConfig
from haiku_tui.serve.mcp_server import create_server
from tests.kb_fixture import build_small_kb

create_server(AgentConfig(model="extractive"), build_small_kb(sys.argv[1]))
import mcp.types
models = [v for v in vars(mcp.types).values() if isinstance(v, type) and issubclass(v, BaseModel)]
print(json.dumps({"models": len(models), "built": sum(m.__pydantic_complete__ for m in models)}))
"""


def test_mcp_server_builds_the_protocol_types_as_it_uses_them(tmp_path):
    """The SDK defines ~150 protocol models; a server just created has built almost none (answering over stdio,
    the end-to-end test above, builds what it meets)."""
    pytest.importorskip("mcp")
    done = subprocess.run(
        [sys.executable, "-c", MCP_TYPES_PROBE, str(tmp_path / "kb.lancedb")], cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["models"] > 100 and counts["built"] < counts["models"] // 4, counts
