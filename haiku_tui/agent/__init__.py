"""The agent layer: model resolution, the offline ``extractive`` model, and building the agent."""

from __future__ import annotations

from haiku_tui.agent.config import AgentConfig, build_agent, run_limits
from haiku_tui.agent.errors import describe_error, safe_line, secrets_in_use
from haiku_tui.agent.models import (
    EXTRACTIVE,
    ModelChoice,
    ModelConfigError,
    choose_model,
    is_extractive,
    model_label,
    resolve_model,
)
from haiku_tui.agent.preamble import PREAMBLE

__all__ = [
    "EXTRACTIVE",
    "PREAMBLE",
    "AgentConfig",
    "ModelChoice",
    "ModelConfigError",
    "build_agent",
    "choose_model",
    "describe_error",
    "is_extractive",
    "model_label",
    "resolve_model",
    "run_limits",
    "safe_line",
    "secrets_in_use",
]
