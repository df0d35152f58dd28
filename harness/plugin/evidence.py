"""A check's evidence: what it records as JUnit properties, and the request accounting the
harness adds to every check from the request logs of the API proxies its operators run behind
(``harness.accounting``), compared with the audit log where there is one.

The comparison report reads these properties back (``harness/report/``); a key recorded with
``Evidence.premise`` is listed in the ``premises`` property, so the report never shows it as
the operator's proof.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from typing import Any

import pytest

from harness.accounting import compare_accountings
from harness.audit import Request, select, summarize
from harness.lab.pool import Lab


def labs_of(item: pytest.Item) -> list[Lab]:
    """The labs a test used: the shared one (if it asked for ``operators``) and its private ones."""
    funcargs = getattr(item, "funcargs", {})
    labs: list[Lab] = []
    if funcargs.get("operators") is not None and funcargs.get("admin") is not None:
        pool = funcargs["operators"]
        labs.append(Lab(None, funcargs["admin"], pool.audit, funcargs["namespace"], pool))
    isolated = funcargs.get("isolated")
    if isolated is not None:
        labs.extend(isolated.labs)
    return labs


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
    """Record the API requests ``user`` made in the test's namespaces, from its operators'
    API proxies (``OperatorPool.accounting``; the same on every tier): counts by verb,
    resource and code; successful and failed writes; 409s; the order of the
    successful writes; what the operator was refused (``forbidden``: ``Request.refusal`` of
    each 403 not made by the harness's own client, only when there were any; from the audit
    log where there is one, which alone tells RBAC from admission and quota refusals); and a
    timeline ``[[seconds since the first, verb, resource, name, code], ...]`` (at most 400
    entries) for the report's sequence diagrams."""
    reqs: list[Request] = []
    for lab in labs_of(item):
        reqs += select(lab.operators.accounting.requests(), user=user, namespace=lab.namespace)
    if not reqs:
        return
    reqs.sort(key=lambda r: r.time)
    writes = [r for r in reqs if r.is_write]
    ev.record("api_requests", summarize(reqs))
    ev.record("writes_ok", sum(1 for r in writes if r.ok))
    ev.record("writes_failed", sum(1 for r in writes if not r.ok))
    ev.record("conflicts_409", sum(1 for r in writes if r.code == 409))
    ev.record("write_order", [f"{r.verb} {r.target} {r.name}" for r in writes if r.ok][:60])
    # What was refused needs the authorizer's decision and the Status message (RBAC, admission
    # or a quota), which only the audit log has: from there where there is one.
    refusals: list[Request] = []
    audited: dict[str, list[Request]] = {}  # namespace -> its lab's audit log, read once
    for lab in labs_of(item):
        source = lab.operators.accounting.requests()
        if lab.audit is not None:
            source = audited[lab.namespace] = list(lab.audit.requests(lab.operators.audit_start))
        refusals += select(source, user=user, namespace=lab.namespace)
    forbidden = sorted({r.refusal for r in refusals if r.refusal and not r.by_harness})
    if forbidden:
        ev.record("forbidden", forbidden)
    t0 = _seconds(reqs[0].time)
    ev.record(
        "timeline",
        [[round(_seconds(r.time) - t0, 3), r.verb, r.target, r.name, r.code] for r in reqs[:400]],
    )
    acts = harness_acts(item, user, t0, _seconds(reqs[-1].time), audited)
    if acts:
        ev.record("harness_acts", acts)


#: the resources whose writes by others than the operator are drawn as the harness's acts (the
#: ModelService and its children; not Pods, ReplicaSets or Events, which controllers write)
_ACTED_ON = ("modelservices", "deployments", "services")


def harness_acts(
    item: pytest.Item, user: str, t0: float, t1: float, audited: Mapping[str, list[Request]]
) -> list[list[Any]]:
    """What the harness did during a check, for the report's timeline beside the operator's
    requests: ``[[seconds since the operator's first request, act], ...]`` in time order (at
    most 100), from ``t0 - 5`` to ``t1`` (epoch seconds). Acts are the signals and starts of
    the labs' operator processes (``OperatorProcess.acts``; the teardown's SIGTERM after
    ``t1`` is left out) and, where there is an audit log (``audited``: a lab's namespace -> its
    audit log's requests since the lab began), the successful writes in the labs' namespaces
    of every user other than ``user`` and the cluster's ``system:`` controllers, to
    ModelServices, Deployments and Services (the check's own edits, an admin's write),
    e.g. ``[3.2, "SIGKILL"]``, ``[4.0, "harness: update deployments web"]``."""
    acts: list[tuple[float, str]] = []
    for lab in labs_of(item):
        for op in lab.operators.started:
            acts += [(t, a) for t, a in op.acts if t0 - 5 <= t <= t1]
        for r in audited.get(lab.namespace, ()):
            if r.user == user or r.user.startswith("system:") or r.namespace != lab.namespace:
                continue
            if not (r.is_write and r.ok) or r.resource not in _ACTED_ON:
                continue
            t = _seconds(r.time)
            if t0 - 5 <= t <= t1:
                acts.append((t, f"harness: {r.verb} {r.target} {r.name}".rstrip()))
    acts.sort()
    return [[round(t - t0, 3), a] for t, a in acts[:100]]


def compare_with_audit(item: pytest.Item, user: str, ev: Evidence) -> None:
    """Record property ``accounting``: ``user``'s requests in each lab's namespaces (its own
    and any other an operator of it watched, ``OperatorPool.namespaces``) as the audit log has
    them and as the lab's API proxies forwarded them, compared request for
    request (``harness.accounting.compare_accountings``), summed over the labs:
    ``{"compared": N, "audit_only": [...], "proxy_only": [...], "differing": [...],
    "unreached": N, "harness": N, "unlogged": N}``. Only for labs with an audit log; call it with the
    operators stopped. ``python -m harness accounting-check`` reads it back."""
    total: dict[str, Any] = {
        "compared": 0,
        "audit_only": [],
        "proxy_only": [],
        "differing": [],
        "unreached": 0,
        "harness": 0,
        "unlogged": 0,
    }
    labs = [lab for lab in labs_of(item) if lab.audit is not None]
    for lab in labs:
        assert lab.audit is not None
        one = compare_accountings(
            lab.audit,
            lab.operators.audit_start,
            lab.operators.accounting,
            user,
            lab.operators.namespaces(),
            lab.admin,
        )
        for key, value in one.items():
            total[key] = total[key] + value
    if labs:
        ev.record("accounting", total)


def account_item(item: pytest.Item) -> None:
    """After a check, before its fixtures are torn down: stop the operators of every lab it
    used (their proxies stay up, so every connection's end is logged), record the request
    accounting (``account_requests``) and, where there is an audit log, its comparison with
    the proxies' (``compare_with_audit``). An error is recorded as ``accounting_error``."""
    funcargs = getattr(item, "funcargs", {})
    ev, impl = funcargs.get("evidence"), funcargs.get("impl")
    if not isinstance(ev, Evidence) or impl is None:
        return
    try:
        for lab in labs_of(item):
            lab.operators.stop_operators()
        account_requests(item, impl.user, ev)
        compare_with_audit(item, impl.user, ev)
    except Exception as exc:
        ev.record("accounting_error", f"{type(exc).__name__}: {exc}")


def _seconds(stamp: str) -> float:
    """RFC 3339 audit timestamp (microseconds, Z) to epoch seconds."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
