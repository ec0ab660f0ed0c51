"""AG-UI: the agent through Pydantic AI's real AGUIAdapter, in process and over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid

import pytest
from ag_ui.core import AssistantMessage, EventType, RunAgentInput, UserMessage

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.capabilities import Deps, ledger
from haiku_tui.store import KnowledgeBase
from tests.serve.servers import free_port, output, refusals, start, stop, wait_for_port

pytest.importorskip("pydantic_ai.ui.ag_ui")


def run_input(messages, state) -> RunAgentInput:
    return RunAgentInput(
        thread_id="thread",
        run_id=uuid.uuid4().hex,
        state=state,
        messages=messages,
        tools=[],
        context=[],
        forwarded_props={},
    )


def user(text: str) -> UserMessage:
    return UserMessage(id=uuid.uuid4().hex, content=text)


async def test_first_question_through_the_adapter_is_a_new_question(kb_path):
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    agent = build_agent(AgentConfig(), kb=KnowledgeBase.open(kb_path, create=False))
    state = {"host": {"theme": "dark", "filters": ["solar"]}}
    deps = Deps()
    adapter = AGUIAdapter(agent=agent, run_input=run_input([user("Do solar panels work in winter?")], state))
    events = [event async for event in adapter.run_stream(deps=deps)]
    types = [event.type for event in events]
    assert EventType.RUN_ERROR not in types, [e for e in events if e.type == EventType.RUN_ERROR]
    assert types[-1] == EventType.RUN_FINISHED
    answer = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert "[1]" in answer and "winter" in answer.lower()
    # the host's keys survive beside ours; the question is recorded with its identity and prompt
    assert deps.state["host"] == {"theme": "dark", "filters": ["solar"]}
    record = ledger.current_record(deps.state["rag"])
    assert record["question"] == 0 and record["prompt"] == "Do solar panels work in winter?"
    assert deps.state["rag"]["in_progress"] is False
    assert ledger.citation_status(deps.state, 0) == "grounded"


async def test_a_retried_question_continues_its_record(kb_path):
    """The same question sent again after a run that never finished continues that question's record."""
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    agent = build_agent(AgentConfig(), kb=KnowledgeBase.open(kb_path, create=False))
    namespace = ledger.new_namespace()
    ledger.begin_question(namespace, 0, "Do solar panels work in winter?")
    namespace["in_progress"] = True
    deps = Deps()
    state = {"rag": namespace}
    adapter = AGUIAdapter(agent=agent, run_input=run_input([user("Do solar panels work in winter?")], state))
    events = [event async for event in adapter.run_stream(deps=deps)]
    assert EventType.RUN_ERROR not in [e.type for e in events]
    assert [q["question"] for q in deps.state["rag"]["questions"]] == [0]
    assert ledger.citation_status(deps.state, 0) == "grounded" and deps.state["rag"]["in_progress"] is False


async def test_resumption_without_state_is_still_refused(kb_path):
    """A history that ends in the model's unanswered tool call still needs the question in progress."""
    from ag_ui.core import FunctionCall, ToolCall
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    agent = build_agent(AgentConfig(defer_loading=False), kb=KnowledgeBase.open(kb_path, create=False))
    call = ToolCall(id="call-1", function=FunctionCall(name="rag_search", arguments='{"query": "winter"}'))
    from ag_ui.core import ToolMessage

    messages = [
        user("Do solar panels work in winter?"),
        AssistantMessage(id="a1", tool_calls=[call]),
        ToolMessage(id="t1", tool_call_id="call-1", content="No results found."),
    ]
    deps = Deps()
    events = [e async for e in AGUIAdapter(agent=agent, run_input=run_input(messages, {})).run_stream(deps=deps)]
    errors = [e for e in events if e.type == EventType.RUN_ERROR]
    assert errors and "carries no question in progress" in errors[0].message


