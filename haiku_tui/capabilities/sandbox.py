"""Run untrusted Python in a pydantic-monty sandbox, never in the app's process.

pydantic-monty is a Python interpreter written in Rust. Its pool runs every program in a
worker subprocess: a program has no file system, network, environment or subprocess access,
imports only a small standard library, and runs under time, memory, recursion and host-call
limits enforced inside the worker (a crash takes down the worker, never the host).

The host exposes async functions to the program (``functions``). Every call the program makes
is answered here, one at a time, by driving the worker snapshot by snapshot, so exceptions
raised by a host function reach the program as ordinary Python exceptions.

``run_code`` never raises for anything the program does: it returns an :class:`Execution`
saying what happened. It raises :class:`SandboxUnavailable` only when pydantic-monty is not
installed.
"""

from __future__ import annotations

import asyncio
import atexit
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from haiku_tui.text import one_line

HostFunction = Callable[..., Awaitable[Any]]
FailureKind = Literal[
    "syntax", "error", "timeout", "memory", "output", "recursion", "host_calls", "crashed", "cancelled"
]

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_MEMORY = 256 * 1024 * 1024
DEFAULT_MAX_OUTPUT_CHARS = 20_000
DEFAULT_MAX_RECURSION = 1000
DEFAULT_MAX_HOST_CALLS = 1000
MAX_SESSION_STATE_BYTES = 32 * 1024 * 1024
"""Larger program state is not carried to the next execution (the program still ran)."""

MAX_ERROR_CHARS = 2_000
_HOST_EXCEPTIONS = ("ValueError", "KeyError", "TypeError", "LookupError", "IndexError")


class SandboxUnavailable(RuntimeError):
    """pydantic-monty is not installed."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one execution may use."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds of execution (time spent waiting on host functions is not counted)."""
    max_memory: int = DEFAULT_MAX_MEMORY
    """Bytes of heap."""
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    """Characters of printed output."""
    max_recursion_depth: int = DEFAULT_MAX_RECURSION
    max_host_calls: int = DEFAULT_MAX_HOST_CALLS
    """Calls to host functions (and other suspensions) per execution."""


@dataclass
class Execution:
    """What one program did."""

    stdout: str
    """Everything printed (stdout and stderr, in order), at most ``max_output_chars``."""
    value: str | None = None
    """``repr`` of the program's trailing expression, when it has one that is not None."""
    error: str | None = None
    """The failure as the program would see it (``Type: message``, with a traceback when useful)."""
    kind: FailureKind | None = None
    seconds: float = 0.0
    state: bytes | None = None
    """The program's variables after it ran, to continue from in the next execution."""
    state_dropped: bool = False
    """True when the variables were too large to carry over."""
    host_calls: int = 0

    @property
    def success(self) -> bool:
        return self.error is None


