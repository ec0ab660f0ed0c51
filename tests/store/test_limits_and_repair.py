"""Bounded ingest (slow or huge files), indexes a kill left unbuilt, and doctor for a damaged store."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from haiku_tui.cli import main
from haiku_tui.store import KnowledgeBase, ParseError
from haiku_tui.store.formats.pdf import parse_pdf
from haiku_tui.store.kb import CHUNKS
from haiku_tui.store.limits import IngestLimits
from haiku_tui.store.parsing import parse_bytes
from tests.store.office_files import docx_bytes


def shared_stream_pdf(pages: int, repeats: int) -> bytes:
    """A few KB of PDF whose pages all draw one large compressed content stream (seconds per page)."""
    writer = PdfWriter()
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 12 Tf 72 720 Td (quokka words here) Tj ET\n" * repeats)
    stream = writer._add_object(content.flate_encode())
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = stream
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def test_slow_pdf_is_reported_and_the_rest_of_the_batch_lands(tmp_path, docs_dir):
    (docs_dir / "bomb.pdf").write_bytes(shared_stream_pdf(pages=40, repeats=20_000))  # ~10 KB, > 1 min in-process
    kb = KnowledgeBase.open(tmp_path / "kb")
    started = time.perf_counter()
    report = kb.add([docs_dir], limits=IngestLimits(max_seconds=1.5))
    assert time.perf_counter() - started < 20
    assert len(report.added) == 4
    assert [(Path(f.path).name, f.reason) for f in report.failed] == [
        ("bomb.pdf", "too slow to parse (over 1.5 s; limit HAIKU_TUI_MAX_PARSE_SECONDS)")
    ]


def test_extracted_text_is_capped():
    data = shared_stream_pdf(pages=3, repeats=200)
    assert len(parse_pdf(data).blocks) > 0
    with pytest.raises(ParseError, match="too much text"):
        parse_pdf(data, max_chars=5_000)


def test_a_zip_bomb_docx_is_refused_at_once_and_a_docx_within_the_limit_parses(tmp_path, docs_dir):
    bomb = docx_bytes([(None, "quokka " * 100_000)])  # unpacks to 700 KB (stored, not deflated: same check)
    limits = IngestLimits(max_chars=10_000)  # may unpack to 200 KB
    with pytest.raises(ParseError, match=r"unpacks to 1 MB, over the 0 MB limit \(a zip bomb\?\)"):
        parse_bytes(Path("bomb.docx"), bomb, limits)
    small = docx_bytes([("Heading1", "Quokkas"), (None, "Quokkas smile. " * 100)])
    assert "Quokkas smile." in parse_bytes(Path("small.docx"), small, limits).blocks[-1].text

    (docs_dir / "bomb.docx").write_bytes(bomb)
    kb = KnowledgeBase.open(tmp_path / "kb")
    started = time.perf_counter()
    report = kb.add([docs_dir], limits=IngestLimits(max_chars=10_000, max_seconds=60))
    assert time.perf_counter() - started < 20
    assert len(report.added) == 4
    assert [Path(f.path).name for f in report.failed] == ["bomb.docx"] and "zip bomb" in report.failed[0].reason


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("HAIKU_TUI_MAX_PARSE_SECONDS", "7")
    monkeypatch.setenv("HAIKU_TUI_MAX_TEXT_MB", "0.5")
    assert IngestLimits.from_env(max_bytes=10) == IngestLimits(max_bytes=10, max_chars=500_000, max_seconds=7.0)
    monkeypatch.setenv("HAIKU_TUI_MAX_PARSE_SECONDS", "nonsense")
    assert IngestLimits.from_env().max_seconds == IngestLimits().max_seconds


def test_missing_full_text_index_is_built_on_the_next_open(tmp_path, docs_dir):
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.add([docs_dir])
    table = kb.storage.table(CHUNKS)
    for index in table.list_indices():  # what a kill between writing rows and indexing leaves
        table.drop_index(index.name)
    assert kb.storage.missing_indexes() == ["fts", "fts_headings"] and not kb.info()["fts_index"]
    kb.close()
    reopened = KnowledgeBase.open(tmp_path / "kb")
    assert reopened.storage.missing_indexes() == [] and reopened.info()["fts_index"]
    assert reopened.search("sourdough starter")


def test_missing_data_file_points_to_doctor_which_rebuilds(tmp_path, docs_dir, capsys):
    db = tmp_path / "kb"
    KnowledgeBase.open(db).add([docs_dir])
    for data_file in (db / "chunks.lance" / "data").glob("*.lance"):
        data_file.unlink()
    assert main(["--db", str(db), "search", "tea"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged" in err and "haiku-tui doctor --repair" in err and "rustc" not in err
    assert main(["--db", str(db), "add", str(docs_dir / "new.md")]) == 1  # add fails the same way
    assert "haiku-tui doctor --repair" in capsys.readouterr().err
    assert main(["--db", str(db), "ask", "how do I brew tea"]) == 1  # and so does ask
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "haiku-tui doctor --repair" in err

    assert main(["--db", str(db), "doctor"]) == 1
    assert "problem: chunks table unreadable: a data file is missing" in capsys.readouterr().out
    (docs_dir / "tea-brewing.md").unlink()  # a source file gone since: reported, not rebuilt
    assert main(["--db", str(db), "doctor", "--repair"]) == 0
    out = capsys.readouterr().out
    assert "moved the damaged knowledge base to" in out and "source file gone, not rebuilt" in out
    assert "rebuilt 3 documents" in out
    assert len(list(tmp_path.glob("kb.damaged-*"))) == 1  # nothing deleted
    assert main(["--db", str(db), "doctor"]) == 0 and "is healthy (3 documents)" in capsys.readouterr().out
    assert main(["--db", str(db), "search", "sourdough"]) == 0


@pytest.mark.parametrize("damage", ["truncated data", "overwritten data", "truncated manifests", "missing index"])
def test_a_damaged_file_points_to_doctor_which_rebuilds(tmp_path, docs_dir, capsys, damage):
    db = tmp_path / "kb"
    KnowledgeBase.open(db).add([docs_dir])
    table = db / "chunks.lance"
    if damage == "missing index":
        for index_file in (table / "_indices").rglob("*.lance"):
            index_file.unlink()
    else:
        files = (
            list((table / "_versions").iterdir())
            if damage == "truncated manifests"
            else list((table / "data").glob("*.lance"))
        )
        for found in files:
            size = found.stat().st_size
            with found.open("r+b") as f:
                f.truncate(10) if damage.startswith("truncated") else f.write(b"\x00" * size)
    for argv in (["search", "tea"], ["ask", "how do I brew tea"]):
        assert main(["--db", str(db), *argv]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is damaged (a data file" in err and "haiku-tui doctor --repair" in err, err
        assert "lance error" not in err and ".rs:" not in err and "Error:" not in err, err
    assert main(["--db", str(db), "doctor"]) == 1
    out = capsys.readouterr().out
    assert "problem: " in out and (": a data file is unreadable" in out or ": a data file is missing" in out), out
    assert main(["--db", str(db), "doctor", "--repair"]) == 0
    assert "rebuilt 4 documents" in capsys.readouterr().out
    assert main(["--db", str(db), "search", "sourdough"]) == 0


def test_office_parsing_works_from_any_main_module(tmp_path):
    """The parse worker is started with ``-m``: a program read from stdin (no __main__ file) works."""
    import subprocess
    import sys

    from tests.store.office_files import docx_bytes

    (tmp_path / "a.docx").write_bytes(docx_bytes([("Heading1", "Kettles"), (None, "Kettles whistle.")]))
    program = (
        "import sys\nfrom haiku_tui.store import KnowledgeBase\n"
        f"r = KnowledgeBase.open({str(tmp_path / 'kb')!r}).add([{str(tmp_path / 'a.docx')!r}])\n"
        "print(len(r.added), [f.reason for f in r.failed])\n"
    )
    done = subprocess.run(
        [sys.executable, "-"], input=program, capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.strip() == "1 []", done.stderr[-500:]
