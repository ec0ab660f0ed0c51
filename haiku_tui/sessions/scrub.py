"""Keep secrets out of sessions: API keys, bearer tokens, URL credentials.

Two nets: the values actually in use — registered with :func:`register_secrets` by whoever sends them (the
agent layer), plus every credential-named environment variable (``*_API_KEY``, ``*_TOKEN`` …) — are
removed wherever they appear, whatever they look like; and key-shaped patterns catch the rest.
Everything written to the sessions database (and every export) goes through :func:`scrub_json`;
metadata values such as the model name and the knowledge-base location go through
:func:`scrub_location` first, so a base URL keeps its host and path but loses its userinfo and query.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REDACTED = "[redacted]"

# Key-shaped tokens. The prefix must not be glued to a preceding letter/digit ("task-force" is not a key)
# and the body must be long enough to be a credential rather than a word.
_KEY_PATTERNS = [
    r"sk-(?:proj-|ant-|or-v1-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}",  # OpenAI, Anthropic, OpenRouter
    r"AIza[0-9A-Za-z_\-]{30,}",  # Google
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub
    r"github_pat_[A-Za-z0-9_]{30,}",
    r"gsk_[A-Za-z0-9]{20,}",  # Groq
    r"xai-[A-Za-z0-9]{20,}",  # xAI
    r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",  # AWS access key id
    r"pplx-[A-Za-z0-9]{20,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
]
_KEY_RE = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(_KEY_PATTERNS) + r")")
# "Bearer <token>": the token must contain a digit, so prose ("token authentication") is left alone.
_BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)(\s+)((?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{12,})")
_SECRET_NAME = r"(?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd)"
# NAME=value (env-var / query style) always; "name: value" only when the value looks machine-made (has a digit).
_ASSIGN_RE = re.compile(
    r"(?i)\b(" + _SECRET_NAME + r")([\"']?\s*=\s*|[\"']?\s*:\s*(?=[\"']?[^\s\"'&,;]*\d))([\"']?)([^\s\"'&,;]{4,})"
)
# In free text a URL keeps its query, except credential-like parameters, and loses any userinfo.
_QUERY_RE = re.compile(
    r"(?i)([?&](?:token|sig|signature|key|auth|code|x-amz-signature|x-amz-credential)=)([^&#\s\"'<>]+)"
)
_USERINFO_RE = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]{1,15}://)[^\s\"'<>/@]*@")
_SECRET_KEY_RE = re.compile(
    r"^(?:.*[_-])?(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|"
    r"token|secret|client[_-]?secret|password|passwd|authorization|bearer|credentials?)$",
    re.IGNORECASE,
)
# Cheap pre-check: ``needs_scrub`` is true for every text the patterns above (or a credential-named JSON key)
# can match, on a decoded string and on the JSON text of a whole payload alike (there quotes and newlines
# appear escaped, so separators may be backslash sequences and the "no letter before" rule is dropped).
# It works on UTF-8 bytes (ASCII case folding keeps positions), scans for literals with bytes.find and
# only tries a pattern where its literal occurs: a payload of megabytes without secrets takes milliseconds.
_SEP = rb"(?:\s|\\[nrt\"\\]|[\"']|[\x80-\xff])*"
_BEARER_AT = re.compile(rb"(?i)(?:bearer|basic|token)" + _SEP + rb"(?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{12,}")
_ASSIGN_AT = re.compile(
    rb"(?i)(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd)" + _SEP + rb"[=:]"
)
_USERINFO_AT = re.compile(rb"://[^\s\"'<>/]*@")
_QUERY_AT = re.compile(rb"(?i)[?&](?:token|sig|signature|key|auth|code|x-amz-signature|x-amz-credential)=")
_JSON_KEY_AT = re.compile(rb'(?i)(?:key|token|secret|passwd|password|authorization|bearer|credentials?)"\s*:\s*"')
_KEY_AT = re.compile(_KEY_RE.pattern.split(")", 1)[1].encode())  # the key patterns without the look-behind
# (literal, search the lower-cased bytes?, pattern matched at the literal, bytes before the literal to start at)
_CHECKS: list[tuple[bytes, bool, re.Pattern[bytes], int]] = [
    *(
        (lit, False, _KEY_AT, 0)
        for lit in (
            b"sk-",
            b"AIza",
            b"ghp_",
            b"gho_",
            b"ghu_",
            b"ghs_",
            b"ghr_",
            b"github_pat_",
            b"gsk_",
            b"xai-",
            b"hf_",
            b"AKIA",
            b"ASIA",
            b"pplx-",
            b"glpat-",
        )
    ),
    *((lit, True, _BEARER_AT, 0) for lit in (b"bearer", b"basic", b"token")),
    *(
        (lit, True, _ASSIGN_AT, 0)
        for lit in (
            b"api_key",
            b"api-key",
            b"apikey",
            b"access_token",
            b"access-token",
            b"auth_token",
            b"auth-token",
            b"secret",
            b"passw",
        )
    ),
    (b"://", False, _USERINFO_AT, 0),
    *(
        (lit + b"=", True, _QUERY_AT, 1)
        for lit in (b"token", b"sig", b"signature", b"key", b"auth", b"code", b"credential")
    ),
    *(
        (lit + b'"', True, _JSON_KEY_AT, 0)
        for lit in (
            b"key",
            b"token",
            b"secret",
            b"passwd",
            b"password",
            b"authorization",
            b"bearer",
            b"credential",
            b"credentials",
        )
    ),
]


MIN_SECRET = 6
"""Shorter registered values are ignored (they would redact ordinary words)."""
_sent: dict[str, bytes] = {}  # registered secret -> its UTF-8 bytes, longest first
_sent_lock = threading.Lock()
_env_loaded = False


def register_secrets(*values: str | None) -> None:
    """Scrub these exact values (the API keys and tokens in use) from everything stored or exported."""
    global _sent
    with _sent_lock:
        merged = dict(_sent)
        for value in values:
            value = (value or "").strip()
            if len(value) >= MIN_SECRET:
                merged[value] = value.encode("utf-8", "surrogatepass")
        _sent = dict(sorted(merged.items(), key=lambda item: -len(item[0])))


def _registered() -> dict[str, bytes]:
    """The registered values, credential-named environment variables included (read once)."""
    global _env_loaded
    if not _env_loaded:
        _env_loaded = True
        register_secrets(*(value for name, value in os.environ.items() if is_secret_key(name)))
    return _sent


def needs_scrub(text: str | bytes) -> bool:
    """False when ``text`` (a string, or the JSON text of a whole payload) certainly holds nothing to scrub."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if any(secret in data for secret in _registered().values()):
        return True
    lowered = data.lower()  # ASCII only: same length, same positions
    for literal, fold, pattern, back in _CHECKS:
        hay = lowered if fold else data
        at = hay.find(literal)
        while at != -1:
            if pattern.match(data, max(0, at - back)):
                return True
            at = hay.find(literal, at + 1)
    return False


