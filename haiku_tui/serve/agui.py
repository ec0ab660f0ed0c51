"""``haiku-tui serve --ag-ui``: the agent (RAG, compaction, citation policy) over the AG-UI protocol.

One Starlette app: ``POST /`` takes an AG-UI ``RunAgentInput`` and streams the run's events
(server-sent events) through Pydantic AI's ``AGUIAdapter``; ``GET /health`` answers ``ok``.
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


def create_app(config: AgentConfig, *, kb: KnowledgeBase | None = None, model: Any = None) -> Starlette:
    """The AG-UI app serving the agent built from ``config`` (``kb``/``model`` as in ``build_agent``)."""
    from ag_ui.core import StateSnapshotEvent
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from starlette.applications import Starlette
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

    return Starlette(routes=[Route("/", run, methods=["POST"]), Route("/health", health)])


def serve(app: Starlette, *, host: str, port: int) -> None:
    """Serve the AG-UI app until interrupted."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
