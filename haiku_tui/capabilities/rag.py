"""The RAG capability: search the knowledge base and declare what grounds each answer.

With ``search_first`` it offers the model no tools: before the question's first request haiku-tui runs
the search itself (the question, with the question before it when a follow-up leans on it) and puts the
results in that request as numbered passages (:class:`~haiku_tui.capabilities.parts.PassagesPart`), recorded
in the same evidence record a ``rag_search`` call writes. After the answer, its ``[n]`` markers are
registered as its citations; sentences without one are attributed to the passage they were drawn from
(:mod:`.attribution`), marked as attributed by haiku-tui.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ModelRequest, ModelResponse, OperatorSource, TextPart, UserPromptPart
from pydantic_ai.toolsets import FunctionToolset

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.evidence import NO_RESULTS, EvidenceCapability, hit_to_json
from haiku_tui.capabilities.parts import PassagesPart
from haiku_tui.locations import resolve_db
from haiku_tui.store.records import chunk_label, page_range
from haiku_tui.text import citation_markers

if TYPE_CHECKING:
    from haiku_tui.store import KnowledgeBase, SearchHit

RAG_ID = "haiku-tui-rag"
DESCRIPTION = "Search the local knowledge base and cite the evidence that grounds an answer."

INSTRUCTIONS = """\
You answer from a local knowledge base.
- Search with rag_search before answering a question about the documents. Each result starts with
  its chunk id in square brackets, e.g. [3f2a9c01d4e5b6a7].
- Before giving your answer, call rag_cite with the chunk ids that support it, copied exactly.
  It returns a number for each citation: put those numbers in your answer as markers like [1].
- If nothing you found supports an answer, call rag_cite with an empty list and say so plainly.
- Never invent facts, chunk ids or citation numbers, and never write chunk ids in the answer."""

SEARCH_FIRST_INSTRUCTIONS = """\
You answer from a local knowledge base. Each question comes with numbered passages from it.
- Answer in full sentences from those passages only, each ending with its passage's number, like [1].
- If the passages do not answer the question, say so plainly.
- Never invent facts or passage numbers."""

HOST_SEARCH = "haiku-tui"
"""What a search record's ``"by"`` holds when haiku-tui ran the search itself (search-first)."""


def passage_source(hit: SearchHit, labels: dict[str, int]) -> str:
    """A passage's first line as the model reads it: ``[n] Title › heading (p. 3)``."""
    pages = page_range(hit.pages)
    return f"[{labels[hit.chunk_id]}] " + chunk_label(hit.title, hit.headings) + (f" ({pages})" if pages else "")


def passages_text(hits: list[SearchHit], labels: dict[str, int]) -> str:
    """The numbered passages as the model reads them: ``[n] Title › heading (p. 3)``, then the chunk's text."""
    if not hits:
        return NO_RESULTS
    return "\n\n".join(f"{passage_source(hit, labels)}\n{hit.text.strip()}" for hit in hits)


_ECHO_WORDS = 8
"""A run of this many words of the search-first instructions in an answer is the request written back."""


def echoed(answer: str, sources: list[str], instructions: str = "") -> bool:
    """True when ``answer`` writes its request back rather than answering: a run of the passages note's words or of
    the request's ``instructions`` (the agent's and every capability's), or two or more of the passages' source
    lines (small models do all three, passages and all)."""
    from haiku_tui.capabilities.parts import PASSAGES_NOTE

    words = " ".join(answer.lower().split())
    for request in (PASSAGES_NOTE.format(frame="<passages>"), instructions):
        said = request.lower().split()
        if any(" ".join(said[i : i + _ECHO_WORDS]) in words for i in range(len(said) - _ECHO_WORDS + 1)):
            return True
    return sum(1 for s in sources if " ".join(s.lower().split()) in words) >= 2


