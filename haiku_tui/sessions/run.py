"""One question's run, as an async iterator of typed events: the app and ``haiku-tui ask`` both consume it.

The run owns the rule every host follows: copy the committed state, stream the run, and only when it
completed commit conversation + state together, record the session's model and knowledge base, and
save. A cancelled or failed run commits nothing (its :class:`Finished` says why)::

    run = QuestionRun(agent, session, "How do I …?", store=store, model="extractive", db="/data/kb")
    async for event in run:
        match event:
            case TextStarted(text) | TextDelta(text): ...
            case StepStarted(call_id, step) | StepFinished(call_id, step): ...
            case Rerouted(line): ...  # asked again: search-first (with a ``fallback``), or the context was full
            case Finished(outcome, error): ...
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from haiku_tui.text import one_line

if TYPE_CHECKING:
    from haiku_tui.agent.fallback import Reroute
    from haiku_tui.capabilities.views import Step

    from .fallback import ContextMemory, Fallback
    from .model import Session
    from .store import SessionStore

Outcome = Literal["completed", "cancelled", "failed"]


@dataclass(frozen=True)
class TextStarted:
    """A new text part of the answer starts (text written before later tool calls is superseded)."""

    text: str


@dataclass(frozen=True)
class TextDelta:
    """More answer text."""

    text: str


@dataclass(frozen=True)
class StepStarted:
    """A tool call started (``call_id`` pairs it with its :class:`StepFinished`)."""

    call_id: str
    step: Step


@dataclass(frozen=True)
class StepFinished:
    """A tool call finished (or the citation policy redirected the run: ``call_id`` is ``""``)."""

    call_id: str
    step: Step
    state: dict[str, Any]
    """The run's working state after the step (draw live panes from it; never change it)."""


@dataclass(frozen=True)
class Rerouted:
    """The question is asked again (``line`` says why and what would help): search-first, because the tools path
    could not ground the answer, or (``search_first`` False) with fewer earlier questions, because the request
    did not fit the model's context. Later text supersedes any shown before."""

    line: str
    search_first: bool = True


@dataclass(frozen=True)
class _ContextFull:
    """The request did not fit the model's context (``tokens``: its size, 0 when the server did not say)."""

    tokens: int


@dataclass(frozen=True)
class Finished:
    """The run ended; only ``"completed"`` was committed (and saved when the run has a store)."""

    outcome: Outcome
    error: str | None = None
    result: Any = None


RunEvent = TextStarted | TextDelta | StepStarted | StepFinished | Rerouted | Finished

HOST_SEARCH_CALL = "haiku-tui-search"
"""The ``call_id`` of the row of haiku-tui's own search (search-first): no model called it."""
CONTEXT_SHARE = 2
"""With the model's context size known, a question whose previous request (prompt and answer) filled more than
1/CONTEXT_SHARE of it steps its window first: the rest is for the previous answer, the new question's evidence and
its answer, and a shorter prompt is read faster (on a CPU, ~80 tokens/s at 6k tokens of context, ~150 at 2.5k)."""


