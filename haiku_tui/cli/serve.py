"""``haiku-tui serve`` (the app in a browser, or ``--ag-ui``: the agent over AG-UI) and ``haiku-tui mcp``."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
from typing import Any

from . import CommandError, db_arg, embedder_arg, forget_path, warn_once
from .app import _config, add_app_options

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
NEEDS = {"serve": ("textual_serve",), "ag-ui": ("ag_ui", "starlette", "uvicorn"), "mcp": ("mcp",)}


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "serve",
        parents=[common],
        help="serve the app to a browser (or, with --ag-ui, the agent to AG-UI clients)",
        description="Serve the app at http://HOST:PORT/ through textual-serve; each browser tab runs its own app. "
        "With --ag-ui, serve the agent (RAG, compaction, citation policy) over the AG-UI protocol instead: "
        "POST a RunAgentInput to http://HOST:PORT/. Loopback only by default (no authentication).",
    )
    add_app_options(p, suppress=True)
    p.add_argument("--ag-ui", action="store_true", help="serve the agent over AG-UI instead of the app")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default: {DEFAULT_PORT})")
    p.set_defaults(func=cmd_serve)
    m = subparsers.add_parser(
        "mcp",
        parents=[common],
        help="serve the knowledge base to MCP clients over stdio",
        description="An MCP server over stdin/stdout with the tools search, fetch_document and ask.",
    )
    add_app_options(m, suppress=True)
    m.set_defaults(func=cmd_mcp)


def _require(feature: str) -> None:
    missing = [name for name in NEEDS[feature] if importlib.util.find_spec(name) is None]
    if missing:
        extra = "mcp" if feature == "mcp" else "serve"
        raise CommandError(f"{feature} needs {', '.join(missing)}: pip install 'haiku-tui[{extra}]'")


def _open_kb(args: argparse.Namespace) -> Any:
    from haiku_tui.store import KnowledgeBase

    return KnowledgeBase.open(db_arg(args), embedder=embedder_arg(args), create=False)


def _checked_config(args: argparse.Namespace, *, sessions: bool = False) -> Any:
    from haiku_tui.agent import ModelConfigError, choose_model

    if getattr(args, "session", None) and not sessions:
        raise CommandError("--session opens a saved session in the app: use it with `haiku-tui serve` (no --ag-ui)")
    try:
        choice = choose_model(getattr(args, "model", None), getattr(args, "base_url", None))
    except ModelConfigError as exc:
        raise CommandError(str(exc)) from None
    config = _config(args, db_arg(args), choice)
    forget_path(args, choice)
    if config.search_first is None:  # these servers do not ask again: a model learned search-first is asked so
        from haiku_tui.agent.model_paths import ModelPaths

        learned = ModelPaths().learned(choice.label)
        config = dataclasses.replace(config, search_first=learned is not None and learned.search_first)
    return dataclasses.replace(config, on_reranker_fault=warn_once()) if config.reranker else config


def _app_args(args: argparse.Namespace) -> list[str]:
    """The options the browser's app process is started with (the same as this command's)."""
    out: list[str] = []
    for option in ("db", "embedder", "model", "base_url", "session", "reranker", "reranker_model"):
        value = getattr(args, option, None)
        if value:
            out += [f"--{option.replace('_', '-')}", str(value)]
    if getattr(args, "analysis", False):
        out.append("--analysis")
    if getattr(args, "search_first", None) is not None:
        out.append("--search-first" if args.search_first else "--tools")
    return out


def cmd_serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise CommandError(f"--port {args.port} is not a port number (1-65535)")
    config = _checked_config(args, sessions=not args.ag_ui)
    if args.ag_ui:
        _require("ag-ui")
        from haiku_tui.serve import agui

        app = _built(agui.create_app, config, kb=_open_kb(args))
        _check_port(args.host, args.port)
        print(f"AG-UI endpoint: POST http://{args.host}:{args.port}/ (Ctrl+C stops)", file=sys.stderr)
        agui.serve(app, host=args.host, port=args.port)
        return 0
    _require("serve")
    _open_kb(args).close()  # one clear line now, rather than in every browser tab
    _check_port(args.host, args.port)
    from haiku_tui.serve import browser

    print(f"Open http://{args.host}:{args.port}/ in a browser (Ctrl+C stops)", file=sys.stderr)
    browser.serve(_app_args(args), host=args.host, port=args.port)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    _require("mcp")
    config = _checked_config(args)
    from haiku_tui.serve import mcp_server

    mcp_server.serve(_built(mcp_server.create_server, config, kb=_open_kb(args)))
    return 0


def _built(factory: Any, config: Any, **kwargs: Any) -> Any:
    """``factory(config, **kwargs)``, a model that cannot be built as configured as one line."""
    from haiku_tui.agent import ModelConfigError

    try:
        return factory(config, **kwargs)
    except ModelConfigError as exc:
        raise CommandError(str(exc)) from None


def _check_port(host: str, port: int) -> None:
    """Fail with one line when the address cannot be listened on (in use, not local)."""
    import errno
    import socket

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        why = "the port is in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise CommandError(f"cannot listen on {host}:{port}: {why}; pick another --port or --host") from None
