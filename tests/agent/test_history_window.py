"""The ``history_window`` setting: default, a configured value, a bad value as one line."""

from __future__ import annotations

import pytest

from haiku_tui.agent.config import HISTORY_WINDOW, history_window
from haiku_tui.agent.models import ModelConfigError, config_path


def test_default_configured_and_bad_values(monkeypatch, tmp_path):
    monkeypatch.setenv("HAIKU_TUI_DATA_DIR", str(tmp_path))
    assert history_window() == HISTORY_WINDOW
    config_path().write_text("history_window = 0\n")
    assert history_window() == 0
    config_path().write_text('history_window = "many"\n')
    with pytest.raises(ModelConfigError, match="whole number"):
        history_window()
