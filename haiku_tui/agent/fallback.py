"""When a model cannot be grounded with tools: what went wrong, what would fix it, and how to say so.

Pure functions over what a run produced (an exception, the text of an answer part, the evidence state).
Three cases send a question again search-first (the host searches and puts the numbered passages in the
request, :attr:`haiku_tui.agent.config.AgentConfig.search_first`):

- the server refuses a request that offers tools (:func:`tool_refusal`: Ollama's "does not support tools",
  llama.cpp's "tools param requires --jinja flag" and older "Unsupported param: tools", vLLM's
  "auto" tool choice without ``--enable-auto-tool-choice``);
- the model writes its tool call as text (:func:`text_tool_call`: ``<tool_call>…</tool_call>``, a bare
  ``{"name": …, "arguments": …}``, ``[TOOL_CALLS]``, or an imitated tool result after loading the capability);
- the model answers a question (not small talk, :func:`asks_the_documents`) about a knowledge base that holds
  documents without searching it (:func:`answered_without_searching`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Reason = Literal["refused", "text-call", "no-search"]

REASONS: dict[str, str] = {
    "refused": "the server refuses tools",
    "text-call": "the model writes tool calls as text",
    "no-search": "the model answers without searching",
}
"""How each reason is said (in the line, ``haiku-tui info`` and the status bar)."""

TEXT_CALL_FIX = "a server that parses the model's tool calls (llama.cpp: --jinja; vLLM: --tool-call-parser)"
NO_SEARCH_FIX = "a model that calls tools (usually a larger one)"


@dataclass(frozen=True)
class Reroute:
    """Why a question was asked again search-first, and what would let this model use tools."""

    reason: Reason
    fix: str = ""
    """What would enable tools (one phrase, e.g. ``start llama.cpp's server with --jinja``); empty: not known."""

    @property
    def said(self) -> str:
        return REASONS[self.reason]

    def line(self, *, remembered: bool) -> str:
        """The one line a host shows: what happened, that it was asked again, what would enable tools."""
        kept = " (remembered for this model and server)" if remembered else ""
        fix = f"; for tools, {self.fix}" if self.fix else ""
        return f"{self.said}: asked again search-first{kept}{fix}"


# ---- 1. a server that refuses tools ---------------------------------------------------------------------

_REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"does not support tools", re.I), "pull an Ollama model with tool support, ollama.com/search?c=tools"),
    (re.compile(r"tools param requires --jinja", re.I), "start llama.cpp's server with --jinja"),
    (re.compile(r"Unsupported param: tools", re.I), "update llama.cpp and start its server with --jinja"),
    (
        re.compile(r"tool choice requires --enable-auto-tool-choice", re.I),
        "start vLLM with --enable-auto-tool-choice --tool-call-parser NAME (hermes for Qwen)",
    ),
    (re.compile(r"\btools?\b[^.]{0,40}\b(not supported|unsupported)|does not support (tool|function)", re.I), ""),
)


def tool_refusal(exc: BaseException) -> Reroute | None:
    """The reroute when ``exc`` is a server refusing a request because it offered tools, else None."""
    from pydantic_ai.exceptions import ModelHTTPError

    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return tool_refusal(exc.exceptions[-1])
    link: BaseException | None = exc
    for _ in range(4):  # the refusal may be wrapped (a fallback model, a retry)
        if link is None:
            return None
        if isinstance(link, ModelHTTPError) and link.status_code in (400, 422, 500, 501):
            text = f"{_message(link.body)} {link.message}"
            for pattern, fix in _REFUSALS:
                if pattern.search(text):
                    return Reroute("refused", fix)
            return None
        link = link.__cause__ or link.__context__
    return None


