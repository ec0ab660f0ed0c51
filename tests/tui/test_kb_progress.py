"""The knowledge-base screen's progress when the embedder is the slow part: the label beside the bar names the
phase (parsing, embedding with its count, rate and time left or its wait, indexing), and the bar is full only
when the ingest is done."""

from __future__ import annotations

from textual.widgets import ProgressBar, Static

from haiku_tui.store import KnowledgeBase, embed_batches
from haiku_tui.store.records import EMBEDDING, INDEXING, PARSING, IngestProgress
from haiku_tui.tui.screens import KnowledgeScreen
from haiku_tui.tui.screens.knowledge_views import progress_label
from tests.slow_embedder import slow_builtin, write_many
from tests.tui.test_screens import Host, settle


async def test_the_screen_shows_the_embedding_then_the_indexing_until_the_ingest_is_done(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(embed_batches, "FIRST_BATCH", 4)
    monkeypatch.setattr(embed_batches, "MIN_BATCH", 4)
    monkeypatch.setattr(embed_batches, "EMBED_BATCH", 8)
    monkeypatch.setattr(embed_batches, "WAIT_SHOWN", 0.3)
    monkeypatch.setattr(embed_batches, "TICK", 0.1)
    docs = write_many(tmp_path / "docs", 8)
    kb = KnowledgeBase.open(tmp_path / "kb.lancedb", embedder=slow_builtin(0.15, first_delay=0.8))
    app = Host(KnowledgeScreen(kb.uri, kb=kb))
    shown: list[tuple[str, float | None, float]] = []
    async with app.run_test(size=(150, 30)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        original = screen._progress

        def spy(progress):
            original(progress)
            bar = screen.query_one("#kb-progress-bar", ProgressBar)
            shown.append((str(screen.query_one("#kb-progress-label", Static).render()), bar.total, bar.progress))

        monkeypatch.setattr(screen, "_progress", spy)
        screen.start_ingest(docs)
        await settle(app, pilot)
        done = str(screen.query_one("#kb-progress-label", Static).render())
    labels = [label for label, _, _ in shown]
    assert any(label.startswith("Parsing ") and "/8 files · " in label for label in labels)
    assert "Embedding 0/24 chunks · waiting for the embedder (1 s)" in labels  # the first call took long
    counted = [label for label in labels if label.startswith("Embedding ") and " left" in label]
    assert len({label.split(" · ")[0] for label in counted}) >= 3  # e.g. "Embedding 12/24 chunks"
    assert all(" chunks/s · " in label for label in counted)
    assert [total for label, total, _ in shown if label.startswith("Embedding ")][-1] == 24
    assert any(label == "Indexing 24 chunks" and total is None for label, total, _ in shown)  # a pulse, not full
    for label, total, progress in shown[:-1]:
        assert total is None or progress < total or label.startswith(("Parsing", "Embedding 24/24"))
    assert done == "Done: 8 added, 0 replaced, 0 unchanged, 0 failed"


def test_the_label_for_each_phase(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = dict(files_total=79, path=str(tmp_path / "docs" / "tea.md"), elapsed=4.0)
    assert progress_label(IngestProgress(files_done=32, chunks_done=146, **base)) == (
        "Parsing 32/79 files · 146 chunks · 8.0 files/s · docs/tea.md"
    )
    embedding = IngestProgress(
        files_done=79, chunks_done=440, phase=EMBEDDING, chunks_embedded=120, embed_seconds=12, **base
    )
    assert progress_label(embedding) == "Embedding 120/440 chunks · 10 chunks/s · 0:32 left"
    assert progress_label(IngestProgress(files_done=79, chunks_done=440, phase=INDEXING, **base)) == (
        "Indexing 440 chunks"
    )
    hostile = IngestProgress(files_done=1, chunks_done=1, phase=PARSING, **{**base, "path": "/x/[red]\x1b[2Jbad.md"})
    assert "\x1b" not in progress_label(hostile) and "[red]" in progress_label(hostile)  # shown as text
