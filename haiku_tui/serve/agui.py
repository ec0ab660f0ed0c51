"""``haiku-tui serve --ag-ui``: the agent (RAG, compaction, citation policy) over the AG-UI protocol.

One Starlette app: ``POST /`` takes an AG-UI ``RunAgentInput`` and streams the run's events
(server-sent events) through Pydantic AI's ``AGUIAdapter``; ``GET /health`` answers ``ok``.
Every request passes the Host and Origin checks of ``guard.py`` (403); ``POST /`` also wants
``Authorization: Bearer TOKEN`` (401). ``/health`` does not: it says only ``ok``, so a supervisor can
probe it without holding the secret.
The client's ``state`` becomes ``deps.state`` for the run, so the host's own keys sit beside
ours, and the whole state map comes back in a ``STATE_SNAPSHOT`` event before ``RUN_FINISHED``:
the client sends it back with the next question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from haiku_tui.agent import AgentConfig
    from haiku_tui.store import KnowledgeBase

    from .guard import Guard

OPEN_PATHS = ("/health",)


def create_app(config: AgentConfig, *, guard: Guard, kb: KnowledgeBase | None = None, model: Any = None) -> Starlette:
    """The AG-UI app serving the agent built from ``config`` (``kb``/``model`` as in ``build_agent``),
    behind ``guard``."""
    from ag_ui.core import StateSnapshotEvent
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    from haiku_tui.agent import build_agent, run_limits
    from haiku_tui.capabilities import Deps

    agent = build_agent(config, kb=kb, model=model)

    async def run(request: Request) -> Response:
        deps = Deps()  # the adapter sets deps.state to the client's state

        async def snapshot(_result: Any) -> Any:
            yield StateSnapshotEvent(snapshot=deps.state)

        return await AGUIAdapter.dispatch_request(
            request, agent=agent, deps=deps, on_complete=snapshot, usage_limits=run_limits()
        )

    async def health(_request: Request) -> Response:
        return PlainTextResponse("ok")

    routes = [Route("/", run, methods=["POST"]), Route("/health", health)]
    return Starlette(routes=routes, middleware=[Middleware(Guarded, guard=guard)])


class Guarded:
    """ASGI middleware: 403 for a foreign Host or Origin, 401 without the bearer token (but on ``/health``)."""

    def __init__(self, app: Any, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.datastructures import Headers
            from starlette.responses import PlainTextResponse

            from .guard import bearer

            headers = Headers(scope=scope)
            host, origin = headers.getlist("host"), headers.getlist("origin")
            status, why = 403, self.guard.refusal(", ".join(host), ", ".join(origin) if origin else None)
            token = bearer(headers.get("authorization"))
            if not why and scope["path"] not in OPEN_PATHS and not self.guard.admits(token):
                status, why = 401, "no valid Authorization: Bearer token"
            if why:
                self.guard.report(status, scope["method"], scope["path"], why)
                challenge = {"WWW-Authenticate": "Bearer"} if status == 401 else None
                await PlainTextResponse(f"haiku-tui: {why}\n", status, headers=challenge)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def serve(app: Starlette, *, host: str, port: int) -> None:
    """Serve the AG-UI app until interrupted."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
