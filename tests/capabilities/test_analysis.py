"""The analysis capability: computation in a sandbox whose every step is citable evidence."""

from __future__ import annotations

import json
import os

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ToolReturnPart

from haiku_tui.capabilities import Deps, ledger
from haiku_tui.capabilities.analysis import (
    ANALYSIS_ID,
    DESCRIPTION,
    INSTRUCTIONS,
    SANDBOX_QUERY,
    STORED_OUTPUT_CHARS,
    AnalysisCapability,
    create_capability,
    heading_tree,
)
from haiku_tui.capabilities.compaction import CITED_HEADER, RECEIPT
from haiku_tui.capabilities.compaction import create_capability as compaction
from haiku_tui.capabilities.policy import REDIRECT_TAG
from haiku_tui.capabilities.policy import create_capability as policy
from haiku_tui.capabilities.rag import RAG_ID
from haiku_tui.capabilities.rag import create_capability as rag
from haiku_tui.store import ChunkRecord
from tests.capabilities.analysis_scripts import (
    COUNT_WATER,
    EXECUTE,
    LIST_TITLES,
    analysis_cite,
    cite_printed,
    execute,
    execution_return,
    load_analysis,
    printed_ids,
)
from tests.capabilities.scripts import Script, cite_top, load, search, text, wire_text

pytest.importorskip("pydantic_monty")


def agent_for(script: Script, kb, **kwargs) -> Agent:
    return Agent(script.model, deps_type=Deps, capabilities=[create_capability(kb=kb, **kwargs)])


def questions(deps: Deps) -> list[dict]:
    return deps.state["analysis"]["questions"]


def documents_mentioning(kb, word: str) -> dict[str, list[str]]:
    """Ground truth, computed in the test process: document title -> chunk ids mentioning ``word``."""
    out = {}
    for doc in kb.documents():
        ids = [c.chunk_id for c in kb.document_chunks(doc.id) if word in c.text.lower()]
        if ids:
            out[doc.title] = ids
    return out


# ---- the capability ----------------------------------------------------------------------


async def test_deferred_by_default_with_its_own_description_and_tools(kb):
    script = Script(load_analysis(), execute("print(1 + 1)"), analysis_cite(), text("2"))
    await agent_for(script, kb).run("What is 1 + 1?", deps=Deps())
    assert script.tools(0) == ["load_capability"]
    assert f"- {ANALYSIS_ID}: {DESCRIPTION}" in script.infos[0].instructions
    assert set(script.tools(1)) == {"load_capability", "analysis_search", EXECUTE, "analysis_cite"}
    assert "counting" in DESCRIPTION and "comparison" in DESCRIPTION
    assert "await get_document(id)" in INSTRUCTIONS
    capability = create_capability(kb=kb)
    assert capability.namespace == "analysis" and capability.defer_loading
    assert capability.evidence_tool_names == {"analysis_search", EXECUTE}


async def test_a_counting_question_is_answered_through_code_and_cites_a_chunk_the_code_found(kb):
    truth = documents_mentioning(kb, "water")
    script = Script(load_analysis(), execute(COUNT_WATER), cite_printed(1), text(f"{len(truth)} documents [1]."))
    deps = Deps()
    result = await agent_for(script, kb).run("How many documents mention 'water'?", deps=deps)

    output = str(execution_return(script.sent[2]).content)
    assert output.startswith(f"{len(truth)} documents mention water")
    assert len(truth) == 2  # the fixture: sourdough (flour and water) and tea (boiled water)
    cited = printed_ids(script.sent[2])[0]
    assert cited in {ids[0] for ids in truth.values()}
    assert result.output == "2 documents [1]."

    record = questions(deps)[0]
    assert ledger.citation_status(deps.state, 0) == "grounded"
    assert ledger.cited_ids(deps.state, 0) == [cited]
    entry = deps.state["analysis"]["citation_index"][cited]
    assert entry["index"] == 1 and entry["capability"] == "analysis" and "water" in entry["text"]
    # every chunk the program read is recorded as retrieved, under the sandbox entry
    (sandbox,) = [s for s in record["searches"] if s["query"] == SANDBOX_QUERY]
    assert len(sandbox["hits"]) == sum(d.chunks for d in kb.documents())
    assert cited in ledger.retrieved_ids(record)
    (run,) = record["executions"]
    assert run["code"] == COUNT_WATER and run["success"] is True and run["error"] is None
    assert run["stdout"] == output + "\n" and cited in run["chunk_ids"]
    assert record["evidence_epoch"] == run["epoch"] > 0
    json.dumps(deps.state)  # plain JSON throughout


