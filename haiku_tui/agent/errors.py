"""One clear line for whatever ended a run: the CLI prints it, the TUI shows it.

Every line is sanitised (a server's error body cannot send escape codes to the terminal) and has
the key values in use redacted (a server that echoes the Authorization header cannot put the key
on screen): :func:`build_agent` registers the settings it used with :func:`use_settings`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from haiku_tui.text import one_line, terminal_safe

if TYPE_CHECKING:
    from haiku_tui.agent.models import ModelChoice

MAX_CHARS = 300
REDACTED = "[redacted]"

_in_use: dict[str, object] = {"secrets": set(), "key_source": None, "base_url": None, "timeout": None}


def use_settings(choice: ModelChoice) -> None:
    """Remember the settings a built agent uses: its key values (redacted from every message from
    now on) and where its key came from (named in the credentials advice)."""
    secrets = _in_use["secrets"]
    assert isinstance(secrets, set)
    secrets.update(s for s in choice.secrets if len(s) >= 4)
    _in_use["key_source"] = choice.key_source
    _in_use["base_url"] = choice.base_url
    _in_use["timeout"] = choice.timeout


def secrets_in_use() -> list[str]:
    """The key values sent to model providers in this process (for scrubbing what we sent)."""
    return sorted(_in_use["secrets"], key=len, reverse=True)  # type: ignore[arg-type]


def redact(text: str) -> str:
    """``text`` with every key value in use replaced by ``[redacted]``."""
    for secret in secrets_in_use():
        text = text.replace(secret, REDACTED)
    return text


def safe_line(text: object, limit: int | None = None) -> str:
    """Untrusted text (an error body, an exception) sanitised and redacted, on one line cut to ``limit``.

    Redacted before and after sanitising, so a key split by control characters is caught too.
    """
    return one_line(redact(terminal_safe(redact(str(text)))), limit)


def _timeout_advice(where: str) -> str:
    seconds = _in_use["timeout"]
    within = f" within {seconds:g} s" if isinstance(seconds, float) else " in time"
    return (
        f"the model did not answer{within}{where}; check the server, or allow longer "
        "with --timeout SECONDS or HAIKU_TUI_TIMEOUT"
    )


def _not_found_advice(exc: BaseException) -> str:
    """What to check when the model is not found; a hosted provider's name sent to a server says so."""
    from haiku_tui.agent.models import OPENAI_COMPATIBLE_PREFIXES, PROVIDER_KEY_ENV

    prefix = str(getattr(exc, "model_name", "") or "").partition(":")[0].strip().lower()
    if _in_use["base_url"] and prefix in PROVIDER_KEY_ENV and prefix not in OPENAI_COMPATIBLE_PREFIXES:
        return f"the server at --base-url does not serve it; to use {prefix}'s own API, drop --base-url"
    return "check the model name, or the --base-url (it usually ends in /v1)"


def _key_advice() -> str:
    source, base_url = _in_use["key_source"], _in_use["base_url"]
    if source:
        return f"check the API key ({source}) and its access to this model"
    if base_url:
        return "no API key was sent to the server: set HAIKU_TUI_API_KEY"
    return "check the provider's API key (e.g. OPENAI_API_KEY / ANTHROPIC_API_KEY) and its access to this model"


def _cause_chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 8:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _body_message(body: object) -> str | None:
    """The provider's own error message from a JSON error body, if it has one."""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
        if isinstance(body.get("message"), str):
            return body["message"]
    if isinstance(body, str) and body.strip():
        return body
    return None


def _where(exc: BaseException) -> str:
    model = getattr(exc, "model_name", None)
    return f" ({model})" if model else ""


def describe_error(exc: BaseException, streamed: int = 0) -> str:
    """A one-line, user-facing description of an exception that ended a run, naming the fix.

    ``streamed``: characters of answer text the failing response had sent; a response whose
    stream broke off (a dropped connection, a body cut short, no ``finish_reason``) is said to be
    cut off, not unreachable. Sanitised for the terminal, with the key values in use redacted.
    """
    if cut_off(exc):
        if streamed:
            return f"the model's answer was cut off after {streamed} characters; nothing was saved"
        return "the model's reply was cut off before it finished; nothing was saved; try again"
    return safe_line(_describe(exc), MAX_CHARS)


