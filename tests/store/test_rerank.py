"""Rerankers over HTTP, against a loopback rerank server: the order it returns, and the fused order when it fails."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from haiku_tui.agent.config import make_reranker
from haiku_tui.cli import main
from haiku_tui.store import KnowledgeBase
from haiku_tui.store.kb import RERANK_CANDIDATES
from haiku_tui.store.rerank import Reranker, RerankFault, parse_ranking
from tests.kb_fixture import build_small_kb
from tests.rerank_server import serve_reranker

QUERY = "water temperature for tea, bread, panels and the bicycle chain"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def kb_path(tmp_path: Path) -> str:
    path = tmp_path / "kb.lancedb"
    build_small_kb(path).close()
    return str(path)


def fused(kb_path: str, limit: int) -> list[str]:
    with KnowledgeBase.open(kb_path) as kb:
        return [h.chunk_id for h in kb.search(QUERY, limit=limit)]


def search_ids(capsys, kb_path: str, *options: str) -> tuple[list[str], str]:
    code, out, err = run(capsys, "--db", kb_path, "search", QUERY, "--json", *options)
    assert code == 0, err
    return [h["chunk_id"] for h in json.loads(out)], err


def test_search_shows_the_rerankers_order(capsys, kb_path):
    candidates = fused(kb_path, RERANK_CANDIDATES)
    assert len(candidates) > 5
    with serve_reranker(mode="reverse") as server:
        ids, err = search_ids(capsys, kb_path, "--reranker", server.url, "--reranker-model", "bge-reranker-v2-m3")
    assert ids == list(reversed(candidates))[:5] and err == ""
    (request,) = server.requests
    body = request["body"]
    assert request["path"] == "/rerank" and request["authorization"] is None
    assert body["model"] == "bge-reranker-v2-m3" and body["query"] == QUERY
    assert len(body["documents"]) == len(candidates) == body["top_n"]
    with KnowledgeBase.open(kb_path) as kb:
        first = kb.search(QUERY, limit=1)[0]
    assert body["documents"][0] == f"{first.label()}\n{first.text}"  # the label heads what the reranker reads


def test_reranker_scores_and_ranks_replace_the_fused_ones(kb_path):
    with serve_reranker(mode="word", word="sourdough") as server, KnowledgeBase.open(kb_path) as kb:
        kb.reranker = Reranker(server.url)
        hits = kb.search(QUERY, limit=3)
    with KnowledgeBase.open(kb_path) as kb:
        assert kb.search(QUERY, limit=1)[0].title != "Sourdough bread"
    assert hits[0].title == "Sourdough bread" and [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].score == 1.0 and hits[1].score == 0.99


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("fail", "failed (HTTP 500)"),
        ("malformed", "answered something other than JSON"),
        ("bad-index", "answered malformed results"),
    ],
)
def test_a_failing_reranker_costs_one_line_and_the_fused_order_stands(capsys, kb_path, mode, says):
    with serve_reranker(mode=mode) as server:
        ids, err = search_ids(capsys, kb_path, "--reranker", server.url)
    assert ids == fused(kb_path, 5)
    assert err.count("\n") == 1 and says in err and err.startswith("haiku-tui: reranker http://127.0.0.1:")
    assert err.rstrip().endswith("the search kept its own order")


def test_a_reranker_that_is_down_costs_one_line(capsys, kb_path):
    ids, err = search_ids(capsys, kb_path, "--reranker", "http://127.0.0.1:9")
    assert ids == fused(kb_path, 5)
    assert err.count("\n") == 1 and "unreachable" in err


def test_a_hanging_reranker_times_out_and_the_search_answers(kb_path):
    faults: list[str] = []
    with serve_reranker(mode="hang", hang=5.0) as server, KnowledgeBase.open(kb_path) as kb:
        kb.reranker = Reranker(server.url, timeout=0.3, on_fault=faults.append)
        started = time.monotonic()
        hits = kb.search(QUERY, limit=5)
        took = time.monotonic() - started
    assert [h.chunk_id for h in hits] == fused(kb_path, 5)
    assert took < 4.0  # the timeout, not the server, ended the wait
    assert faults == [f"reranker {server.url}/rerank did not answer within 0.3s; the search kept its own order"]


def test_text_embeddings_inference_shape(kb_path):
    with serve_reranker(mode="tei") as server, KnowledgeBase.open(kb_path) as kb:
        kb.reranker = Reranker(server.url)
        first = [h.chunk_id for h in kb.search(QUERY, limit=5)]
        kb.search(QUERY, limit=5)
    assert first == list(reversed(fused(kb_path, RERANK_CANDIDATES)))[:5]
    assert ["documents" in r["body"] for r in server.requests] == [
        True,
        False,
        False,
    ]  # asked in TEI's shape from then on
    assert "texts" in server.requests[1]["body"]


def test_key_environment_and_config_file(capsys, kb_path, monkeypatch, _isolated_data_dir):
    monkeypatch.setenv("HAIKU_TUI_API_KEY", "sk-rerank-secret")
    with serve_reranker(mode="reverse") as server:
        monkeypatch.setenv("HAIKU_TUI_RERANKER", server.url)
        ids, _ = search_ids(capsys, kb_path)
        assert server.requests[-1]["authorization"] == "Bearer sk-rerank-secret"
        monkeypatch.delenv("HAIKU_TUI_RERANKER")
        (_isolated_data_dir / "config.toml").write_text(
            f'reranker = "{server.url}"\nreranker_model = "m1"\n', encoding="utf-8"
        )
        again, _ = search_ids(capsys, kb_path)
        assert server.requests[-1]["body"]["model"] == "m1"
        code, out, _ = run(capsys, "--db", kb_path, "info")
    assert code == 0
    assert ids == again == list(reversed(fused(kb_path, RERANK_CANDIDATES)))[:5]
    assert f"reranker         {server.url}/rerank (m1)" in out.splitlines()


def test_eval_ranks_through_the_reranker(capsys, tmp_path, kb_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"question": QUERY, "expected": "sourdough-bread.md"}) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "--db", kb_path, "eval", str(cases), "--json")
    plain = json.loads(out)["results"][0]["rank"]
    with serve_reranker(mode="word", word="sourdough") as server:
        code, out, err = run(capsys, "--db", kb_path, "eval", str(cases), "--json", "--reranker", server.url)
    assert code == 0 and err == ""
    assert json.loads(out)["results"][0]["rank"] == 1 != plain


def test_bad_reranker_settings_are_one_line(capsys, kb_path, _isolated_data_dir):
    code, _, err = run(capsys, "--db", kb_path, "search", "tea", "--reranker", "ftp://host")
    assert code == 1 and "is not an http(s) URL" in err and err.count("\n") == 1
    (_isolated_data_dir / "config.toml").write_text("reranker = 3\n", encoding="utf-8")
    code, _, err = run(capsys, "--db", kb_path, "search", "tea")
    assert code == 1 and "'reranker' must be a string" in err


def test_parse_ranking_accepts_both_shapes_and_orders_by_score():
    assert parse_ranking(
        {"results": [{"index": 1, "relevance_score": 0.2}, {"index": 0, "relevance_score": 0.9}]}, 2
    ) == [(0, 0.9), (1, 0.2)]
    assert parse_ranking([{"index": 0, "score": 0.1}, {"index": 1, "score": 0.5}], 2) == [(1, 0.5), (0, 0.1)]
    for bad in (
        {"results": []},
        {"data": 1},
        [{"index": 0, "score": float("nan")}],
        [{"index": 0, "score": 1}, {"index": 0, "score": 2}],
        [{"index": True, "score": 1}],
    ):
        with pytest.raises(RerankFault):
            parse_ranking(bad, 2)


def test_make_reranker_names_the_server():
    assert make_reranker("http://127.0.0.1:8012/v1/", "bge").describe() == "http://127.0.0.1:8012/v1/rerank (bge)"
    assert make_reranker("http://h/rerank").endpoint == "http://h/rerank"


def test_the_agent_and_the_servers_search_through_the_configured_reranker(kb_path):
    """build_agent gives the knowledge base the reranker (the app, ask, AG-UI and MCP build through it), and the
    browser server starts its app processes with the same options."""
    import argparse

    from haiku_tui.agent.config import AgentConfig, build_agent
    from haiku_tui.cli import build_parser
    from haiku_tui.cli.serve import _app_args

    faults: list[str] = []
    with serve_reranker(mode="fail") as server, KnowledgeBase.open(kb_path) as kb:
        build_agent(
            AgentConfig(model="extractive", reranker=server.url, reranker_model="m", on_reranker_fault=faults.append),
            kb=kb,
        )
        assert kb.reranker is not None and kb.reranker.describe() == f"{server.url}/rerank (m)"
        assert [h.chunk_id for h in kb.search(QUERY, limit=5)] == fused(kb_path, 5)
    assert faults == [f"reranker {server.url}/rerank failed (HTTP 500); the search kept its own order"]
    args = build_parser().parse_args(["serve", "--reranker", "http://127.0.0.1:8012", "--reranker-model", "bge"])
    assert isinstance(args, argparse.Namespace)
    assert _app_args(args)[-4:] == ["--reranker", "http://127.0.0.1:8012", "--reranker-model", "bge"]
