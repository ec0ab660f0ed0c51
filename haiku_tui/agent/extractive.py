"""``extractive``: the offline default model. No network, no weights, retrieval only.

A Pydantic AI ``FunctionModel`` that plays the part of a careful model with the RAG tools: it
loads the capability when it is deferred, searches for the question (a short follow-up that points back,
"and how long should I steep it?", together with the question before it), cites the chunks it
quotes and answers with the best-matching sentences, each followed by its ``[n]`` marker.
Greetings get a short reply without tools; a citation-policy redirect is answered by citing
and repeating the previous answer verbatim.

Every decision is made from the messages as the model receives them (rendered for the wire:
loaded instructions and retry feedback arrive as user parts), so it works the same under
``run``, ``run_stream_events`` and a resumed conversation. It keeps no state of its own.
"""

from __future__ import annotations

import functools
import json
import math
import re
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

from haiku_tui.capabilities.evidence import RESULT_SEPARATOR
from haiku_tui.capabilities.policy import REDIRECT_TAG
from haiku_tui.capabilities.rag import RAG_ID
from haiku_tui.capabilities.wire import estimated_tokens, message_chars
from haiku_tui.store.sentences import normal_word, sentences, stem, terms, words

MODEL_NAME = "extractive"

LOAD_TOOL = "load_capability"
SEARCH_TOOL = "rag_search"
CITE_TOOL = "rag_cite"
RETRY_TAG = "<pyai:retry_feedback>"

MAX_STEPS = 8
"""Model responses per question after which it answers with what it has (it never loops)."""
MAX_SENTENCES = 4
SEARCH_LIMIT = 10
STREAM_WORDS = 3
"""Words per streamed text chunk."""

FOOTER = "_Retrieval-only extractive answer: sentences quoted from your documents, no language model._"

# ---- text ---------------------------------------------------------------------------------

CHITCHAT = frozenset(
    """
    hi hello hey heya hiya howdy yo hallo hola greetings good morning afternoon evening day night
    thanks thank thankyou thx ty tysm cheers much lot so very a you all everyone folks there again
    bye goodbye see later ok okay k great cool nice awesome perfect lovely wonderful excellent
    fine how are doing is it going whats what up sup
    """.split()
)
THANKS = frozenset({"thanks", "thank", "thankyou", "thx", "ty", "tysm", "cheers"})
BYE = frozenset({"bye", "goodbye", "later", "night"})
ACK = frozenset({"ok", "okay", "k", "great", "cool", "nice", "awesome", "perfect", "lovely", "wonderful", "excellent", "fine"})

def chitchat_kind(text: str) -> str | None:
    """``"greeting"``, ``"thanks"``, ``"bye"`` or ``"ack"`` for short chit-chat, else None."""
    tokens = [normal_word(w) for w in words(text)]
    if not tokens or len(tokens) > 6 or len(text) > 60:
        return None
    if not all(t in CHITCHAT for t in tokens):
        return None
    if any(t in THANKS for t in tokens):
        return "thanks"
    if any(t in BYE for t in tokens):
        return "bye"
    if all(t in ACK for t in tokens):
        return "ack"
    return "greeting"


REPLIES = {
    "greeting": (
        "Hello! Ask me a question about the documents in your knowledge base and I will answer "
        "with sentences quoted from them, each with its citation."
    ),
    "thanks": "You're welcome! Ask another question whenever you like.",
    "bye": "Goodbye! Your conversation is saved if you are using a session.",
    "ack": "Glad to help. Ask another question whenever you like.",
}

# ---- search results ----------------------------------------------------------------------

_BLOCK_HEAD = re.compile(r"^\[([0-9A-Za-z_-]+)\](?: \(rank (\d+) of (\d+)\))?[^\n]*$")


@dataclass(frozen=True)
class Result:
    """One parsed search-result block."""

    chunk_id: str
    rank: int
    source: str
    text: str


def parse_results(text: str) -> list[Result]:
    """Blocks ``[id] (rank i of n)`` / ``Source: …`` / text, separated by ``---`` lines."""
    out: list[Result] = []
    for block in text.split(RESULT_SEPARATOR):
        lines = block.strip("\n").split("\n")
        if not lines:
            continue
        head = _BLOCK_HEAD.match(lines[0].strip())
        if head is None:
            continue
        body = lines[1:]
        source = ""
        if body and body[0].startswith("Source:"):
            source = body[0][len("Source:") :].strip()
            body = body[1:]
        rank = int(head.group(2)) if head.group(2) else len(out) + 1
        out.append(Result(head.group(1), rank, source, "\n".join(body).strip()))
    return out


