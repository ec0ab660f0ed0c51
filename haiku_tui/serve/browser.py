"""``haiku-tui serve``: the app in a browser, through textual-serve.

Every browser tab that opens the page starts its own ``haiku-tui`` process (Textual's web
driver) with the same knowledge base, model and sessions as the terminal app.

textual-serve has no authentication, so its aiohttp application is wrapped in :func:`middleware`
(``guard.py``): every route (the page, ``/static``, ``/ws``, ``/download``) checks Host and Origin and
wants the token. The printed URL carries it (``/?token=…``); the page's response sets it as a cookie
(HttpOnly, SameSite=Strict, path ``/``, named after the port) that the page's WebSocket, its static
files and a reload then send. The socket's URL is fixed by textual-serve's page (``ws://…/ws?width=…``)
and its downloads' by its script (``location.origin + "/download/…"``), so a cookie is the one way their
requests can carry the token. Browsers do not keep cookies apart by port: another server on the same
host name that the browser visits would be sent it too (the name, with the port, keeps two of ours apart).
"""

from __future__ import annotations

import logging
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

    from .guard import Guard


NO_TOKEN = "no token: open the URL `haiku-tui serve` printed (it ends in ?token=…)"


def app_command(app_args: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser session (it never holds the token)."""
    return shlex.join([sys.executable, "-m", "haiku_tui.cli", *app_args])


def middleware(guard: Guard) -> Any:
    """An aiohttp middleware: 403 for a foreign Host or Origin, 401 without the token, else the route."""
    from aiohttp import web

    @web.middleware
    async def guarded(request: web.Request, handler: Any) -> web.StreamResponse:
        headers = request.headers
        why = guard.refusal(_one(headers.getall("Host", [])), _one(headers.getall("Origin", []), None))
        if why:
            guard.report(403, request.method, request.path, why)
            return web.Response(status=403, text=f"haiku-tui: {why}\n")
        from_query = "token" in request.query and guard.admits(request.query["token"])
        if not from_query and not guard.admits(request.cookies.get(guard.cookie)):
            guard.report(401, request.method, request.path, "no token")
            return web.Response(status=401, text=f"haiku-tui: {NO_TOKEN}\n")
        response = await handler(request)
        if not response.prepared:  # a WebSocket's handshake went out long ago
            response.headers["Referrer-Policy"] = "no-referrer"  # the page's URL holds the token
            if from_query and guard.token:
                response.set_cookie(guard.cookie, guard.token, path="/", httponly=True, samesite="Strict")
        return response

    return guarded


def _one(values: list[str], missing: str | None = "") -> str | None:
    """A header's value; several of them (no browser sends that) as one that fails every check."""
    return ", ".join(values) if values else missing


def _scrubbed(record: logging.LogRecord) -> bool:
    """aiohttp's access log line without the token (``GET /?token=…`` → ``token=[redacted]``)."""
    from haiku_tui.sessions.scrub import scrub_text

    record.msg, record.args = scrub_text(record.getMessage()), ()
    return True


def serve(app_args: Sequence[str], *, guard: Guard) -> None:
    """Serve the app at ``http://host:port/`` until interrupted."""
    from textual_serve.server import Server

    logging.getLogger("aiohttp.access").addFilter(_scrubbed)

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(middleware(guard))
            return app

        async def handle_index(self, request: web.Request) -> Any:
            # textual-serve writes the socket's URL from its public URL: use the address this page was asked
            # for (checked by the middleware), so a page opened at localhost connects to localhost, and one
            # opened from another machine to the address it used rather than 0.0.0.0.
            self.public_url = f"http://{request.host}"
            return await super().handle_index(request)

        async def on_startup(self, app: web.Application) -> None:
            """textual-serve's banner names its URL without the token: the command printed the one to open."""

    GuardedServer(app_command(app_args), host=guard.host, port=guard.port, title="haiku-tui").serve()
