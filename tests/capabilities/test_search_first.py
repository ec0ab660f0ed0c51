"""Search-first grounding: haiku-tui searches before the model is asked, the model is offered no tools, the
passages ride in the question's own request, and the answer's markers (or attributed sentences) are its
citations in the same evidence record. Scripted models over the real small knowledge base."""

from __future__ import annotations

import re

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from haiku_tui.agent import AgentConfig, build_agent
from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.compaction import PASSAGES_KEPT_NOTE
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.capabilities.report import answer_report
from haiku_tui.capabilities.views import question_views
from haiku_tui.sessions import Session, SessionStore
from haiku_tui.sessions.run import HOST_SEARCH_CALL, Finished, QuestionRun, StepFinished, StepStarted
from tests.capabilities.scripts import Script, sent_text, text

LABEL = re.compile(r"^\[(\d+)\] (.*)$", re.M)


def passages_of(messages: list[ModelMessage]) -> PassagesPart:
    """The passages part of the newest request of a stored history that has one."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, PassagesPart):
                    return part
    raise AssertionError("no passages in the request")


def sent_passages(messages: list[ModelMessage]) -> str:
    """The ``<passages>`` frame of the newest request the model was sent."""
    text = sent_text(messages[-1])
    assert "<passages>" in text, "no passages in the request"
    return text[text.index("<passages>") : text.index("</passages>")]


def label_of(messages: list[ModelMessage], title: str) -> int:
    """The number of the first passage from the document titled ``title``, in the request the model was sent."""
    for number, source in LABEL.findall(sent_passages(messages)):
        if source.startswith(title):
            return int(number)
    raise AssertionError(f"no passage of {title!r}")


def answer_citing(title: str, words: str):
    """A model step that answers with ``words`` marked with the number of ``title``'s passage."""
    return lambda messages, info: text(f"{words} [{label_of(messages, title)}].")


def marking(words: str):
    """A model step that answers ``words`` with ``{own}`` the number of the first "Sourdough bread" passage and
    ``{stray}`` another passage's."""

    def step(messages, info):
        own = label_of(messages, "Sourdough bread")
        stray = next(int(n) for n, _ in LABEL.findall(sent_passages(messages)) if int(n) != own)
        return text(words.format(own=own, stray=stray))

    return step


def agent_for(script: Script, kb, **config):
    return build_agent(AgentConfig(search_first=True, **config), kb=kb, model=script.model)


async def ask(agent, session: Session, prompt: str):
    run = QuestionRun(agent, session, prompt)
    events = [event async for event in run]
    assert isinstance(events[-1], Finished) and events[-1].outcome == "completed", events[-1]
    return events


async def test_the_passages_are_user_content_of_the_first_and_only_request_and_no_tool_is_offered(kb):
    script = Script(answer_citing("Sourdough bread", "Feed the starter once a day"))
    session = Session()
    events = await ask(agent_for(script, kb), session, "How often do I feed a sourdough starter?")

    assert len(script.sent) == 1 and script.tools(0) == []
    # user content of the question's own request, before the question; no tool message
    sent = sent_text(script.sent[0][-1])
    assert sent.index("<passages>") < sent.index("How often do I feed a sourdough starter?")
    assert "[1] Sourdough bread › The starter\nA sourdough starter is a culture" in sent
    assert "put the number of the passage" not in sent
    assert "copied word for word, and the number of its passage in square brackets" in sent
    assert not [m for m in script.sent[0] if not isinstance(m, ModelRequest)]
    assert "equal weights" not in (script.infos[0].instructions or "")  # passages never in the instructions
    # the history keeps the part in the question's request
    request = session.messages[0]
    kinds = [type(p).__name__ for p in request.parts if isinstance(p, PassagesPart | UserPromptPart)]
    assert kinds == ["PassagesPart", "UserPromptPart"]
    part = passages_of(session.messages)
    assert part.query == "How often do I feed a sourdough starter?" and part.found >= 2
    assert part.content in sent
    # the host's search is a row, marked as haiku-tui's
    started = [e for e in events if isinstance(e, StepStarted)]
    finished = [e for e in events if isinstance(e, StepFinished)]
    assert [e.call_id for e in started] == [HOST_SEARCH_CALL] == [e.call_id for e in finished]
    assert finished[0].step.text.startswith("haiku-tui searched “How often do I feed")
    assert finished[0].step.text.endswith(f"→ {part.found} passage(s)")


