"""reconcile-isolated: one slow ModelService holds no other up.

A controller's workers are shared by every object it reconciles. When one object's reconcile is
slow (an admission webhook that takes its time over the object's Deployment, a request whose
answer never comes), the others must still be reconciled: with the defaults of the contract
(CONTRACT.md, "Process": 4 workers, a bounded timeout on each request) the others converge
as if the slow one were not there.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.support import (
    REACT_TIMEOUT,
    create_modelservice,
    premise,
    status_converged,
    wait_converged,
    wait_settled,
)
from harness.kube import Kube, wait_for
from harness.plugin.evidence import Evidence
from harness.plugin.lab import OperatorPool

#: How long the API proxy holds the slow ModelService's Deployment create: a slow admission
#: webhook (well under the 30 s a webhook may take, and under the operator's 35 s request
#: timeout, so the write succeeds once released).
SLOW_HOLD_S = 15.0
#: How many other ModelServices are created while it is held.
NEIGHBOURS = 8
#: How often the check looks at the neighbours while the write is held: cheap (three lists).
POLL_S = 0.2


def _converged_names(admin: Kube, namespace: str) -> set[str]:
    """The ModelServices of ``namespace`` that have converged, as ``support.is_converged``
    judges one (status observedGeneration and conditions, a Deployment with spec.replicas, a
    Service), read with three lists rather than three reads per ModelService."""
    deployments = {d["metadata"]["name"]: d for d in admin.list("deployments", namespace)}
    services = {s["metadata"]["name"] for s in admin.list("services", namespace)}
    done = set()
    for msvc in admin.list("modelservices", namespace):
        name = msvc["metadata"]["name"]
        dep = deployments.get(name)
        if (
            status_converged(msvc)
            and dep is not None
            and dep["spec"].get("replicas") == msvc["spec"]["replicas"]
            and name in services
        ):
            done.add(name)
    return done


def _held_write(stats: dict[str, Any]) -> dict[str, Any] | None:
    """The proxy's record of the write it held (``held_ms`` > 0), or None before its answer."""
    return next((r for r in stats["recent"] if r.get("held_ms", 0) > 0), None)


@pytest.mark.check("reconcile-isolated")
def test_slow_neighbour(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """While one ModelService's Deployment write is held by a slow admission webhook, every
    other ModelService created at the same time converges; the slow one converges after.

    The operator runs with the contract's defaults behind the harness's API proxy, which holds
    the create of Deployment ``slow`` for 15 s (SLOW_HOLD_S), as a slow webhook would. Once
    that write is held, eight other ModelServices are created. Each of the eight must have
    converged before the proxy releases the held write: the bound is the slow object's own
    hold, not a time, so a loaded machine cannot break it (the eight converge in about a
    second; the check reads them first and the hold after, so "before" is proven). An operator
    with one worker reconciles them only after the slow one's write returns: 15 s each time
    one object is slow. Then ``slow`` must converge too.
    """
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        wait_settled(op)
        proxy.delay_writes(SLOW_HOLD_S, count=1, resource="deployments", name="slow")
        create_modelservice(admin, namespace, "slow", replicas=1)
        proxy.wait_stats(
            lambda s: s["writes_holding"] == 1,
            REACT_TIMEOUT,
            "the operator's create of Deployment slow (held by the API proxy)",
        )
        names = [f"web-{i}" for i in range(NEIGHBOURS)]
        for name in names:
            create_modelservice(admin, namespace, name, replicas=1)
        created = time.monotonic()
        before_release: dict[str, float] = {}

        def look() -> dict[str, Any]:
            seen = _converged_names(admin, namespace) & set(names)
            at = time.monotonic()
            # Read after the neighbours: the write still held now was held when they were read.
            holding = proxy.stats()["writes_holding"]
            if holding:
                for name in seen - before_release.keys():
                    before_release[name] = round(at - created, 2)
            return {"holding": holding, "converged_before_release": len(before_release)}

        wait_for(
            look,
            lambda s: not s["holding"] or s["converged_before_release"] == NEIGHBOURS,
            SLOW_HOLD_S + REACT_TIMEOUT,
            "the neighbours to converge or the held write to be released",
            POLL_S,
            premise=True,
        )
        evidence.record("hold_s", SLOW_HOLD_S)
        evidence.record("converged_before_release_s", dict(sorted(before_release.items())))
        late = sorted(set(names) - before_release.keys())
        stats = proxy.wait_stats(
            lambda s: _held_write(s) is not None,
            SLOW_HOLD_S + REACT_TIMEOUT,
            "the held create of Deployment slow to be answered",
            premise=True,
        )
        held = _held_write(stats) or {}
        evidence.record(
            "held_write",
            {k: held.get(k) for k in ("verb", "resource", "name", "code", "held_ms")},
        )
        premise(
            held.get("resource") == "deployments" and held.get("name") == "slow",
            f"the write the API proxy held should be the operator's create of Deployment "
            f"slow; it was {held}",
        )
        assert not late, (
            f"{len(late)} of the {NEIGHBOURS} ModelServices created while Deployment slow's "
            f"write was held ({SLOW_HOLD_S:.0f} s, a slow admission webhook) had not "
            f"converged when it was released: {', '.join(late)} (converged before it: "
            f"{before_release or 'none'}). One slow object held the others up: run several "
            f'workers by default (MAX_CONCURRENT_RECONCILES, CONTRACT.md "Process")'
        )
        wait_converged(admin, namespace, "slow")
