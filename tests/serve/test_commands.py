"""``serve`` and ``mcp``: bad input and faults are one line that says what to do."""

from __future__ import annotations

import socket

import pytest

from haiku_tui.cli import main


def one_error(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("haiku-tui: error: "), lines
    return lines[0]


def test_port_in_use_is_one_line(kb_path, capsys):
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert main(["serve", "--ag-ui", "--db", str(kb_path), "--port", str(port)]) == 1
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in one_error(capsys)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["serve", "--port", "70000"], "--port 70000 is not a port number"),
        (["mcp", "--session", "notes"], "--session opens a saved session in the app"),
        (["serve", "--ag-ui", "--model", "nosuch:model"], "unknown model 'nosuch:model'"),
        (["mcp", "--model", "nosuch:model"], "unknown model 'nosuch:model'"),
    ],
)
def test_bad_options_are_one_line(kb_path, capsys, argv, expected):
    assert main([*argv, "--db", str(kb_path)]) == 1
    assert expected in one_error(capsys)


def test_missing_knowledge_base_is_one_line(tmp_path, capsys):
    assert main(["mcp", "--db", str(tmp_path / "none.lancedb")]) == 1
    assert "no knowledge base at" in one_error(capsys)


def test_the_servers_ask_a_model_learned_search_first_so_and_the_browser_app_gets_the_switch():
    from haiku_tui.agent.model_paths import ModelPaths
    from haiku_tui.cli import build_parser
    from haiku_tui.cli.serve import _app_args, _checked_config

    url = "http://127.0.0.1:11434/v1"
    args = build_parser().parse_args(["mcp", "--model", "qwen2.5:0.5b", "--base-url", url])
    assert _checked_config(args).search_first is False  # nothing learned: tools
    ModelPaths().learn(f"qwen2.5:0.5b @ {url}", "refused")
    assert _checked_config(args).search_first is True  # MCP and AG-UI do not ask again: they ask search-first
    args = build_parser().parse_args(["serve", "--tools", "--model", "qwen2.5:0.5b", "--base-url", url])
    assert _checked_config(args, sessions=True).search_first is False
    assert ModelPaths().learned(f"qwen2.5:0.5b @ {url}") is None  # --tools forgot it
    assert _app_args(args)[-1] == "--tools"
