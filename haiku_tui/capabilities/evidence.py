"""What every evidence capability shares: question identity, the ledger, search, cite, budgets.

An *evidence capability* retrieves chunks and lets the model declare which of them ground its
answer. It records both in its namespace of ``deps.state`` (see :mod:`.ledger`) and never rewrites
history. The optional capabilities (compaction, citation policy) find every evidence capability
registered in a run through :func:`discover` and read their records.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool, ToolFailed
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    OperatorSource,
    OperatorText,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from haiku_tui.capabilities import ledger
from haiku_tui.capabilities.errors import QuestionStateMissing
from haiku_tui.capabilities.parts import BudgetNoticePart
from haiku_tui.locations import resolve_db
from haiku_tui.store.records import page_range

if TYPE_CHECKING:
    from haiku_tui.store import KnowledgeBase, SearchHit

CHUNK_ID_MATCH_CUTOFF = 0.75
"""How close a mangled chunk id must be to a retrieved one to be repaired."""

CITE_GRACE_REQUESTS = 2
"""Model requests past the request limit during which the cite tool stays available."""

SNIPPET_CHARS = 240
RESULT_SEPARATOR = "\n\n---\n\n"
NO_RESULTS = "No results found."


def prompt_text(prompt: Any) -> str:
    """The text of a user prompt (a string or a sequence of content parts)."""
    if prompt is None:
        return ""
    if isinstance(prompt, str):
        return prompt
    return " ".join(item for item in prompt if isinstance(item, str))


def awaits_model(messages: list[ModelMessage]) -> bool:
    """True when history stops mid-question: the next step belongs to the model, not the user.

    That is a response with tool calls still to answer, or a request (tool results, a retry
    prompt, a question) still waiting for the model's response.
    """
    if not messages:
        return False
    last = messages[-1]
    if isinstance(last, ModelResponse):
        return any(isinstance(part, ToolCallPart) for part in last.parts)
    return True


def history_offset(ctx: RunContext[Any]) -> int:
    """How many earlier messages the host left out of this run's history (0: it passed them all)."""
    offset = getattr(ctx.deps, "history_offset", 0)
    return offset if isinstance(offset, int) and offset > 0 else 0


def asked_in_history(messages: list[ModelMessage]) -> str | None:
    """The text of a new question that ends the history, as UI adapters (AG-UI) hand it over.

    That is a last request carrying a user prompt and no tool results or retry prompts; a
    request with those continues the question its tool calls belong to.
    """
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return None
    if any(isinstance(part, ToolReturnPart | RetryPromptPart) for part in last.parts):
        return None
    prompts = [prompt_text(part.content) for part in last.parts if isinstance(part, UserPromptPart)]
    return " ".join(prompts) if prompts else None


def hit_to_json(hit: SearchHit) -> dict[str, Any]:
    """A search hit as stored in the ledger (a snippet, not the whole text)."""
    text = " ".join(hit.text.split())
    return {
        "chunk_id": hit.chunk_id,
        "document_id": hit.document_id,
        "rank": hit.rank,
        "score": round(float(hit.score), 6),
        "title": hit.title,
        "path": hit.path,
        "headings": list(hit.headings),
        "pages": list(hit.pages),
        "snippet": text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…",
    }


def source_label(title: str, headings: list[str] | tuple[str, ...], pages: list[int] | tuple[int, ...] = ()) -> str:
    """``"Title" › Heading › Sub (p. 3–4)`` as the model and the user see a source."""
    label = " › ".join([f'"{title}"', *headings])
    return f"{label} ({page_range(pages)})" if pages else label


TEXT_ABOVE = "[Its text is above, in full: shown earlier in this conversation.]"
"""A result block's text when the request already holds the chunk in full (:meth:`EvidenceCapability.held`)."""


def format_result(hit: SearchHit, total: int, above: bool = False) -> str:
    """One search result block for the model: its chunk id first, then source and text (``above``: a line saying
    the request holds its text already)."""
    return (
        f"[{hit.chunk_id}] (rank {hit.rank} of {total})\n"
        f"Source: {source_label(hit.title, hit.headings, hit.pages)}\n"
        f"{TEXT_ABOVE if above else hit.text}"
    )