TOKEN = "agui-token-" + "y" * 24


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def post_run(url: str, body: RunAgentInput, **headers: str) -> list[dict]:
    """POST a run (with the token) and read the server-sent events it streams back."""
    data = json.dumps(body.model_dump(mode="json", by_alias=True)).encode()
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
               "Authorization": f"Bearer {TOKEN}", **headers}
    request = urllib.request.Request(url, data, headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def refused(url: str, body: RunAgentInput, **headers: str) -> tuple[int, str]:
    with pytest.raises(urllib.error.HTTPError) as refusal:
        post_run(url, body, **headers)
    return refusal.value.code, refusal.value.read().decode()


@pytest.fixture(scope="module")
def agui_server(kb_path):
    """``serve --ag-ui --token TOKEN`` on a free port: its URL and process."""
    port = free_port()
    server = start(["serve", "--ag-ui", "--db", str(kb_path), "--port", str(port), "--token", TOKEN])
    wait_for_port(port, server)
    yield f"http://127.0.0.1:{port}/", server
    stop(server)


@pytest.mark.slow
def test_serve_ag_ui_refuses_foreign_hosts_origins_and_no_token(agui_server):
    url, server = agui_server
    port = url.rsplit(":", 1)[1].strip("/")
    assert f"POST {url} with the header Authorization: Bearer YOUR_TOKEN" in output(server)  # not echoed
    body = run_input([user("How often should I feed a sourdough starter?")], {})
    rebound = {"Host": f"evil.example:{port}", "Origin": "http://evil.example"}  # a DNS-rebinding page
    assert refused(url, body, **rebound)[0] == 403
    assert refused(url, body, Origin="http://evil.example")[0] == 403
    assert refused(url, body, Host=f"127.0.0.1:{int(port) + 1}")[0] == 403
    assert refused(url, body, Authorization="")[0] == 401
    assert refused(url, body, Authorization=f"Bearer {TOKEN}x")[0] == 401
    no_token = (401, "haiku-tui: no valid Authorization: Bearer token\n")
    assert refused(url, body, Authorization=f"Basic {TOKEN}") == no_token
    assert get(url + "health") == "ok"  # open without the token: it says only that much
    with pytest.raises(urllib.error.HTTPError) as foreign:
        urllib.request.urlopen(urllib.request.Request(url + "health", headers=rebound), timeout=10)
    assert foreign.value.code == 403
    said = refusals(server)
    assert f"haiku-tui serve: refused POST / (403): Host 'evil.example:{port}' is not an address of this server" in said
    assert "haiku-tui serve: refused POST / (401): no valid Authorization: Bearer token" in said
    assert not [line for line in said if TOKEN in line]
    events = post_run(url, body, Origin=url.rstrip("/"))  # the server's own page may
    assert [e["type"] for e in events][-1] == "RUN_FINISHED"


@pytest.mark.slow
def test_serve_ag_ui_round_trips_state_over_http(agui_server):
    url, _server = agui_server
    assert get(url + "health") == "ok"
    first = user("How often should I feed a sourdough starter?")
    state = {"host": {"user": "ada"}}
    events = post_run(url, run_input([first], state))
    types = [e["type"] for e in events]
    assert "RUN_ERROR" not in types, events
    assert types[-2:] == ["STATE_SNAPSHOT", "RUN_FINISHED"]
    answer = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert "[1]" in answer
    state = events[-2]["snapshot"]
    assert state["host"] == {"user": "ada"} and state["rag"]["questions"][0]["prompt"] == first.content
    assert state["citation_policy"]["violations"] == []

    # the client sends the state back with the conversation and a second question
    messages = [first, AssistantMessage(id="a1", content=answer), user("Why do solar panels work in winter?")]
    events = post_run(url, run_input(messages, state))
    assert "RUN_ERROR" not in [e["type"] for e in events], events
    state = events[-2]["snapshot"]
    assert state["host"] == {"user": "ada"}
    assert [q["question"] for q in state["rag"]["questions"]] == [0, 2]
    cited = {c["title"] for c in state["rag"]["citation_index"].values()}
    assert {"Sourdough bread", "Solar panels"} <= cited, cited


@pytest.mark.slow
def test_no_token_on_loopback_still_checks_host_and_origin(kb_path):
    port = free_port()
    server = start(["serve", "--ag-ui", "--db", str(kb_path), "--port", str(port), "--no-token"])
    try:
        wait_for_port(port, server)
        url = f"http://127.0.0.1:{port}/"
        assert f"AG-UI endpoint: POST {url} (Ctrl+C stops)" in output(server)
        body = run_input([user("How often should I feed a sourdough starter?")], {})
        assert post_run(url, body, Authorization="")[-1]["type"] == "RUN_FINISHED"
        assert refused(url, body, Origin="http://evil.example", Authorization="")[0] == 403
    finally:
        stop(server)
