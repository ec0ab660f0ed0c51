"""The state a run works on, and the state a completed run leaves: both cost what a run changes.

A run may change, in an evidence namespace (:mod:`haiku_tui.capabilities.ledger`): the namespace's own
fields, its citation entries (added, or a re-cited entry's provenance replaced key by key) and the record of
the question it asks (appended, or the last one when it resumes); earlier question records are history and
are never changed in place. Any other namespace may change anywhere. So :func:`run_copy` copies the
namespaces' fields, each citation entry (shallowly) and the last record, and shares every earlier record with
the committed map; :func:`committed` keeps the committed objects a run left as they were, or as equal copies
(the store then skips their rows by identity), and copies, through JSON, what is new — the check that it is
plain JSON.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import SessionStateError

_RECORDS = ("questions", "citation_index")


def _evidence(namespace: Any) -> bool:
    # Same test as haiku_tui.capabilities.ledger.is_evidence_namespace (kept here: no capability import).
    return (
        isinstance(namespace, dict)
        and isinstance(namespace.get("questions"), list)
        and isinstance(namespace.get("citation_index"), dict)
    )


def json_copy(value: Any, what: str) -> Any:
    """A deep copy of a plain JSON value; anything that is not JSON is refused naming the key."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        if isinstance(value, dict):
            for key, item in value.items():
                try:
                    json.dumps(item, allow_nan=False)
                except (TypeError, ValueError):
                    raise SessionStateError(
                        f"{what} key {key!r} is not plain JSON ({exc}); nothing was committed"
                    ) from None
        raise SessionStateError(f"{what} is not plain JSON ({exc}); nothing was committed") from None


def run_copy(state: dict[str, Any]) -> dict[str, Any]:
    """The working state of a new run: what it may change is copied, earlier question records are shared."""
    out: dict[str, Any] = {}
    for key, namespace in state.items():
        if not _evidence(namespace):
            out[key] = json.loads(json.dumps(namespace))
            continue
        copy = json.loads(json.dumps({k: v for k, v in namespace.items() if k not in _RECORDS}))
        records = list(namespace["questions"])
        if records:
            records[-1] = json.loads(json.dumps(records[-1]))
        copy["questions"] = records
        copy["citation_index"] = {cid: dict(entry) for cid, entry in namespace["citation_index"].items()}
        out[key] = copy
    return out


def committed(before: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The committed map after a run that left ``state``: objects of ``before`` it kept are kept (identity),
    the rest is a private plain-JSON copy. Raises ``SessionStateError`` (nothing changes) when it is not JSON."""
    if not isinstance(before, dict) or not before:
        return json_copy(state, "state")
    out: dict[str, Any] = {}
    for key, namespace in state.items():
        old = before.get(key)
        if not (_evidence(namespace) and _evidence(old)):
            out[key] = old if namespace == old else json_copy(namespace, f"state[{key!r}]")
            continue
        fields = json_copy({k: v for k, v in namespace.items() if k not in _RECORDS}, f"state[{key!r}]")
        kept = old["questions"]
        records = [
            kept[i]
            if i < len(kept) and (r is kept[i] or r == kept[i])
            else json_copy(r, f"state[{key!r}] question record")
            for i, r in enumerate(namespace["questions"])
        ]
        entries = {}
        for cid, entry in namespace["citation_index"].items():
            previous = old["citation_index"].get(cid)
            same = isinstance(entry, dict) and isinstance(previous, dict) and previous.keys() == entry.keys() and all(
                entry[k] is v for k, v in previous.items()
            )
            entries[cid] = previous if same else json_copy(entry, f"state[{key!r}] citation {cid!r}")
        fields["questions"], fields["citation_index"] = records, entries
        out[key] = {k: fields[k] for k in namespace}  # the run's key order
    return out