class QuestionRun:
    """Ask ``prompt`` in ``session``: iterate it once for its events; :meth:`cancel` stops it (nothing saved)."""

    def __init__(
        self,
        agent: Any,
        session: Session,
        prompt: str,
        *,
        store: SessionStore | None = None,
        model: str | None = None,
        db: str | None = None,
        window: int | None = None,
        retained: int | None = None,
        fallback: Fallback | None = None,
        search_first: bool = False,
        context: ContextMemory | None = None,
    ) -> None:
        """``store``: where the committed session is saved (None: kept in memory). ``model`` / ``db`` are
        recorded on the session when it completes (a session keeps the first knowledge base it used).
        ``window``: earlier questions the model is given (0: all; None: ``HISTORY_WINDOW``), see
        :meth:`Session.window`; ``retained``: characters of earlier cited text sent in full (0: all; None:
        ``RETAINED_CHARS``). ``fallback``: how to ask again search-first when the tools path cannot ground the
        answer (a refusal, a tool call written as text, an answer that never searched; :class:`Rerouted` says so);
        ``search_first``: the agent already answers search-first (said in errors); ``context``: the model's context
        size, learned when a request does not fit and then planned for (:data:`CONTEXT_SHARE`)."""
        from haiku_tui.agent.config import HISTORY_WINDOW, RETAINED_CHARS

        self.agent = agent
        self.session = session
        self.prompt = prompt
        self.store = store
        self.model = model
        self.db = db
        self.retained = RETAINED_CHARS if retained is None else retained
        self.conversation, self.offset = session.window(HISTORY_WINDOW if window is None else window, self.retained)
        self.context = context
        self._fit_context()
        self.deps = session.deps(self.offset, self.retained)
        self.fallback = fallback
        self.search_first = search_first
        self.rerouted: Reroute | None = None
        """Why the question was asked again search-first (None: it was not)."""
        self.asked_again: list[str] = []
        """The lines that said why the question was asked again, kept on its record when it commits."""
        self.question = session.message_count
        """The question's identity: messages in the history when it was asked."""
        self._events: Any = None
        self._cancelled = False

    def cancel(self) -> None:
        """Stop the run; it ends with ``Finished("cancelled")`` and commits nothing."""
        self._cancelled = True
        if self._events is not None:
            self._events.cancel()

    async def __aiter__(self) -> AsyncIterator[RunEvent]:
        from haiku_tui.agent import describe_error, secrets_in_use
        from haiku_tui.agent.fallback import Reroute
        from haiku_tui.sessions.scrub import register_secrets

        register_secrets(*secrets_in_use())  # what this run sends is never saved
        agent, fallback = self.agent, self.fallback
        while True:
            again: Reroute | _ContextFull | None = None
            async for event in self._attempt(agent, fallback):
                if isinstance(event, (Reroute, _ContextFull)):
                    again = event
                else:
                    yield event
            if again is None:
                return
            if isinstance(again, _ContextFull):
                if self.context is not None and again.tokens:
                    self.context.learn(again.tokens)
                line = self._shorten(again.tokens)
                if line is None:
                    yield Finished("failed", _context_error(again.tokens, bool(self.conversation.messages)))
                    return
                self.asked_again.append(line)
                yield Rerouted(line, search_first=False)
            else:
                assert fallback is not None
                self.rerouted = again
                self.asked_again.append(fallback.learn(again))
                yield Rerouted(self.asked_again[-1])
            if self._cancelled:
                yield Finished("cancelled")
                return
            if isinstance(again, Reroute):
                try:
                    agent, fallback = fallback.agent(), None
                except Exception as exc:  # the model cannot be built search-first: one line, nothing committed
                    yield Finished("failed", describe_error(exc))
                    return
            self.deps = self.session.deps(self.offset, self.retained)  # nothing of the attempt before is kept

    def _fit_context(self) -> None:
        """Step the window before the question is sent when the previous request filled more than
        1/:data:`CONTEXT_SHARE` of the model's known context, as its server counted it (nothing when either is not
        known): the step holds for the questions after it, as a step of the window does."""
        from pydantic_ai.messages import ModelResponse

        from haiku_tui.capabilities.wire import response_tokens

        size = self.context.tokens if self.context is not None else 0
        last = next((m for m in reversed(self.conversation.messages) if isinstance(m, ModelResponse)), None)
        if not size or last is None:
            return
        used = response_tokens(last)
        if not used.estimated and used.input + used.output > size // CONTEXT_SHARE:
            self._shorten(size)

    def _shorten(self, tokens: int) -> str | None:
        """Hand the model about a quarter of the earlier questions it was sent (the window steps, so the questions that
        follow start there too); the line saying so, or None when no earlier question was sent."""
        from haiku_tui.capabilities.wire import question_starts

        sent = len(question_starts(self.conversation.messages))
        if sent < 2:
            return None
        # a window short of what was sent makes the plan step: it keeps half that window (see plan_start)
        self.conversation, self.offset = self.session.window(sent - 1, self.retained)
        kept = len(question_starts(self.conversation.messages))
        size = f" ({tokens:,} tokens)" if tokens else ""
        return (
            f"the model's context{size} is full: asked again with the last {kept} of the {sent} earlier questions; "
            f"for more, give the server a larger context (llama.cpp --ctx-size, Ollama num_ctx)"
        )

    async def _attempt(self, agent: Any, fallback: Fallback | None) -> AsyncIterator[Any]:
        """One attempt at the question: its events, ending with :class:`Finished`, or a ``Reroute`` (last,
        nothing committed) when ``fallback`` is given and the tools path cannot ground the answer."""
        from pydantic_ai import AgentRunResultEvent, RunCancelled
        from pydantic_ai.messages import (
            EnqueuedMessagesEvent,
            FunctionToolCallEvent,
            FunctionToolResultEvent,
            PartDeltaEvent,
            PartEndEvent,
            PartStartEvent,
            TextPart,
            TextPartDelta,
        )

        from haiku_tui.agent import describe_error, run_limits
        from haiku_tui.agent.errors import context_overflow, tool_misuse
        from haiku_tui.agent.runaway import LoopWatch, loop_error
        from haiku_tui.agent.fallback import (
            NO_SEARCH_FIX,
            TEXT_CALL_FIX,
            Reroute,
            answered_without_searching,
            asks_the_documents,
            searched,
            tool_refusal,
        )
        from haiku_tui.capabilities.views import (
            REDIRECT_STEP,
            Step,
            call_step,
            host_search_step,
            is_redirect,
            result_step,
        )

        from .fallback import TextGate

        calls: dict[str, Any] = {}
        finished: set[str] = set()
        result = None
        streamed = 0  # characters of answer text the response being streamed has shown
        answered = False  # some answer text was shown: the attempt cannot be made again unseen
        asking = fallback is not None and asks_the_documents(self.prompt)  # else small talk: no search expected
        gate = TextGate(until_searched=asking)
        watch = LoopWatch()  # the text part being streamed, read for a loop
        host_pending = True  # haiku-tui's own search (search-first) is shown once its request was made
        conversation = self.conversation
        try:
            async with agent.run_stream_events(
                self.prompt, deps=self.deps, conversation=conversation, usage_limits=run_limits(conversation)
            ) as events:
                self._events = events
                if self._cancelled:
                    events.cancel()
                async for event in events:
                    shown: list[Any] = []
                    if host_pending and isinstance(event, PartStartEvent):  # the first request was made by now
                        host_pending = False
                        if (step := host_search_step(self.deps.state, self.question, self.prompt)) is not None:
                            shown = [StepStarted(HOST_SEARCH_CALL, step)]
                            shown.append(StepFinished(HOST_SEARCH_CALL, step, self.deps.state))
                    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                        watch = LoopWatch()
                        watch.add(event.part.content)
                        shown += gate.start(TextStarted(event.part.content), event.part.content)
                    elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                        watch.add(event.delta.content_delta)
                        shown += gate.delta(TextDelta(event.delta.content_delta), event.delta.content_delta)
                    elif isinstance(event, PartEndEvent) and isinstance(event.part, TextPart):
                        shown += gate.end()
                    elif isinstance(event, FunctionToolCallEvent):
                        calls[event.part.tool_call_id] = event.part
                        shown += gate.step()
                        shown.append(StepStarted(event.part.tool_call_id, call_step(event.part, self.prompt)))
                    elif isinstance(event, FunctionToolResultEvent):
                        call = calls.get(event.tool_call_id)
                        if call is not None:
                            finished.add(event.tool_call_id)
                            shown += [StepFinished(
                                event.tool_call_id,
                                result_step(call, event.part, self.deps.state, self.prompt),
                                self.deps.state,
                            )]
                            if gate.until_searched and searched(self.deps.state, self.question):
                                shown += gate.searched()
                    elif isinstance(event, EnqueuedMessagesEvent) and _redirects(event, is_redirect):
                        shown += [*gate.step(), StepFinished("", REDIRECT_STEP, self.deps.state)]
                    elif isinstance(event, AgentRunResultEvent):
                        result = event.result
                        gate.end()
                    if gate.call is not None or watch.unit is not None:
                        break  # a tool call written as text (never shown) or a loop: the run goes no further
                    for out in shown:
                        if isinstance(out, (StepStarted, Finished)) or getattr(out, "call_id", None) == "":
                            streamed = 0
                        elif isinstance(out, (TextStarted, TextDelta)):
                            streamed += len(out.text)
                            answered = answered or bool(out.text)
                        yield out
        except RunCancelled:
            yield Finished("cancelled")
            return
        except Exception as exc:  # one line for the user; nothing is committed
            refusal = tool_refusal(exc) if fallback is not None and not self._cancelled else None
            if refusal is not None:
                yield refusal
                return
            if not answered and not self._cancelled and (tokens := context_overflow(exc)) is not None:
                yield _ContextFull(tokens)
                return
            if (misuse := tool_misuse(exc)) is not None:  # the call that used up the retries failed too
                for call_id, call in calls.items():
                    if call_id not in finished and call.tool_name == misuse[0]:
                        yield StepFinished(
                            call_id, Step("notice", f"{misuse[0]} failed: {misuse[1]}", failed=True), self.deps.state
                        )
            yield Finished(
                "cancelled" if self._cancelled else "failed", None if self._cancelled else describe_error(exc, streamed)
            )
            return
        finally:
            self._events = None
        if watch.unit is not None:
            yield Finished("failed", loop_error(watch.unit))
            return
        if gate.call is not None:
            if fallback is not None:
                yield Reroute("text-call", TEXT_CALL_FIX)
            else:
                searching = self.search_first or self.rerouted is not None
                yield Finished("failed", _text_call_error(gate.call, searching=searching))
            return
        if result is None:
            yield Finished("failed", "the run ended without a result")
            return
        unsearched = asking and answered_without_searching(self.deps.state, self.question)
        if unsearched and fallback is not None and fallback.searchable():
            gate.drop()
            yield Reroute("no-search", NO_SEARCH_FIX)
            return
        if fallback is not None and searched(self.deps.state, self.question):
            fallback.searched()
        for out in gate.searched():  # held text of an answer that needed no search (small talk, earlier evidence)
            yield out
        error = await self._commit(result)
        yield Finished("failed", error) if error else Finished("completed", result=result)

    async def _commit(self, result: Any) -> str | None:
        """Commit and save a completed run; the error line when that failed (the session is then unchanged)."""
        from haiku_tui.capabilities import ledger

        session = self.session
        if self.asked_again:
            ledger.note_asked_again(self.deps.state, self.question, self.asked_again)
        try:
            with session.undone_on_error():
                session.commit_run(result, self.deps.state, self.offset)
                if self.model and session.model != self.model:
                    session.model = self.model
                if self.db and session.db is None:
                    session.db = self.db
                if self.store is not None:
                    await asyncio.to_thread(self.store.save, session)  # big sessions take a while
        except Exception as exc:  # stale, corrupt, not JSON or a full disk
            return f"could not save the session: {one_line(str(exc), 200)}"
        return None


def _context_error(tokens: int, earlier: bool) -> str:
    """The line for a request that does not fit the model's context and cannot be cut (``earlier``: it holds
    one earlier question)."""
    size = f" ({tokens:,} tokens)" if tokens else ""
    what = "the question, its evidence and the question before" if earlier else "the question and its evidence"
    return (
        f"{what} do not fit the model's context{size}; nothing was saved; give the server a larger context "
        f"(llama.cpp --ctx-size, Ollama num_ctx){', or ask in a new session' if earlier else ''}"
    )


def _text_call_error(shape: str, *, searching: bool) -> str:
    """The line for a tool call written as text when the question cannot be asked again."""
    if searching:  # the search-first attempt itself
        return "the model wrote a tool call as text, not an answer; nothing was saved; try again, or another model"
    return (
        f"the model wrote its tool call as text ({shape}) instead of calling the tool; nothing was saved; "
        "ask search-first (--search-first), or use a server that parses its tool calls"
    )


def _redirects(event: Any, is_redirect: Any) -> bool:
    parts = list(getattr(event, "parts", ()) or ())
    for message in getattr(event, "messages", ()) or ():
        parts.extend(getattr(message, "parts", ()))
    return any(is_redirect(p) for p in parts)