async def test_the_instructions_name_no_tool_when_none_is_offered(kb):
    """The tools path's preamble tells the model to cite "with the [n] markers the cite tool gives you"; asked
    search-first, with no tool offered, a small model was told about a tool it did not have. The search-first
    instructions name none and say how to answer from the passages."""
    from haiku_tui.capabilities.rag import SEARCH_FIRST_INSTRUCTIONS

    script = Script(answer_citing("Sourdough bread", "Feed the starter once a day"))
    await ask(agent_for(script, kb), Session(), "How often do I feed a sourdough starter?")
    instructions = script.infos[0].instructions or ""
    assert "tool" not in instructions.lower() and "chunk id" not in instructions.lower()
    assert instructions.startswith("You are haiku-tui") and SEARCH_FIRST_INSTRUCTIONS in instructions
    tools = Script(text("Hello!"))
    await ask(build_agent(AgentConfig(search_first=False), kb=kb, model=tools.model), Session(), "hi")
    assert "the cite tool" in (tools.infos[0].instructions or "")  # the tools path keeps its own


async def test_the_number_of_passages_is_a_setting(kb, _isolated_data_dir):
    """``search_first_passages`` in config.toml: how many passages a question comes with; a bad value is one line."""
    import pytest

    from haiku_tui.agent.config import search_first_passages
    from haiku_tui.agent.models import ModelConfigError

    for passages in (1, 2):
        (_isolated_data_dir / "config.toml").write_text(f"search_first_passages = {passages}\n")
        script = Script(answer_citing("Sourdough bread", "Feed the starter once a day"))
        await ask(agent_for(script, kb), Session(), "How often do I feed a sourdough starter?")
        assert len(LABEL.findall(sent_passages(script.sent[0]))) == passages
    (_isolated_data_dir / "config.toml").write_text("search_first_passages = 0\n")
    with pytest.raises(ModelConfigError, match="'search_first_passages' must be a whole number ≥ 1"):
        search_first_passages()
    agent_for(Script(), kb)  # built with the default: the CLI and the app name the bad setting first


async def test_markers_are_registered_as_the_answers_citations_in_the_evidence_record(kb):
    script = Script(answer_citing("Sourdough bread", "Feed it once a day with equal weights of flour and water"))
    session = Session()
    await ask(agent_for(script, kb), session, "How often do I feed a sourdough starter?")

    record = ledger.current_record(session.state["rag"])
    assert record["searches"][0]["by"] == "haiku-tui"
    chunk = record["passages"]["1"]
    assert record["declaration"]["chunk_ids"] == [chunk] and record["declaration"]["attributed"] == []
    assert session.state["rag"]["citation_index"][chunk]["index"] == 1
    view = question_views(session.state, session.messages)[-1]
    assert view.badge == "grounded" and view.citations == (1,) and view.grounding_note == ""
    assert view.steps[0].text.startswith("haiku-tui searched")
    assert [i.status for i in view.items if i.chunk_id == chunk] == ["cited"]
    assert not view.weak() and view.policy.outcome == "grounded"
    report = answer_report(session.state, session.messages, compaction=True, answer=view.answer)
    assert report["status"] == "grounded" and [c["number"] for c in report["citations"]] == [1]


async def test_a_marker_no_passage_carries_is_unbacked_and_not_grounded(kb):
    script = Script(text("Feed it daily [9]."))
    session = Session()
    await ask(agent_for(script, kb), session, "How often do I feed a sourdough starter?")

    view = question_views(session.state, session.messages)[-1]
    assert view.policy.unbacked == (9,) and view.citations == ()
    assert view.badge == "ungrounded"
    assert view.grounding_note == "not grounded: no passage carries [9]"


async def test_an_unmarked_copied_sentence_is_attributed_and_an_unrelated_one_stays_unsupported(kb):
    answer = (
        "A starter kept in the refrigerator only needs feeding once a week. "
        "Many bakers also enjoy listening to jazz while they knead their dough."
    )
    script = Script(text(answer))
    session = Session()
    await ask(agent_for(script, kb), session, "How often do I feed a starter kept in the fridge?")

    record = ledger.current_record(session.state["rag"])
    index = session.state["rag"]["citation_index"]
    fridge = next(c for c in record["passages"].values() if "refrigerator" in index.get(c, {}).get("text", ""))
    assert record["declaration"]["attributed"] == [fridge]
    view = question_views(session.state, session.messages)[-1]
    number = session.state["rag"]["citation_index"][fridge]["index"]
    assert view.badge == "grounded" and view.attributed == (number,) and view.citations == (number,)
    assert view.attribution_note == f"attributed by haiku-tui: [{number}]"
    assert view.unsupported == ("Many bakers also enjoy listening to jazz while they knead their dough.",)
    attributed = [c for c in view.support if c.by == "haiku-tui"]
    assert [(c.number, c.weak) for c in attributed] == [(number, False)]
    assert [i.attributed for i in view.items if i.chunk_id == fridge] == [True]


