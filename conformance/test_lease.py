"""leader-failover[lease-record]: the Lease's record as client-go writes it, and a standby
that only reads it; [release-refused]: a release that failed is reported; [lease-stalled]: a
renewal that outlasts the renew deadline has failed."""

from __future__ import annotations

import datetime
import json
import time
from typing import Any

import pytest

from conformance.support import (
    CONVERGE_TIMEOUT,
    LATE_WRITES_WAIT,
    LEADER_SLACK,
    create_modelservice,
    leader_timeout,
    wait_converged,
)
from harness.accounting import Accounting
from harness.audit import select
from harness.faults.apiproxy.records import RequestLog, seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence

LEASE_NAME = "modeldock.lab"
#: (lease duration, renew deadline, retry period) in seconds, as leader-failover runs them.
LEASE = (8.0, 6.0, 1.0)
#: LEASE's renew deadline, s.
RENEW_DEADLINE_S = LEASE[1]
#: release-refused's Lease: renewals 10 s apart, so that the writes the proxy refuses (armed
#: just after the leader's first renewal, SIGTERM right after) are the release's.
RELEASE_LEASE = (30.0, 20.0, 10.0)
#: The release cases' retry period, s: the leader's first renewal comes within it.
RELEASE_RETRY_S = RELEASE_LEASE[2]
#: The leaseTransitions of the released Lease an earlier operator left behind, which the case
#: creates before any instance runs: a takeover counts on from it.
EARLIER_TRANSITIONS = 5
#: How many renewals the case waits for before the hand edit: the standby reads meanwhile, for
#: about ten retry periods, so that a standby reading twice as often shows.
RENEWALS = 10


def _spec(admin: Kube, ns: str) -> dict[str, Any]:
    """The Lease's spec ({} while there is none)."""
    return dict((admin.get("leases", ns, LEASE_NAME) or {}).get("spec") or {})