_CUT_MARKERS = re.compile(r"incomplete chunked read|peer closed connection|without a `?finish_reason|"
                          r"RemoteProtocolError|IncompleteRead", re.I)


def cut_off(exc: BaseException) -> bool:
    """True when the model's response started and then broke off (the request itself got through)."""
    from pydantic_ai import exceptions as ex

    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return cut_off(exc.exceptions[-1])
    if isinstance(exc, (ex.ModelRequestTimeout, ex.ModelTimeoutError)):
        return False
    chain = _cause_chain(exc)
    if any(type(link).__name__ in {"RemoteProtocolError", "IncompleteRead"} for link in chain):
        return True
    return isinstance(exc, ex.ModelConnectionError) and bool(_CUT_MARKERS.search(str(exc)))


def _describe(exc: BaseException) -> str:  # a flat table of cases
    from pydantic_ai import exceptions as ex

    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[-1])

    from haiku_tui.agent.models import ModelConfigError

    if isinstance(exc, ModelConfigError):
        return safe_line(str(exc), MAX_CHARS)

    if isinstance(exc, ex.RunCancelled) and not isinstance(exc, ex.RunTimedOut):
        return "the run was cancelled; nothing was saved"

    if isinstance(exc, ex.ModelAPIError):
        where = _where(exc)
        status = getattr(exc, "status_code", None)
        detail = _body_message(getattr(exc, "body", None))
        detail_text = f": {safe_line(detail, 160)}" if detail else ""
        if isinstance(exc, ex.ModelAuthenticationError) or status in (401, 403):
            return (
                f"the model provider rejected the credentials{where} (HTTP {status or 401}){detail_text}; "
                + _key_advice()
            )
        if isinstance(exc, ex.ModelQuotaExceededError) or status == 402:
            return f"the account's quota or credits are exhausted{where}{detail_text}; top up or switch model"
        if isinstance(exc, ex.ModelRateLimitError) or status == 429:
            after = getattr(exc, "retry_after", None)
            wait = f" (retry after {after:g} s)" if after else ""
            return f"rate limited by the model provider{where} (HTTP 429){wait}; wait a moment and try again"
        if isinstance(exc, ex.ModelNotFoundError) or status == 404:
            return f"model not found{where} (HTTP 404){detail_text}; {_not_found_advice(exc)}"
        if isinstance(exc, ex.ModelContextWindowExceededError):
            return f"the conversation is too long for the model's context window{where}; start a new session"
        if isinstance(exc, (ex.ModelRequestTimeout, ex.ModelTimeoutError)):
            return _timeout_advice(where)
        if isinstance(exc, ex.ModelConnectionError):
            return (
                f"could not reach the model{where}: {_connection_reason(exc)}; is the server running and the URL right?"
            )
        if isinstance(exc, (ex.ModelUnavailableError, ex.ModelServerError)) or (status and status >= 500):
            return f"the model provider failed{where} (HTTP {status or 'error'}){detail_text}; try again later"
        if status:
            return f"the model provider refused the request{where} (HTTP {status}){detail_text}"
        return f"model request failed{where}: {safe_line(exc.message if hasattr(exc, 'message') else str(exc), 200)}"

    if isinstance(exc, ex.ContentFilterError):
        return f"the model provider's content filter blocked the answer: {safe_line(str(exc), 200)}"
    if isinstance(exc, ex.UnexpectedModelBehavior) and (misuse := _tool_misuse(exc)):
        return misuse
    if isinstance(exc, ex.UnexpectedModelBehavior):
        return (
            f"the model misbehaved ({safe_line(getattr(exc, 'message', str(exc)), 200)}); try again, "
            "or use a more capable model"
        )
    if isinstance(exc, ex.UsageLimitExceeded):
        return f"stopped: {safe_line(str(exc), 200)}"
    if isinstance(exc, ex.RunTimedOut):
        return "the run timed out; nothing was saved"
    if isinstance(exc, ex.UserError):
        return f"configuration error: {safe_line(str(exc), 250)}"

    try:
        from haiku_tui.capabilities.errors import CapabilityError
    except ImportError:  # pragma: no cover
        CapabilityError = ()  # type: ignore[assignment,misc]
    if isinstance(exc, CapabilityError):
        return safe_line(str(exc), MAX_CHARS)
    from haiku_tui.store.errors import StoreError, damaged, unwritable

    exc = damaged(exc) or unwritable(exc) or exc  # a missing LanceDB data file, a full or read-only disk
    if isinstance(exc, StoreError):
        return safe_line(str(exc), MAX_CHARS)

    # Transport errors that escaped the provider SDK unwrapped.
    for link in _cause_chain(exc):
        name = type(link).__name__
        if isinstance(link, ConnectionRefusedError) or name in {"ConnectError", "APIConnectionError"}:
            return f"could not reach the model: {_connection_reason(link)}; is the server running and the URL right?"
        if isinstance(link, TimeoutError) or name in {
            "TimeoutException",
            "ReadTimeout",
            "ConnectTimeout",
            "APITimeoutError",
        }:
            return _timeout_advice("")
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; nothing was saved"
    text = safe_line(str(exc), 250)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_OVERFLOW = re.compile(
    r"exceeds? the available context size|maximum context length|context[_ ]length[_ ]exceeded|"
    r"prompt is too long|input is too long for|exceeds the context window|context window (?:is )?full",
    re.I,
)
_CONTEXT_SIZE = re.compile(
    r"(?:context size|context length is|context window of)\D{0,12}([\d,]{3,9})\b|([\d,]{3,9}) maximum\b", re.I
)


