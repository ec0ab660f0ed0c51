"""Session save and load time for conversations of 10, 100 and 1000 questions.

Each question is a realistic RAG turn, built directly as Pydantic AI messages (no model run):
the user prompt, a ``rag_search`` call whose result holds 5 chunks × ~800 characters of real
text (``pydoc_data.topics``), a ``rag_cite`` call and its return, and a ~500-character answer with
``[n]`` markers. The state map is the evidence ledger those turns would leave: per question the
search with 5 hit records (240-character snippets) and a declaration; a citation index entry
(with its ~800-character text) per cited chunk; the citation policy's violations.

Each new question is committed the way a run does it: ``session.working_state()`` (the run's copy), the
question's record and citations added to it, ``session.commit_run``. Measured on a file-backed store (WAL,
synchronous=FULL), median of several repeats:
* commit: ``working_state()`` + ``commit_run`` of one more question (the copy a run works on, and taking it back);
* save: ``SessionStore.save`` after that commit, to a session of that many questions (serialize, scrub,
  checksum and write what the run added, in one transaction);
* view: ``Workbench.refresh()`` after that commit (what the app computes before it shows the answer);
* load: ``SessionStore.load`` (read, checksum, JSON parse, Pydantic validation of the conversation);
* peek: ``SessionStore.peek`` (the state and the newest 3 runs, validated: what showing the last answer needs);
* partial: ``SessionStore.load(ref, questions=20)`` (what ``ask --session`` opens: the newest runs holding the
  history window's questions, and the state a run needs);
* list / search: ``SessionStore.list()`` and ``search()`` over the store holding all three sessions.

    python -m bench.bench_sessions [--repeat N] [--sizes 10 100 1000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pydantic_ai import Conversation
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage, RunUsage

SIZES = (10, 100, 1000)


def _texts() -> list[str]:
    from pydoc_data.topics import topics

    words = " ".join(topics[k] for k in sorted(topics)).split()
    return [" ".join(words[i : i + 130])[:800] for i in range(0, len(words) - 130, 130)]


def build(turns: int, texts: list[str]):
    """(Conversation, state) of ``turns`` questions."""
    messages = []
    citation_index: dict[str, dict] = {}
    questions = []
    for t in range(turns):
        run = f"run-{t:05d}"
        prompt = f"Question {t}: how does {texts[t % len(texts)].split()[3]} work in Python?"
        question_id = len(messages)
        hits = []
        blocks = []
        for rank in range(1, 6):
            k = (t * 5 + rank) % len(texts)
            cid = f"{k:016x}"
            blocks.append(f'[{cid}] (rank {rank} of 5)\nSource: "Topic {k}" › Section › Sub (p. {rank})\n{texts[k]}')
            hits.append(
                {"chunk_id": cid, "document_id": f"doc{k % 97:013d}", "rank": rank, "score": 1.0 / rank,
                 "title": f"Topic {k}", "path": f"docs/topic_{k}.md", "headings": ["Section", "Sub"],
                 "pages": [rank], "snippet": texts[k][:240]}
            )
        cited = [hits[0]["chunk_id"], hits[1]["chunk_id"]]
        for cid, hit in zip(cited, hits):
            citation_index.setdefault(
                cid,
                {"index": len(citation_index) + 1, "chunk_id": cid, "document_id": hit["document_id"],
                 "title": hit["title"], "path": hit["path"], "headings": hit["headings"], "pages": hit["pages"],
                 "text": texts[int(cid, 16)], "capability": "rag"},
            )
        numbers = [citation_index[c]["index"] for c in cited]
        answer = (texts[(t * 7) % len(texts)][:480] + f" [{numbers[0]}][{numbers[1]}]")
        usage = RequestUsage(input_tokens=1200 + t, output_tokens=40)
        messages += [
            ModelRequest(parts=[UserPromptPart(prompt)], run_id=run),
            ModelResponse(
                parts=[ToolCallPart("rag_search", {"query": prompt}, tool_call_id=f"s{t}")], usage=usage, run_id=run
            ),
            ModelRequest(
                parts=[ToolReturnPart("rag_search", "\n\n---\n\n".join(blocks), tool_call_id=f"s{t}")], run_id=run
            ),
            ModelResponse(
                parts=[ToolCallPart("rag_cite", {"chunk_ids": cited}, tool_call_id=f"c{t}")], usage=usage, run_id=run
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        "rag_cite", f"Registered 2 citation(s): [{numbers[0]}], [{numbers[1]}].", tool_call_id=f"c{t}"
                    )
                ],
                run_id=run,
            ),
            ModelResponse(parts=[TextPart(answer)], usage=usage, run_id=run),
        ]
        questions.append(
            {
                "question": question_id,
                "prompt": prompt,
                "searches": [{"query": prompt, "epoch": question_id + 2, "hits": hits}],
                "evidence_epoch": question_id + 2,
                "declaration": {"epoch": question_id + 4, "chunk_ids": cited},
                "requests": 3,
                "search_calls": 1,
            }
        )
    state = {
        "rag": {"citation_index": citation_index, "document_filter": None, "question": questions[-1]["question"],
                "in_progress": False, "questions": questions},
        "citation_policy": {"violations": []},
    }
    conversation = Conversation(messages=messages, usage=RunUsage(requests=3 * turns, input_tokens=1500 * turns))
    return conversation, state


def next_run(session, conversation, state, turn: int):
    """(Conversation, state) a run of question ``turn`` (1-based) of a built session leaves: the session's messages
    plus that question's (same objects), its working state plus that question's record and new citations."""
    import copy

    working = session.working_state()
    rag = working.setdefault("rag", {**state["rag"], "citation_index": {}, "questions": []})
    working.setdefault("citation_policy", {"violations": []})
    record = state["rag"]["questions"][turn - 1]
    rag["questions"].append(copy.deepcopy(record))
    rag["question"] = record["question"]
    for cid in record["declaration"]["chunk_ids"]:
        rag["citation_index"].setdefault(cid, copy.deepcopy(state["rag"]["citation_index"][cid]))
    messages = session.conversation.messages + conversation.messages[6 * (turn - 1) : 6 * turn]
    return Conversation(
        messages=messages, conversation_id=conversation.conversation_id, usage=conversation.usage
    ), working


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="questions per session")
    args = parser.parse_args()

    from haiku_tui.agent import AgentConfig
    from haiku_tui.agent.config import HISTORY_WINDOW
    from haiku_tui.sessions import SessionStore
    from haiku_tui.sessions.workbench import Workbench

    texts = _texts()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "sessions.db")
        for turns in args.sizes:
            repeat = args.repeat if turns < 1000 else max(3, args.repeat // 2)
            full, full_state = build(turns + repeat, texts)
            session = store.new(model="openai:gpt-4o", db="/home/me/.local/share/haiku-tui/haiku.rag.lancedb")
            for done in range(1, turns + 1):  # saved run by run, as a session grows
                session.commit_run(*next_run(session, full, full_state, done))
                store.save(session)
            bench = Workbench(AgentConfig(model="extractive"), store=store)
            bench.session = session
            bench.refresh()
            commits, saves, views, loads, peeks, partials = [], [], [], [], [], []
            for i in range(repeat):
                t0 = time.perf_counter()
                conversation, state = next_run(session, full, full_state, turns + i + 1)
                session.commit_run(conversation, state)  # a new run (one more question) was committed
                commits.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                store.save(session)
                saves.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                bench.refresh()
                views.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                loaded = store.load(session.id)
                loads.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                peek = store.peek(session.id)
                peeks.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                store.load(session.id, questions=HISTORY_WINDOW)
                partials.append(time.perf_counter() - t0)
                assert peek.messages == conversation.messages[peek.first_message :]
            assert loaded.messages == conversation.messages and loaded.state == state
            stored = sum(
                n or 0 for n in store._conn.execute(
                    "SELECT (SELECT SUM(length(CAST(data AS BLOB))) FROM session_messages m WHERE m.num = s.num) + "
                    "(SELECT SUM(length(CAST(data AS BLOB))) FROM session_state t WHERE t.num = s.num) + "
                    "length(CAST(payload AS BLOB)) FROM sessions s WHERE id=?", (session.id,)
                ).fetchone()
            )
            rows.append((turns, len(conversation.messages), stored / 1e6, median_ms(commits), median_ms(saves),
                         median_ms(views), median_ms(loads), median_ms(peeks), median_ms(partials)))
        t0 = time.perf_counter()
        for _ in range(20):
            store.list()
        list_ms = (time.perf_counter() - t0) / 20 * 1000
        t0 = time.perf_counter()
        for _ in range(20):
            hits = store.search("python question work")
        search_ms = (time.perf_counter() - t0) / 20 * 1000
        store.close()
        db_mb = sum(p.stat().st_size for p in Path(tmp).glob("sessions.db*")) / 1e6

    print(f"Sessions save/load (median of {args.repeat}; 1000 turns: {max(3, args.repeat // 2)}), "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print()
    print("| questions | messages | stored MB | commit ms | save ms | view ms | load ms | peek ms | partial ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for turns, messages, mb, commit, save, view, load, peek, partial in rows:
        print(f"| {turns} | {messages} | {mb:.2f} | {commit:.1f} | {save:.1f} | {view:.1f} | {load:.1f} | {peek:.1f} "
              f"| {partial:.1f} |")
    print()
    print(f"list(): {list_ms:.2f} ms; search(): {search_ms:.2f} ms ({len(hits)} hits); database files {db_mb:.1f} MB")


if __name__ == "__main__":
    main()
