"""leader-failover: one writer at a time, and a fast, safe hand-over."""

from __future__ import annotations

import datetime
import json
import time
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.premises import set_up
from conformance.support import (
    APISERVER_SYNC_TIMEOUT,
    CONVERGE_TIMEOUT,
    LATE_WRITES_WAIT,
    LEADER_SLACK,
    OVERRUN_MARGIN,
    create_modelservice,
    first_within,
    leader_timeout,
    premise,
    present,
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
#: (lease duration, renew deadline, retry period) in seconds: short, so the check is quick, in
#: the proportions controller-runtime requires (duration > deadline > retry x 1.2).
LEASE = (8.0, 6.0, 1.0)
#: The bound of a takeover under LEASE: duration + retry period + LEADER_SLACK = 12 s.
TAKEOVER_BOUND_S = leader_timeout(LEASE)
#: How long the check waits for a takeover: past the bound, so a late one is measured.
TAKEOVER_WAIT_S = TAKEOVER_BOUND_S + OVERRUN_MARGIN


def _holder(admin: Kube, ns: str) -> str:
    lease = admin.get("leases", ns, LEASE_NAME)
    holder: str = ((lease or {}).get("spec") or {}).get("holderIdentity") or ""
    return holder


def _lease_spec(admin: Kube, ns: str) -> dict[str, Any]:
    """The Lease's spec ({} while there is none)."""
    lease = admin.get("leases", ns, LEASE_NAME)
    return dict((lease or {}).get("spec") or {})


#: The message of the line a leader logs once its Lease is released (CONTRACT.md, "Process"):
#: the same words in Go and Python.
RELEASED_MSG = "Released Lease"


def _released_lines(log: str) -> list[str]:
    """The lines of an operator's log (one JSON object per line) whose ``msg`` is RELEASED_MSG."""
    out = []
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("msg") == RELEASED_MSG:
            out.append(line)
    return out


#: The resources a reconcile writes (Lease and Event writes are the elector's, not reconciles).
RECONCILE_RESOURCES = ("modelservices", "deployments", "services")


def _writes_by_instance(
    audit: Accounting,
    admin: Kube,
    namespace: str,
    user: str,
    start: int,
    resources: tuple[str, ...] = RECONCILE_RESOURCES,
) -> dict[str, list[str]]:
    """The successful writes ``user`` made in ``namespace`` to ``resources`` since audit
    offset ``start``, by instance (its ``modeldock:instance:<name>`` group, from the API
    server's audit log): ``{instance: ["update deployments web -> 200", ...]}``. Decided by
    the API server, not by anything the instances report about themselves."""
    end = audit.sync(admin)
    out: dict[str, list[str]] = {}
    for r in select(
        audit.requests(start, end),
        user=user,
        namespace=namespace,
        writes_only=True,
        ok_only=True,
        resources=resources,
    ):
        out.setdefault(r.instance or "(no instance identity)", []).append(r.describe())
    return out


def _seen_writes(
    audit: Accounting, admin: Kube, namespace: str, user: str, start: int, what: str
) -> dict[str, list[str]]:
    """``_writes_by_instance`` once it shows at least one write: the caller saw the effect of
    a write (``what``), and on a loaded machine the audit event of a request can land just
    after the sync marker that was sent after it. A premise: if no write ever shows within
    APISERVER_SYNC_TIMEOUT, the accounting, not the operator, is at fault."""
    return wait_for(
        lambda: _writes_by_instance(audit, admin, namespace, user, start),
        bool,
        APISERVER_SYNC_TIMEOUT,
        f"the request accounting to show the writes of {what}",
        premise=True,
    )


#: How many Lease reads a follower may make after the dead leader's lease ran out before its
#: own write takes the Lease: the elector reads once a retry period, and counts the lease from
#: when *it* saw the last renewal (at most one retry period late, with jitter), so the read
#: that finds the lease expired is its first or second after the expiry, and the write comes
#: right after it; one more for the API server's clock granularity. Counted, not timed: a
#: follower starved of CPU on a loaded machine reads less often, never more, so only an
#: elector that waits past the expiry (or ignores what it read) can exceed it.
MAX_READS_AFTER_EXPIRY = 3


def _audit_seconds(stamp: str) -> float:
    """An audit event's requestReceivedTimestamp (RFC 3339, e.g. 2026-12-03T07:00:01.234567Z)
    as seconds since the epoch."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _reads_after_expiry(
    audit: Accounting,
    admin: Kube,
    namespace: str,
    user: str,
    start: int,
    leader: str,
    follower: str,
    duration: float,
) -> dict[str, Any]:
    """From the API server's audit log since offset ``start``: the ``leader`` instance's last
    successful Lease write, when its lease ran out (that write's time + ``duration`` seconds),
    the ``follower``'s first successful Lease write after it (the takeover), and the
    follower's Lease reads between the expiry and the takeover. All times are the API
    server's; ``{"reads_after_expiry": None}`` when the log has no takeover write."""
    end = audit.sync(admin)
    lease = select(
        audit.requests(start, end), user=user, namespace=namespace, resources=("leases",)
    )
    renewals = [r for r in lease if r.instance == leader and r.is_write and 200 <= r.code < 300]
    if not renewals:
        return {"reads_after_expiry": None, "why": f"no Lease write by {leader} in the audit log"}
    expiry = _audit_seconds(renewals[-1].time) + duration
    takeover = next(
        (
            r
            for r in lease
            if r.instance == follower
            and r.is_write
            and 200 <= r.code < 300
            and _audit_seconds(r.time) > expiry - duration
        ),
        None,
    )
    if takeover is None:
        return {"reads_after_expiry": None, "why": f"no Lease write by {follower} after the kill"}
    took = _audit_seconds(takeover.time)
    reads = [
        r
        for r in lease
        if r.instance == follower and not r.is_write and expiry < _audit_seconds(r.time) < took
    ]
    return {
        "reads_after_expiry": len(reads),
        "last_renewal": renewals[-1].time,
        "takeover": takeover.time,
        "takeover_after_expiry_s": round(took - expiry, 2),
    }


def _lease_writer(audit: Accounting, admin: Kube, namespace: str, user: str, start: int) -> str:
    """The instance that last wrote the Lease successfully since ``start``: its holder."""
    end = audit.sync(admin)
    writes = select(
        audit.requests(start, end),
        user=user,
        namespace=namespace,
        writes_only=True,
        ok_only=True,
        resources=("leases",),
    )
    return writes[-1].instance if writes else ""


@pytest.mark.modeldock_check("leader-failover")
def test_leader_failover(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """With leader election on, of two running instances only the Lease holder reconciles;
    when it is SIGKILLed the other takes over as soon as the lease has run out (judged from
    the audit log: at most MAX_READS_AFTER_EXPIRY of its Lease reads after the dead leader's
    last renewal + the lease duration, not by the harness's clock, which a loaded machine
    stretches), and when it is SIGTERMed it releases the Lease so the other takes over at once.

    Two active instances would race each other's writes and double every side effect, so
    replicas of an operator elect a leader through a Lease. A crashed leader cannot say it is
    gone: the others must wait for its lease to expire, no longer. A leader that stops on
    purpose should hand over immediately, by releasing the Lease, instead of leaving the
    controller headless for a whole lease duration during every rolling update. Each instance
    runs with its own client certificate (same user, its own group), so the API server's
    audit log says which instance made every write. Until the kill the Lease keeps its first
    holder and its leaseTransitions: a standby never takes a Lease its holder still renews
    (mutants takes-live-lease, takes-live-lease-go), and after the kill it takes the Lease no
    sooner than the dead leader's last renewal + the lease duration, by the API server's clock
    (mutants shortens-lease, shortens-lease-go); and the leader stopped by SIGTERM logs
    that it released the Lease (msg ``Released Lease``, the same in both operators; mutants
    release-unreported, release-unreported-go).
    """
    duration, _deadline, retry = LEASE
    user = impl.user
    t_start = audit.sync(admin)
    a = operators.start(leader_election=True, lease=LEASE, instance="a")
    b = operators.start(leader_election=True, lease=LEASE, instance="b")
    first = wait_for(
        lambda: _holder(admin, namespace),
        bool,
        TAKEOVER_BOUND_S,
        f"Lease {LEASE_NAME} to get a holder",
    )
    transitions = _lease_spec(admin, namespace).get("leaseTransitions", 0)
    create_modelservice(admin, namespace, "web", replicas=1)
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    time.sleep(LATE_WRITES_WAIT)
    # A standby never takes a Lease its holder renews: same holder, no transition since.
    spec = _lease_spec(admin, namespace)
    evidence.record(
        "lease_before_failover",
        {
            "holder": spec.get("holderIdentity"),
            "leaseTransitions": spec.get("leaseTransitions", 0),
            "leaseTransitions_at_first_holder": transitions,
        },
    )
    assert spec.get("holderIdentity") == first and spec.get("leaseTransitions", 0) == transitions, (
        f"while its first holder ({first}) ran and renewed it, Lease {LEASE_NAME} changed "
        f"hands: holder now {spec.get('holderIdentity')!r}, leaseTransitions "
        f"{transitions} -> {spec.get('leaseTransitions', 0)}. A standby may take the Lease "
        'only once it has seen no renewal for a lease duration (CONTRACT.md, "Process")'
    )

    writers = _seen_writes(audit, admin, namespace, user, t_start, "the first convergence")
    holder = _lease_writer(audit, admin, namespace, user, t_start)
    evidence.record("writes_before_failover", writers)
    evidence.record("first_holder", {"identity": first, "instance": holder})
    assert list(writers) == [holder], (
        f"exactly one instance, the Lease holder ({holder or 'none'}), must reconcile; the "
        f"audit log shows writes by {sorted(writers)}: {writers}"
    )
    leader, follower = (a, b) if holder == "a" else (b, a)
    # SIGKILL: no release; the follower waits out the lease, then takes over.
    t0 = time.monotonic()
    leader.kill()
    t_kill = audit.sync(admin)
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    second = wait_for(
        lambda: _holder(admin, namespace),
        lambda h: bool(h) and h != first,
        TAKEOVER_WAIT_S,
        "the follower to take the Lease",
    )
    kill_takeover = time.monotonic() - t0
    evidence.record("takeover_after_sigkill_s", round(kill_takeover, 2))
    evidence.record("sigkill_bound_s", TAKEOVER_BOUND_S)
    wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"]["replicas"] == 2,
        CONVERGE_TIMEOUT,
        "the new leader to converge the change made during the failover",
    )
    writers = _seen_writes(audit, admin, namespace, user, t_kill, "replicas 2 after the failover")
    evidence.record("writes_after_sigkill", writers)
    assert list(writers) == [follower.instance], (
        f"after the leader ({leader.instance}) was killed only the new leader "
        f"({follower.instance}) may write; the audit log shows {writers}"
    )
    expiry = _reads_after_expiry(
        audit, admin, namespace, user, t_start, leader.instance, follower.instance, duration
    )
    evidence.record("takeover_after_lease_expiry", expiry)
    premise(
        expiry["reads_after_expiry"] is not None,
        f"the audit log should show the dead leader's last Lease write and the follower's "
        f"takeover: {expiry.get('why')}",
    )
    assert expiry["reads_after_expiry"] <= MAX_READS_AFTER_EXPIRY, (
        f"after the leader ({leader.instance}) was killed its lease ran out at "
        f"{expiry['last_renewal']} + {duration}s, and the follower ({follower.instance}) read "
        f"the Lease {expiry['reads_after_expiry']} times after that before taking it (at "
        f"most {MAX_READS_AFTER_EXPIRY}: a read once a retry period, {retry}s, takes an "
        f"expired Lease at the first or second read); took {kill_takeover:.1f}s by the "
        f"harness's clock"
    )
    # Nor sooner: the follower counts the lease from when it saw the last renewal, after that
    # write reached the API server. The margin of one retry period is the audit's (its times
    # are when a request arrived), not the operator's.
    assert expiry["takeover_after_expiry_s"] >= -retry, (
        f"after the leader ({leader.instance}) was killed the follower ({follower.instance}) "
        f"took the Lease at {expiry['takeover']}, {-expiry['takeover_after_expiry_s']}s before "
        f"the lease ran out ({expiry['last_renewal']} + {duration}s): a standby may take a "
        'Lease only once it has seen no renewal for a lease duration (CONTRACT.md, "Process")'
    )

    # A standby does not reconcile: a change while it runs is written by the leader alone.
    standby = operators.start(leader_election=True, lease=LEASE, instance="c")
    t_standby = audit.sync(admin)
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 3}})
    wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"]["replicas"] == 3,
        CONVERGE_TIMEOUT,
        "the leader to converge replicas 3",
    )
    wait_converged(admin, namespace, "web")
    time.sleep(LATE_WRITES_WAIT)
    writers = _seen_writes(audit, admin, namespace, user, t_standby, "replicas 3 with a standby")
    evidence.record("writes_with_standby", writers)
    assert list(writers) == [follower.instance], (
        f"with a standby ({standby.instance}) running, only the leader ({follower.instance}) "
        f"may write; the audit log shows {writers}"
    )

    # SIGTERM: the leader releases the Lease; the standby takes over well before it would expire.
    t1 = time.monotonic()
    code = follower.terminate()
    evidence.record("sigterm_exit_code", code)
    third = wait_for(
        lambda: _holder(admin, namespace),
        lambda h: bool(h) and h != second,
        TAKEOVER_WAIT_S,
        "the standby to take the released Lease",
    )
    release_takeover = time.monotonic() - t1
    evidence.record("takeover_after_sigterm_s", round(release_takeover, 2))
    evidence.record("holders", [first, second, third])
    assert code == 0, f"SIGTERM must stop the operator cleanly (exit 0), got {code}"
    released = _released_lines(follower.log_text())
    evidence.record("released_lines", released[:2])
    assert released, (
        f"the leader ({follower.instance}) stopped on SIGTERM and its Lease was given up, but "
        f"its log has no line {RELEASED_MSG!r}: a release that succeeded is "
        'reported as one (CONTRACT.md, "Process")'
    )
    # Without a release the standby takes over only once the Lease has expired: no sooner than
    # lease duration - retry period after the signal, since the leader renewed at most one
    # retry period before it. Sooner can only be a release. (Half the lease duration, the bound
    # before, was met by a release that a loaded machine slowed: 6.2 s.)
    assert release_takeover < duration - retry, (
        f"after SIGTERM the Lease must be released so the standby takes over before it could "
        f"have expired; it took {release_takeover:.1f}s, and a takeover on expiry comes no "
        f"sooner than lease duration {duration}s - retry period {retry}s after the signal"
    )
    t_term = audit.sync(admin)
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 4}})
    wait_for(
        lambda: admin.get("deployments", namespace, "web"),
        lambda d: d["spec"]["replicas"] == 4,
        CONVERGE_TIMEOUT,
        "the standby, now leader, to converge",
    )
    writers = _seen_writes(audit, admin, namespace, user, t_term, "replicas 4 after the hand-over")
    evidence.record("writes_after_sigterm", writers)
    assert list(writers) == [standby.instance], (
        f"after the hand-over only the new leader ({standby.instance}) may write; the audit "
        f"log shows {writers}"
    )


