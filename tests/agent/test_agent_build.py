"""build_agent registers what the configuration asks for."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.capabilities.analysis import ANALYSIS_ID
from haiku_tui.capabilities.compaction import COMPACTION_ID
from haiku_tui.capabilities.policy import POLICY_ID
from haiku_tui.capabilities.rag import RAG_ID


def capability_ids(agent: Agent) -> set[str]:
    found: set[str] = set()
    agent.root_capability.apply(lambda c: found.add(c.id) if c.id else None)
    return found


def test_default_agent_has_rag_compaction_and_policy(tmp_path):
    ids = capability_ids(build_agent(AgentConfig(db=str(tmp_path / "kb")), model=TestModel()))
    assert {RAG_ID, COMPACTION_ID, POLICY_ID} <= ids and ANALYSIS_ID not in ids


def test_analysis_is_opt_in_and_each_capability_can_be_switched_off(tmp_path):
    config = AgentConfig(db=str(tmp_path / "kb"), analysis=True, compaction=False, policy=False)
    ids = capability_ids(build_agent(config, model=TestModel()))
    assert {RAG_ID, ANALYSIS_ID} <= ids and not {COMPACTION_ID, POLICY_ID} & ids


def test_anthropic_models_get_prompt_cache_points_and_others_none(tmp_path):
    """Instructions, tools and the history's last block are Anthropic cache points, and the instructions do not change
    at the first capability load; other servers cache prefixes themselves, so their settings carry none."""

    class AnthropicLike(TestModel):
        @property
        def system(self) -> str:
            return "anthropic"

    plain = build_agent(AgentConfig(db=str(tmp_path / "kb")), model=TestModel())
    anthropic = build_agent(AgentConfig(db=str(tmp_path / "kb")), model=AnthropicLike())
    assert not any(key.startswith("anthropic_") for key in plain.model_settings)
    assert {k: v for k, v in anthropic.model_settings.items() if k.startswith("anthropic_")} == {
        "anthropic_cache_instructions": True, "anthropic_cache_tool_definitions": True, "anthropic_cache": True,
    }
    # the note on <system> blocks is in the instructions from the first request (not added at the first load)
    assert anthropic.model_settings["framing_announcement"] == "always"
    assert "framing_announcement" not in plain.model_settings
