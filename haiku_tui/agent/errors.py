"""One clear line for whatever ended a run: the CLI prints it, the TUI shows it."""

from __future__ import annotations

import re

from haiku_tui.text import one_line

MAX_CHARS = 300


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


def describe_error(exc: BaseException) -> str:  # noqa: C901 - a flat table of cases
    """A one-line, user-facing description of an exception that ended a run, naming the fix."""
    from pydantic_ai import exceptions as ex

    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return describe_error(exc.exceptions[-1])

    from haiku_tui.agent.models import ModelConfigError

    if isinstance(exc, ModelConfigError):
        return one_line(str(exc), MAX_CHARS)

    if isinstance(exc, ex.RunCancelled) and not isinstance(exc, ex.RunTimedOut):
        return "the run was cancelled; nothing was saved"

    if isinstance(exc, ex.ModelAPIError):
        where = _where(exc)
        status = getattr(exc, "status_code", None)
        detail = _body_message(getattr(exc, "body", None))
        detail_text = f": {one_line(detail, 160)}" if detail else ""
        if isinstance(exc, ex.ModelAuthenticationError) or status in (401, 403):
            return (
                f"the model provider rejected the credentials{where} (HTTP {status or 401}){detail_text}; "
                "check the API key (e.g. OPENAI_API_KEY / ANTHROPIC_API_KEY) and its access to this model"
            )
        if isinstance(exc, ex.ModelQuotaExceededError) or status == 402:
            return f"the account's quota or credits are exhausted{where}{detail_text}; top up or switch model"
        if isinstance(exc, ex.ModelRateLimitError) or status == 429:
            after = getattr(exc, "retry_after", None)
            wait = f" (retry after {after:g} s)" if after else ""
            return f"rate limited by the model provider{where} (HTTP 429){wait}; wait a moment and try again"
        if isinstance(exc, ex.ModelNotFoundError) or status == 404:
            return (
                f"model not found{where} (HTTP 404){detail_text}; check the model name, or the --base-url "
                "(it usually ends in /v1)"
            )
        if isinstance(exc, ex.ModelContextWindowExceededError):
            return f"the conversation is too long for the model's context window{where}; start a new session"
        if isinstance(exc, ex.ModelRequestTimeout) or isinstance(exc, ex.ModelTimeoutError):
            return f"the model did not answer in time{where}; try again, or check the server"
        if isinstance(exc, ex.ModelConnectionError):
            return f"could not reach the model{where}: {_connection_reason(exc)}; is the server running and the URL right?"
        if isinstance(exc, (ex.ModelUnavailableError, ex.ModelServerError)) or (status and status >= 500):
            return f"the model provider failed{where} (HTTP {status or 'error'}){detail_text}; try again later"
        if status:
            return f"the model provider refused the request{where} (HTTP {status}){detail_text}"
        return f"model request failed{where}: {one_line(exc.message if hasattr(exc, 'message') else str(exc), 200)}"

    if isinstance(exc, ex.ContentFilterError):
        return f"the model provider's content filter blocked the answer: {one_line(str(exc), 200)}"
    if isinstance(exc, ex.UnexpectedModelBehavior):
        return (
            f"the model misbehaved ({one_line(getattr(exc, 'message', str(exc)), 200)}); try again, "
            "or use a more capable model"
        )
    if isinstance(exc, ex.UsageLimitExceeded):
        return f"stopped: {one_line(str(exc), 200)}"
    if isinstance(exc, ex.RunTimedOut):
        return "the run timed out; nothing was saved"
    if isinstance(exc, ex.UserError):
        return f"configuration error: {one_line(str(exc), 250)}"

    try:
        from haiku_tui.capabilities.errors import CapabilityError
    except ImportError:  # pragma: no cover
        CapabilityError = ()  # type: ignore[assignment,misc]  # noqa: N806
    if isinstance(exc, CapabilityError):
        return one_line(str(exc), MAX_CHARS)
    from haiku_tui.store.errors import StoreError, damaged

    exc = damaged(exc) or exc  # a missing LanceDB data file: point to `haiku-tui doctor`
    if isinstance(exc, StoreError):
        return one_line(str(exc), MAX_CHARS)

    # Transport errors that escaped the provider SDK unwrapped.
    for link in _cause_chain(exc):
        name = type(link).__name__
        if isinstance(link, ConnectionRefusedError) or name in {"ConnectError", "APIConnectionError"}:
            return f"could not reach the model: {_connection_reason(link)}; is the server running and the URL right?"
        if isinstance(link, TimeoutError) or name in {"TimeoutException", "ReadTimeout", "ConnectTimeout", "APITimeoutError"}:
            return "the model did not answer in time; try again, or check the server"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; nothing was saved"
    text = one_line(str(exc), 250)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _connection_reason(exc: BaseException) -> str:
    for link in _cause_chain(exc):
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        text = str(link)
        if re.search(r"refused|Errno 111|ECONNREFUSED", text, re.I):
            return "connection refused"
        if re.search(r"Name or service not known|nodename nor servname|getaddrinfo", text, re.I):
            return "host not found"
    first = one_line(getattr(exc, "message", None) or str(exc), 120)
    return first or "connection failed"