async def test_a_sentence_copied_from_one_passage_but_marked_with_another_is_attributed_to_its_own(kb):
    """The real 1.5B copied the houseplant note and marked it [2], another note: the sentence is attributed to the
    passage it was drawn from, and the stray marker grounds nothing and is named."""

    session = Session()
    answer = marking("A starter kept in the refrigerator only needs feeding once a week [{stray}].")
    await ask(agent_for(Script(answer), kb), session, "How often do I feed a starter kept in the fridge?")
    record = ledger.current_record(session.state["rag"])
    index = session.state["rag"]["citation_index"]
    fridge = next(c for c in record["passages"].values() if "refrigerator" in index.get(c, {}).get("text", ""))
    assert record["declaration"]["chunk_ids"] == [fridge] and record["declaration"]["attributed"] == [fridge]
    view = question_views(session.state, session.messages)[-1]
    (stray,) = view.unconfirmed
    assert view.badge == "grounded" and view.attributed == (index[fridge]["index"],) != (stray,)
    assert view.unconfirmed_note == f"[{stray}] backs none of the answer's sentences"


async def test_an_answer_that_uses_no_passage_says_it_is_not_grounded(kb):
    script = Script(text("Add one cup of flour and half a cup of water to the mixture every morning."))
    session = Session()
    await ask(agent_for(script, kb), session, "How much flour do I feed my starter?")

    view = question_views(session.state, session.messages)[-1]
    assert view.badge == "ungrounded" and view.citations == ()
    assert view.grounding_note == "not grounded: the answer draws on none of the passages haiku-tui found"
    assert view.unsupported == ("Add one cup of flour and half a cup of water to the mixture every morning.",)
    assert ledger.violations(session.state) == []  # declared for the model: the policy has nothing to ask


async def test_a_follow_up_is_searched_with_the_question_before_and_numbers_stay_the_apps(kb):
    script = Script(
        answer_citing("Tea brewing › Green tea", "Brew green tea at about 80 degrees"),
        answer_citing("Tea brewing › Green tea", "Steep it two to three minutes"),
    )
    agent, session = agent_for(script, kb), Session()
    await ask(agent, session, "What water temperature should green tea be brewed at?")
    await ask(agent, session, "and how long should it steep?")

    second = passages_of(session.messages)
    assert second.query == "and how long should it steep? What water temperature should green tea be brewed at?"
    cited = ledger.cited_ids(session.state, 0)
    # a chunk the first answer cited keeps its number as a passage label of the second question
    assert "[1] " in second.content and cited[0] in session.state["rag"]["citation_index"]
    view = question_views(session.state, session.messages)[-1]
    assert view.steps[0].text == (
        "haiku-tui searched “and how long should it steep?” with the question before → " f"{second.found} passage(s)"
    )
    assert set(view.citations) <= {int(n) for n in ledger.current_record(session.state["rag"])["passages"]}
    # the instructions did not change between the questions (the prompt cache holds)
    assert script.infos[0].instructions == script.infos[1].instructions


async def test_the_saved_session_reloads_the_part_and_compaction_treats_it_as_evidence(kb, tmp_path):
    script = Script(
        answer_citing("Bicycle maintenance", "Oil the chain every 300 kilometres"),
        answer_citing("Tea brewing", "Store tea in an airtight tin"),
    )
    agent = agent_for(script, kb)
    with SessionStore(tmp_path / "sessions.db") as store:
        session = store.new()
        await ask(agent, session, "How often should I oil my bicycle chain?")
        store.save(session)
        loaded = store.load(session.id)
    first = passages_of(loaded.messages)
    assert isinstance(first, PassagesPart) and first == passages_of(session.messages)

    await ask(agent, loaded, "How should I store tea leaves?")
    earlier = sent_text(script.sent[1][0])  # the first question's request, as the second one sent it
    assert first.content not in earlier and PASSAGES_KEPT_NOTE in earlier and "chunk id" not in earlier
    # compacted like an earlier search result: the cited passage in full where it was sent, with its number (so
    # a follow-up cites it as it would a passage), the others not at all
    number = label_of(script.sent[0], "Bicycle maintenance")
    assert f"<passages>\n[{number}] Bicycle maintenance › Chain care\nOil the bicycle chain" in earlier
    record = ledger.find_question(loaded.state["rag"], 0)
    cited = ledger.cited_ids(loaded.state, 0)
    texts = kb.get_chunks(list(record["passages"].values()))
    assert cited and all(" ".join(texts[c].text.split()) in " ".join(earlier.split()) for c in cited)
    others = [c for c in record["passages"].values() if c not in cited]
    assert others and not any(texts[c].text.strip() in earlier for c in others)


