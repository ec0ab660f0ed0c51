"""The ``history_window`` and ``retained_chars`` settings: default, a configured value, a bad value as one line."""

from __future__ import annotations

import pytest

from haiku_tui.agent.config import HISTORY_WINDOW, RETAINED_CHARS, history_window, retained_chars
from haiku_tui.agent.models import ModelConfigError, config_path


def test_default_configured_and_bad_values(monkeypatch, tmp_path):
    monkeypatch.setenv("HAIKU_TUI_DATA_DIR", str(tmp_path))
    assert history_window() == HISTORY_WINDOW
    config_path().write_text("history_window = 0\n")
    assert history_window() == 0
    config_path().write_text('history_window = "many"\n')
    with pytest.raises(ModelConfigError, match="whole number"):
        history_window()


def test_retained_chars_default_configured_and_bad_values(monkeypatch, tmp_path):
    monkeypatch.setenv("HAIKU_TUI_DATA_DIR", str(tmp_path))
    assert retained_chars() == RETAINED_CHARS
    config_path().write_text("retained_chars = 0\nhistory_window = 5\n")
    assert (retained_chars(), history_window()) == (0, 5)
    config_path().write_text("retained_chars = 12000\n")
    assert retained_chars() == 12000
    for bad in ("-1", "1.5", "true", '"lots"'):
        config_path().write_text(f"retained_chars = {bad}\n")
        with pytest.raises(
            ModelConfigError, match=r"'retained_chars' must be a whole number ≥ 0 \(0: every cited chunk in full\)"
        ):
            retained_chars()
        assert history_window() == HISTORY_WINDOW  # one bad setting does not spoil the other