#: The taking-over instance's Lease in the partitioned-leader case: a long duration, so that
#: once it is killed nobody may hold the Lease (and write) for a while: the zombie window.
OTHER_LEASE = (30.0, 20.0, 1.0)
#: How long the zombie window stays open: well inside OTHER_LEASE's duration.
ZOMBIE_WINDOW_S = 15.0


@pytest.mark.modeldock_check("leader-failover", case="partitioned-leader")
def test_partitioned_leader_steps_down(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    tmp_path: Path,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """leader-failover[partitioned-leader]: the leader is cut off from the API server while it
    keeps running (its connections silently stalled), so it cannot renew its Lease. The other
    instance takes over once the lease expires. When the old leader's connections come back it
    must not reconcile again: a leader that could not renew within its renew deadline must
    stop (controller-runtime exits the process). Otherwise two instances act at once, the
    split brain leader election exists to prevent.

    Who wrote is decided by the API server: each instance has its own client certificate
    (same user, its own group), and the audit log attributes every write to one instance.
    After the partition heals, the new leader converges a change; then it is killed, so its
    Lease (30 s) is still held and no instance may write, and the spec changes again: any
    write by the old leader from the heal on is a zombie's.
    """
    from harness.envtest.kubeconfig import with_server
    from harness.faults.tcpproxy import FaultProxy

    user = impl.user
    # operator -> TCP fault -> the leader's own API proxy -> API server: the partition is the
    # operator's own connection, and its requests are still accounted.
    api = operators.api_proxy(instance="leader")
    host, port = api.address.rsplit(":", 1)
    proxy = FaultProxy((host, int(port))).start()
    try:
        t_start = audit.sync(admin)
        proxied = with_server(api.kubeconfig, tmp_path / "leader.kubeconfig", proxy.address)
        operators.start(
            leader_election=True, lease=LEASE, kubeconfig=proxied, instance="leader", api_proxy=api
        )
        first = wait_for(
            lambda: _holder(admin, namespace),
            bool,
            TAKEOVER_BOUND_S,
            f"Lease {LEASE_NAME} to get a holder",
        )
        other = operators.start(leader_election=True, lease=OTHER_LEASE, instance="other")
        create_modelservice(admin, namespace, "web", replicas=1)
        wait_converged(admin, namespace, "web")
        time.sleep(LATE_WRITES_WAIT)
        writers = _writes_by_instance(audit, admin, namespace, user, t_start)
        evidence.record("writes_before_partition", writers)
        premise(
            list(writers) == ["leader"],
            f"the proxied instance must be the leader (and the only writer) before the "
            f"partition; the audit log shows writes by {writers}",
        )

        proxy.stall(True)
        t0 = time.monotonic()
        second = wait_for(
            lambda: _holder(admin, namespace),
            lambda h: bool(h) and h != first,
            TAKEOVER_WAIT_S,
            "the other instance to take the Lease",
        )
        evidence.record("takeover_after_partition_s", round(time.monotonic() - t0, 2))
        evidence.record("holders", [first, second])
        proxy.stall(False)
        t_heal = audit.sync(admin)
        admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
        wait_for(
            lambda: admin.get("deployments", namespace, "web"),
            lambda d: d["spec"]["replicas"] == 2,
            CONVERGE_TIMEOUT,
            "the new leader to converge the change",
        )

        # The new leader goes; its Lease stays held, so nobody may write for a while. A zombie
        # acts on the next change (it is the only instance left running that could).
        other.kill()
        admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 3}})
        zombie = (
            first_within(
                lambda: _writes_by_instance(audit, admin, namespace, user, t_heal).get(
                    "leader", []
                ),
                bool,
                ZOMBIE_WINDOW_S,
                "a write by the old leader",
            )
            or []
        )
        writers = _writes_by_instance(audit, admin, namespace, user, t_heal)
        evidence.record("writes_after_heal", writers)
        assert not zombie, (
            f"the partitioned leader wrote after losing its Lease: {zombie}; it must stop when "
            "it cannot renew"
        )
        premise(
            writers.get("other"),
            "the new leader made no write after the partition healed: "
            "the experiment did not converge the change through it",
        )
    finally:
        proxy.stop()


