"""leader-failover: one writer at a time, and a fast, safe hand-over."""

from __future__ import annotations

import time

import pytest

from conformance.support import create_modelservice, wait_converged, wait_settled
from harness.kube import wait_for

LEASE_NAME = "modeldock.lab"
#: (lease duration, renew deadline, retry period) in seconds: short, so the check is quick, in
#: the proportions controller-runtime requires (duration > deadline > retry x 1.2).
LEASE = (8.0, 6.0, 1.0)
#: Allowance for polling and a loaded machine on top of the protocol's own bound.
SLACK_S = 3.0


def _holder(admin, ns):
    lease = admin.get("leases", ns, LEASE_NAME)
    return ((lease or {}).get("spec") or {}).get("holderIdentity") or ""


@pytest.mark.check("leader-failover")
def test_leader_failover(admin, namespace, operators, evidence):
    """With leader election on, of two running instances only the Lease holder reconciles;
    when it is SIGKILLed the other takes over within the lease duration plus a retry period,
    and when it is SIGTERMed it releases the Lease so the other takes over at once.

    Two active instances would race each other's writes and double every side effect, so
    replicas of an operator elect a leader through a Lease. A crashed leader cannot say it is
    gone: the others must wait for its lease to expire, no longer. A leader that stops on
    purpose should hand over immediately, by releasing the Lease, instead of leaving the
    controller headless for a whole lease duration during every rolling update.
    """
    duration, _deadline, retry = LEASE
    a = operators.start(leader_election=True, lease=LEASE)
    b = operators.start(leader_election=True, lease=LEASE)
    first = wait_for(lambda: _holder(admin, namespace), bool, duration + retry + SLACK_S,
                     f"Lease {LEASE_NAME} to get a holder")
    create_modelservice(admin, namespace, "web", replicas=1)
    wait_converged(admin, namespace, "web")
    counts = {"a": wait_settled(a), "b": wait_settled(b)}
    evidence.record("reconciles_before_failover", counts)
    evidence.record("first_holder", first)
    assert (counts["a"] > 0) != (counts["b"] > 0), \
        f"exactly one instance (the leader) must reconcile; reconcile counts {counts}"
    leader, follower = (a, b) if counts["a"] > 0 else (b, a)

    # SIGKILL: no release; the follower waits out the lease, then takes over.
    t0 = time.monotonic()
    leader.kill()
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
    second = wait_for(lambda: _holder(admin, namespace), lambda h: bool(h) and h != first,
                      duration + retry + SLACK_S + 30, "the follower to take the Lease")
    kill_takeover = time.monotonic() - t0
    evidence.record("takeover_after_sigkill_s", round(kill_takeover, 2))
    evidence.record("sigkill_bound_s", duration + retry + SLACK_S)
    wait_for(lambda: admin.get("deployments", namespace, "web"),
             lambda d: d["spec"]["replicas"] == 2, 60,
             "the new leader to converge the change made during the failover")
    wait_for(follower.reconcile_count, lambda c: c > 0, 30, "the new leader's reconcile count to rise")
    assert kill_takeover <= duration + retry + SLACK_S, (
        f"takeover after SIGKILL took {kill_takeover:.1f}s; the bound is lease duration "
        f"{duration}s + retry period {retry}s (+{SLACK_S}s slack)")

    # SIGTERM: the leader releases the Lease; a standby takes over well before it would expire.
    standby = operators.start(leader_election=True, lease=LEASE)
    assert wait_settled(standby) == 0, "a standby instance must not reconcile"
    t1 = time.monotonic()
    code = follower.terminate()
    evidence.record("sigterm_exit_code", code)
    third = wait_for(lambda: _holder(admin, namespace), lambda h: bool(h) and h != second,
                     duration + retry + SLACK_S + 30, "the standby to take the released Lease")
    release_takeover = time.monotonic() - t1
    evidence.record("takeover_after_sigterm_s", round(release_takeover, 2))
    evidence.record("holders", [first, second, third])
    assert code == 0, f"SIGTERM must stop the operator cleanly (exit 0), got {code}"
    assert release_takeover < duration / 2, (
        f"after SIGTERM the Lease must be released so the standby takes over at once; it took "
        f"{release_takeover:.1f}s (lease duration {duration}s)")
    admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 3}})
    wait_for(lambda: admin.get("deployments", namespace, "web"),
             lambda d: d["spec"]["replicas"] == 3, 60, "the standby, now leader, to converge")


@pytest.mark.check("leader-failover", case="partitioned-leader")
def test_partitioned_leader_steps_down(admin, namespace, operators, tmp_path, evidence):
    """leader-failover[partitioned-leader]: the leader is cut off from the API server while it
    keeps running (its connections silently stalled), so it cannot renew its Lease. The other
    instance takes over once the lease expires. When the old leader's connections come back it
    must not reconcile again: a leader that could not renew within its renew deadline must
    stop (controller-runtime exits the process). Otherwise two instances act at once, the
    split brain leader election exists to prevent."""
    from harness.faultproxy import FaultProxy, with_server

    duration, _deadline, retry = LEASE
    port = int(operators.kubeconfig.read_text().split("https://127.0.0.1:")[1].split()[0])
    proxy = FaultProxy(("127.0.0.1", port)).start()
    try:
        proxied = with_server(operators.kubeconfig, tmp_path / "leader.kubeconfig", proxy.address)
        leader = operators.start(leader_election=True, lease=LEASE, kubeconfig=proxied)
        first = wait_for(lambda: _holder(admin, namespace), bool, duration + retry + SLACK_S,
                         f"Lease {LEASE_NAME} to get a holder")
        other = operators.start(leader_election=True, lease=LEASE)
        create_modelservice(admin, namespace, "web", replicas=1)
        wait_converged(admin, namespace, "web")
        before = wait_settled(leader)
        assert before > 0 and wait_settled(other) == 0, "the proxied instance must be the leader"

        proxy.stall(True)
        t0 = time.monotonic()
        second = wait_for(lambda: _holder(admin, namespace), lambda h: bool(h) and h != first,
                          duration + retry + SLACK_S + 30, "the other instance to take the Lease")
        evidence.record("takeover_after_partition_s", round(time.monotonic() - t0, 2))
        evidence.record("holders", [first, second])
        proxy.stall(False)
        admin.patch("modelservices", namespace, "web", {"spec": {"replicas": 2}})
        wait_for(lambda: admin.get("deployments", namespace, "web"),
                 lambda d: d["spec"]["replicas"] == 2, 60, "the new leader to converge the change")
        # The old leader had its chance to act on the change; give a zombie time to reconnect.
        deadline = time.monotonic() + 20
        after = before
        while leader.running() and time.monotonic() < deadline:
            try:
                after = leader.reconcile_count()
            except Exception:
                break
            if after > before:
                break
            time.sleep(0.2)
        evidence.record("old_leader", {"running": leader.running(), "exit_code": leader.returncode(),
                                       "reconciles_before": before, "reconciles_after": after})
        assert after == before, (
            f"the partitioned leader reconciled after losing its Lease ({before} -> {after} "
            "reconciles): it must stop when it cannot renew")
    finally:
        proxy.stop()
