"""``haiku-tui eval`` on a real knowledge base: its figures are what ``search`` returns for the same questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from haiku_tui.cli import main
from haiku_tui.sessions.store import SessionStore
from haiku_tui.store import KnowledgeBase
from tests.kb_fixture import build_small_kb

CASES = [
    {
        "question": "How often should I oil the bicycle chain?",
        "expected": "bicycle-maintenance.md",
        "phrase": "every 300 kilometres",
    },
    {"question": "What temperature for green tea?", "expected": "Tea brewing"},
    {"question": "Do solar panels work in winter?", "expected": "solar-panels"},
    {
        "question": "How do I feed a sourdough starter?",
        "expected": "tea-brewing.md",
    },  # the wrong source: a miss or a low rank
]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def kb_path(tmp_path: Path) -> str:
    path = tmp_path / "kb.lancedb"
    build_small_kb(path).close()
    return str(path)


def write_cases(path: Path, rows: list) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_figures_equal_what_search_returns(capsys, tmp_path, kb_path):
    cases = write_cases(tmp_path / "cases.jsonl", CASES)
    code, out, err = run(capsys, "--db", kb_path, "eval", cases, "--json")
    assert code == 0, err
    report = json.loads(out)
    ranks = []
    for case, result in zip(CASES, report["results"], strict=True):
        code, out, _ = run(capsys, "--db", kb_path, "search", case["question"], "--limit", "10", "--json")
        hits = json.loads(out)
        wanted = Path(case["expected"]).stem.lower()
        rank = next((h["rank"] for h in hits if wanted in (Path(h["path"]).stem.lower(), h["title"].lower())), None)
        ranks.append(rank)
        assert result["rank"] == rank, case
        assert [t["chunk_id"] for t in result["top"]] == [h["chunk_id"] for h in hits[:5]]
    assert ranks[:3] == [1, 1, 1] and ranks[3] != 1
    assert report["questions"] == 4 and report["k"] == 5
    assert report["recall"] == pytest.approx(sum(1 for r in ranks if r and r <= 5) / 4, abs=1e-4)
    assert report["mrr"] == pytest.approx(sum(1 / r for r in ranks if r) / 4, abs=1e-4)
    assert report["results"][0]["phrase_found"] is True
    assert report["phrases"] == {"with_phrase": 1, "found": 1}


def test_text_report_and_k(capsys, tmp_path, kb_path):
    cases = write_cases(tmp_path / "cases.jsonl", CASES)
    code, out, _ = run(capsys, "--db", kb_path, "eval", cases, "-k", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].strip().startswith("rank 1") and "bicycle" in lines[0] and "phrase found" in lines[0]
    assert "1. Bicycle maintenance" in lines[1]
    assert lines[-1].startswith("4 question(s): recall@1 0.750  MRR@10 ")
    code, out, _ = run(capsys, "--db", kb_path, "eval", cases, "-k", "1", "--misses")
    assert sum("→" in line for line in out.splitlines()) == 1 and "sourdough" in out


def test_expected_by_chunk_id_and_path(capsys, tmp_path, kb_path):
    with KnowledgeBase.open(kb_path) as kb:
        hit = kb.search("Black tea boiled water", limit=1)[0]
    rows = [{"question": "Black tea boiled water", "expected": hit.chunk_id},
            {"question": "Black tea boiled water", "expected": [hit.path]}]
    code, out, _ = run(capsys, "--db", kb_path, "eval", write_cases(tmp_path / "c.jsonl", rows), "--json")
    assert code == 0 and [r["rank"] for r in json.loads(out)["results"]] == [1, 1]


def test_bad_lines_are_one_error_each_and_the_rest_run(capsys, tmp_path, kb_path):
    rows = ["{not json", CASES[0], '{"question": "no source"}', "", "# a comment", '["a list"]', CASES[1]]
    code, out, err = run(capsys, "--db", kb_path, "eval", write_cases(tmp_path / "c.jsonl", rows))
    assert code == 1
    errors = err.splitlines()
    assert [e.split(":")[2].strip() for e in errors] == ["line 1", "line 3", "line 6"]
    assert all(e.startswith("haiku-tui: error: line ") for e in errors)
    assert "2 question(s): recall@5 1.000  MRR@10 1.000" in out


def test_nothing_to_evaluate_and_missing_file(capsys, tmp_path, kb_path):
    code, _, err = run(capsys, "--db", kb_path, "eval", write_cases(tmp_path / "c.jsonl", ["# only a comment"]))
    assert code == 1 and "no cases in" in err and len(err.splitlines()) == 1
    code, _, err = run(capsys, "--db", kb_path, "eval", str(tmp_path / "gone.jsonl"))
    assert code == 1 and "no such file" in err
    code, _, err = run(capsys, "--db", kb_path, "eval")
    assert code == 2 and "FILE" in err


def test_untrusted_text_is_printed_inert(capsys, tmp_path, kb_path):
    rows = [{"question": "green tea \x1b]0;pwned\x07\x1b[31m", "expected": "evil\x1b[2Jname"}]
    code, out, err = run(capsys, "--db", kb_path, "eval", write_cases(tmp_path / "c.jsonl", rows))
    assert code == 0 and "\x1b" not in out + err and "\x07" not in out
    assert "evilname" in out and "missed" in out


def reviewed_session(kb_path: str, capsys) -> tuple[str, str]:
    """A session asked with the offline model, its first citation marked as supporting: (session id, cited path)."""
    code, _, err = run(capsys, "--db", kb_path, "ask", "--session", "tea", "--new", "How long should green tea steep?")
    assert code == 0, err
    store = SessionStore()
    session = store.load("tea")
    index = session.state["rag"]["citation_index"]
    chunk_id, entry = next(iter(index.items()))
    question = session.state["rag"]["questions"][0]["question"]
    session.set_review(question, chunk_id, "supports")
    store.save(session)
    store.close()
    return session.id, entry["path"]


def test_reviews_become_cases(capsys, tmp_path, kb_path):
    _, cited = reviewed_session(kb_path, capsys)
    written = tmp_path / "reviewed.jsonl"
    code, out, err = run(capsys, "--db", kb_path, "eval", "--from-reviews", "--write", str(written), "--json")
    assert code == 0, err
    assert [json.loads(line) for line in written.read_text().splitlines()] == [
        {"question": "How long should green tea steep?", "expected": cited}
    ]
    report = json.loads(out)
    assert report["questions"] == 1 and report["results"][0]["rank"] == 1
    # the written file is a case file like any other, and gives the same figures
    code, again, _ = run(capsys, "--db", kb_path, "eval", str(written), "--json")
    assert json.loads(again)["results"] == report["results"]
    # the figures are kept beside the sessions database for the knowledge-base screen
    from haiku_tui.sessions.cases import latest_figures

    with SessionStore() as store:
        kept = latest_figures(store, str(Path(kb_path).resolve()))
    assert kept is not None and kept["recall"] == 1.0 and kept["questions"] == 1


def test_reviews_on_another_knowledge_base_are_left_out(capsys, tmp_path, kb_path):
    reviewed_session(kb_path, capsys)
    other = tmp_path / "other.lancedb"
    build_small_kb(other).close()
    code, _, err = run(capsys, "--db", str(other), "eval", "--from-reviews")
    assert code == 1
    assert "1 session(s) made on other knowledge bases left out" in err and "no reviewed citations" in err


def test_a_progress_bar_on_a_terminal_once_past_a_second(capsys, tmp_path, kb_path, monkeypatch):
    import itertools

    import rich.console

    import haiku_tui.cli.eval as eval_cli

    cases = write_cases(tmp_path / "c.jsonl", CASES)
    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    code, _, quick = run(capsys, "--db", kb_path, "eval", cases)
    assert code == 0 and "evaluating" not in quick  # done within the second: no bar
    clock = itertools.count(start=0.0, step=0.7)
    monkeypatch.setattr(eval_cli.time, "monotonic", lambda: next(clock))
    code, out, slow = run(capsys, "--db", kb_path, "eval", cases)
    assert code == 0 and "evaluating" in slow and "questions" in slow and "recall@5" in out
    code, _, quiet = run(capsys, "--db", kb_path, "eval", cases, "--quiet")
    assert "evaluating" not in quiet
