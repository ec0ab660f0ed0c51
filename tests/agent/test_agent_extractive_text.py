"""The extractive model's pure parts: tokens, stemming, parsing, sentence choice, decisions."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from haiku_tui.agent import extractive as ex
from haiku_tui.agent import quoting
from haiku_tui.store.sentences import sentences, stem
from haiku_tui.capabilities.policy import REDIRECT
from haiku_tui.capabilities.rag import RAG_ID

RESULTS = (
    "[aaaaaaaaaaaaaaaa] (rank 1 of 2)\n"
    'Source: "Tea brewing" › Green tea\n'
    "# Tea brewing\n\n## Green tea\n\nGreen tea should be brewed with water at about 80 degrees Celsius.\n"
    "Steep green tea for two to three minutes, or it turns bitter."
    "\n\n---\n\n"
    "[bbbbbbbbbbbbbbbb] (rank 2 of 2)\n"
    'Source: "Tea brewing" › Black tea\n'
    "Black tea needs freshly boiled water at 100 degrees Celsius.\n"
    "- Steep black tea for three to five minutes.\n"
)


def test_stem_conflates_simple_forms():
    assert stem("brewing") == stem("brewed") == stem("brews") == stem("brew")
    assert stem("batteries") == stem("battery")
    assert stem("baking") == stem("bake") == stem("baked")
    assert stem("efficiency") == stem("efficient")
    assert stem("panels") == stem("panel")


def test_chitchat():
    for text, kind in [
        ("hi", "greeting"),
        ("Hello!", "greeting"),
        ("thanks", "thanks"),
        ("Thank you so much!", "thanks"),
        ("good morning", "greeting"),
        ("bye", "bye"),
        ("ok", "ack"),
        ("how are you?", "greeting"),
    ]:
        assert ex.chitchat_kind(text) == kind, text
    for text in ["how do I brew tea?", "hi, how long should green tea steep?", "solar", ""]:
        assert ex.chitchat_kind(text) is None, text


def test_parse_results_and_sentences():
    results = ex.parse_results(RESULTS)
    assert [(r.chunk_id, r.rank) for r in results] == [("aaaaaaaaaaaaaaaa", 1), ("bbbbbbbbbbbbbbbb", 2)]
    assert results[0].source == '"Tea brewing" › Green tea'
    assert sentences(results[0].text) == [
        "Green tea should be brewed with water at about 80 degrees Celsius.",
        "Steep green tea for two to three minutes, or it turns bitter.",
    ]
    assert sentences(results[1].text)[-1] == "Steep black tea for three to five minutes."
    assert ex.parse_results("No results found.") == []


def test_select_prefers_overlap_and_rank_and_drops_unrelated():
    results = ex.parse_results(RESULTS)
    quotes = quoting.select("How long should I steep green tea?", results)
    assert [q.sentence for q in quotes] == ["Steep green tea for two to three minutes, or it turns bitter."]
    quotes = quoting.select("black tea water temperature", results)
    assert quotes[0].chunk_id == "bbbbbbbbbbbbbbbb"
    assert quoting.select("quantum chromodynamics", results) == []
    assert quoting.select("anything", []) == []


TWO_DOCUMENTS = (
    "[cccccccccccccccc] (rank 1 of 2)\n"
    'Source: "Kettles" › Boiling\n'
    "An electric kettle boils water for tea in about three minutes.\n"
    "\n\n---\n\n"
    "[dddddddddddddddd] (rank 2 of 2)\n"
    'Source: "Tea brewing" › Green tea\n'
    "Steep green tea in water at 80 degrees for three minutes.\n"
)


def test_select_also_quotes_the_top_ranked_document(monkeypatch):
    results = ex.parse_results(TWO_DOCUMENTS)
    question = "how long to steep green tea in water at 80 degrees"
    monkeypatch.setattr(quoting, "TOP_SOURCES", 0)
    monkeypatch.setattr(quoting, "ROOM_SOURCES", 0)
    assert [q.chunk_id for q in quoting.select(question, results)] == ["dddddddddddddddd"]
    monkeypatch.setattr(quoting, "TOP_SOURCES", 1)
    assert [q.chunk_id for q in quoting.select(question, results)] == ["cccccccccccccccc", "dddddddddddddddd"]
    assert [q.chunk_id for q in quoting.select(question, results, limit=1)] == ["dddddddddddddddd"]

def test_parse_citations_and_compose():
    numbers = ex.parse_citations(
        "Registered 2 citation(s): [1] = aaaaaaaaaaaaaaaa, [3] = bbbbbbbbbbbbbbbb. Use these [n] markers in your "
        "answer."
    )
    assert numbers == {"aaaaaaaaaaaaaaaa": 1, "bbbbbbbbbbbbbbbb": 3}
    quotes = quoting.select("black tea steep minutes green", ex.parse_results(RESULTS))
    text = ex.compose(quotes, numbers)
    assert text.endswith(ex.FOOTER)
    for q in quotes:
        assert f"{q.sentence} [{numbers[q.chunk_id]}]" in text


def test_text_chunks_round_trip():
    text = "One two three four five six seven.\n\n_note_"
    chunks = ex.text_chunks(text)
    assert len(chunks) > 1 and "".join(chunks) == text


# ---- decisions from wire messages ----------------------------------------------------------------


def ask(question):
    return [ModelRequest(parts=[UserPromptPart(question)])]


def call(tool, args, cid="c1"):
    return ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id=cid)])


def ret(tool, content, cid="c1", **kw):
    return ModelRequest(parts=[ToolReturnPart(tool, content, tool_call_id=cid, **kw)])


def test_decide_full_sequence_deferred():
    msgs = ask("How long should I steep green tea?")
    assert ex.decide(msgs, ["load_capability"]) == ex.Call("load_capability", {"id": RAG_ID})
    msgs += [call("load_capability", {"id": RAG_ID}), ret("load_capability", {"message": "loaded"})]
    tools = ["load_capability", "rag_search", "rag_cite"]
    assert ex.decide(msgs, tools) == ex.Call(
        "rag_search", {"query": "How long should I steep green tea?", "limit": ex.SEARCH_LIMIT}
    )
    msgs += [call("rag_search", {"query": "long steep green tea"}), ret("rag_search", RESULTS)]
    assert ex.decide(msgs, tools) == ex.Call("rag_cite", {"chunk_ids": ["aaaaaaaaaaaaaaaa"]})
    msgs += [
        call("rag_cite", {"chunk_ids": ["aaaaaaaaaaaaaaaa"]}),
        ret("rag_cite", "Registered 1 citation(s): [4] = aaaaaaaaaaaaaaaa."),
    ]
    action = ex.decide(msgs, tools)
    assert isinstance(action, ex.Say)
    assert action.text.startswith("Steep green tea for two to three minutes, or it turns bitter. [4]")


def test_decide_cite_retry_falls_back_to_empty_then_answers():
    tools = ["rag_search", "rag_cite"]
    msgs = ask("steep green tea") + [call("rag_search", {"query": "q"}), ret("rag_search", RESULTS)]
    msgs += [call("rag_cite", {"chunk_ids": ["aaaaaaaaaaaaaaaa"]})]
    msgs += [
        ModelRequest(
            parts=[UserPromptPart("<pyai:retry_feedback>None of the chunk ids could be resolved</pyai:retry_feedback>")]
        )
    ]
    assert ex.decide(msgs, tools) == ex.Call("rag_cite", {"chunk_ids": []})
    msgs += [
        call("rag_cite", {"chunk_ids": []}),
        ret("rag_cite", "Recorded: this answer cites no knowledge-base evidence."),
    ]
    action = ex.decide(msgs, tools)
    assert isinstance(action, ex.Say) and "nothing" in action.text


def test_decide_retry_outcome_part_is_retry():
    tools = ["rag_search", "rag_cite"]
    msgs = ask("steep green tea") + [call("rag_search", {"query": "q"}), ret("rag_search", RESULTS)]
    msgs += [
        call("rag_cite", {"chunk_ids": ["zz"]}),
        ret("rag_cite", "None of the chunk ids resolved", outcome="retried"),
    ]
    assert ex.decide(msgs, tools) == ex.Call("rag_cite", {"chunk_ids": []})


def test_decide_greeting_and_redirect():
    tools = ["load_capability", "rag_search", "rag_cite"]
    msgs = ask("hello!")
    greeting = ex.decide(msgs, tools)
    assert greeting == ex.Say(ex.REPLIES["greeting"])
    msgs += [ModelResponse(parts=[TextPart(greeting.text)]), ModelRequest(parts=[UserPromptPart(REDIRECT)])]
    assert ex.decide(msgs, tools) == ex.Call("rag_cite", {"chunk_ids": []})
    msgs += [
        call("rag_cite", {"chunk_ids": []}),
        ret("rag_cite", "Recorded: this answer cites no knowledge-base evidence."),
    ]
    assert ex.decide(msgs, tools) == ex.Say(greeting.text)


def test_decide_redirect_loads_the_capability_when_needed():
    msgs = ask("hi") + [ModelResponse(parts=[TextPart("Hello!")]), ModelRequest(parts=[UserPromptPart(REDIRECT)])]
    assert ex.decide(msgs, ["load_capability"]) == ex.Call("load_capability", {"id": RAG_ID})


def test_decide_is_bounded():
    msgs = ask("steep green tea")
    for i in range(ex.MAX_STEPS):
        msgs += [call("rag_search", {"query": "q"}, cid=f"c{i}"), ret("rag_search", "No results found.", cid=f"c{i}")]
    action = ex.decide(msgs, ["rag_search", "rag_cite"])
    assert isinstance(action, ex.Say)


def test_decide_without_rag_tools_says_so():
    action = ex.decide(ask("steep green tea"), [])
    assert isinstance(action, ex.Say) and "not available" in action.text


def test_follow_up_question_searches_again():
    tools = ["rag_search", "rag_cite"]
    msgs = ask("steep green tea") + [call("rag_search", {"query": "q"}), ret("rag_search", RESULTS)]
    msgs += [
        call("rag_cite", {"chunk_ids": ["aaaaaaaaaaaaaaaa"]}),
        ret("rag_cite", "Registered 1 citation(s): [1] = aaaaaaaaaaaaaaaa."),
    ]
    msgs += [ModelResponse(parts=[TextPart("answer [1]")])]
    msgs += ask("black tea water")
    assert ex.decide(msgs, tools) == ex.Call("rag_search", {"query": "black tea water", "limit": ex.SEARCH_LIMIT})