@dataclass
class RAGCapability(EvidenceCapability):
    """Grounded document search and citations over a LanceDB knowledge base (state key ``"rag"``)."""

    search_first: bool = False
    query_for: Callable[[str, str], str] | None = field(default=None, repr=False)
    """``(question, question before) -> query`` for the search-first search (None: the question alone)."""

    _passages: dict[int, tuple[str, str]] = field(default_factory=dict, init=False, repr=False)
    """This run's passages (search-first): label → (chunk id, text)."""
    _sources: dict[int, str] = field(default_factory=dict, init=False, repr=False)
    """Each passage's label → the line the model was shown it under (attribution reads it with that line)."""

    def get_instructions(self) -> str:
        return SEARCH_FIRST_INSTRUCTIONS if self.search_first else INSTRUCTIONS

    def get_toolset(self) -> FunctionToolset[Any] | None:
        if self.search_first:
            return None
        return FunctionToolset(self.evidence_tools(), id=self.id, max_retries=3, sequential=True)

    @property
    def cite_available(self) -> bool:
        return False if self.search_first else super().cite_available

    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        request_context = await super().before_model_request(ctx, request_context)
        if self.search_first and self.current["requests"] == 1 and not self.current["searches"]:
            self._search_first(ctx, request_context)
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        if self.search_first and self.question is not None:
            answer = "".join(p.content for p in response.parts if isinstance(p, TextPart))
            sent = (m.instructions for m in reversed(request_context.messages) if isinstance(m, ModelRequest))
            self._declare_answer(answer, next((i for i in sent if i), ""))
        return response

    # ---- search-first ---------------------------------------------------------------------
    def _search_first(self, ctx: RunContext[Any], request_context: Any) -> None:
        """Search for the question and put the passages in its request (the history keeps them)."""
        from haiku_tui.store.errors import EmptyKnowledgeBase

        record = self.current
        earlier = [r for r in self.record["questions"] if r["question"] < record["question"]]
        previous = earlier[-1]["prompt"] if earlier else ""
        query = " ".join((self.query_for(record["prompt"], previous) if self.query_for else record["prompt"]).split())
        if not query:
            return
        try:
            filter_ = self.record["document_filter"]
            hits = self.knowledge_base().search(query, limit=self.search_limit, filter=filter_)
        except EmptyKnowledgeBase:
            hits = []
        record["search_calls"] = record.get("search_calls", 0) + 1
        following = ledger.next_citation_number(self.state)
        labels: dict[str, int] = {}
        for hit in hits:
            entry = ledger.citation_for(self.state, hit.chunk_id)
            labels[hit.chunk_id] = entry["index"] if entry else following
            following += 0 if entry else 1
        ledger.note_search(record, query, [hit_to_json(h) for h in hits], record["question"])
        record["searches"][-1]["by"] = HOST_SEARCH
        record["passages"] = {str(labels[h.chunk_id]): h.chunk_id for h in hits}
        record["passage_sources"] = [passage_source(h, labels) for h in hits]
        self._passages = {labels[h.chunk_id]: (h.chunk_id, h.text) for h in hits}
        self._sources = {labels[h.chunk_id]: chunk_label(h.title, h.headings) for h in hits}
        part = PassagesPart(
            content=passages_text(hits, labels),
            source=OperatorSource(),  # haiku-tui's own search; the passages are framed as data all the same
            query=query,
            found=len(hits),
        )
        for messages in (ctx.messages, request_context.messages):
            _add_to_question(messages, part)

    def _declare_answer(self, answer: str, instructions: str = "") -> None:
        """Register the answer's markers as its citations, attribute its unmarked claims, declare the rest
        (``instructions``: the request's, which an answer may write back)."""
        from haiku_tui.capabilities.attribution import attribute

        record = self.current
        passages = {int(n): chunk_id for n, chunk_id in record.get("passages", {}).items()}
        by_number = {
            entry["index"]: chunk_id
            for namespace in ledger.evidence_namespaces(self.state).values()
            for chunk_id, entry in namespace["citation_index"].items()
        }
        marked: dict[str, int] = {}
        for number in citation_markers(answer):
            chunk_id = passages.get(number) or by_number.get(number)
            if chunk_id is not None:
                marked.setdefault(chunk_id, number)
        texts = self._marked_texts(marked)
        held: dict[tuple[str, int], bool] = {}  # asked for attribution, then for grounding: scored once

        def backs(sentence: str, number: int) -> bool:
            if (sentence, number) not in held:
                chunk_text = texts.get(passages.get(number) or by_number.get(number) or "", "")
                held[sentence, number] = holds(sentence, chunk_text)
            return held[sentence, number]

        attributions = attribute(answer, self._passages, self._sources, backs) if self._passages else []
        record["attribution"] = [
            {"sentence": a.sentence, "chunk_id": a.chunk_id, "score": a.score} for a in attributions
        ]
        found = {a.chunk_id: a.label for a in attributions if a.chunk_id is not None and a.label is not None}
        for chunk_id, number in {**found, **marked}.items():
            self._register(chunk_id, number)
        if echoed(answer, record.get("passage_sources", []), instructions):  # its request written back: no answer
            record["echoed"] = True
            marked, found = {}, {}
        backed = _backed(answer, marked, backs)
        record["unconfirmed"] = sorted(n for c, n in marked.items() if c not in backed)
        declared = list(dict.fromkeys([*(c for c in marked if c in backed), *found]))
        declaration = ledger.declare(record, declared, record["question"] + 1)
        declaration["attributed"] = [c for c in declaration["chunk_ids"] if c in found and c not in marked]

    def _marked_texts(self, marked: dict[str, int]) -> dict[str, str]:
        """Chunk id → text of the question's passages and of the earlier citations ``marked`` names."""
        texts = {chunk_id: text for chunk_id, text in self._passages.values()}
        for chunk_id in marked:
            if chunk_id not in texts and (entry := ledger.citation_for(self.state, chunk_id)) is not None:
                texts[chunk_id] = entry.get("text") or ""
        return texts

    def _register(self, chunk_id: str, number: int) -> None:
        """The citation entry of ``chunk_id``: its number if it has one, else ``number`` (the passage's label)."""
        if ledger.citation_for(self.state, chunk_id) is not None:
            return
        chunk = self.knowledge_base().get_chunks([chunk_id]).get(chunk_id)
        if chunk is None:
            return
        self.record["citation_index"][chunk_id] = {
            "index": number,
            "chunk_id": chunk_id,
            "capability": self.namespace,
            "document_id": chunk.document_id,
            "title": chunk.title,
            "path": chunk.path,
            "headings": list(chunk.headings),
            "pages": list(chunk.pages),
            "text": chunk.text,
        }