def scrub_text(text: str) -> str:
    """``text`` with API keys, bearer tokens, ``key=value`` secrets and URL credentials redacted."""
    if not needs_scrub(text):
        return text
    text = scrub_registered(text)
    text = _KEY_RE.sub(REDACTED, text)
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _ASSIGN_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{REDACTED}", text)
    text = _QUERY_RE.sub(lambda m: m.group(1) + REDACTED, text)
    if "://" in text:
        text = _USERINFO_RE.sub(r"\1", text)
    return text


def scrub_location(value: str | None) -> str | None:
    """A model name, base URL or database URI without credentials.

    ``https://user:pw@host/v1?api_key=x`` → ``https://host/v1``; a plain path or a model name such as
    ``openai:gpt-4o`` is returned unchanged (apart from any key-shaped token in it).
    """
    if value is None:
        return None
    value = scrub_registered(str(value))
    if "://" in value:
        try:
            parts = urlsplit(value)
        except ValueError:
            return _KEY_RE.sub(REDACTED, value)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        value = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return _KEY_RE.sub(REDACTED, value)


def scrub_registered(text: str) -> str:
    """``text`` without the registered values (see :func:`register_secrets`)."""
    for secret in _registered():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def is_secret_key(name: str) -> bool:
    """True for a mapping key that names a credential (``api_key``, ``OPENAI_API_KEY``, ``token`` …)."""
    return bool(_SECRET_KEY_RE.match(name))


def scrub_json(value: Any) -> Any:
    """A copy of a JSON value with every secret removed.

    Strings are passed through :func:`scrub_text`; a string under a credential-named key
    (see :func:`is_secret_key`) is replaced by ``"[redacted]"`` whatever it looks like.
    Containers without anything to scrub are returned as they are (no copy).
    """
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and isinstance(item, str) and item and is_secret_key(key):
                new = REDACTED
            else:
                new = scrub_json(item)
            changed = changed or new is not item
            out[key] = new
        return out if changed else value
    if isinstance(value, list):
        items = [scrub_json(item) for item in value]
        if any(new is not old for new, old in zip(items, value)):
            return items
        return value
    return value
