"""A check's evidence: what it records as JUnit properties, and the request accounting the
harness adds to every check from the audit log.

The comparison report reads these properties back (``harness/report/``); a key recorded with
``Evidence.premise`` is listed in the ``premises`` property, so the report never shows it as
the operator's proof.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from harness.audit import Request, select, summarize
from harness.plugin.lab import labs_of


class Evidence:
    """A check's evidence, recorded as JUnit properties (``record_property``).

    ``record(key, value)``: value is stored as JSON if it is not a string. ``values`` keeps
    what was recorded, for failure messages.
    """

    def __init__(self, record_property: Any) -> None:
        self._record = record_property
        self.values: dict[str, Any] = {}
        #: the keys recorded with ``premise``, in order
        self.premise_keys: list[str] = []

    def record(self, key: str, value: Any) -> Any:
        self.values[key] = value
        self._record(key, value if isinstance(value, str) else json.dumps(value, sort_keys=True))
        return value

    def premise(self, key: str, value: Any) -> Any:
        """Record ``value`` like ``record``, as evidence of a premise: what the experiment
        established (the API server refused a stale write, the CRD refused a bad spec), not
        what the operator did. After the check the keys are listed in the ``premises``
        property, so the reports label them and never present them as the operator's proof.
        Pair it with ``conformance.support.premise`` to stop the check when it does not hold."""
        if key not in self.premise_keys:
            self.premise_keys.append(key)
        return self.record(key, value)


def account_requests(item: pytest.Item, user: str, ev: Evidence) -> None:
    """Record the API requests ``user`` made in the test's namespaces, from the audit log:
    counts by verb, resource and code; successful and failed writes; 409s; the order of the
    successful writes; what the operator was refused (``forbidden``: ``Request.refusal`` of
    each 403 not made by the harness's own client, only when there were any); and a timeline
    ``[[seconds since the first, verb, resource, name, code], ...]`` (at most 400 entries) for
    the report's sequence diagrams."""
    reqs: list[Request] = []
    for lab in labs_of(item):
        if lab.audit is not None:
            reqs += select(lab.audit.requests(), user=user, namespace=lab.namespace)
    if not reqs:
        return
    reqs.sort(key=lambda r: r.time)
    writes = [r for r in reqs if r.is_write]
    ev.record("api_requests", summarize(reqs))
    ev.record("writes_ok", sum(1 for r in writes if r.ok))
    ev.record("writes_failed", sum(1 for r in writes if not r.ok))
    ev.record("conflicts_409", sum(1 for r in writes if r.code == 409))
    ev.record("write_order", [f"{r.verb} {r.target} {r.name}" for r in writes if r.ok][:60])
    forbidden = sorted({r.refusal for r in reqs if r.refusal and not r.by_harness})
    if forbidden:
        ev.record("forbidden", forbidden)
    t0 = _seconds(reqs[0].time)
    ev.record(
        "timeline",
        [[round(_seconds(r.time) - t0, 3), r.verb, r.target, r.name, r.code] for r in reqs[:400]],
    )


def _seconds(stamp: str) -> float:
    """RFC 3339 audit timestamp (microseconds, Z) to epoch seconds."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
