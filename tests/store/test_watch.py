"""watch: a watched folder picks up changes; a burst of writes ends in one consistent state."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from haiku_tui.store import KnowledgeBase
from haiku_tui.store.watch import watch


class Watcher:
    """Runs :func:`watch` in a thread, collecting its reports."""

    def __init__(self, kb: KnowledgeBase, paths: list[Path]) -> None:
        self.stop = threading.Event()
        self.reports: list = []
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(kb, paths), daemon=True)
        self.thread.start()
        assert self.ready.wait(30), "initial sync did not finish"

    def _run(self, kb: KnowledgeBase, paths: list[Path]) -> None:
        for report in watch(kb, paths, stop_event=self.stop, debounce_ms=200):
            self.reports.append(report)
            self.ready.set()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        assert not self.thread.is_alive()


def wait_for(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_watch_picks_up_a_new_file_and_a_deletion(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb")
    watcher = Watcher(kb, [docs_dir])
    try:
        assert len(watcher.reports[0].added) == 4  # the initial sync
        (docs_dir / "kettles.md").write_text("# Kettles\n\nA whistling kettle sings when the water boils.\n")
        assert wait_for(lambda: kb.search("whistling kettle") != [])
        (docs_dir / "solar-panels.md").unlink()
        assert wait_for(lambda: kb.document(str(docs_dir / "solar-panels.md")) is None)
        (docs_dir / "notes.psd").write_bytes(b"8BPS")  # not a document: no step reported
    finally:
        watcher.close()
    assert any(Path(d.path).name == "kettles.md" for r in watcher.reports for d in r.added)


def test_a_file_written_just_after_the_initial_sync_is_picked_up(tmp_path, docs_dir):
    """The file is written before the generator resumes after its first report (the app's thread is busy
    showing it): the watcher already runs and sees it (it once started only then, and missed it)."""
    kb = KnowledgeBase.open(tmp_path / "kb")
    stop = threading.Event()
    steps = watch(kb, [docs_dir], stop_event=stop, debounce_ms=200)
    assert len(next(steps).added) == 4
    (docs_dir / "kettles.md").write_text("# Kettles\n\nA whistling kettle sings when the water boils.\n")
    timer = threading.Timer(20, stop.set)  # without the change seen, the generator ends here
    timer.start()
    try:
        report = next(steps, None)
    finally:
        timer.cancel()
        stop.set()
    assert report is not None and [Path(d.path).name for d in report.added] == ["kettles.md"]


def test_burst_of_a_thousand_writes_ends_consistent(tmp_path):
    folder = tmp_path / "burst"
    folder.mkdir()
    kb = KnowledgeBase.open(tmp_path / "kb")
    watcher = Watcher(kb, [folder])
    try:
        for i in range(1000):  # 50 files, each rewritten 20 times
            n = i % 50
            (folder / f"note-{n:02d}.md").write_text(f"# Note {n}\n\nVersion {i // 50} of note {n}.\n")
        expected = {str(folder / f"note-{n:02d}.md") for n in range(50)}

        def consistent() -> bool:
            docs = kb.documents()
            return {d.path for d in docs} == expected and all(
                kb.document_chunks(d.id)[0].text.endswith(f"Version 19 of note {int(Path(d.path).stem[5:])}.")
                for d in docs
            )

        assert wait_for(consistent, timeout=60)
    finally:
        watcher.close()
    assert kb.info()["orphan_chunks"] == 0 and len(kb.documents()) == 50
