"""``haiku-tui serve`` against what a web page can send: a real server on 127.0.0.1, a real HTTP client.

The client replays what a browser does: the printed URL's page (which sets the token's cookie), then the
page's static files and its WebSocket (with the page's Origin and the cookie), then a reload.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from tests.serve.servers import free_port, output, printed_url, refusals, start, stop, wait_for_port

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")
pytestmark = pytest.mark.slow

TOKEN = "test-token-" + "x" * 24
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")


@pytest.fixture(scope="module")
def server(kb_path, tmp_path_factory):
    """The app server, its token from ``$HAIKU_TUI_TOKEN``."""
    port = free_port()
    env = {"HAIKU_TUI_TOKEN": TOKEN, "HAIKU_TUI_DATA_DIR": str(tmp_path_factory.mktemp("data"))}
    process = start(["serve", "--db", str(kb_path), "--port", str(port)], env)
    wait_for_port(port, process)
    yield port, process
    stop(process)


def client() -> aiohttp.ClientSession:
    # a browser keeps cookies from an IP address; aiohttp's jar does only when told it may
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def app_screen(session, url: str, **headers: str) -> str:
    """Open the app's WebSocket and return what the app drew on it within a few seconds."""
    async with session.ws_connect(f"{url}?width=100&height=30", headers=headers) as ws:
        data = b""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while b"Ask a question" not in data and loop.time() < deadline:
            try:
                message = await ws.receive(timeout=1)
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                data += message.data
            elif message.type != aiohttp.WSMsgType.TEXT:
                break
        return ANSI.sub("", data.decode("utf-8", "replace"))


async def refused(session, url: str, **headers: str) -> int:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refusal:
        async with session.ws_connect(url, headers=headers):
            pass
    return refusal.value.status


async def test_a_foreign_origin_or_host_gets_no_app(server):
    port, process = server
    ws = f"http://127.0.0.1:{port}/ws"
    async with client() as session:
        async with session.get(f"http://127.0.0.1:{port}/?token={TOKEN}") as page:  # even with the cookie
            assert page.status == 200
        assert await refused(session, ws, Origin="http://evil.example") == 403
        assert await refused(session, ws, Origin="http://evil.example", Host=f"evil.example:{port}") == 403
        assert await refused(session, ws, Origin=f"http://127.0.0.1:{port + 1}") == 403  # another local server's page
        rebound = {"Host": f"evil.example:{port}"}
        async with session.get(f"http://127.0.0.1:{port}/?token={TOKEN}", headers=rebound) as page:
            assert page.status == 403  # a rebound name, with the token: still not this server
    said = refusals(process)
    assert "haiku-tui serve: refused GET /ws (403): Origin 'http://evil.example' is not this server's own" in said
    assert f"haiku-tui serve: refused GET / (403): Host 'evil.example:{port}' is not an address of this server" in said
    assert not [line for line in said if TOKEN in line]


async def test_no_token_no_app(server):
    port, process = server
    running = set(app_processes(process.pid))
    async with client() as session:
        async with session.get(f"http://127.0.0.1:{port}/") as page:
            assert page.status == 401 and "data-session-websocket-url" not in await page.text()
        async with session.get(f"http://127.0.0.1:{port}/?token={TOKEN[:-1]}y") as page:
            assert page.status == 401 and not page.cookies
        async with session.get(f"http://127.0.0.1:{port}/static/js/textual.js") as script:
            assert script.status == 401
        origin = f"http://127.0.0.1:{port}"
        assert await refused(session, f"{origin}/ws", Origin=origin) == 401
        assert await refused(session, f"{origin}/ws?token=nope", Origin=origin) == 401
    await asyncio.sleep(1)
    assert not set(app_processes(process.pid)) - running  # the refused sockets started no app


async def test_the_printed_url_opens_the_app_and_a_reload_keeps_it(server):
    port, process = server
    origin = f"http://127.0.0.1:{port}"
    assert printed_url(process) == f"{origin}/?token=YOUR_TOKEN"  # the user gave it: not echoed
    async with client() as session:
        async with session.get(f"{origin}/?token={TOKEN}") as page:
            assert page.status == 200
            html = await page.text()
            cookie = page.cookies[f"haiku_tui_token_{port}"]
            assert page.headers["Referrer-Policy"] == "no-referrer"
        assert cookie.value == TOKEN and cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
        socket_url = re.search(r'data-session-websocket-url="([^"]+)"', html).group(1)
        assert socket_url == f"ws://127.0.0.1:{port}/ws"
        static = re.search(r'<script src="([^"]+)"', html).group(1)
        async with session.get(static) as script:
            assert script.status == 200  # the cookie, no token in the URL

        screen = await app_screen(session, socket_url, Origin=origin)
        assert "Ask a question about your documents" in screen

        async with session.get(f"{origin}/") as reload:  # a reload without the token in its URL
            assert reload.status == 200 and "data-session-websocket-url" in await reload.text()
        assert "Ask a question about your documents" in await app_screen(session, socket_url, Origin=origin)
    assert "token=[redacted]" in output(process) and TOKEN not in output(process)  # aiohttp's access log


async def test_a_page_opened_at_localhost_connects_to_localhost(server):
    """The page's socket follows the address the page was opened at (textual-serve wrote its own)."""
    port, _process = server
    async with client() as session, session.get(f"http://localhost:{port}/?token={TOKEN}") as page:
        assert page.status == 200
        assert f'data-session-websocket-url="ws://localhost:{port}/ws"' in await page.text()


async def test_the_apps_are_not_given_the_token(server):
    """The browser's app processes get the token neither in their arguments nor in their environment."""
    port, process = server
    origin = f"http://127.0.0.1:{port}"
    async with client() as session:
        await session.get(f"{origin}/?token={TOKEN}")
        async with session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24", headers={"Origin": origin}):
            for _ in range(300):  # a loaded machine takes seconds to start a process
                apps = app_processes(process.pid)
                if apps:
                    break
                await asyncio.sleep(0.1)
            assert apps
            for pid in apps:
                assert TOKEN.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
                assert TOKEN.encode() not in Path(f"/proc/{pid}/environ").read_bytes()


def app_processes(parent: int) -> list[int]:
    """The app processes below ``parent`` (``haiku_tui.cli`` without ``serve``: a child forked but not yet
    running the app's command is still a copy of the server), Linux only."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs /proc")
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, todo = [], list(children.get(parent, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"haiku_tui.cli" in argv and b"serve" not in argv:
                found.append(pid)
        except OSError:
            continue
    return found