async def test_sandbox_search_hits_are_citable_and_mangled_ids_repaired(kb):
    code = "hits = await search('green tea temperature', limit=3)\nprint(hits[0]['chunk_id'])\nlen(hits)"
    script = Script(
        load_analysis(),
        execute(code),
        lambda messages, info: analysis_cite(str(execution_return(messages).content).split()[0][:-1] + "x"),
        text("80 degrees [1]."),
    )
    deps = Deps()
    await agent_for(script, kb).run("Green tea temperature?", deps=deps)
    output = str(execution_return(script.sent[2]).content)
    chunk_id, result_line = output.splitlines()
    assert result_line == "Result: 3"
    assert ledger.cited_ids(deps.state, 0) == [chunk_id]  # repaired against what the program saw
    hits = questions(deps)[0]["searches"][0]["hits"]
    assert [h["rank"] for h in hits] == [1, 2, 3] and hits[0]["chunk_id"] == chunk_id
    assert set(hits[0]) == {"chunk_id", "document_id", "rank", "score", "title", "path", "headings", "pages", "snippet"}


async def test_get_document_gives_metadata_text_chunks_and_a_heading_tree(kb):
    code = (
        "doc = await get_document((await list_documents())[0]['id'])\n"
        "print(doc['title'], sorted(doc))\n"
        "for section in doc['toc'][0]['children']:\n"
        "    print(section['level'], section['heading'], section['chunk_ids'])\n"
        "print(doc['chunks'][0]['chunk_id'] in doc['text'] or doc['chunks'][0]['text'] in doc['text'])"
    )
    script = Script(load_analysis(), execute(code), analysis_cite(), text("ok"))
    await agent_for(script, kb).run("Structure?", deps=Deps())
    lines = str(execution_return(script.sent[2]).content).splitlines()
    first = kb.documents()[0]
    assert lines[0] == f"{first.title} ['chunks', 'id', 'metadata', 'path', 'text', 'title', 'toc']"
    chunks = kb.document_chunks(first.id)
    assert lines[1:-1] == [f"2 {c.headings[1]} {[c.chunk_id]!r}".replace('"', "'") for c in chunks]
    assert lines[-1] == "True"


def test_heading_tree_nests_headings_and_keeps_recurring_ones_apart():
    def chunk(cid: str, *headings: str) -> ChunkRecord:
        return ChunkRecord(cid, "d", "T", "p", headings, (), 0, "x")

    tree = heading_tree(
        [chunk("0"), chunk("1", "A"), chunk("2", "A", "B"), chunk("3", "A", "B"), chunk("4", "C"), chunk("5", "A")]
    )
    assert [(n["heading"], n["level"], n["chunk_ids"]) for n in tree] == [
        ("", 0, ["0"]),
        ("A", 1, ["1"]),
        ("C", 1, ["4"]),
        ("A", 1, ["5"]),
    ]
    assert tree[1]["children"] == [{"heading": "B", "level": 2, "chunk_ids": ["2", "3"], "children": []}]


async def test_variables_persist_between_executions_of_one_question(kb):
    script = Script(
        load_analysis(),
        execute("docs = await list_documents()\ntotal = sum(d['chunks'] for d in docs)"),
        execute("print(len(docs), total)"),
        analysis_cite(),
        text("ok"),
    )
    deps = Deps()
    first = await agent_for(script, kb).run("How many chunks?", deps=deps)
    assert str(execution_return(script.sent[2]).content) == "No output."
    docs = kb.documents()
    assert str(execution_return(script.sent[3]).content) == f"{len(docs)} {sum(d.chunks for d in docs)}"
    # the next question starts with a clean program
    script2 = Script(execute("print(total)"), analysis_cite(), text("?"))
    r = await agent_for(script2, kb).run("again", deps=deps, message_history=first.all_messages())
    assert "NameError" in str(execution_return(script2.sent[1]).content)
    assert r.output == "?"


async def test_the_execution_budget_fails_the_tool_without_a_crash(kb):
    script = Script(load_analysis(), execute("print(1)"), execute("print(2)"), analysis_cite(), text("done"))
    deps = Deps()
    result = await agent_for(script, kb, max_executions=1).run("q", deps=deps)
    assert "Execution budget for this question is spent (1 executions)" in str(execution_return(script.sent[3]).content)
    assert result.output == "done" and len(questions(deps)[0]["executions"]) == 1


# ---- the sandbox refuses, the app carries on ----------------------------------------------