def _micro_now() -> str:
    """Now as a metav1.MicroTime (RFC 3339, microseconds, UTC)."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _renewals(admin: Kube, ns: str, after: str, count: int, what: str) -> dict[str, Any]:
    """The Lease's spec once its renewTime has moved ``count`` times since ``after`` (a
    renewTime): the holder renews once a retry period."""
    seen = [after]

    def renewed() -> dict[str, Any]:
        spec = _spec(admin, ns)
        if spec.get("renewTime") and spec["renewTime"] != seen[-1]:
            seen.append(spec["renewTime"])
        return spec

    bound = count * (LEASE[2] + LEADER_SLACK)
    return wait_for(renewed, lambda _s: len(seen) > count, bound, what)


@pytest.mark.modeldock_check("leader-failover", case="lease-record")
def test_lease_record(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """leader-failover[lease-record]: the Lease says who holds it since when, and how often it
    changed hands, the way client-go writes it. An instance that takes the Lease counts
    leaseTransitions up by one and sets acquireTime; its renewals move renewTime and keep
    acquireTime and leaseTransitions, also when someone edited the Lease by hand meanwhile
    (the renewal meets 409, reads the Lease again and renews it). A standby only reads the
    Lease, at most once per retry period.

    Tools (kubectl, dashboards, alerts on frequent hand-overs) read these fields to tell a
    stable leader from one that flaps; a leader that resets them, or a standby that writes or
    polls the Lease harder than its retry period, hides the flapping or loads the API server.
    The case leaves a released Lease (no holder, leaseTransitions 5) as an earlier operator
    would, starts a leader and a standby, edits the Lease by hand, then SIGTERMs the leader
    so the standby takes over; the standby's Lease requests are read from its API proxy.
    """
    duration, _deadline, retry = LEASE
    earlier = _micro_now()
    admin.create(
        "leases",
        namespace,
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": LEASE_NAME},
            "spec": {
                "holderIdentity": "",
                "leaseDurationSeconds": 1,
                "leaseTransitions": EARLIER_TRANSITIONS,
                "acquireTime": earlier,
                "renewTime": earlier,
            },
        },
    )
    leader = operators.start(leader_election=True, lease=LEASE, instance="a")
    first = wait_for(
        lambda: _spec(admin, namespace),
        lambda s: bool(s.get("holderIdentity")),
        leader_timeout(LEASE),
        f"the first instance to take the released Lease {LEASE_NAME}",
    )
    evidence.record("lease_taken", first)
    assert first.get("leaseTransitions") == EARLIER_TRANSITIONS + 1, (
        f"taking the released Lease (leaseTransitions {EARLIER_TRANSITIONS}) must count one "
        f"more hand-over: leaseTransitions {first.get('leaseTransitions')!r}, expected "
        f'{EARLIER_TRANSITIONS + 1} (CONTRACT.md, "Process")'
    )
    assert first.get("acquireTime") and first.get("acquireTime") != earlier, (
        f"the new holder must set acquireTime when it takes the Lease: {first.get('acquireTime')!r}"
        f" (the released Lease said {earlier!r})"
    )
    assert first.get("leaseDurationSeconds") == int(duration), (
        f"the holder must write its lease duration, {int(duration)} s: "
        f"leaseDurationSeconds {first.get('leaseDurationSeconds')!r}"
    )

    standby = operators.start(leader_election=True, lease=LEASE, instance="b")
    renewed = _renewals(
        admin, namespace, first["renewTime"], RENEWALS, f"{RENEWALS} renewals of the Lease"
    )
    edit = admin.patch(
        "leases",
        namespace,
        LEASE_NAME,
        {"metadata": {"labels": {"modeldock.test/edited": "by-hand"}}},
    )
    edited = dict(edit.get("spec") or {})
    after = _renewals(
        admin, namespace, edited.get("renewTime", ""), 2, "the leader to renew the edited Lease"
    )
    evidence.record("lease_renewed", {"before_edit": renewed, "after_edit": after})
    kept = ("holderIdentity", "acquireTime", "leaseTransitions")
    for spec, when in ((renewed, "over its renewals"), (after, "after a hand edit of the Lease")):
        changed = {k: (first.get(k), spec.get(k)) for k in kept if spec.get(k) != first.get(k)}
        assert not changed, (
            f"{when} the holder must keep holderIdentity, acquireTime and leaseTransitions "
            f"(a renewal moves renewTime only): changed {changed} "
            '(CONTRACT.md, "Process")'
        )

    signalled = time.time()
    evidence.record("sigterm_exit_code", leader.terminate())
    second = wait_for(
        lambda: _spec(admin, namespace),
        lambda s: bool(s.get("holderIdentity")) and s["holderIdentity"] != first["holderIdentity"],
        leader_timeout(LEASE),
        "the standby to take the released Lease",
    )
    evidence.record("lease_handed_over", second)
    assert second.get("leaseTransitions") == EARLIER_TRANSITIONS + 2 and second.get(
        "acquireTime"
    ) != first.get("acquireTime"), (
        f"the standby that took the released Lease must count the hand-over and set its own "
        f"acquireTime: leaseTransitions {second.get('leaseTransitions')!r} (expected "
        f"{EARLIER_TRANSITIONS + 2}), acquireTime {second.get('acquireTime')!r} (the first "
        f"holder's was {first.get('acquireTime')!r})"
    )

    lease_requests = [
        r
        for r in RequestLog(operators.proxy_of(standby).request_log).records()
        if r.resource == "leases" and r.verb != "watch" and seconds(r.start) < signalled
    ]
    writes = [f"{r.verb} {r.code}" for r in lease_requests if r.verb != "get"]
    starts = [seconds(r.start) for r in lease_requests]
    span = starts[-1] - starts[0] if starts else 0.0
    most = int(span / retry) + 2
    evidence.record(
        "standby_lease_requests",
        {"count": len(starts), "span_s": round(span, 2), "most": most, "writes": writes},
    )
    assert not writes, (
        f"while the leader held and renewed the Lease the standby wrote it: {writes}; a "
        'standby only reads a Lease its holder renews (CONTRACT.md, "Process")'
    )
    assert len(starts) <= most, (
        f"the standby read the Lease {len(starts)} times in {span:.1f} s; waiting at least a "
        f"retry period ({retry} s) between attempts, as client-go does, it reads at most "
        f"{most} times (one per retry period, one more for the ends)"
    )


#: The words of the error line of a release that failed (CONTRACT.md, "Process"): the same in
#: Go and Python.
RELEASE_FAILED_MSG = "could not release the Lease; standbys wait for it to expire"
#: As many 409s in a row as client-go's retry.DefaultRetry makes attempts.
RELEASE_ATTEMPTS = 5


def _log_lines(log: str, msg: str, level: str | None = None) -> list[str]:
    """The lines of an operator's log (one JSON object per line) whose ``msg`` is ``msg``
    (and whose ``level`` is ``level``, when given)."""
    out = []
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("msg") == msg
            and (level is None or record.get("level") == level)
        ):
            out.append(line)
    return out


@pytest.mark.modeldock_check("leader-failover", case="release-refused")
def test_release_refused_is_reported(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """leader-failover[release-refused]: a leader told to stop (SIGTERM) whose release writes
    are all refused with 409 Conflict, as many as client-go's retry.DefaultRetry attempts (5),
    exits 0 and says so: one line at level error, `could not release the Lease; standbys wait
    for it to expire`, and no `Released Lease`.

    Whoever runs the operator learns from that line why the next leader took a whole lease
    duration to come: a release that gives up in silence looks, in the log, like one that
    had nothing to release. The operator's API proxy answers the first five Lease writes
    after the SIGTERM with 409 without forwarding them. An operator that tries more often and
    releases the Lease in the end passes too, if it logs the release.
    """
    op = operators.start(leader_election=True, lease=RELEASE_LEASE)
    holder = wait_for(
        lambda: (admin.get("leases", namespace, LEASE_NAME) or {}).get("spec", {}),
        lambda s: bool(s.get("holderIdentity")),
        leader_timeout(RELEASE_LEASE),
        f"Lease {LEASE_NAME} to get a holder",
    )["holderIdentity"]
    proxy = operators.proxy_of(op)
    # The first renewal comes at once after the acquire; arm the 409s after it, so that the
    # next Lease writes are the release's, a whole retry period before any other renewal.
    wait_for(
        lambda: [
            r
            for r in RequestLog(proxy.request_log).records()
            if r.resource == "leases" and r.verb == "update" and r.code == 200
        ],
        bool,
        RELEASE_RETRY_S + LEADER_SLACK,
        "the leader's first renewal of the Lease",
        premise=True,
    )
    for n in range(1, RELEASE_ATTEMPTS + 1):
        proxy.inject_write_error(n, 409, resources=["leases"])
    code = op.terminate()
    left = _spec(admin, namespace).get("holderIdentity") or ""
    log = op.log_text()
    failed = _log_lines(log, RELEASE_FAILED_MSG, level="error")
    released = _log_lines(log, "Released Lease")
    evidence.record("sigterm_exit_code", code)
    evidence.record(
        "release", {"holder_after_exit": left, "failed_lines": failed[:2], "released": released[:2]}
    )
    assert code == 0, f"SIGTERM must stop the operator cleanly (exit 0), got {code}"
    if left:
        assert left == holder and failed and not released, (
            f"after SIGTERM the Lease still names {left!r} (it was {holder!r}): the release "
            f"failed, and the log must say so in one line at level error, "
            f"{RELEASE_FAILED_MSG!r}, and never 'Released Lease' (CONTRACT.md, \"Process\"); "
            f"found {len(failed)} such line(s) and {len(released)} 'Released Lease'"
        )
    else:
        assert released, (
            "the operator released the Lease in the end (after more attempts than client-go "
            "makes) but did not log 'Released Lease'"
        )


#: How long the lease-stalled case's API proxy holds each of the leader's Lease writes: far
#: past the renew deadline (and the request timeout), so only the operator's own bound on a
#: renewal ends it.
STALL_S = 60.0


def _wait_replicas(admin: Kube, ns: str, replicas: int) -> None:
    """Wait until Deployment ``web`` asks for ``replicas``: the leader converged the change."""
    wait_for(
        lambda: admin.get("deployments", ns, "web"),
        lambda d: bool(d) and d["spec"]["replicas"] == replicas,
        CONVERGE_TIMEOUT,
        f"the leader to converge replicas {replicas}",
    )


@pytest.mark.modeldock_check("leader-failover", case="lease-stalled")
def test_stalled_renewal_steps_down(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """leader-failover[lease-stalled]: the leader's Lease writes stall (its API proxy holds
    each for a minute) while the rest of its requests are served. A renewal that has not
    succeeded within the renew deadline has failed, however long its request would take: the
    leader must stop leading then, before the standby may take the Lease at its expiry. Once
    the standby holds the Lease, three spec changes are written, and tried, by the standby
    alone.

    A leader that waits for its renewal's answer instead (a request bounded by nothing, or by
    a request timeout longer than the renew deadline) keeps its workers running after its
    lease ran out and the standby took over: two writers. A partition of the whole connection
    hides this, since the old leader's writes stall with its renewal; a slow Lease write (an
    etcd hiccup on one key, a webhook on leases) does not. Who wrote is read from the request
    accounting, by instance.
    """
    user = impl.user
    leader = operators.start(leader_election=True, lease=LEASE, instance="a")
    first = wait_for(
        lambda: _spec(admin, namespace).get("holderIdentity") or "",
        bool,
        leader_timeout(LEASE),
        f"Lease {LEASE_NAME} to get a holder",
    )
    operators.start(leader_election=True, lease=LEASE, instance="b")
    create_modelservice(admin, namespace, "web", replicas=1)
    wait_converged(admin, namespace, "web")
    operators.proxy_of(leader).delay_writes(STALL_S, count=1000, resource="leases")
    second = wait_for(
        lambda: _spec(admin, namespace).get("holderIdentity") or "",
        lambda h: bool(h) and h != first,
        leader_timeout(LEASE) + RENEW_DEADLINE_S,
        "the standby to take the Lease the stalled leader could not renew",
    )
    t_takeover = audit.sync(admin)
    for replicas in (2, 3, 4):
        admin.patch("modelservices", namespace, "web", {"spec": {"replicas": replicas}})
        _wait_replicas(admin, namespace, replicas)
    time.sleep(LATE_WRITES_WAIT)
    writers: dict[str, list[str]] = {}
    for r in select(
        audit.requests(t_takeover, audit.sync(admin)),
        user=user,
        namespace=namespace,
        writes_only=True,
        resources=("modelservices", "deployments", "services"),
    ):
        writers.setdefault(r.instance or "(no instance identity)", []).append(r.describe())
    evidence.record("holders", [first, second])
    evidence.record("writes_after_takeover", writers)
    assert list(writers) == ["b"], (
        "after the standby (b) took the Lease the stalled leader (a) could not renew, only b "
        f"may write (or try to); the request accounting shows {writers}: a leader whose "
        "renewal has not succeeded within the renew deadline must stop, however long the "
        'request would take (CONTRACT.md, "Process")'
    )