@dataclass(frozen=True)
class Quote:
    """A sentence chosen for the answer."""

    chunk_id: str
    sentence: str
    score: float
    rank: int
    position: int


LEXICAL_WEIGHT = 1.0
SEMANTIC_WEIGHT = 1.0
RANK_DECAY = 0.1  # a chunk ranked r counts 1 / (1 + RANK_DECAY * (r - 1))
POSITION_DECAY = 0.05  # the n-th sentence of a chunk counts 1 / (1 + POSITION_DECAY * n); set for chunks of
# 1200 characters as 0.1, halved for 1600 (a chunk holds more sentences: the same decay cut its later ones more)
MIN_LEXICAL = 0.2  # below this share of the question's terms, a sentence needs MIN_SEMANTIC
MIN_WORDS_MEANING = 0.2  # and at or above it, this similarity: sharing a word is not being about the same thing
MIN_SEMANTIC = 0.3  # bench/eval_questions.py OFF_TOPIC met at most 0.29, bar word-sense collisions (capital, strings)
MIN_QUOTED = 0.25  # once some sentence passes the floors above, others need only this similarity (or the two above)
EXTRA_SAME = 0.75  # a further sentence is quoted when it scores this share of the best one, and has this share of its
# weighted terms or is at least as close in meaning,
EXTRA_NEW_TERMS = 0.45  # or this share when it covers a question term the others do not
TOP_SOURCES = 2  # the best sentence of each of the first this-many ranked documents is quoted too
ROOM_SOURCES = 3  # and, in the room the answer still has at the end, of the documents ranked after them up to this one
CONTINUATIONS = frozenset("it its this these those they their such otherwise however thus then also".split())
"""A sentence opening with one of these continues the one before it: a quoted sentence brings along
the next sentence when that one continues it, and the sentence before it when it is itself a continuation."""