@dataclass
class _Output:
    limit: int
    parts: list[str] = field(default_factory=list)
    size: int = 0
    exceeded: bool = False

    def __call__(self, stream: str, text: str) -> None:
        if self.exceeded:
            raise _OutputLimit
        room = self.limit - self.size
        if len(text) > room:
            self.parts.append(text[:room])
            self.size = self.limit
            self.exceeded = True
            raise _OutputLimit  # aborts the program: no point running on with nowhere to print
        self.parts.append(text)
        self.size += len(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _OutputLimit(Exception):
    pass


def available() -> bool:
    """Whether pydantic-monty is installed."""
    try:
        import pydantic_monty  # noqa: F401
    except ImportError:
        return False
    return True


async def run_code(
    code: str,
    functions: Mapping[str, HostFunction],
    *,
    limits: SandboxLimits = SandboxLimits(),
    state: bytes | None = None,
) -> Execution:
    """Run ``code`` in a fresh sandbox worker, continuing from ``state`` when given.

    ``functions`` are the host functions the program may call (each an async callable); the
    program calls them with ``await``. A function's ``ValueError``/``KeyError``/``TypeError``/
    ``LookupError`` reaches the program as that type, anything else as a ``RuntimeError``.
    """
    try:
        import pydantic_monty as pm
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise SandboxUnavailable(
            "the analysis sandbox needs pydantic-monty: pip install 'haiku-tui[analysis]'"
        ) from error

    output = _Output(limits.max_output_chars)
    started = time.perf_counter()
    result = Execution(stdout="")
    pending: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def answer(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        result.host_calls += 1
        function = functions.get(name)
        if function is None:
            return {"exc_type": "NameError", "message": f"name {name!r} is not defined"}
        try:
            return {"return_value": await function(*args, **kwargs)}
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a host function failed: the program sees an exception
            kind = type(error).__name__
            message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
            return {"exc_type": kind if kind in _HOST_EXCEPTIONS else "RuntimeError", "message": str(message)}

    pool = pm.AsyncMonty(min_processes=1, max_processes=1, request_timeout=limits.timeout + 5.0)
    try:
        async with pool:
            session = pool.checkout(
                script_name="analysis.py",
                limits={
                    "max_feed_duration_secs": limits.timeout,
                    "max_memory": limits.max_memory,
                    "max_recursion_depth": limits.max_recursion_depth,
                    "max_suspensions": limits.max_host_calls,
                },
                os_policy={"sleep": "zero"},
            )
            async with session:
                if state is not None:
                    await session.load_session(state)
                try:
                    snapshot = await session.feed_start(code, external_lookup=dict(functions), print_callback=output)
                    while not isinstance(snapshot, pm.MontyComplete):
                        if isinstance(snapshot, pm.AsyncNameLookupSnapshot):
                            if snapshot.variable_name in functions:
                                snapshot = await snapshot.resume_auto()  # becomes a host function
                            else:
                                snapshot = await snapshot.resume()  # NameError, as in Python
                        elif isinstance(snapshot, pm.AsyncFunctionSnapshot):
                            if snapshot.is_os_function:
                                snapshot = await snapshot.resume_not_handled()  # no file system, clock only
                                continue
                            if snapshot.function_name not in functions:
                                message = f"name {snapshot.function_name!r} is not defined"
                                snapshot = await snapshot.resume({"exc_type": "NameError", "message": message})
                                continue
                            task = asyncio.ensure_future(answer(snapshot.function_name, snapshot.args, snapshot.kwargs))
                            pending[snapshot.call_id] = task
                            snapshot = await snapshot.resume({"future": ...})
                        elif isinstance(snapshot, pm.AsyncFutureSnapshot):
                            ids = list(snapshot.pending_call_ids)
                            settled = await asyncio.gather(*(_settle(pending.pop(i, None)) for i in ids))
                            snapshot = await snapshot.resume(dict(zip(ids, settled, strict=True)))
                        else:  # pragma: no cover - a snapshot type this version does not know
                            raise RuntimeError(f"unexpected sandbox snapshot {type(snapshot).__name__}")
                    value = snapshot.output
                    if value is not None:
                        result.value = _short_repr(value)
                except pm.MontyError as error:
                    result.kind, result.error = _classify(pm, error, output, limits)
                if result.kind not in ("timeout", "memory", "crashed", "output", "host_calls"):
                    dump = await session.dump()
                    if len(dump) <= MAX_SESSION_STATE_BYTES:
                        result.state = dump
                    else:
                        result.state_dropped = True
    except pm.MontyError as error:  # the worker died outside a feed (start-up, dump, teardown)
        result.kind, result.error = _classify(pm, error, output, limits)
    except asyncio.CancelledError:
        result.kind, result.error = "cancelled", "Cancelled."
        raise
    finally:
        for task in pending.values():
            task.cancel()
        _note_pool_closed()
        result.stdout = output.text
        result.seconds = time.perf_counter() - started
    return result


async def _settle(task: asyncio.Future[dict[str, Any]] | None) -> dict[str, Any]:
    if task is None:
        return {"exc_type": "RuntimeError", "message": "no such pending call"}
    return await task


def _short_repr(value: Any, limit: int = 2_000) -> str:
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - proxies always have a repr
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _classify(pm: Any, error: Exception, output: _Output, limits: SandboxLimits) -> tuple[FailureKind, str]:
    """The kind of failure and the message the model sees."""
    if output.exceeded:
        return "output", (
            f"Output limit exceeded: the program printed more than {limits.max_output_chars} characters "
            "and was stopped."
        )
    if isinstance(error, pm.MontyCrashedError):
        if getattr(error, "timed_out", False):
            return "timeout", f"Time limit exceeded: the program ran for more than {limits.timeout:g} seconds."
        return "crashed", f"The sandbox worker crashed and was replaced: {one_line(str(error), 300)}"
    if isinstance(error, pm.MontySyntaxError):
        return "syntax", _display(error, "traceback")
    short = _display(error, "type-msg")
    if short.startswith("TimeoutError:"):
        return "timeout", f"Time limit exceeded: the program ran for more than {limits.timeout:g} seconds."
    if short.startswith("MemoryError:"):
        return "memory", (
            f"Memory limit exceeded: the program needed more than {limits.max_memory // (1024 * 1024)} MB."
        )
    if short.startswith("RecursionError:"):
        return "recursion", (
            f"RecursionError: maximum recursion depth exceeded (limit {limits.max_recursion_depth} calls)."
        )
    if short.startswith("RuntimeError: suspension limit"):
        return "host_calls", (
            f"Host call limit exceeded: the program called the knowledge-base functions more than "
            f"{limits.max_host_calls} times."
        )
    return "error", _display(error, "traceback")


def _display(error: Exception, form: str) -> str:
    try:
        text = error.display(form)  # type: ignore[attr-defined]
    except Exception:
        text = str(error)
    text = text.strip() or type(error).__name__
    return text if len(text) <= MAX_ERROR_CHARS else "…" + text[-(MAX_ERROR_CHARS - 1) :]


# pydantic-monty 1.4 can abort the interpreter when it exits within moments of a pool closing
# (its teardown thread races interpreter finalisation). A short wait at exit, only when a pool
# closed very recently, avoids that.
_EXIT_GRACE = 0.3
_last_pool_closed: float | None = None


def _note_pool_closed() -> None:
    global _last_pool_closed
    if _last_pool_closed is None:
        atexit.register(_wait_for_pool_teardown)
    _last_pool_closed = time.monotonic()


def _wait_for_pool_teardown() -> None:
    if _last_pool_closed is not None:
        remaining = _EXIT_GRACE - (time.monotonic() - _last_pool_closed)
        if remaining > 0:
            time.sleep(remaining)
