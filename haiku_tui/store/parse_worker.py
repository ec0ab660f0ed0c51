"""A parser in a child process that can be killed at a deadline (``python -m haiku_tui.store.parse_worker``).

Requests and replies are length-prefixed pickles over the child's stdin/stdout. The child is
started with ``-m``, so it works whatever the parent's ``__main__`` is (a script, stdin, a REPL).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

from .errors import ParseError
from .limits import IngestLimits, too_slow

_HEADER = struct.Struct("!Q")
START_SECONDS = 60.0  # importing the parsers; not counted against a file's deadline


class ParseProcess:
    """One child process parsing files one at a time; killed and restarted after a timeout."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None

    def parse(self, path: Path, data: bytes, limits: IngestLimits) -> Any:
        proc = self._start()
        try:
            _send(proc.stdin, (path, data, limits))
            status, value = _receive(proc.stdout, time.monotonic() + limits.max_seconds)
        except TimeoutError:
            self.close()
            raise ParseError(too_slow(limits.max_seconds)) from None
        except (OSError, EOFError, pickle.UnpicklingError):
            self.close()
            raise ParseError("the parser process failed on this file (out of memory?)") from None
        if status == "error":
            raise ParseError(value)
        return value

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._proc = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            _receive(self._proc.stdout, time.monotonic() + START_SECONDS)  # "ready"
        except (TimeoutError, OSError, EOFError, pickle.UnpicklingError):
            self.close()
            raise ParseError("the parser process did not start") from None
        return self._proc

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def _send(stream: BinaryIO | None, value: object) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    assert stream is not None
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream: BinaryIO | None, deadline: float) -> Any:
    assert stream is not None
    fd = stream.fileno()
    buf = bytearray()
    need = _HEADER.size
    header_done = False
    while True:
        while len(buf) < need:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, min(need - len(buf), 1 << 20))
            if not chunk:
                raise EOFError
            buf += chunk
        if header_done:
            return pickle.loads(bytes(buf[_HEADER.size :]))
        header_done = True
        need = _HEADER.size + _HEADER.unpack(bytes(buf[: _HEADER.size]))[0]


def _serve() -> None:
    import pypdf  # noqa: F401 (imported before the first deadline starts)

    from .parsing import parse_bytes

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _send(stdout, ("ready", None))
    while True:
        header = stdin.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        path, data, limits = pickle.loads(stdin.read(_HEADER.unpack(header)[0]))
        try:
            reply = ("ok", parse_bytes(path, data, limits))
        except ParseError as exc:
            reply = ("error", str(exc))
        except Exception as exc:  # anything a third-party parser raises becomes one line
            reply = ("error", " ".join(f"cannot parse ({type(exc).__name__}: {exc})".split())[:200])
        _send(stdout, reply)


if __name__ == "__main__":
    _serve()