def _similarities(question: str, texts: list[str]) -> list[float]:
    """Cosine similarity of ``question`` to each text with the built-in offline embedder (zeros without it)."""
    try:
        from haiku_tui.store.offline_embedder import embed_texts
    except ImportError:  # pragma: no cover - wordllama is a dependency
        return [0.0] * len(texts)
    vectors = embed_texts([question, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]


def _document(result: Result) -> str:
    """The document a result comes from: its source label up to the heading path."""
    return result.source.split("›")[0].strip()


def select(question: str, results: list[Result], limit: int | None = None, context: str = "") -> list[Quote]:
    """The 1–``limit`` sentences that best answer ``question``, in reading order.

    Each sentence is scored by the question terms it contains (stemmed, weighted like IDF over the
    returned chunks) plus its meaning's closeness to the question (static embeddings of the
    sentence with its section heading), preferring higher-ranked chunks, earlier sentences of a
    section and sentences of reasonable length. A sentence that shares few terms with the
    question must be close to it in meaning to be chosen, and one that shares them must not be far
    from it in meaning (a shared word alone is not an answer). Besides the best sentences overall, the
    best sentence of each of the ``TOP_SOURCES`` highest-ranked documents is quoted; sentences that
    continue a quoted one (or that a quoted continuation points back to) fill the room left, then the best
    sentence of the documents ranked next, up to the ``ROOM_SOURCES``-th.
    ``context``: the question a follow-up leans on; its terms count ``CONTEXT_WEIGHT`` of their weight (all of
    it when the follow-up has no terms of its own).
    """
    limit = MAX_SENTENCES if limit is None else limit
    if context and not terms(question):  # "and what is it about?": the question it follows says what about
        question, context = f"{question} {context}", ""
    q_terms = list(dict.fromkeys(terms(question))) or list(dict.fromkeys(stem(w) for w in words(question)))
    if not q_terms or not results:
        return []
    chunk_terms = [set(terms(r.text)) | set(terms(r.source)) for r in results]
    n = len(results)
    idf = {t: math.log(1 + (n + 1) / (sum(t in ct for ct in chunk_terms) + 0.5)) for t in q_terms}
    total = sum(idf.values())
    for term in dict.fromkeys(terms(context)):
        if term not in idf:  # the question a follow-up leans on: its words count, less than the question's own
            idf[term] = CONTEXT_WEIGHT * math.log(1 + (n + 1) / (sum(term in ct for ct in chunk_terms) + 0.5))
            q_terms.append(term)
    found: list[tuple[Result, int, str, frozenset[str]]] = []
    seen: set[str] = set()
    for result in results:
        for position, sentence in enumerate(sentences(result.text)):
            key = " ".join(sentence.lower().split())
            if key in seen:
                continue
            seen.add(key)
            present = set(terms(sentence))
            found.append((result, position, sentence, frozenset(t for t in q_terms if t in present)))
    if not found:
        return []
    kind = question_kind(question)
    heading = {r.chunk_id: r.source.split("›")[-1].strip() for r in results}
    meaning = _similarities(question, [f"{heading[r.chunk_id]}: {s}" for r, _, s, _ in found])
    candidates: list[tuple[Quote, frozenset[str], tuple[float, float]]] = []  # quote, terms, (lexical, semantic)
    answerable = False
    for (result, position, sentence, matched), semantic in zip(found, meaning):
        lexical = sum(idf[t] for t in matched) / total
        shares_words = lexical >= MIN_LEXICAL and semantic >= MIN_WORDS_MEANING
        if not shares_words and semantic < MIN_QUOTED:
            continue
        answerable = answerable or shares_words or semantic >= MIN_SEMANTIC
        rank_weight = 1.0 / (1.0 + RANK_DECAY * (max(result.rank, 1) - 1))
        length_weight = 1.0 / (1.0 + max(0, len(words(sentence)) - 40) / 40)
        position_weight = 1.0 / (1.0 + POSITION_DECAY * position)
        cue_weight = 1.0 + ANSWER_CUE * answers_kind(kind, sentence)
        score = (LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * max(semantic, 0.0)) * rank_weight * length_weight * position_weight * cue_weight
        candidates.append((Quote(result.chunk_id, sentence, score, result.rank, position), matched, (lexical, semantic)))
    if not answerable:
        return []
    candidates.sort(key=lambda c: (-c[0].score, c[0].rank, c[0].position))
    best, best_terms, (best_lexical, best_semantic) = candidates[0]
    document = {r.chunk_id: _document(r) for r in results}
    ranked_documents = list(dict.fromkeys(_document(r) for r in sorted(results, key=lambda r: r.rank)))
    chosen = [best]
    covered = set(best_terms)

    def quote_sources(wanted: list[str]) -> None:
        """The best sentence of each ``wanted`` document that has none quoted yet, while there is room."""
        for doc in wanted:
            if len(chosen) < limit and all(document[q.chunk_id] != doc for q in chosen):
                extra = next((c for c in candidates if document[c[0].chunk_id] == doc), None)
                if extra is not None:
                    chosen.append(extra[0])
                    covered.update(extra[1])

    quote_sources(ranked_documents[:TOP_SOURCES])
    for quote, matched, (lexical, semantic) in candidates[1:]:
        if len(chosen) >= limit:
            break
        if quote in chosen:
            continue
        new_terms = matched - covered
        close = lexical >= EXTRA_SAME * best_lexical or semantic >= best_semantic  # in words, or at least as close in meaning
        same = quote.score >= EXTRA_SAME * best.score and close
        if same or (new_terms and quote.score >= EXTRA_NEW_TERMS * best.score):
            chosen.append(quote)
            covered |= matched
    # the sentences that continue a quoted one, or that a quoted continuation points back to, while there is room
    by_place = {(r.chunk_id, position): sentence for r, position, sentence, _ in found}
    placed = {(q.chunk_id, q.position) for q in chosen}
    for quote in list(chosen):
        for neighbour in continued(quote, by_place):
            if len(chosen) < limit and (neighbour.chunk_id, neighbour.position) not in placed:
                chosen.append(neighbour)
                placed.add((neighbour.chunk_id, neighbour.position))
    quote_sources(ranked_documents[TOP_SOURCES:ROOM_SOURCES])  # the room still left: the next documents' best
    order = {r.chunk_id: i for i, r in enumerate(results)}
    return sorted(chosen, key=lambda q: (order.get(q.chunk_id, 0), q.position))


ANSWER_CUE = 0.4  # a sentence in the form that answers the kind of question counts this much more
_HOW = re.compile(r"^\s*(how (do|can|should|would) (i|you|we)|how to)\b", re.I)
_AMOUNT = re.compile(r"^\s*(how (many|much|long|often|big|large|old)|when|what (time|year|size))\b", re.I)
_INSTRUCTION = re.compile(
    r"^(to|use|press|run|call|pass|set|add|create|return|type|open|install|import|write|define|specify|give|put|choose)\b", re.I
)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twice|once|hundred|thousand)\b", re.I)