def _clean_id(raw: str) -> str:
    return raw.strip().strip("[]()<>`'\" ").lower()


@dataclass
class EvidenceCapability(AbstractCapability[Any]):
    """Base class of the RAG and analysis capabilities (one per state namespace)."""

    namespace: str = "rag"
    tool_prefix: str = "rag"
    db_path: str | None = None
    request_limit: int = 20
    max_searches: int = 5
    search_limit: int = 5
    kb: KnowledgeBase | None = field(default=None, repr=False)

    # per-run fields, set by for_run
    state_carried: bool = field(default=False, init=False)
    question: int | None = field(default=None, init=False)
    _state: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _namespace_state: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    # ---- identity and state ---------------------------------------------------------------
    @property
    def search_tool(self) -> str:
        return f"{self.tool_prefix}_search"

    @property
    def cite_tool(self) -> str:
        return f"{self.tool_prefix}_cite"

    @property
    def evidence_tool_names(self) -> frozenset[str]:
        """Tools whose results are evidence (compaction receipts them)."""
        return frozenset({self.search_tool})

    @property
    def state(self) -> dict[str, Any]:
        """The whole state map this run writes to (the host's ``deps.state`` when it has one)."""
        return self._state

    @property
    def record(self) -> dict[str, Any]:
        """This capability's namespace of the state map."""
        return self._namespace_state

    @property
    def current(self) -> dict[str, Any]:
        """The record of the question this run belongs to."""
        record = ledger.find_question(self._namespace_state, self.question) if self.question is not None else None
        if record is None:
            raise RuntimeError("no question in progress: the capability was used outside a run")
        return record

    def _over_limit(self, requests: int) -> int:
        """How many requests past the limit request number ``requests`` is (0 within it)."""
        return max(0, requests - self.request_limit)

    @property
    def cite_available(self) -> bool:
        """Whether the next request still offers the cite tool (false once the grace window is over)."""
        if self.question is None:
            return True
        return self._over_limit(self.current["requests"] + 1) <= CITE_GRACE_REQUESTS

    def knowledge_base(self) -> KnowledgeBase:
        """The knowledge base, opened on first use and shared by this capability's runs."""
        if self.kb is None:
            from haiku_tui.store import KnowledgeBase

            self.kb = KnowledgeBase.open(self.db_path or resolve_db(None), create=False)
        return self.kb

    async def for_run(self, ctx: RunContext[Any]) -> EvidenceCapability:
        run = replace(self)
        outer = getattr(ctx.deps, "state", None)
        run._state = outer if isinstance(outer, dict) else {}
        namespace = run._state.get(self.namespace)
        if not ledger.is_evidence_namespace(namespace):
            namespace = {**ledger.new_namespace(), **(namespace or {})}
            run._state[self.namespace] = namespace
        run._namespace_state = namespace
        run.state_carried = namespace["question"] is not None
        messages = ctx.messages
        size = history_offset(ctx) + len(messages)  # absolute: the host may pass a window of the history
        asked = asked_in_history(messages) if ctx.prompt is None else None
        if asked is not None and not (namespace["in_progress"] and namespace["question"] == size - 1):
            # a new question at the end of the history (its identity: the messages before it)
            run.question = size - 1
            ledger.begin_question(namespace, run.question, asked)
        elif ctx.prompt is None and awaits_model(messages):
            if not (namespace["in_progress"] and namespace["question"] is not None):
                raise QuestionStateMissing(
                    f"This run resumes a question, but deps.state[{self.namespace!r}] carries no question in "
                    "progress. Pass the deps.state of the run being resumed alongside its message history."
                )
            run.question = namespace["question"]
        else:
            run.question = size
            ledger.begin_question(namespace, run.question, prompt_text(ctx.prompt))
        return run

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        from pydantic_ai import DeferredToolRequests

        if not isinstance(result.output, DeferredToolRequests):
            self._namespace_state["in_progress"] = False
        return result

    # ---- budgets -------------------------------------------------------------------------
    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        record = self.current
        record["requests"] += 1
        over = self._over_limit(record["requests"])
        if over:
            if over <= CITE_GRACE_REQUESTS:
                notice = (
                    f"The request budget for this question is spent ({self.request_limit} requests). "
                    f"Only {self.cite_tool} remains: declare what grounds your answer, then answer."
                )
            else:
                notice = (
                    f"The {self.tool_prefix} tools are no longer available for this question. "
                    "Give the best answer possible from what you already have."
                )
            ctx.enqueue(BudgetNoticePart(content=OperatorText(notice), source=OperatorSource(), scope="request"))
        return request_context

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[Any]) -> list[Any]:
        if self.question is None:
            return tool_defs
        over = self._over_limit(self.current["requests"] + 1)  # counted in before_model_request, which runs next
        if not over:
            return tool_defs
        own = [t for t in tool_defs if t.capability_id == self.id]
        keep = {self.cite_tool} if over <= CITE_GRACE_REQUESTS else set()
        return [t for t in tool_defs if t not in own or t.name in keep]

    # ---- tools ----------------------------------------------------------------------------
    def run_instance(self, ctx: RunContext[Any]) -> EvidenceCapability:
        """The per-run instance of this capability (tools are shared; state is not)."""
        instance = ctx.capabilities.get(self.id) if self.id else None
        return instance if isinstance(instance, EvidenceCapability) else self

    def evidence_tools(self) -> list[Tool[Any]]:
        """The search and cite tools, named after the capability's tool prefix."""
        owner = self

        def search(ctx: RunContext[Any], query: str, limit: int | None = None) -> str:
            """Search the knowledge base (full-text, and vector when configured).

            Args:
                query: What to look for, in the words the documents would use.
                limit: How many results to return (default 5, at most 20).
            """
            return owner.run_instance(ctx).search(ctx, query, limit)

        def cite(ctx: RunContext[Any], chunk_ids: list[str]) -> str:
            """Declare the chunks that ground your answer; an empty list declares it ungrounded.

            Args:
                chunk_ids: Chunk ids copied exactly from search results (or from evidence kept
                    from earlier questions).
            """
            return owner.run_instance(ctx).cite(ctx, chunk_ids)

        return [Tool(search, name=self.search_tool), Tool(cite, name=self.cite_tool)]

    def spend(self, record: dict[str, Any], counter: str, budget: int, what: str, unit: str) -> None:
        """Count one more use of a per-question budget, or fail the tool call when it is spent."""
        done = record.setdefault(counter, 0)
        if done >= budget:
            raise ToolFailed(
                f"{what} budget for this question is spent ({budget} {unit}). "
                f"Answer from the results you have and declare them with {self.cite_tool}."
            )
        record[counter] = done + 1

    def search(self, ctx: RunContext[Any], query: str, limit: int | None) -> str:
        """Run a search, merge it into the question's record, return the model-facing text."""
        record = self.current
        self.spend(record, "search_calls", self.max_searches, "Search", "searches")
        query = query.strip()
        if not query:
            raise ModelRetry("The query is empty: pass the words to search for.")
        from haiku_tui.store.errors import EmptyKnowledgeBase

        try:
            hits = self.knowledge_base().search(
                query,
                limit=max(1, min(limit or self.search_limit, 20)),
                filter=self._namespace_state["document_filter"],
            )
        except EmptyKnowledgeBase as error:
            raise ToolFailed(str(error)) from None
        held = self.held(record)
        ledger.note_search(record, query, [hit_to_json(h) for h in hits], history_offset(ctx) + len(ctx.messages))
        if not hits:
            return NO_RESULTS
        return RESULT_SEPARATOR.join(format_result(hit, len(hits), hit.chunk_id in held) for hit in hits)

    def held(self, record: dict[str, Any]) -> set[str]:
        """Chunks whose text the question's requests hold in full: what its earlier searches returned and, when
        compaction laid the requests out (it recorded their start, ``window_start``), what the questions since that
        start cited (it keeps their text in full). A search result repeating one says its text is above."""
        found = {hit["chunk_id"] for search in record["searches"] for hit in search["hits"]}
        start = record.get("window_start")
        if isinstance(start, int):
            for question, records in ledger.newest_first(self._state, record["question"]):
                if question < start:
                    break
                found.update(ledger.current_ids(records))
        return found

    def cite(self, ctx: RunContext[Any], chunk_ids: list[str]) -> str:
        """Record the declaration of what grounds the answer: ``[]`` means ungrounded."""
        record = self.current
        epoch = history_offset(ctx) + len(ctx.messages)
        if not chunk_ids:
            ledger.declare(record, [], epoch)
            return "Recorded: this answer cites no knowledge-base evidence."
        retrieved = ledger.retrieved_ids(record)
        known = retrieved + [c for c in self._all_cited_ids() if c not in retrieved]
        pairs: list[tuple[str, str]] = []  # (as given, repaired)
        for raw in chunk_ids:
            cleaned = _clean_id(str(raw))
            if cleaned not in known:
                close = difflib.get_close_matches(cleaned, known, n=1, cutoff=CHUNK_ID_MATCH_CUTOFF)
                cleaned = close[0] if close else cleaned
            pairs.append((str(raw), cleaned))
        wanted = list(dict.fromkeys(cleaned for _, cleaned in pairs if cleaned))
        resolved = self._resolve(wanted)
        unresolved = list(dict.fromkeys(raw for raw, cleaned in pairs if cleaned not in resolved))
        if not resolved:
            raise ModelRetry(
                f"None of the chunk ids {list(chunk_ids)} could be resolved. Copy each id exactly as it appears "
                f"in square brackets at the start of a {self.search_tool} result, or call {self.cite_tool} "
                "with [] if no result supports your answer."
            )
        ledger.declare(record, list(resolved), epoch)
        markers = ", ".join(f"[{c['index']}] = {cid}" for cid, c in resolved.items())
        message = f"Registered {len(resolved)} citation(s): {markers}. Use these [n] markers in your answer."
        if unresolved:
            message += f" Ignored {len(unresolved)} unresolvable id(s): {unresolved}."
        return message

    def _all_cited_ids(self) -> list[str]:
        return [cid for ns in ledger.evidence_namespaces(self._state).values() for cid in ns["citation_index"]]

    def _resolve(self, chunk_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Citation entries for the ids that exist, registering new ones with the next number.

        Where a chunk is cited again, its number stays but its provenance (title, path, headings,
        pages, text) is read from the knowledge base again: an imported session's labels are history,
        never the source of a fresh citation.
        """
        chunks = self.knowledge_base().get_chunks(chunk_ids)
        out: dict[str, dict[str, Any]] = {}
        for cid in chunk_ids:
            entry = ledger.citation_for(self._state, cid)
            chunk = chunks.get(cid)
            if entry is None and chunk is None:
                continue
            if entry is None:
                entry = {
                    "index": ledger.next_citation_number(self._state),
                    "chunk_id": cid,
                    "capability": self.namespace,
                }
            if chunk is not None:
                entry.update(
                    document_id=chunk.document_id,
                    title=chunk.title,
                    path=chunk.path,
                    headings=list(chunk.headings),
                    pages=list(chunk.pages),
                    text=chunk.text,
                )
            self._namespace_state["citation_index"].setdefault(cid, entry)
            out[cid] = entry
        return {cid: out[cid] for cid in chunk_ids if cid in out}


def discover(ctx: RunContext[Any]) -> list[EvidenceCapability]:
    """Every evidence capability registered in this run (per-run instances), by namespace."""
    found = [c for c in ctx.capabilities.values() if isinstance(c, EvidenceCapability)]
    return sorted(found, key=lambda c: c.namespace)


def question_in_progress(evidence: list[EvidenceCapability]) -> int | None:
    """Identity of the question this run belongs to (the same for every capability)."""
    return max((c.question for c in evidence if c.question is not None), default=None)