async def test_exports_and_the_wire_inspector_say_what_was_attributed_and_what_is_not_grounded(kb):
    from haiku_tui.capabilities.wire import wire_requests
    from haiku_tui.sessions.export import to_json, to_markdown

    script = Script(
        text("A starter kept in the refrigerator only needs feeding once a week."),
        text("Tea tastes best with a slice of lemon and a spoon of honey."),
    )
    agent, session = agent_for(script, kb), Session()
    await ask(agent, session, "How often do I feed a starter kept in the fridge?")
    await ask(agent, session, "How do I make my tea taste better?")

    markdown = to_markdown(session)
    first, second = markdown.split("## Question 2")
    number = ledger.citation_for(session.state, ledger.cited_ids(session.state, 0)[0])["index"]
    assert f"- [{number}] Sourdough bread › The starter" in first and "— *attributed by haiku-tui*" in first
    assert "not grounded" not in first
    assert "*not grounded: the answer draws on none of the passages haiku-tui found*" in second
    assert "**Unsupported:**" in second and "- Tea tastes best with a slice of lemon" in second
    assert '"attributed": [' in to_json(session)
    # the wire inspector: the passages are this question's evidence, the earlier ones compacted evidence
    (request,) = wire_requests(session.state, session.messages, ledger.current_record(session.state["rag"])["question"])
    kinds = [p.kind for p in request.parts]
    assert "evidence current" in kinds and "evidence retained" in kinds


async def test_the_offline_extractive_model_answers_search_first_from_the_passages(kb):
    agent, session = build_agent(AgentConfig(search_first=True), kb=kb), Session()
    await ask(agent, session, "How often do I feed a sourdough starter?")
    await ask(agent, session, "and in the fridge?")

    first, second = question_views(session.state, session.messages)
    assert first.badge == "grounded" and "Feed the starter once a day" in first.answer
    assert second.badge == "grounded" and "refrigerator only needs feeding once a week" in second.answer
    for view in (first, second):
        assert view.citations and not view.policy.unbacked and not view.attributed
        assert view.unsupported == ()  # its closing note is an aside, not a claim


async def test_an_unmarked_sentence_drawn_from_a_passage_the_model_marked_elsewhere_is_supported(kb):
    script = Script(
        lambda messages, info: text(
            f"Feed the starter once a day [{label_of(messages, 'Sourdough bread › The starter')}]. "
            "A starter kept in the refrigerator only needs feeding once a week."
        )
    )
    session = Session()
    await ask(agent_for(script, kb), session, "How often do I feed a sourdough starter?")

    view = question_views(session.state, session.messages)[-1]
    assert view.citations == (1,) and view.attributed == () and view.unsupported == ()
    assert [(c.number, c.by) for c in view.support] == [(1, "model"), (1, "haiku-tui")]


async def test_a_marker_that_backs_no_sentence_grounds_nothing(kb):
    """Small models often reply with the marker alone ("[1]") or put a marker on a sentence its passage does not
    hold: the marker is registered (it links), but the answer is not shown as grounded, and the note says why."""
    from haiku_tui.sessions.export import to_markdown

    for answer in (
        lambda messages, info: text(f"[{label_of(messages, 'Sourdough bread')}]"),
        answer_citing("Sourdough bread", "Give the starter a few minutes to think about it"),
    ):
        session = Session()
        await ask(agent_for(Script(answer), kb), session, "How often do I feed a sourdough starter?")
        record = ledger.current_record(session.state["rag"])
        chunk = record["passages"]["1"]
        assert session.state["rag"]["citation_index"][chunk]["index"] == 1  # registered: [1] still links
        assert record["declaration"]["chunk_ids"] == [] and record["unconfirmed"] == [1]
        view = question_views(session.state, session.messages)[-1]
        assert view.badge == "ungrounded" and view.citations == ()
        assert view.grounding_note == "not grounded: no sentence of the answer is backed by the passage it marks ([1])"
        report = answer_report(session.state, session.messages, compaction=True, answer=view.answer)
        assert report["grounding"] == view.grounding_note
        assert view.grounding_note in to_markdown(session)