def question_kind(question: str) -> str:
    """``"how"`` (asks for a procedure), ``"amount"`` (a number, a duration, a time) or ``""``."""
    if _HOW.search(question):
        return "how"
    if _AMOUNT.search(question):
        return "amount"
    return ""


def answers_kind(kind: str, sentence: str) -> bool:
    """Whether a sentence has the form that answers a question of ``kind``: an instruction, a number."""
    if kind == "how":
        return bool(_INSTRUCTION.match(sentence))
    if kind == "amount":
        return bool(_NUMBER.search(sentence))
    return False


def continued(quote: Quote, by_place: dict[tuple[str, int], str]) -> list[Quote]:
    """The next sentence of ``quote``'s chunk when it continues ``quote``, and the one before when ``quote``
    itself is a continuation (``by_place``: the sentences of the results by chunk and position)."""
    out = []
    after = by_place.get((quote.chunk_id, quote.position + 1))
    if after is not None and continues(after):
        out.append(Quote(quote.chunk_id, after, quote.score, quote.rank, quote.position + 1))
    before = by_place.get((quote.chunk_id, quote.position - 1))
    if before is not None and continues(quote.sentence):
        out.append(Quote(quote.chunk_id, before, quote.score, quote.rank, quote.position - 1))
    return out


_POINTS_BACK = frozenset("it its that this these those they them their there same".split())
_FOLLOW_UP_OPENING = re.compile(r"^\s*(and|also|what about|how about|then|so)\b", re.I)
FOLLOW_UP_TERMS = 3
"""A question with at most this many terms of its own that points back ("it", "and …") is a follow-up."""
CONTEXT_WEIGHT = 0.5
"""What the words of the question a follow-up leans on count in choosing its sentences, against its own."""


def is_follow_up(question: str) -> bool:
    """Whether ``question`` leans on the one before it: few words of its own and one that points back."""
    if len(set(terms(question))) > FOLLOW_UP_TERMS:
        return False
    return bool(_FOLLOW_UP_OPENING.match(question)) or any(normal_word(w) in _POINTS_BACK for w in words(question))


def leaned_on(question: str, previous: str) -> str:
    """The question before ``question`` when ``question`` is a follow-up that leans on it, else ``""``."""
    return previous if previous and is_follow_up(question) else ""


def search_query(question: str, previous: str) -> str:
    """What to search for: the question, and for a follow-up also the question it follows (as a careful model
    would resolve "it" before searching)."""
    return " ".join(f"{question} {leaned_on(question, previous)}".split())


def continues(sentence: str) -> bool:
    """Whether ``sentence`` opens with a word that points back at the sentence before it."""
    first = words(sentence[:40])
    return bool(first) and normal_word(first[0]) in CONTINUATIONS


@functools.lru_cache(maxsize=2)  # the question being answered (its cite step, then its answer)
def _select(question: str, results: tuple[Result, ...], context: str = "") -> list[Quote]:
    """:func:`select` once per question and results: choosing what to cite and answering use the same quotes."""
    return select(question, list(results), context=context)


_REGISTERED = re.compile(r"\[(\d+)\] = ([0-9A-Za-z_-]+)")


def parse_citations(text: str) -> dict[str, int]:
    """``Registered N citation(s): [1] = <id>, [3] = <id>.`` → ``{id: number}``."""
    return {cid: int(number) for number, cid in _REGISTERED.findall(text)}


def compose(quotes: list[Quote], numbers: dict[str, int]) -> str:
    """The answer: each quoted sentence followed by its marker, then the retrieval-only note."""
    body = " ".join(f"{q.sentence} [{numbers[q.chunk_id]}]" if q.chunk_id in numbers else q.sentence for q in quotes)
    return f"{body}\n\n{FOOTER}"


def nothing_found(question: str) -> str:
    topic = " ".join(question.split())
    if len(topic) > 80:
        topic = topic[:79] + "…"
    return f"The knowledge base has nothing on this: no passage I found answers “{topic}”.\n\n{FOOTER}"