#: How long the lost-while-busy case's API proxy holds the leader's Deployment update: longer
#: than the contract's 35 s bound on a request, so the operator's own client gives up first.
BUSY_HOLD_S = 60.0
#: Who takes the Lease in the lost-while-busy case: the harness itself, for an hour.
THIEF = "modeldock-harness-thief"


#: How many times the harness reads the Lease again when its takeover meets 409 Conflict.
TAKE_ATTEMPTS = 5


def _take_lease(admin: Kube, namespace: str) -> None:
    """Make ``THIEF`` the holder of Lease ``LEASE_NAME`` for an hour, as another instance
    would: read, then update with the read's resourceVersion.

    The leader renews every retry period, so a renewal can land between the read and the
    update, which the API server then refuses with 409; the harness reads again and retries
    (client-go's retry.RetryOnConflict), at most TAKE_ATTEMPTS times. Returns once an update
    was accepted. Raises ApiException for any other refusal, or for the last 409.
    """
    for attempt in range(TAKE_ATTEMPTS):
        lease = present(admin.get("leases", namespace, LEASE_NAME), f"Lease {LEASE_NAME}")
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        lease["spec"].update(
            holderIdentity=THIEF, leaseDurationSeconds=3600, acquireTime=now, renewTime=now
        )
        try:
            admin.update("leases", lease)
            return
        except ApiException as exc:
            if exc.status != 409 or attempt == TAKE_ATTEMPTS - 1:
                raise