ESCAPES = [
    ("open('/etc/passwd').read()", "PermissionError", "no file system"),
    ("open('/tmp/haiku-tui-escape.txt', 'w').write('x')", "PermissionError", "no file system"),
    ("import os\nos.listdir('/')", "PermissionError", "no file system"),
    ("import os\nprint(os.environ)", "'os.environ' is not supported", "no file system, network or environment"),
    (
        "import socket\nsocket.create_connection(('example.com', 80))",
        "No module named 'socket'",
        "small standard library",
    ),
    (
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        "No module named 'urllib'",
        "small standard library",
    ),
    ("import subprocess\nsubprocess.run(['ls'])", "No module named 'subprocess'", "small standard library"),
    ("__import__('os').system('touch /tmp/haiku-tui-escape.txt')", "NameError", "Define the name first"),
    ("while True:\n    pass", "Time limit exceeded: the program ran for more than 1 seconds.", "avoid unbounded loops"),
    ("print('x' * 10**8)", "Output limit exceeded: the program printed more than 20000 characters", "Print summaries"),
    ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError: maximum recursion depth exceeded", "Use a loop"),
    ("big = [0] * 10**9", "Memory limit exceeded: the program needed more than 256 MB.", "one document at a time"),
    ("s = 'x' * 10**9", "Memory limit exceeded", "one document at a time"),
    ("while True:\n    await search('water')", "Host call limit exceeded", "fewer times per execution"),
    ("hits = search('water')\nprint(hits[0])", "coroutine", "are async: write `await search(...)`"),
    ("x = 1 +", "SyntaxError", "Fix the syntax error"),
]


@pytest.mark.parametrize(("code", "error", "hint"), ESCAPES, ids=[c.split("\n")[0][:40] for c, _, _ in ESCAPES])
async def test_escapes_and_runaway_programs_fail_safely_with_a_clear_message(kb, code, error, hint):
    canary = "/tmp/haiku-tui-escape.txt"
    if os.path.exists(canary):
        os.remove(canary)
    cwd, pid = os.getcwd(), os.getpid()
    script = Script(load_analysis(), execute(code), analysis_cite(), text("I could not compute that."))
    deps = Deps()
    result = await agent_for(script, kb, timeout=1.0).run("Try this", deps=deps)

    failed = execution_return(script.sent[2])
    assert failed.outcome == "failed"
    message = str(failed.content)
    assert message.startswith("The program failed.") and error in message and "Hint: " in message and hint in message
    assert result.output == "I could not compute that."
    (run,) = questions(deps)[0]["executions"]
    assert run["success"] is False and error in run["error"]
    assert len(run["stdout"]) <= STORED_OUTPUT_CHARS
    # the app's process is untouched and the sandbox still works
    assert not os.path.exists(canary) and os.getcwd() == cwd and os.getpid() == pid
    assert "PATH" in os.environ
    again = Script(execute("print(6 * 7)"), analysis_cite(), text("42"))
    await agent_for(again, kb).run("6 * 7?", deps=Deps(), message_history=result.all_messages())
    assert str(execution_return(again.sent[1]).content) == "42"


async def test_failures_do_not_spend_tool_retries(kb):
    steps = [execute("1 / 0") for _ in range(5)]
    script = Script(load_analysis(), *steps, analysis_cite(), text("no"))
    deps = Deps()
    result = await agent_for(script, kb).run("q", deps=deps)  # max_retries is 3: five failures still run
    assert result.output == "no"
    assert [e["success"] for e in questions(deps)[0]["executions"]] == [False] * 5
    assert "ZeroDivisionError" in str(execution_return(script.sent[5]).content)


async def test_only_successful_or_printing_executions_are_evidence(kb):
    deps = Deps()
    script = Script(load_analysis(), execute("1 / 0"), text("Nothing."))
    await agent_for(script, kb).run("q", deps=deps)
    assert questions(deps)[0]["evidence_epoch"] is None and not ledger.has_evidence(deps.state, 0)

    deps = Deps()
    script = Script(load_analysis(), execute("print('partial')\n1 / 0"), text("Nothing."))
    await agent_for(script, kb).run("q", deps=deps)
    assert "Output before the failure:\npartial" in str(execution_return(script.sent[2]).content)
    assert ledger.has_evidence(deps.state, 0)


