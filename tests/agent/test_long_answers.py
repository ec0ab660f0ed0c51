"""An over-long answer is kept whole in the session but bounded in later requests, and the wire inspector says so."""

from __future__ import annotations

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.agent.config import RETAINED_CHARS
from haiku_tui.capabilities.compaction import answer_budget
from haiku_tui.capabilities.wire import wire_requests
from haiku_tui.sessions.model import Session
from haiku_tui.sessions.run import Finished, QuestionRun
from tests.model_server import LONG_ANSWER_CHARS


async def ask(agent, session, prompt):
    run = QuestionRun(agent, session, prompt)
    outcome = [e async for e in run if isinstance(e, Finished)][-1]
    assert outcome.outcome == "completed", outcome.error
    return run.question


async def test_a_200kb_answer_rides_cut_in_later_requests(model_server, small_kb):
    agent = build_agent(AgentConfig(model="fake", base_url=model_server.base_url), kb=small_kb)
    session = Session()
    model_server.mode = "long"
    await ask(agent, session, "How long should I steep green tea?")
    first_requests = len(model_server.requests)
    model_server.mode = "ok"
    second = await ask(agent, session, "How do I feed a sourdough starter?")

    limit = answer_budget(RETAINED_CHARS)
    later = model_server.requests[first_requests:]
    assert later and all(r.size < limit + 40_000 for r in later), [r.size for r in later]
    earlier_answers = [m["content"] for m in later[0].messages if m["role"] == "assistant" and m.get("content")]
    cut = [a for a in earlier_answers if "answer cut to" in a]
    assert len(cut) == 1 and cut[0].endswith(
        f"[… answer cut to {limit} of {LONG_ANSWER_CHARS + 4} characters, to keep the request short]"
    )

    turns = session.turns()
    assert len(turns[0].answer) == LONG_ANSWER_CHARS + 4  # the stored session keeps it whole
    requests = wire_requests(session.state, session.messages, second, retained=RETAINED_CHARS)
    notes = [p.note for p in requests[0].parts if p.kind == "answer" and p.note]
    assert notes == [f"answer cut to {limit} of {LONG_ANSWER_CHARS + 4} characters"]
    assert requests[0].chars < limit + 40_000 < requests[0].uncompacted_chars
