"""Who may use the two HTTP servers (the app through textual-serve, the agent over AG-UI): stdlib only.

Every web page the user has open runs in their browser, and loopback does not keep it out. So a request is
served only when

* its ``Host`` is an address this server answers on (``127.0.0.1``, ``localhost``, ``[::1]`` or the
  ``--host`` given, with the port): a page that rebinds its own name to 127.0.0.1 sends its own name;
* its ``Origin``, when it has one, is this very server (the ``Host`` it was sent to): browsers send the
  page's origin with every WebSocket and every POST, and apply no CORS to WebSockets;
* it carries the per-launch token (:meth:`Guard.admits`), which only the URL printed at start holds.

``browser.py`` applies this as an aiohttp middleware, ``agui.py`` as an ASGI one.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
import socket
import sys

from haiku_tui.text import printable_line

WILDCARD = ("0.0.0.0", "::", "")
TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~-]+")
MIN_TOKEN = 16


def new_token() -> str:
    """A fresh per-launch token (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot be used (too short to guess at, or not URL-safe), or None."""
    if len(token) < MIN_TOKEN:
        return f"the token has {len(token)} characters; use at least {MIN_TOKEN}"
    if not TOKEN_CHARS.fullmatch(token):
        return "the token may hold only letters, digits and . _ ~ - (it goes in a URL and a cookie)"
    return None


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ::1: addresses no other machine reaches."""
    if host.lower() == "localhost":
        return True
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def url_host(host: str) -> str:
    """``host`` as it is written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


class Guard:
    """The checks for one server listening on ``host``:``port``, with ``token`` (None: ``--no-token``)."""

    def __init__(self, host: str, port: int, token: str | None) -> None:
        self.host, self.port, self.token = host, port, token
        self.cookie = f"haiku_tui_token_{port}"  # cookies are not kept apart by port: the name is
        self._said: set[str] = set()
        names = {"localhost", host.strip("[]").lower()}
        self._names = names - {""}
        self._ips = {ip for ip in map(_ip, ("127.0.0.1", "::1", host)) if ip is not None}
        self._any_ip = host in WILDCARD  # listening on every address: any IP literal (no name to rebind)
        if self._any_ip:
            self._names |= {socket.gethostname().lower(), socket.getfqdn().lower()}

    def refusal(self, host: str | None, origin: str | None) -> str | None:
        """Why a request with these ``Host`` and ``Origin`` headers gets 403, or None when it may go on."""
        if not host or not self._serves(host):
            return f"Host {host!r} is not an address of this server"
        if origin is None:
            return None
        scheme, _, rest = origin.partition("://")
        if scheme.lower() not in ("http", "https") or rest.lower() != host.lower():
            return f"Origin {origin!r} is not this server's own"
        return None

    def _serves(self, host: str) -> bool:
        name, port = _split_host(host)
        if port != str(self.port) and not (port == "" and self.port == 80):
            return False
        ip = _ip(name)
        if ip is not None:
            return self._any_ip or ip in self._ips
        return name.lower() in self._names

    def admits(self, presented: str | None) -> bool:
        """True when ``presented`` is the token (always, without one)."""
        if self.token is None:
            return True
        return presented is not None and hmac.compare_digest(presented.encode(), self.token.encode())

    def report(self, status: int, method: str, path: str, why: str) -> None:
        """One line on the server's stderr for a refused request (the same line once; a page may retry)."""
        line = printable_line(f"haiku-tui serve: refused {method} {path} ({status}): {why}", 300)
        if line in self._said:
            return
        if len(self._said) >= 256:
            self._said.clear()
        self._said.add(line)
        print(line, file=sys.stderr, flush=True)


def _split_host(host: str) -> tuple[str, str]:
    """A ``Host`` header's name and port (``"[::1]:80"`` → ``("::1", "80")``); an unbracketed IPv6 has no port."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return (name, rest[1:]) if rest.startswith(":") else (name, "" if not rest else "-")
    name, colon, port = host.rpartition(":")
    if not colon or ":" in name:
        return host, ""
    return name, port


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    scheme, _, value = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None