async def test_the_document_filter_limits_what_programs_see(kb):
    deps = Deps(state={"analysis": {"document_filter": "title = 'Tea brewing'"}})
    code = (
        "print([d['title'] for d in await list_documents()])\n"
        "print(len(await search('water')))\n"
        "await get_document('x')"
    )
    script = Script(load_analysis(), execute(code), analysis_cite(), text("ok"))
    await agent_for(script, kb).run("q", deps=deps)
    output = str(execution_return(script.sent[2]).content)
    assert "['Tea brewing']" in output and "KeyError" in output and "list_documents()" in output


# ---- with RAG, compaction and the policy ---------------------------------------------------


def full_agent(script: Script, kb) -> Agent:
    return Agent(
        script.model, deps_type=Deps, capabilities=[rag(kb=kb), create_capability(kb=kb), compaction(), policy()]
    )


def redirects(script: Script) -> int:
    """How many redirects this run added to the history (earlier questions' stay in it)."""
    counts = [wire_text(sent).count(REDIRECT_TAG) for sent in script.sent]
    return counts[-1] - counts[0] if counts else 0


async def test_with_rag_compaction_and_policy_each_loads_on_demand_one_redirect_per_answer(kb):
    deps = Deps()
    # question 1: analysis, answered without citing -> asked once, then cites what the code printed
    s1 = Script(
        load_analysis(),
        execute(LIST_TITLES),
        execute(COUNT_WATER),
        text("Two documents mention water."),
        cite_printed(1),
        text("Two documents mention water."),
    )
    r1 = await full_agent(s1, kb).run("How many documents mention water?", deps=deps)
    assert s1.tools(0) == ["load_capability"]
    catalog = s1.infos[0].instructions
    assert f"- {ANALYSIS_ID}: " in catalog and f"- {RAG_ID}: " in catalog
    assert set(s1.tools(1)) == {"load_capability", "analysis_search", EXECUTE, "analysis_cite"}
    assert redirects(s1) == 1 and r1.output == "Two documents mention water."
    assert ledger.citation_status(deps.state, 0) == "grounded"
    cited = ledger.cited_ids(deps.state, 0)[0]
    titles_output = str(execution_return(s1.sent[2]).content)

    # question 2: RAG, loaded on demand; the earlier executions are compacted on the wire
    s2 = Script(load(), search("bicycle chain oil"), text("Every 300 km."), cite_top(), text("Every 300 km."))
    q2 = len(r1.all_messages())
    r2 = await full_agent(s2, kb).run("How often to oil a chain?", deps=deps, message_history=r1.all_messages())
    assert redirects(s2) == 1 and r2.output == "Every 300 km."
    assert "rag_search" in s2.tools(1)

    earlier = [
        str(p.content)
        for m in s2.sent[0][:q2]
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == EXECUTE
    ]
    assert earlier[0] == RECEIPT  # the uncited execution is a receipt
    assert earlier[1].startswith(CITED_HEADER)  # its last evidence part carries what it cited, in full
    assert f"[{cited}] Source: " in earlier[1]
    assert deps.state["analysis"]["citation_index"][cited]["text"] in earlier[1]
    assert titles_output not in wire_text(s2.sent[0])
    # stored history keeps everything; citation numbers are conversation-wide
    assert titles_output in wire_text(r2.all_messages())
    (rag_cited,) = ledger.cited_ids(deps.state, q2)
    assert deps.state["rag"]["citation_index"][rag_cited]["index"] == 2
    assert deps.state["citation_policy"]["violations"] == []


async def test_a_follow_up_can_cite_evidence_a_program_found_earlier(kb):
    deps = Deps()
    s1 = Script(load_analysis(), execute(COUNT_WATER), cite_printed(1), text("Two [1]."))
    r1 = await full_agent(s1, kb).run("How many documents mention water?", deps=deps)
    cited = ledger.cited_ids(deps.state, 0)[0]
    s2 = Script(analysis_cite(cited), text("As said, two [1]."))
    await full_agent(s2, kb).run("Say again?", deps=deps, message_history=r1.all_messages())
    q2 = len(r1.all_messages())
    assert ledger.citation_status(deps.state, q2) == "grounded"
    assert "[1] = " + cited in str(s2.sent[1][-1].parts[-1].content)
    assert redirects(s2) == 0


def test_create_capability_passes_limits():
    capability = create_capability(db_path="x.lancedb", timeout=2.5, max_memory=1 << 20, max_output_chars=100)
    assert isinstance(capability, AnalysisCapability) and capability.id == ANALYSIS_ID
    assert (capability.limits.timeout, capability.limits.max_memory, capability.limits.max_output_chars) == (
        2.5,
        1 << 20,
        100,
    )
    assert capability.db_path.endswith("x.lancedb") and capability.request_limit == 30
