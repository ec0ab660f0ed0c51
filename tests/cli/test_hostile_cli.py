"""Hostile text and failing servers on every CLI surface of the agent layer.

Error lines (cli/__init__.py), model errors (agent/errors.py) and JSON output are fed the shared
hostile strings of ``tests/hostile.py``; real loopback servers return hostile error bodies, echo
the key, or accept and never answer.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pydantic_ai.models
import pytest

from haiku_tui.cli import main
from haiku_tui.text import control_pictures, json_dumps, printable_line, terminal_safe
from tests.hostile import HOSTILE, MARKUP, active_controls
from tests.kb_fixture import build_small_kb

KEY = "sk-test-123456"


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile-kb") / "kb.lancedb"
    build_small_kb(path).close()
    return str(path)


class ErrorServer(ThreadingHTTPServer):
    """Answers every chat request with ``status`` and a JSON error whose message ``message(headers)`` gives."""

    daemon_threads = True

    def __init__(self, status, message):
        super().__init__(("127.0.0.1", 0), _ErrorHandler)
        self.status, self.message = status, message

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _ErrorHandler(BaseHTTPRequestHandler):
    server: ErrorServer

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.dumps({"error": {"message": self.server.message(self.headers)}}, ensure_ascii=False).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def serve(monkeypatch):
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    servers = []

    def start(status, message):
        srv = ErrorServer(status, message)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def error_line(capsys) -> str:
    """The single stderr line a failed command printed."""
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("haiku-tui: error: ")
    return err[0]


def assert_inert(line: str, name: str) -> None:
    assert active_controls(line) == [], (name, line)
    if name in MARKUP:
        assert HOSTILE[name] in line  # shown literally, not interpreted or dropped


# ---- the sanitiser ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE)
def test_sanitisers_leave_nothing_a_terminal_acts_on(name):
    hostile = f"before {HOSTILE[name]}\nafter"
    for clean in (terminal_safe, printable_line, control_pictures):
        assert_inert(clean(hostile), name)
    assert "before" in terminal_safe(hostile) and "after" in terminal_safe(hostile)


@pytest.mark.parametrize("name", HOSTILE)
def test_json_output_escapes_controls_and_round_trips(name):
    data = {"answer": HOSTILE[name], "title": "Café ☕"}
    text = json_dumps(data, indent=2)
    assert active_controls(text.replace("\n", "")) == []
    assert json.loads(text) == data
    assert "Café ☕" in text  # readable text stays readable


def test_control_pictures_show_what_was_there():
    assert control_pictures("\x1b[2J\x9b\u202e\r\n") == "␛[2J\\x9b\\u202e\n"


# ---- CLI error lines --------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_path_in_a_cli_error_is_one_inert_line(name, tmp_path, capsys):
    missing = f"{tmp_path}/kb{HOSTILE[name]}"
    assert main(["ask", "--db", missing, "tea?"]) == 1
    line = error_line(capsys)
    assert "no knowledge base" in line
    assert_inert(line, name)


def test_cli_errors_name_commands_not_python_apis(tmp_path, capsys):
    assert main(["search", "--db", str(tmp_path / "none.lancedb"), "tea"]) != 0
    line = error_line(capsys)
    assert "haiku-tui add" in line and "KnowledgeBase" not in line


def test_out_of_range_and_bad_timeout_are_one_line(capsys):
    assert main(["ask", "--timeout", "-3", "tea?"]) == 2
    err = capsys.readouterr().err
    assert "--timeout must be a number of seconds" in err and "Traceback" not in err


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_server_error_body_is_one_inert_line(name, kb_path, serve, capsys):
    srv = serve(500, lambda headers: f"boom {HOSTILE[name]} end")
    code = main(["ask", "--db", kb_path, "--base-url", srv.base_url, "--model", "m", "--timeout", "5", "tea?"])
    assert code == 1
    line = error_line(capsys)
    assert "the model provider failed" in line and "boom" in line
    assert_inert(line, name)


def test_a_server_that_echoes_the_authorization_header_does_not_show_the_key(kb_path, serve, monkeypatch, capsys):
    monkeypatch.setenv("HAIKU_TUI_API_KEY", KEY)
    seen = []

    def echo(headers):
        seen.append(headers.get("Authorization"))
        return f"bad credentials: {headers.get('Authorization')}"

    srv = serve(401, echo)
    assert main(["ask", "--db", kb_path, "--base-url", srv.base_url, "--model", "m", "tea?"]) == 1
    line = error_line(capsys)
    assert seen and seen[0] == f"Bearer {KEY}"  # the key was sent …
    assert KEY not in line and "[redacted]" in line  # … and is not shown
    assert "HAIKU_TUI_API_KEY" in line and "OPENAI_API_KEY" not in line  # the advice names what was used


def test_without_a_key_the_401_advice_says_none_was_sent(kb_path, serve, capsys):
    srv = serve(401, lambda headers: "unauthorised")
    assert main(["ask", "--db", kb_path, "--base-url", srv.base_url, "--model", "m", "tea?"]) == 1
    line = error_line(capsys)
    assert "no API key was sent" in line and "HAIKU_TUI_API_KEY" in line and "OPENAI_API_KEY" not in line


# ---- a server that accepts and never answers --------------------------------------------------


@pytest.fixture
def silent_server(monkeypatch):
    """A real 127.0.0.1 socket that accepts connections and never sends a byte."""
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1", accepted
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    sock.close()


def test_ask_against_a_silent_server_ends_after_the_timeout(kb_path, silent_server, capsys):
    url, accepted = silent_server
    start = time.monotonic()
    assert main(["ask", "--db", kb_path, "--base-url", url, "--model", "m", "--timeout", "0.5", "tea?"]) == 1
    elapsed = time.monotonic() - start
    line = error_line(capsys)
    assert accepted  # it did connect: this is the read hang, not a refused connection
    assert "did not answer within 0.5 s" in line and "--timeout" in line
    assert elapsed < 20  # ends (a hang would take minutes; the margin is for a loaded box)


def test_the_timeout_comes_from_the_environment_too(kb_path, silent_server, monkeypatch, capsys):
    url, _ = silent_server
    monkeypatch.setenv("HAIKU_TUI_TIMEOUT", "0.5")
    assert main(["ask", "--json", "--db", kb_path, "--base-url", url, "--model", "m", "tea?"]) == 1
    assert "did not answer within 0.5 s" in error_line(capsys)
