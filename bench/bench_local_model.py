"""A real small model on a local llama.cpp server, through ``haiku-tui ask --json``, on held-out questions.

    python -m bench.bench_local_model [--model-size 0.5b|1.5b] [--paths deferred at-once …] [--limit N]
        [--corpora notes stdlib pydoc] [--set held-out|tuning] [--temperature T] [--seed N] [--out FILE.json] [--check]

Runs ``bench/sets/local_questions.py`` (held out: report, never tune) as subprocesses of ``haiku-tui ask
--json --base-url http://127.0.0.1:PORT/v1 --model NAME`` against ``bench/llama_server.py`` (started by
``bench/local_model.py``; run its ``setup`` first), one path at a time (``--paths``, see ``PATHS``), and the
offline ``extractive`` model as the reference. Follow-ups are asked after their question in one session.
``BENCH_CODE=<another checkout>`` runs that checkout's ``haiku_tui`` (a before/after in one session).

Per path: answered (exit 0, some text); shown as grounded (a source listed and no "not grounded" line);
confirmed (a claim of the answer is backed by a cited or attributed passage that the support check does not
flag as weak); confirmed in the right source (that passage is in the answering document); right source (any
source listed is the answering document); answering phrase quoted; text tool calls shown (``<tool_call>``,
``<tool_response>`` or a bare ``{"name": …, "arguments": …}`` in the printed answer); only a marker (``[2]``
and at most four words); instructions echoed as the answer; answered search-first;
seconds per question (the whole ``ask`` process); and, from the server's log, requests, prompt tokens and
prompt tokens evaluated (not served from the KV cache) per question. ``--limit N`` asks the first N standalone
questions of each corpus, and every follow-up pair. ``--set tuning`` asks ``eval_questions``' tuning splits instead
(pydoc and stdlib), where a choice may be tried; ``--temperature`` is the server's default sampling temperature,
``--seed`` its seed (0; another seed samples every answer anew, which shows how far a figure moves by chance).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench.eval_retrieval import norm
from bench.local_model import MODELS, local_server, stop_on_sigterm
from bench.sets.local_questions import QUESTIONS, LocalQuestion

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(os.environ.get("BENCH_CODE") or ROOT)
"""The checkout whose ``haiku_tui`` answers (``BENCH_CODE=<another checkout>`` times that one)."""
TOOL_TEXT = ("<tool_call>", "<tool_response>", "[TOOL_CALLS]")
ECHOES = ("You answer from a local knowledge base", "looks like an application frame")
"""Lines of the instructions a model may write back as its answer (haiku-tui's, Pydantic AI's framing note)."""
BARE_CALL = re.compile(r'\{\s*"name"\s*:\s*"[^"]+"\s*,\s*"(arguments|parameters)"')


@dataclass(frozen=True)
class Path_:
    """One way of asking: extra ``ask`` arguments and environment, and whether the real model answers."""

    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    real: bool = True
    tools_at_once: bool = False
    passages: int = 0
    """Search-first passages per question (0: the product's five)."""


PATHS = {
    "extractive": Path_(real=False),
    "deferred": Path_(env=(("HAIKU_TUI_SEARCH_FIRST", "0"),)),
    "at-once": Path_(env=(("HAIKU_TUI_SEARCH_FIRST", "0"),), tools_at_once=True),
    "search-first": Path_(env=(("HAIKU_TUI_SEARCH_FIRST", "1"),)),
    "default": Path_(),
    "default-3": Path_(passages=3),
}
"""``deferred``: tools deferred behind ``load_capability`` (main's default; ``HAIKU_TUI_SEARCH_FIRST=0``: no
fallback); ``at-once``: every tool offered from the first request; ``search-first``: reported twice, counting
only the model's own ``[n]`` and then the attributed sentences too; ``default``: no setting (fallbacks on);
``default-3``: the same with three passages a question instead of five."""


@dataclass
class Row:
    question: LocalQuestion
    data: dict = field(default_factory=dict)
    seconds: float = 0.0
    requests: list[dict] = field(default_factory=list)
    error: str = ""
    only_model: bool = False
    """Count only the citations the model wrote (``[n]``), not those haiku-tui attributed."""

    @property
    def answer(self) -> str:
        return self.data.get("answer") or ""

    @property
    def ok(self) -> bool:
        return bool(self.answer.strip())

    @property
    def stems(self) -> dict[str, str]:
        """chunk id → document stem of each citation counted."""
        return {
            c["chunk_id"]: Path(c.get("path") or "").stem
            for c in self.data.get("citations", [])
            if not self.only_model or c.get("by", "model") == "model"
        }

    @property
    def sources(self) -> list[str]:
        return sorted(set(self.stems.values()))

    @property
    def grounded(self) -> bool:
        """Shown as grounded: a source listed and no not-grounded line."""
        return bool(self.sources) and not self.data.get("grounding")

    @property
    def confirmed_stems(self) -> set[str]:
        """Documents of the counted passages the support check confirms (a claim backed, not weak)."""
        stems = self.stems
        support = self.data.get("support", [])
        return {stems[s["chunk_id"]] for s in support if not s.get("weak") and s.get("chunk_id") in stems}

    @property
    def confirmed(self) -> bool:
        return self.grounded and bool(self.confirmed_stems)

    @property
    def confirmed_right(self) -> bool:
        return self.grounded and bool(set(self.question.doc.split()) & self.confirmed_stems)

    @property
    def right(self) -> bool:
        return bool(set(self.question.doc.split()) & set(self.sources))

    @property
    def quoted(self) -> bool:
        return norm(self.question.phrase) in norm(self.answer)

    @property
    def tool_text(self) -> bool:
        """A tool call written as the answer: tagged, or a bare ``{"name": …, "arguments": …}``."""
        return any(t in self.answer for t in TOOL_TEXT) or bool(BARE_CALL.search(self.answer))

    @property
    def marker_only(self) -> bool:
        """The answer is ``[n]`` markers and a few words ("The answer is from passage [1].", a heading): no claim."""
        words = re.findall(r"[A-Za-z]{3,}", re.sub(r"\[\d+\]", "", self.answer))
        return bool(re.search(r"\[\d+\]", self.answer)) and len(words) <= 4

    @property
    def echo(self) -> bool:
        """The answer writes back the instructions."""
        return any(line in self.answer for line in ECHOES)

    @property
    def search_first(self) -> bool:
        return self.data.get("path") == "search-first"


def corpus_files(corpus: str, out: Path) -> list[Path]:
    from bench.corpora.notes import write_corpus as notes
    from bench.corpora.pydoc import write_corpus as pydoc
    from bench.corpora.stdlib import write_corpus as stdlib

    return {"notes": notes, "pydoc": pydoc, "stdlib": stdlib}[corpus](out / f"{corpus}-corpus")


def build_kbs(corpora: list[str], tmp: Path) -> dict[str, str]:
    from haiku_tui.store.kb import KnowledgeBase

    dbs = {}
    for corpus in corpora:
        db = str(tmp / f"{corpus}.lancedb")
        with KnowledgeBase.open(db) as kb:
            kb.add(corpus_files(corpus, tmp))
        dbs[corpus] = db
    return dbs


def tuning_questions() -> list[LocalQuestion]:
    """``eval_questions``' tuning splits on the corpora served here, as local questions (any of a question's
    documents is its right source): what prompt and sampling choices may be tried on."""
    from bench.sets.eval_questions import tuning

    return [LocalQuestion(q.corpus, q.question, " ".join(sorted(q.docs)), q.phrase) for q in tuning()]


def selected(corpora: list[str], limit: int | None, pool: list[LocalQuestion] = QUESTIONS) -> list[LocalQuestion]:
    """The questions of ``corpora``: the first ``limit`` standalone ones of each, and every follow-up pair."""
    out = []
    for corpus in corpora:
        own = [q for q in pool if q.corpus == corpus]
        opening = {q.follows for q in own if q.follows}
        keep = {q.question for q in [q for q in own if q.follows is None and q.question not in opening][:limit]}
        out += [q for q in own if q.question in keep or q.question in opening or q.follows]
    return out


def ask_command(db: str, q: LocalQuestion, path: Path_, url: str | None, model: str, session: str | None):
    launcher = [sys.executable, "-m", "bench.bench_local_model", "_ask"] if path.tools_at_once or path.passages else [
        sys.executable, "-m", "haiku_tui.cli",
    ]
    command = [*launcher, "--db", db, "ask", "--json", *path.args]
    if path.real:
        command += ["--base-url", url, "--model", model]
    else:
        command += ["--model", "extractive"]
    if session is not None:
        command += ["--session", session, *(["--new"] if q.follows is None else [])]
    return [*command, q.question]


def read_log(log: Path, start: int) -> tuple[list[dict], int]:
    if not log.exists():
        return [], start
    data = log.read_bytes()
    lines = [json.loads(line) for line in data[start:].decode().splitlines() if line.strip()]
    return lines, len(data)


def run_path(name: str, questions: list[LocalQuestion], dbs: dict[str, str], url: str, model: str, log: Path,
             data_dir: Path, progress=lambda rows: None) -> list[Row]:
    """Ask ``questions`` one way; ``progress(rows)`` after each answer."""
    path = PATHS[name]
    env = {
        **os.environ, "HAIKU_TUI_DATA_DIR": str(data_dir / name), "HAIKU_TUI_TIMEOUT": "900",
        "PYTHONPATH": str(ROOT), **dict(path.env),
        "BENCH_TOOLS_AT_ONCE": "1" if path.tools_at_once else "", "BENCH_PASSAGES": str(path.passages or ""),
    }
    env.pop("HAIKU_TUI_MODEL", None)
    env.pop("HAIKU_TUI_BASE_URL", None)
    rows, offset = [], read_log(log, 0)[1]
    pairs = {q.follows for q in questions if q.follows}
    for i, q in enumerate(questions, 1):
        first = q.question if q.question in pairs else q.follows
        session = f"{name}-{zlib.crc32(first.encode()):08x}" if first else None
        t0 = time.perf_counter()
        proc = subprocess.run(
            ask_command(dbs[q.corpus], q, path, url, model, session), cwd=CODE, env=env, capture_output=True,
            text=True,
        )
        row = Row(q, seconds=time.perf_counter() - t0)
        row.requests, offset = read_log(log, offset)
        if proc.returncode == 0:
            row.data = json.loads(proc.stdout)
        else:
            row.error = (proc.stderr.strip().splitlines() or ["?"])[-1]
        rows.append(row)
        progress(rows)
        mark = "right" if row.right else ("grounded" if row.grounded else ("error" if row.error else "ungrounded"))
        print(f"  {name} {i}/{len(questions)} {row.seconds:5.1f}s {mark:10s} {q.question[:60]}", file=sys.stderr)
    return rows


def save(out: Path | None, results: dict, answers: dict) -> None:
    """Write what was measured so far (a long run stopped early keeps it; ``--summarize`` reads it)."""
    if out is not None:
        out.write_text(json.dumps({"results": results, "answers": answers}, indent=1, ensure_ascii=False))


def record(row: Row) -> dict:
    """One answer for ``--out``: the question, what ``ask --json`` said, the figures and the server's requests."""
    requests = [x | {"text": x["text"][:400]} for x in row.requests]
    return {
        "question": row.question.question, "doc": row.question.doc, "ask": row.data, "grounded": row.grounded,
        "confirmed": row.confirmed, "right": row.right, "quoted": row.quoted, "seconds": round(row.seconds, 1),
        "requests": requests, "error": row.error,
    }


def summarize(files: list[Path], questions: list[LocalQuestion]) -> dict[str, dict]:
    """The figures of earlier ``--out`` files on ``questions`` only (paths in the order given)."""
    wanted = {q.question: q for q in questions}
    results = {}
    for file in files:
        for name, records in json.loads(file.read_text())["answers"].items():
            rows = [row_of(wanted[r["question"]], r) for r in records if r["question"] in wanted]
            if name.startswith("search-first"):
                name = "search-first + attribution"
                results["search-first, model's [n] only"] = summary(
                    [dataclasses.replace(r, only_model=True) for r in rows]
                )
            results[name] = summary(rows)
    return results


def row_of(question: LocalQuestion, record: dict) -> Row:
    data = record.get("ask")
    if data is None:  # written before the report had "by" and "grounding": sources and "confirmed" only
        citations = [{"chunk_id": stem, "path": stem} for stem in record["sources"]]
        support = [{"chunk_id": stem, "weak": False} for stem in record["sources"]] if record["confirmed"] else []
        data = {"answer": record["answer"], "citations": citations, "support": support}
    return Row(question, data, record["seconds"], record["requests"], record["error"])


def summary(rows: list[Row]) -> dict[str, float]:
    n = len(rows)
    grounded = [r for r in rows if r.grounded]
    per = lambda f: sum(f(r) for r in rows) / n  # noqa: E731
    return {
        "n": n,
        "answered": per(lambda r: r.ok),
        "grounded": per(lambda r: r.grounded),
        "confirmed": per(lambda r: r.confirmed),
        "confirmed_right": per(lambda r: r.confirmed_right),
        "confirmed_of_grounded": sum(r.confirmed for r in grounded) / len(grounded) if grounded else float("nan"),
        "right_source": per(lambda r: r.right),
        "phrase": per(lambda r: r.quoted),
        "tool_text": per(lambda r: r.tool_text),
        "search_first": per(lambda r: r.search_first),
        "marker_only": per(lambda r: r.marker_only),
        "echo": per(lambda r: r.echo),
        "errors": sum(bool(r.error) for r in rows),
        "s_per_q": per(lambda r: r.seconds),
        "requests_per_q": per(lambda r: len(r.requests)),
        "prompt_tok_per_q": per(lambda r: sum(x["prompt_tokens"] for x in r.requests)),
        "evaluated_tok_per_q": per(lambda r: sum(x["evaluated_tokens"] for x in r.requests)),
        "followups_right": (
            sum(r.right for r in rows if r.question.follows) / max(1, sum(1 for r in rows if r.question.follows))
        ),
    }


COLUMNS = [
    ("answered", "answered", "{:.2f}"), ("grounded", "shown grounded", "{:.2f}"), ("confirmed", "confirmed", "{:.2f}"),
    ("confirmed_right", "confirmed+right", "{:.2f}"), ("confirmed_of_grounded", "confirmed/grounded", "{:.2f}"),
    ("right_source", "right source", "{:.2f}"), ("phrase", "phrase", "{:.2f}"),
    ("followups_right", "follow-up right", "{:.2f}"),
    ("tool_text", "tool text shown", "{:.2f}"), ("marker_only", "only a marker", "{:.2f}"),
    ("echo", "instructions echoed", "{:.2f}"), ("search_first", "answered search-first", "{:.2f}"),
    ("errors", "errors", "{}"), ("s_per_q", "s/q", "{:.1f}"),
    ("requests_per_q", "requests/q", "{:.1f}"), ("prompt_tok_per_q", "prompt tok/q", "{:.0f}"),
    ("evaluated_tok_per_q", "evaluated tok/q", "{:.0f}"),
]


def table(results: dict[str, dict]) -> str:
    head = "| path | n | " + " | ".join(label for _, label, _ in COLUMNS) + " |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for name, m in results.items():
        cells = [fmt.format(m[key]) for key, _, fmt in COLUMNS]
        lines.append(f"| {name} | {m['n']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check() -> list[str]:
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in sorted({q.corpus for q in QUESTIONS}):
            texts = {p.stem: norm(p.read_text(encoding="utf-8")) for p in corpus_files(corpus, Path(tmp))}
            bad += [
                f"[{corpus}] {q.question!r}: phrase not in {q.doc}"
                for q in QUESTIONS
                if q.corpus == corpus and norm(q.phrase) not in texts.get(q.doc, "")
            ]
    return bad


def ask_patched(argv: list[str]) -> int:
    """``haiku-tui`` with every tool offered from the first request (``$BENCH_TOOLS_AT_ONCE``:
    ``AgentConfig.defer_loading=False``) or another number of search-first passages (``$BENCH_PASSAGES``)."""
    import dataclasses

    import haiku_tui.agent as agent
    import haiku_tui.capabilities.rag as rag
    from haiku_tui.cli import main as cli

    if os.environ.get("BENCH_TOOLS_AT_ONCE"):
        build = agent.build_agent
        agent.build_agent = lambda config, **kw: build(dataclasses.replace(config, defer_loading=False), **kw)
    if passages := int(os.environ.get("BENCH_PASSAGES") or 0):
        create = rag.create_capability
        rag.create_capability = lambda *a, **kw: create(*a, **{**kw, "search_limit": passages})
    return cli(argv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-size", choices=sorted(MODELS), default="0.5b")
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--corpora", nargs="+", default=["notes", "stdlib", "pydoc"])
    parser.add_argument("--limit", type=int, help="the first N standalone questions of each corpus (and every pair)")
    parser.add_argument("--out", type=Path, help="write every answer and figure here as JSON")
    parser.add_argument("--check", action="store_true", help="only check that each phrase is in its document")
    parser.add_argument(
        "--set", choices=["held-out", "tuning"], default="held-out",
        help="held-out: report (never tune); tuning: eval_questions' tuning splits (pydoc, stdlib), to try choices on",
    )
    parser.add_argument("--temperature", type=float, help="the server's sampling temperature when a request names none")
    parser.add_argument("--seed", type=int, help="the server's seed when a request names none (0)")
    parser.add_argument(
        "--summarize", type=Path, nargs="+", metavar="FILE", help="print the table of earlier --out files instead, "
        "on the questions --corpora and --limit select"
    )
    args = parser.parse_args()
    if args.summarize:
        pool = tuning_questions() if args.set == "tuning" else QUESTIONS
        print(table(summarize(args.summarize, selected(args.corpora, args.limit, pool))))
        return
    if args.check:
        bad = check()
        print("\n".join(bad) or f"all {len(QUESTIONS)} phrases found in their documents")
        raise SystemExit(1 if bad else 0)
    questions = selected(args.corpora, args.limit, tuning_questions() if args.set == "tuning" else QUESTIONS)
    stop_on_sigterm()
    model = MODELS[args.model_size].file.removesuffix(".gguf")
    results, answers = {}, {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        dbs = build_kbs(args.corpora, tmp)
        log = tmp / "requests.jsonl"
        with local_server(args.model_size, log=log, temperature=args.temperature, seed=args.seed) as url:
            for name in args.paths:
                rows = run_path(
                    name, questions, dbs, url, model, log, tmp,
                    progress=lambda rows, n=name: save(args.out, results, {**answers, n: list(map(record, rows))}),
                )
                if name == "search-first":
                    results["search-first, model's [n] only"] = summary(
                        [dataclasses.replace(r, only_model=True) for r in rows]
                    )
                    name = "search-first + attribution"
                results[name] = summary(rows)
                answers[name] = [record(r) for r in rows]
                print(table({name: results[name]}).splitlines()[-1], file=sys.stderr)
                save(args.out, results, answers)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{MODELS[args.model_size].file}, {len(questions)} questions ({', '.join(args.corpora)}), {stamp}")
    print(table(results))


if __name__ == "__main__":
    if sys.argv[1:2] == ["_ask"]:
        raise SystemExit(ask_patched(sys.argv[2:]))
    main()