async def test_a_grounded_answer_says_which_of_its_markers_back_none_of_its_sentences(kb):
    """The real 1.5B grounded an answer and left a stray marker on a sentence its passage does not hold: the answer
    stays grounded by the marker that backs it, and the stray one is named under it, in the report and the export."""
    from haiku_tui.sessions.export import to_markdown

    session = Session()
    answer = marking("Feed the starter once a day [{own}]. Give the starter a few minutes to think about it [{stray}].")
    await ask(agent_for(Script(answer), kb), session, "How often do I feed a sourdough starter?")
    view = question_views(session.state, session.messages)[-1]
    (stray,) = view.unconfirmed
    assert view.badge == "grounded" and view.grounding_note == ""
    assert view.unconfirmed_note == f"[{stray}] backs none of the answer's sentences"
    report = answer_report(session.state, session.messages, compaction=True, answer=view.answer)
    assert report["grounding"] is None and report["unconfirmed"] == [stray]
    assert f"*{view.unconfirmed_note}*" in to_markdown(session)


async def test_an_answer_that_writes_its_request_back_grounds_nothing(kb):
    """The real 0.5B often answered with its instructions and every passage copied back: each copied passage is
    backed word for word, yet nothing was answered. Such an answer is not shown as grounded, and says why."""
    from haiku_tui.sessions.export import to_markdown

    def echo(messages, info):
        passages = sent_passages(messages).removeprefix("<passages>").strip()
        return text(f"Answer the question below from the numbered passages only. {passages}")

    session = Session()
    await ask(agent_for(Script(echo), kb), session, "How often do I feed a sourdough starter?")
    record = ledger.current_record(session.state["rag"])
    assert record["echoed"] is True and record["declaration"]["chunk_ids"] == []
    view = question_views(session.state, session.messages)[-1]
    assert view.badge == "ungrounded" and view.citations == () and view.echoed
    why = "not grounded: the model wrote back its instructions or passages instead of answering"
    assert view.grounding_note == why
    assert view.grounding_note in to_markdown(session)


async def test_an_answer_that_writes_back_the_instructions_grounds_nothing(kb):
    """The real 0.5B answered "where am I allowed to use await" with the agent's instructions, word for word: that is
    no answer, and it says so (it was shown as an answer that draws on none of the passages)."""

    def preamble(messages, info):
        return text(info.instructions.split("\n- ")[0] + " Keep answers concise (Markdown is rendered).")

    session = Session()
    await ask(agent_for(Script(preamble), kb), session, "Where am I allowed to use await?")
    view = question_views(session.state, session.messages)[-1]
    assert view.echoed and view.badge == "ungrounded"
    assert view.grounding_note == "not grounded: the model wrote back its instructions or passages instead of answering"


async def test_a_follow_up_cites_an_earlier_passage_by_its_number_and_a_step_names_them_by_number(kb):
    from haiku_tui.capabilities import Deps
    from haiku_tui.capabilities.compaction import PASSAGES_CITED_HEADER, dropped_line

    chain = {}

    def cite_the_chain_again(messages, info):  # the earlier passage, by the number it was shown with
        return text(f"Oil the chain every 300 kilometres [{chain['number']}].")

    def first(messages, info):
        chain["number"] = label_of(messages, "Bicycle maintenance")
        return text(f"Oil the chain every 300 kilometres [{chain['number']}].")

    script = Script(first, cite_the_chain_again, text("Tea keeps in a tin."))
    agent, deps = agent_for(script, kb), Deps()
    r1 = await agent.run("How often should I oil my bicycle chain?", deps=deps)
    r2 = await agent.run("How should I store tea leaves?", deps=deps, message_history=r1.all_messages())
    q2 = len(r1.all_messages())
    chunk = ledger.find_question(deps.state["rag"], 0)["declaration"]["chunk_ids"][0]
    assert ledger.cited_ids(deps.state, q2) == [chunk]  # the follow-up's [n] is the earlier passage
    # a history that leaves out the first question (a step): its passage is named by its number, without its text
    windowed = Deps(state=deps.state, history_offset=q2)
    await agent.run("And tea bags?", deps=windowed, message_history=r2.all_messages()[q2:])
    sent = sent_text(script.sent[2][0])
    label = f"[{chain['number']}] Bicycle maintenance › Chain care"
    assert dropped_line(1, numbered=True) in sent and label in sent and "chunk id" not in sent
    # the second question's slot carries the passage it cited from the first, with its text, as a passage
    slot = sent[sent.index("<passages>") :]
    assert PASSAGES_CITED_HEADER in slot and f"{label}\nOil the bicycle chain every 300 kilometres" in slot