def _message(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return str(error.get("message", ""))
        return str(error) if isinstance(error, str) else str(body.get("message", ""))
    return str(body or "")


# ---- 2. a tool call written as text ---------------------------------------------------------------------

_TAGS = ("<tool_call>", "<tool_response>", "[TOOL_CALLS]", "<tools>", "<function=", "<function_call>")
"""Qwen/Hermes, an imitated result, Mistral, the 1.5B's ``<tools><rag_search query=…/></tools>``, Llama 3.1."""
_IMITATIONS = ("the following tool(s) are now available", "the following tools are now available")
"""How a model that loaded the capability but does not call tools announces them (lower case)."""
_FENCE = re.compile(r"^```[a-z]*[ \t]*\n", re.I)

TextCall = str
"""What a part's text so far is: ``"no"`` (an answer), ``"maybe"`` (hold it back), or the tool call's shape."""


def text_tool_call(text: str, *, ended: bool = False) -> TextCall:
    """Whether an answer part that starts with ``text`` is a tool call written as text.

    ``"maybe"`` while ``text`` could still become one (a host holds it back); ``"no"`` once it cannot; else
    the call's shape: ``"<tool_call>"``, ``"<tool_response>"``, ``"[TOOL_CALLS]"``, ``"json"`` (a bare
    ``{"name": …, "arguments": …}``, decided when the part has ``ended``) or ``"tools available"``.
    """
    start = text.lstrip()
    if start and (start.startswith("```") or "```".startswith(start)):
        fence = _FENCE.match(start)
        if fence is None:
            return "maybe" if not ended and "\n" not in start and len(start) <= 12 else "no"
        start = start[fence.end():].lstrip()
    if not start:
        return "no" if ended else "maybe"
    lower = start.lower()
    for tag in _TAGS:
        if lower.startswith(tag.lower()):
            return tag
        if not ended and tag.lower().startswith(lower):
            return "maybe"
    for phrase in _IMITATIONS:
        if lower.startswith(phrase):
            return "tools available"
        if not ended and phrase.startswith(lower):
            return "maybe"
    if start[0] == "{" or re.match(r"\[\s*\{", start):
        try:
            value, end = json.JSONDecoder().raw_decode(start)
        except ValueError:  # not complete yet (or not JSON)
            return "no" if ended else "maybe"
        if not _is_call(value):
            return "no"
        rest = re.sub(r"^\s*`{0,3}\s*", "", start[end:])  # a closing fence, whole or coming
        return text_tool_call(rest, ended=ended) if rest[:1] in ("{", "[") else ("no" if rest else "json")
    return "no"


def _is_call(value: Any) -> bool:
    """A JSON object (or list of them) naming a function and its arguments."""
    calls = value if isinstance(value, list) else [value]
    return bool(calls) and all(
        isinstance(c, dict) and isinstance(c.get("name"), str) and ("arguments" in c or "parameters" in c)
        for c in calls
    )


# ---- 3. an answer that never searched -------------------------------------------------------------------


def searched(state: dict[str, Any], question: int) -> bool:
    """True when ``question`` ran a search in some evidence capability (its record lists one)."""
    from haiku_tui.capabilities.ledger import evidence_namespaces, find_question

    for namespace in evidence_namespaces(state).values():
        record = find_question(namespace, question)
        if record is not None and record.get("searches"):
            return True
    return False


_SMALL_TALK = re.compile(
    r"^\W*(hi|hello|hey|thanks|thank you|thx|ok|okay|great|cool|nice|perfect|bye|goodbye|cheers|good (morning|"
    r"afternoon|evening|night))\b",
    re.I,
)


def asks_the_documents(prompt: str) -> bool:
    """False for small talk (a greeting, thanks, a short remark without a question mark): a model answers it
    without searching, as the preamble asks, and is not asked again for that."""
    text = prompt.strip()
    if "?" in text:
        return True
    return not _SMALL_TALK.match(text) and len(text.split()) >= 3


def answered_without_searching(state: dict[str, Any], question: int) -> bool:
    """True when ``question`` was answered with no search and no citation of earlier evidence."""
    from haiku_tui.capabilities.ledger import citation_status

    return not searched(state, question) and citation_status(state, question) != "grounded"