def context_overflow(exc: BaseException) -> int | None:
    """The model's context in tokens when ``exc`` is a server refusing a request too long for it (0: the size
    was not said), else None: llama.cpp ("exceeds the available context size", with ``n_ctx``), vLLM and
    OpenAI ("maximum context length is N"), Anthropic ("prompt is too long")."""
    from pydantic_ai.exceptions import ModelHTTPError

    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return context_overflow(exc.exceptions[-1])
    for link in _cause_chain(exc):
        if isinstance(link, ModelHTTPError) and link.status_code in (400, 413, 422):
            text = f"{_body_message(link.body) or ''} {link.message}"
            if not _OVERFLOW.search(text):
                return None
            error = link.body.get("error", link.body) if isinstance(link.body, dict) else None
            if isinstance(error, dict) and isinstance(error.get("n_ctx"), int):
                return error["n_ctx"]
            found = _CONTEXT_SIZE.search(text)
            return int((found.group(1) or found.group(2)).replace(",", "")) if found else 0
    return None


def tool_misuse(exc: BaseException) -> tuple[str, str] | None:
    """(tool, what was wrong) when a run ended because the model kept calling a tool wrongly.

    What was wrong is plain words for a tool row: ``"no such tool"``, ``"arguments that are not
    valid JSON"``, ``"arguments it does not accept (query: Field required)"`` or the tool's own
    retry message. Untrusted parts are sanitised.
    """
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return tool_misuse(exc.exceptions[-1])
    found = re.match(r"Tool '(.{1,200}?)' exceeded max retries", str(getattr(exc, "message", exc)), re.DOTALL)
    if not found:
        return None
    tool = safe_line(found.group(1), 60)
    for link in _cause_chain(exc)[1:]:
        if type(link).__name__ == "_UnknownTool" or str(link).startswith("Unknown tool name"):
            return tool, "no such tool"
        errors = link.errors() if type(link).__name__ == "ValidationError" else None  # type: ignore[attr-defined]
        if errors:
            from haiku_tui.capabilities.views import retry_reason

            return tool, safe_line(retry_reason(errors), 160)
        if type(link).__name__ in {"ModelRetry", "ToolRetryError"} and str(link).strip():
            return tool, safe_line(str(link), 120)
    return tool, "it kept failing"


def _tool_misuse(exc: BaseException) -> str | None:
    misuse = tool_misuse(exc)
    if misuse is None:
        return None
    tool, problem = misuse
    advice = "; try another model, or ask again"
    if problem == "no such tool":
        return f"the model called a tool that does not exist ({tool}){advice}"
    if problem.startswith("arguments"):
        return f"the model sent {tool} {problem}{advice}"
    return f"the model kept misusing {tool} ({problem}){advice}"


def _connection_reason(exc: BaseException) -> str:
    for link in _cause_chain(exc):
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        text = str(link)
        if re.search(r"refused|Errno 111|ECONNREFUSED", text, re.I):
            return "connection refused"
        if re.search(r"Name or service not known|nodename nor servname|getaddrinfo", text, re.I):
            return "host not found"
    first = safe_line(getattr(exc, "message", None) or str(exc), 120)
    return first or "connection failed"