# ---- reading the conversation -------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return " ".join(item for item in content if isinstance(item, str))
    try:
        return json.dumps(content, default=str)
    except (TypeError, ValueError):
        return str(content)


def _is_human(part: Any) -> bool:
    if not isinstance(part, UserPromptPart):
        return False
    text = _content_text(part.content).strip()
    return bool(text) and not text.startswith("<system>") and RETRY_TAG not in text and REDIRECT_TAG not in text


@dataclass
class Event:
    kind: str  # "call" | "return" | "retry" | "redirect" | "text"
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    content: str = ""


@dataclass
class Turn:
    """The current question and everything that happened since it was asked."""

    question: str
    events: list[Event]
    responses: int
    previous: str = ""
    """The question asked before this one in the conversation the model was given ("" when none)."""

    def calls(self, tool: str) -> list[Event]:
        return [e for e in self.events if e.kind == "call" and e.tool == tool]

    def returns(self, tool: str) -> list[Event]:
        return [e for e in self.events if e.kind == "return" and e.tool == tool]

    def last_redirect(self) -> int | None:
        idx = [i for i, e in enumerate(self.events) if e.kind == "redirect"]
        return idx[-1] if idx else None


def read_turn(messages: list[ModelMessage]) -> Turn:
    """Find the latest question the user asked and collect what followed it."""
    start = None
    question = previous = ""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, ModelRequest):
            humans = [p for p in message.parts if _is_human(p)]
            if humans and start is None:
                start, question = i, _content_text(humans[-1].content)
            elif humans:
                previous = _content_text(humans[-1].content)
                break
    events: list[Event] = []
    responses = 0
    last_call: str | None = None
    for message in messages[(start if start is not None else 0) :]:
        if isinstance(message, ModelResponse):
            responses += 1
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    args = part.args_as_dict() if part.args else {}
                    events.append(Event("call", part.tool_name, args))
                    last_call = part.tool_name
                elif isinstance(part, TextPart) and part.content.strip():
                    events.append(Event("text", content=part.content))
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    continue
                kind = getattr(part, "part_kind", "")
                text = _content_text(getattr(part, "content", ""))
                outcome = getattr(part, "outcome", "success")
                if kind == "retry-prompt" or outcome == "retried" or RETRY_TAG in text:
                    events.append(Event("retry", getattr(part, "tool_name", None) or last_call, content=text))
                elif kind == "tool-return" or (hasattr(part, "tool_call_id") and hasattr(part, "tool_name")):
                    # a failed tool (ToolFailed: budget spent, empty knowledge base) returns no results
                    content = text if outcome == "success" else ""
                    events.append(Event("return", getattr(part, "tool_name", None), content=content))
                elif REDIRECT_TAG in text:
                    events.append(Event("redirect", content=text))
    return Turn(question=question, events=events, responses=responses, previous=previous)


# ---- deciding -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Say:
    text: str


Action = Call | Say


def _need_tool(tool: str, tools: set[str], turn: Turn) -> Action | None:
    """Load the capability when ``tool`` is hidden behind it (once per question), else None."""
    if tool in tools:
        return None
    if LOAD_TOOL in tools and not turn.calls(LOAD_TOOL):
        return Call(LOAD_TOOL, {"id": RAG_ID})
    return None


