"""The servers' checks (``haiku_tui/serve/guard.py``): which Host and Origin headers pass, the token's."""

from __future__ import annotations

import socket

import pytest

from haiku_tui.serve.guard import Guard, bearer, is_loopback, new_token, token_problem

LOOPBACK = Guard("127.0.0.1", 8000, "t" * 20)


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000", "[0:0:0:0:0:0:0:1]:8000"]
)
def test_the_loopback_names_with_the_port_pass(host):
    assert LOOPBACK.refusal(host, None) is None
    assert LOOPBACK.refusal(host, f"http://{host}") is None  # the page's own origin


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:8000",  # a name rebound to 127.0.0.1
        "127.0.0.1:8001",  # another port
        "127.0.0.1",  # no port (port 80 only)
        "127.0.0.2:8000",  # an address it does not listen on
        "localhost.evil.example:8000",
        "127.0.0.1:8000, evil.example:8000",  # two Host headers, joined
        "[::1]x:8000",
        "",
        None,
    ],
)
def test_other_hosts_are_refused(host):
    why = LOOPBACK.refusal(host, None)
    assert why and why.startswith("Host ")


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://evil.example:8000",
        "http://127.0.0.1:8001",  # a page of another local server
        "http://localhost:8000",  # another of our names, but not the one this request was sent to
        "null",  # a sandboxed frame or a file:// page
        "ws://127.0.0.1:8000",
        "",
    ],
)
def test_an_origin_other_than_the_server_itself_is_refused(origin):
    why = LOOPBACK.refusal("127.0.0.1:8000", origin)
    assert why and why.startswith("Origin ")


def test_the_host_given_passes_and_port_80_may_be_left_out():
    assert Guard("192.168.1.5", 8000, None).refusal("192.168.1.5:8000", "http://192.168.1.5:8000") is None
    assert Guard("192.168.1.5", 8000, None).refusal("192.168.1.6:8000", None)
    assert Guard("127.0.0.1", 80, None).refusal("127.0.0.1", "http://127.0.0.1") is None
    assert Guard("myhost.lan", 8000, None).refusal("MyHost.lan:8000", None) is None


def test_every_address_with_a_wildcard_bind_but_no_foreign_name():
    """Listening on 0.0.0.0, any IP literal (no name to rebind) and this machine's name pass; other names do not."""
    guard = Guard("0.0.0.0", 8000, "t" * 20)
    assert guard.refusal("10.1.2.3:8000", "http://10.1.2.3:8000") is None
    assert guard.refusal(f"{socket.gethostname()}:8000", None) is None
    assert guard.refusal("evil.example:8000", None)
    assert guard.refusal("10.1.2.3:8000", "http://10.9.9.9:8000")  # a page of another machine


def test_the_token_must_match_and_is_not_needed_without_one():
    token = new_token()
    guard = Guard("127.0.0.1", 8000, token)
    assert guard.admits(token)
    assert not guard.admits(token[:-1]) and not guard.admits(None) and not guard.admits("")
    assert Guard("127.0.0.1", 8000, None).admits(None)
    assert len(token) >= 40 and token_problem(token) is None and new_token() != token


@pytest.mark.parametrize(
    ("token", "problem"),
    [("short", "at least 16"), ("x" * 15, "at least 16"), ("a b" * 8, "only letters"), ("é" * 16, "only letters")],
)
def test_weak_or_unsafe_tokens_are_refused(token, problem):
    assert problem in token_problem(token)


def test_bearer():
    assert bearer("Bearer abc") == "abc" and bearer("bearer   abc ") == "abc"
    assert bearer("Basic abc") is None and bearer("Bearer") is None and bearer(None) is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("localhost", True), ("[::1]", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("myhost", False), ("localhost.example", False)],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_a_refusal_is_one_clean_line_once(capsys):
    guard = Guard("127.0.0.1", 8000, None)
    why = guard.refusal("evil\x1b[31m.example:8000\n", None)
    for _ in range(3):
        guard.report(403, "GET", "/ws", why)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "\x1b" not in lines[0]
    assert lines[0].startswith("haiku-tui serve: refused GET /ws (403): Host 'evil")