@pytest.mark.modeldock_check("leader-failover", case="lost-while-busy")
def test_lost_lease_while_busy(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """leader-failover[lost-while-busy]: a leader that loses its Lease while a worker is
    inside a reconcile, held in a write, exits at once; it does not wait for that reconcile.

    Losing the Lease means another instance may already be writing: graceful shutdown is
    skipped (controller-runtime sets its timeout to 0 and exits, "leader election lost"), and
    every further write of the old leader is a split brain's. A stop that waits for the
    workers without a bound (a wait meant for SIGTERM, or a deadline computed wrongly) keeps
    the process, and its reconcile in flight, alive until that request ends. Here the
    leader's API proxy holds its update of Deployment ``web`` (a replicas change) for 60 s
    (BUSY_HOLD_S); then the harness takes the Lease (holder ``modeldock-harness-thief``, an
    hour long), so every renewal fails. The process must exit within the takeover bound of
    the Lease (lease duration, one retry period and the slack: TAKEOVER_BOUND_S, measured
    from the theft; the check waits TAKEOVER_WAIT_S to report how late), long before the
    held write could be answered or given up (the operator's own client gives up after 35 s).
    """
    op = operators.start(leader_election=True, lease=LEASE)
    holder = wait_for(
        lambda: _holder(admin, namespace),
        bool,
        TAKEOVER_BOUND_S,
        f"Lease {LEASE_NAME} to get a holder",
    )
    create_modelservice(admin, namespace, "web", replicas=1)
    set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    proxy = operators.proxy_of(op)
    proxy.delay_writes(BUSY_HOLD_S, 1, resource="deployments", name="web")
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    wait_for(
        lambda: proxy.stats().get("writes_holding", 0),
        bool,
        CONVERGE_TIMEOUT,
        "the leader's update of Deployment web to be held by its API proxy",
        premise=True,
    )
    _take_lease(admin, namespace)
    taken = time.monotonic()
    try:
        code = op.wait_exit(TAKEOVER_WAIT_S)
    finally:
        proxy.release_writes()
    took = time.monotonic() - taken
    evidence.record("holders", [holder, THIEF])
    evidence.record("exit_code", code)
    evidence.record("exit_after_lease_taken_s", round(took, 2))
    assert took <= TAKEOVER_BOUND_S, (
        f"the leader exited {took:.1f}s after its Lease was taken; the bound is "
        f"{TAKEOVER_BOUND_S:.0f}s (renew deadline, a retry period and the slack): it waited for "
        "its reconcile in flight, held by its API proxy, instead of exiting at once"
    )
    assert code != 0, f"a leader that lost its Lease must exit with an error, not {code}"


#: The release-conflict case's Lease: renewals 10 s apart, so that the writes the proxy
#: answers with 409 (armed just after the leader's first renewal, SIGTERM right after) are the
#: release's, not a renewal.
RELEASE_RETRY_S = 10.0
RELEASE_LEASE = (30.0, 20.0, RELEASE_RETRY_S)
#: How many release writes in a row the proxy refuses with 409: one fewer than the attempts
#: client-go's retry.DefaultRetry makes (5), so only the last attempt may succeed.
RELEASE_CONFLICTS = 4


@pytest.mark.modeldock_check("leader-failover", case="release-conflict")
def test_release_survives_a_conflict(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
) -> None:
    """leader-failover[release-conflict]: a leader told to stop (SIGTERM) releases its Lease
    even when its first four release writes are refused with 409 Conflict.

    A release is a read of the Lease, then an update that empties its holder. A renewal the
    shutdown cancelled can still reach the API server after that read, and the update then
    carries a stale resourceVersion: 409. An operator that gives up there exits cleanly and
    leaves the Lease held, so every standby waits out the whole lease duration (30 s here)
    before it may take over: the headless gap the release exists to avoid. client-go's answer
    to a 409 is to read again and retry (retry.RetryOnConflict, 5 attempts in all). Here the
    operator's API proxy answers the first four Lease writes after the SIGTERM
    with 409 without forwarding them, which is what the API server says in that race; once
    the operator has exited, the Lease must have no holder (mutants release-gives-up,
    release-tries-twice and their Go twins).
    """
    op = operators.start(leader_election=True, lease=RELEASE_LEASE)
    holder = wait_for(
        lambda: _holder(admin, namespace),
        bool,
        TAKEOVER_BOUND_S,
        f"Lease {LEASE_NAME} to get a holder",
    )
    proxy = operators.proxy_of(op)

    def renewals() -> list[str]:
        return [
            r.start
            for r in RequestLog(proxy.request_log).records()
            if r.resource == "leases" and r.verb == "update" and r.code == 200
        ]

    # client-go renews at once after acquiring (wait.Until runs its function first), then
    # every retry period: arm the 409s after that first renewal, so that the next Lease writes
    # are the release's, 10 s before any other renewal.
    wait_for(
        renewals,
        bool,
        RELEASE_RETRY_S + LEADER_SLACK,
        "the leader's first renewal of the Lease",
        premise=True,
    )
    for n in range(1, RELEASE_CONFLICTS + 1):
        proxy.inject_write_error(n, 409, resources=["leases"])
    signalled = time.time()
    code = op.terminate()
    lease = admin.get("leases", namespace, LEASE_NAME) or {}
    writes = [
        r
        for r in RequestLog(proxy.request_log).records()
        if r.resource == "leases" and r.verb != "watch"
    ]
    after = [r for r in writes if seconds(r.start) >= signalled]
    evidence.record(
        "lease_requests_after_sigterm",
        [f"{r.verb} {r.code}{' (scripted)' if r.injected else ''}" for r in after],
    )
    evidence.record("sigterm_exit_code", code)
    evidence.record(
        "lease_after_exit",
        {
            "holderIdentity": (lease.get("spec") or {}).get("holderIdentity") or "",
            "leaseDurationSeconds": (lease.get("spec") or {}).get("leaseDurationSeconds"),
        },
    )
    refused = [r for r in writes if r.injected]
    premise(
        not refused or seconds(refused[0].start) >= signalled,
        "the scripted 409 must answer a Lease write made after the SIGTERM (the release); it "
        f"answered a {refused[0].verb if refused else ''} at "
        f"{refused[0].start if refused else ''}, before the SIGTERM (at {signalled:.3f}): a "
        "renewal",
    )
    assert code == 0, f"SIGTERM must stop the operator cleanly (exit 0), got {code}"
    left = (lease.get("spec") or {}).get("holderIdentity") or ""
    assert refused or not left, (
        f"after SIGTERM the operator wrote no Lease and it still names {left!r}: the leader "
        "must release the Lease it holds when told to stop"
    )
    assert not left, (
        f"after SIGTERM the Lease still names {left!r} (it was {holder!r}): the release met "
        f"409 Conflict ({len(refused)} of the {RELEASE_CONFLICTS} scripted) and gave up; it "
        "must read the Lease again and retry, 5 attempts in all, or every standby waits out "
        f"the whole lease ({RELEASE_LEASE[0]:.0f} s)"
    )