def decide(messages: list[ModelMessage], tools: Iterable[str]) -> Action:
    """The next step, from the conversation and the tools on offer."""
    available = set(tools)
    turn = read_turn(messages)
    question = turn.question

    # A citation-policy redirect: declare, then repeat the previous answer verbatim.
    redirect = turn.last_redirect()
    if redirect is not None:
        before = [e for e in turn.events[:redirect] if e.kind == "text"]
        previous = before[-1].content if before else ""
        after = turn.events[redirect + 1 :]
        cited = any(e.kind == "call" and e.tool == CITE_TOOL for e in after)
        if not cited and turn.responses < MAX_STEPS:
            if CITE_TOOL in available:
                return Call(CITE_TOOL, {"chunk_ids": []})
            load = _need_tool(CITE_TOOL, available, turn)
            if load is not None:
                return load
        return Say(previous or REPLIES["ack"])

    if turn.responses >= MAX_STEPS:
        return Say(nothing_found(question))

    # Greetings, thanks and short chit-chat: no tools.
    kind = chitchat_kind(question)
    if kind is not None and not any(e.kind == "call" for e in turn.events):
        return Say(REPLIES[kind])

    # Feedback from a failed call.
    last = turn.events[-1] if turn.events else None
    if last is not None and last.kind == "retry":
        if last.tool == CITE_TOOL:
            if any(not c.args.get("chunk_ids") for c in turn.calls(CITE_TOOL)) or CITE_TOOL not in available:
                return Say(nothing_found(question))
            return Call(CITE_TOOL, {"chunk_ids": []})
        if last.tool == LOAD_TOOL and SEARCH_TOOL not in available:
            return Say(nothing_found(question))

    # 1. Search (loading the capability first when it is deferred).
    if not turn.calls(SEARCH_TOOL):
        load = _need_tool(SEARCH_TOOL, available, turn)
        if load is not None:
            return load
        if SEARCH_TOOL not in available:
            return Say(
                "The knowledge-base tools are not available in this conversation, so I cannot answer "
                f"from your documents.\n\n{FOOTER}"
            )
        return Call(SEARCH_TOOL, {"query": search_query(question, turn.previous), "limit": SEARCH_LIMIT})

    # 2. Choose the sentences and cite their chunks.
    results: list[Result] = []
    for ret in turn.returns(SEARCH_TOOL):
        known = {r.chunk_id for r in results}
        results.extend(r for r in parse_results(ret.content) if r.chunk_id not in known)
    quotes = _select(question, tuple(results), leaned_on(question, turn.previous))
    cite_returns = turn.returns(CITE_TOOL)
    if not cite_returns:
        if CITE_TOOL not in available:
            return Say(compose(quotes, {}) if quotes else nothing_found(question))
        ids = list(dict.fromkeys(q.chunk_id for q in quotes))
        return Call(CITE_TOOL, {"chunk_ids": ids})

    # 3. Answer with the numbers the cite tool gave.
    numbers: dict[str, int] = {}
    for ret in cite_returns:
        numbers.update(parse_citations(ret.content))
    quoted = [q for q in quotes if q.chunk_id in numbers]
    if not quoted:
        return Say(nothing_found(question))
    return Say(compose(quoted, numbers))


# ---- the model ----------------------------------------------------------------------------


def _call_id() -> str:
    return f"extractive_{uuid.uuid4().hex[:16]}"


def _tool_names(info: AgentInfo) -> list[str]:
    return [t.name for t in info.function_tools]


def _estimate(messages: list[ModelMessage]) -> int:
    return estimated_tokens(message_chars(messages))


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The non-streamed response (its usage estimated from characters, as :class:`ExtractiveModel` does)."""
    action = decide(messages, _tool_names(info))
    part = ToolCallPart(action.tool, action.args, tool_call_id=_call_id()) if isinstance(action, Call) else TextPart(action.text)
    response = ModelResponse(parts=[part], model_name=MODEL_NAME)
    response.usage = RequestUsage(input_tokens=_estimate(messages), output_tokens=_estimate([response]))
    return response


def text_chunks(text: str, size: int = STREAM_WORDS) -> list[str]:
    """Split text into small chunks that concatenate back to it exactly."""
    pieces = re.findall(r"\S+\s*|\s+", text)
    return ["".join(pieces[i : i + size]) for i in range(0, len(pieces), size)] or [text]


async def stream_respond(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """The streamed response: a tool call in one delta, or text in small chunks."""
    action = decide(messages, _tool_names(info))
    if isinstance(action, Call):
        yield {0: DeltaToolCall(name=action.tool, json_args=json.dumps(action.args), tool_call_id=_call_id())}
        return
    for chunk in text_chunks(action.text):
        yield chunk


class ExtractiveModel(FunctionModel):
    """The function model whose input tokens are estimated from the characters of each request it receives
    (``capabilities.wire.estimated_tokens``, as the wire inspector estimates), not Pydantic AI's flat guess of
    50 per streamed request; the output is Pydantic AI's count of the streamed words. No provider reports
    them, so they stay marked estimated."""

    @asynccontextmanager
    async def request_stream(self, messages: list[ModelMessage], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with super().request_stream(messages, *args, **kwargs) as response:
            # replaces the flat estimate the function model's stream starts from (before any output is counted)
            response._add_usage(RequestUsage(input_tokens=_estimate(messages)), reported=False, cumulative=True)
            yield response


def extractive_model() -> FunctionModel:
    """A fresh ``extractive`` model (stateless; safe to share)."""
    return ExtractiveModel(respond, stream_function=stream_respond, model_name=MODEL_NAME)