def _backed(answer: str, marked: dict[str, int], backs: Callable[[str, int], bool]) -> set[str]:
    """The ``marked`` chunks (chunk id → number) that back a sentence of ``answer`` carrying their marker
    (``backs``: :func:`holds` on the marker's text): a bare ``[1]``, or a sentence its passage does not hold, grounds
    nothing (small models write both)."""
    from haiku_tui.capabilities.support import claims

    by_number = {number: chunk_id for chunk_id, number in marked.items()}
    return {
        by_number[number]
        for sentence, numbers in claims(answer)
        for number in numbers
        if number in by_number and backs(sentence, number)
    }


def holds(sentence: str, text: str) -> bool:
    """Whether a passage's ``text`` backs ``sentence`` (the claim support check's lexical score)."""
    from haiku_tui.capabilities.support import WEAK_BELOW_LEXICAL, support_score

    return bool(text) and support_score(sentence, text)[2] >= WEAK_BELOW_LEXICAL


def _add_to_question(messages: list[Any], part: PassagesPart) -> None:
    """Put ``part`` in the question's request (the last one holding a user prompt), before the prompt."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            at = next(j for j, p in enumerate(message.parts) if isinstance(p, UserPromptPart))
            messages[i] = replace(message, parts=[*message.parts[:at], part, *message.parts[at:]])
            return


def create_capability(
    db_path: str | Path | None = None,
    *,
    defer_loading: bool = True,
    kb: KnowledgeBase | None = None,
    request_limit: int = 20,
    max_searches: int = 5,
    search_limit: int = 5,
    search_first: bool = False,
    query_for: Callable[[str, str], str] | None = None,
) -> RAGCapability:
    """Build the RAG capability.

    The database is ``db_path``, else ``HAIKU_RAG_DB``, else ``<data dir>/haiku.rag.lancedb``;
    an open ``kb`` is used as is. Deferred by default: the model sees only the description and
    ``load_capability`` until it loads the capability. ``search_first``: no tools, the search runs
    before the model is asked (never deferred); ``query_for`` makes its query from the question and
    the one before it.
    """
    return RAGCapability(
        id=RAG_ID,
        description=DESCRIPTION,
        defer_loading=defer_loading and not search_first,
        namespace="rag",
        tool_prefix="rag",
        db_path=None if kb is not None and db_path is None else resolve_db(db_path),
        request_limit=request_limit,
        max_searches=max_searches,
        search_limit=search_limit,
        kb=kb,
        search_first=search_first,
        query_for=query_for,
    )
