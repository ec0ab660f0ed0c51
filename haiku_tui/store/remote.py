"""Knowledge bases on object storage (``s3://``, ``gs://``, ``az://``): faults as one clear line.

LanceDB reads the object store's settings from the environment (for S3: ``AWS_ENDPOINT_URL``,
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION`` /
``AWS_DEFAULT_REGION``, ``AWS_ALLOW_HTTP`` for a plain-http endpoint). Its errors are Rust debug
dumps; :func:`explain` turns the ones a user can fix into a sentence that names the fix.
"""

from __future__ import annotations

import os
import re

DENIED_CODES = ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "ExpiredToken", "InvalidToken")


def _endpoint() -> str:
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or "the default endpoint"


def explain(uri: str, exc: BaseException) -> str | None:
    """One line naming the fix for an object-store fault at ``uri``; ``None`` when not one we know."""
    text = str(exc)
    bucket = uri.partition("://")[2].split("/", 1)[0]
    code = re.search(r"<Code>(\w+)</Code>", text)
    code = code.group(1) if code else ""
    if code == "NoSuchBucket" or ("status: 404" in text and "ListRequest" in text and not code):
        return f"bucket {bucket!r} does not exist at {_endpoint()}: create it, or fix the URI {uri}"
    if code in DENIED_CODES or "status: 403" in text:
        return (
            f"the object store refused access to {uri}{f' ({code})' if code else ''}: check AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and the bucket's permissions"
        )
    if "BadScheme" in text:
        return f"the endpoint {_endpoint()} is plain http: set AWS_ALLOW_HTTP=true (for local test servers)"
    if re.search(r"kind: Connect\b|tcp connect error|dns error|ConnectionRefused|TimedOut|timed out", text):
        return f"cannot reach the object store at {_endpoint()} for {uri}: check AWS_ENDPOINT_URL and the network"
    if re.search(r"credential", text, re.IGNORECASE):
        return f"no usable credentials for {uri}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)"
    return None
