"""The status bar's line at several widths: what gives way first, and what always stays (``fit_status``)."""

from __future__ import annotations

import pytest

from haiku_tui.capabilities.wire import Tokens
from haiku_tui.tui.main.status import StatusFacts, fit_status

DB = "/home/someone/notes/haiku-tui/demo.lancedb"
FACTS = StatusFacts(
    model="extractive (retrieval-only)",
    model_short="extractive",
    db=DB,
    request=(6300, 12200),
    tokens=Tokens(13500, 90, estimated=True),
)


def line(width: int, **changes) -> str:
    return fit_status(StatusFacts(**{**FACTS.__dict__, **changes}), width).plain


def test_wide_everything_whole():
    assert line(200) == (
        "extractive (retrieval-only) │ last request 6.3k chars (compacted −48%) │ "
        f"session tokens ≈ 13.5k in / 90 out (estimated) │ db {DB}"
    )


def test_120_columns_keep_the_session_tokens_short_and_the_file_name():
    text = line(118)  # a 120-column screen, less the bar's padding
    assert len(text) <= 118
    assert "request 6.3k chars (−48%)" in text and "session tokens ≈ 13.5k in / 90 out" in text
    assert text.endswith("/demo.lancedb") and "(estimated)" not in text


def test_80_columns_drop_the_tokens_then_the_models_kind_and_keep_the_request_and_the_path():
    assert line(78) == "extractive │ request 6.3k chars (−48%) │ db /home/so…es/haiku-tui/demo.lancedb"
    deep = line(78, db="/srv/kb/" + "deep/" * 12 + "demo.lancedb")
    assert len(deep) == 78 and "…" in deep and deep.endswith("/deep/demo.lancedb")


def test_80_columns_while_answering():
    text = line(78, running=True)
    assert "answering…" in text and "request 6.3k" in text and "−48%" in text
    assert text.endswith("/demo.lancedb") and len(text) <= 78


def test_80_columns_with_a_filter_and_a_watch():
    text = line(78, filter="path LIKE '%tea%'", watch="watching 2 folders")
    assert "filter " in text and text.endswith("'%tea%'") and "demo.lancedb" in text and len(text) <= 78
    assert "request 6.3k" in text and "watching" not in text  # the watch gave way before the request


@pytest.mark.parametrize("running", [False, True])
def test_every_width_from_64_columns_fits_and_keeps_the_request_and_the_file_name(running):
    for width in range(64, 221):
        text = line(width, running=running)
        assert len(text) <= width, (width, text)
        assert "request 6.3k" in text and "−48%" in text and "demo.lancedb" in text, (width, text)


def test_narrower_parts_never_come_back_longer():
    """A wider bar never shows a shorter form of a part than a narrower one."""
    shown = [line(width) for width in range(64, 221)]
    for narrow, wide in zip(shown, shown[1:]):
        assert ("session tokens" in narrow) <= ("session tokens" in wide)
        assert ("last request" in narrow) <= ("last request" in wide)
        assert ("chars" in narrow) <= ("chars" in wide) and ("(retrieval-only)" in narrow) <= (
            "(retrieval-only)" in wide
        )


def test_compaction_off_reported_tokens_and_an_unavailable_kb():
    text = line(200, request=(5000, 5000), compaction=False, tokens=Tokens(1200, 80), kb_unavailable=True)
    assert "last request 5.0k chars (compaction off)" in text
    assert "session tokens 1.2k in / 80 out │" in text and "≈" not in text and "estimated" not in text
    assert text.endswith(f"db {DB} (unavailable)")


def test_before_the_first_answer_only_the_model_and_the_database():
    assert line(78, request=None, tokens=None) == f"extractive (retrieval-only) │ db {DB}"
