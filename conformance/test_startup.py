"""Starting before the CRD: the operator waits for its custom resource, it does not crash.

Installing the CRD before the operator is the documented order, and not always the order a
cluster sees: a Helm chart that puts the CRD in a template, a GitOps sync that applies the
Deployment first, a CRD upgrade that deletes and re-creates it. An operator that exits when its
CRD is missing crash-loops until someone notices; one that retries without backing off floods
the API server from every replica. The contract (CONTRACT.md, "Process") asks for a wait with
a capped exponential backoff, the process alive meanwhile, and convergence once the CRD is
there, without a restart.

The CRD is cluster-scoped, so removing it would break every other check on the shared control
plane: this check runs on a private one (the ``isolated`` fixture), started without the CRD
(``ControlPlane(crds=False)``), before it starts the operator.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.support import CONVERGE_TIMEOUT, create_modelservice, premise, wait_converged
from harness.accounting_check import ACCOUNTING_SCOPE_PROPERTY
from harness.envtest.controlplane import CRD_DIR
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import Isolated, IsolatedLab
from harness.operators import OperatorProcess
from harness.plugin.evidence import Evidence

#: The CRD, and its API group: every request about it names the group (the proxy parses it from
#: the path, ``/apis/modeldock.io/...``, discovery included).
GROUP = "modeldock.io"

#: The contract's wait for the CRD (CONTRACT.md, "Process"): the first delay in seconds,
#: doubled after each attempt, and its cap.
CRD_RETRY_INITIAL_S = 0.8
CRD_RETRY_CAP_S = 30.0

#: Attempts the check watches before it installs the CRD, and the least time it watches them
#: for (seconds since the first attempt): enough for the gaps to grow (0.8 + 1.6 + 3.2 + 6.4 s
#: under the contract's backoff), and enough for a retry loop without backoff to show itself
#: in numbers no load can explain.
ATTEMPTS_WATCHED = 5
WATCHED_AT_LEAST_S = 5.0

#: How long the check waits for those attempts, seconds: the contract's backoff makes five in
#: 12 s; the rest is for a loaded machine, and it still fails an operator that polls once a
#: minute.
ATTEMPTS_TIMEOUT_S = 240.0

#: How long an operator waiting for its CRD may take to exit after SIGTERM, seconds: the
#: contract's 10 s for a signal before the caches synced (CONTRACT.md, "Process"); it has
#: started nothing, so it has nothing to wait for (both operators take under half a second).
WAITING_STOP_S = 10.0

#: Attempts allowed beyond what the contract's backoff makes in the same span (a slow answer,
#: a retry of the client itself).
ATTEMPTS_SLACK = 3


def allowed_attempts(span: float) -> int:
    """The most attempts a wait with the contract's backoff makes in ``span`` seconds from its
    first attempt to its last, plus ATTEMPTS_SLACK: attempt n (from 0) comes
    CRD_RETRY_INITIAL_S·(2ⁿ−1) seconds after the first, so n attempts need
    span ≥ CRD_RETRY_INITIAL_S·(2ⁿ⁻¹−1), i.e. n ≤ log2(span / CRD_RETRY_INITIAL_S + 1) + 1.
    Retrying every 100 ms makes 50 in 5 s, where this allows 6."""
    return math.floor(math.log2(span / CRD_RETRY_INITIAL_S + 1)) + 1 + ATTEMPTS_SLACK


def _crd_requests(op: OperatorProcess) -> list[ProxyRequest]:
    """The operator's requests about the ModelService API (discovery of modeldock.io, or a
    list or watch of modelservices) that reached its API proxy, in arrival order."""
    log = op.request_log
    premise(log is not None, f"{op.impl.id} operator runs behind no API proxy: no request log")
    assert log is not None
    return [r for r in RequestLog(log).records() if r.start and r.group == GROUP]


def _served(admin: Kube) -> bool:
    """Whether the API server's discovery serves modeldock.io/v1alpha1 (as admin)."""
    try:
        admin.request("GET", f"/apis/{GROUP}/v1alpha1")
    except ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return True


@contextlib.contextmanager
def _without_crd(isolated: Isolated) -> Iterator[IsolatedLab]:
    """A private lab whose control plane does not serve the ModelService CRD (started
    without it; discovery checked as a premise). On the way out the CRD is applied if it is
    still absent, so that the artifacts of a failure (the namespace's ModelServices) can be
    read. (Deleting the CRD from a plane started with it took over 60 s once, with two make
    test steps on 2 cores: the CRD's cleanup finalizer waits for the API server's own
    controllers.)"""
    lab = isolated.new(crds=False)
    cp, admin = lab.control_plane, lab.admin
    wait_for(
        lambda: not _served(admin),
        lambda gone: gone,
        CONVERGE_TIMEOUT,
        "discovery to stop serving modeldock.io/v1alpha1",
        premise=True,
    )
    try:
        yield lab
    finally:
        if not _served(admin):
            cp.apply_paths([CRD_DIR])


@pytest.mark.modeldock_check("waits-for-crd")
def test_waits_for_crd(isolated: Isolated, evidence: Evidence) -> None:
    """An operator started before its CRD is installed waits for it, retrying with a growing
    backoff, stays alive, and converges once the CRD is applied, without a restart.

    On a private control plane the harness deletes the ModelService CRD, then starts the
    operator (not waiting for /readyz, which cannot come). Its requests in API group
    ``modeldock.io`` on its API proxy (discovery, or a list) are its attempts: the check
    watches until it has made five and at least five seconds have passed since the first, or
    it exited. Judged
    there: the process still runs and answers /healthz; it asked again (at least five times);
    the gaps grow (the last of the first five is at least twice the first); and it made no
    more attempts than the contract's backoff (0.8 s doubling to 30 s) allows in the span it
    took, plus three (``allowed_attempts``). Then the CRD is applied and a ModelService
    created: it converges within the backoff's cap plus the usual bound, and the operator never
    exited. An operator that exits (mutants exits-without-crd, exits-without-crd-go) or
    retries every 50 ms (hot-retries-crd, hot-retries-crd-go) fails.
    """
    with _without_crd(isolated) as lab:
        _judge(lab, evidence)


def _judge(lab: IsolatedLab, evidence: Evidence) -> None:
    """The body of waits-for-crd once the CRD is gone: the operator started, its attempts
    judged, the CRD applied and a ModelService converged."""
    cp, admin = lab.control_plane, lab.admin
    op = lab.operators.start(wait_ready=False)
    watched = wait_for(
        lambda: (_crd_requests(op), op.running()),
        lambda seen: (
            not seen[1]
            or (
                len(seen[0]) >= ATTEMPTS_WATCHED
                and seconds(seen[0][-1].start) - seconds(seen[0][0].start) >= WATCHED_AT_LEAST_S
            )
        ),
        ATTEMPTS_TIMEOUT_S,
        f"{ATTEMPTS_WATCHED} attempts of the operator to find the CRD, over at least "
        f"{WATCHED_AT_LEAST_S:g}s",
    )
    attempts = watched[0]
    times = [seconds(r.start) for r in attempts]
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
    evidence.record(
        "attempts", [f"{r.verb} {r.path or r.resource} -> {r.code}" for r in attempts[:8]]
    )
    evidence.record("attempt_gaps_s", gaps[:20])
    evidence.record("attempt_count", len(attempts))
    alive = op.running()
    evidence.record("alive_while_absent", {"running": alive, "returncode": op.returncode()})
    assert alive, (
        f"the operator exited (code {op.returncode()}) while its CRD was not installed; it "
        f"must wait for it: {len(attempts)} attempts {gaps[:10]}"
    )
    assert op.healthy(), "the operator does not answer /healthz while it waits for its CRD"
    assert len(attempts) >= ATTEMPTS_WATCHED, f"attempts: {attempts}"
    span = times[-1] - times[0]
    allowed = allowed_attempts(span)
    evidence.record("allowed_attempts", {"span_s": round(span, 3), "allowed": allowed})
    assert len(attempts) <= allowed, (
        f"{len(attempts)} attempts to find the CRD in {span:.1f}s, where a backoff of "
        f"{CRD_RETRY_INITIAL_S:g}s doubling allows {allowed}: a retry loop without backoff "
        f"(gaps {gaps[:10]} ...)"
    )
    first = gaps[: ATTEMPTS_WATCHED - 1]
    assert first[-1] >= 2 * first[0], (
        f"the gaps between the first {ATTEMPTS_WATCHED} attempts do not grow: {first} "
        f"(the contract's backoff doubles each)"
    )

    cp.apply_paths([CRD_DIR])
    cp.wait_crds_established()
    premise(_served(admin), "the re-applied CRD should be served")
    create_modelservice(admin, lab.namespace, "web", replicas=1)
    msvc: dict[str, Any] = wait_converged(
        admin, lab.namespace, "web", timeout=CRD_RETRY_CAP_S + CONVERGE_TIMEOUT
    )
    evidence.record("converged_generation", msvc["status"].get("observedGeneration"))
    assert op.running(), f"the operator exited (code {op.returncode()}) after the CRD came"


@pytest.mark.modeldock_check("waits-for-crd", case="signal-while-waiting")
def test_signal_while_waiting_for_crd(
    isolated: Isolated, evidence: Evidence, record_property: Callable[[str, object], None]
) -> None:
    """waits-for-crd[signal-while-waiting]: an operator waiting for its CRD stops on SIGTERM,
    exit code 0, within seconds: the wait, however long its backoff, listens for the signal.

    A rollout or a delete of the operator's Deployment sends SIGTERM while the CRD is still
    missing as easily as at any other time; a wait that does not listen for it holds the Pod
    until the kubelet SIGKILLs it after its grace period (30 s by default), on every rollout.
    On a private control plane without the CRD the operator is started, the check waits for
    its second attempt on its API proxy (so it is inside the wait, sleeping a backoff), sends
    SIGTERM and allows WAITING_STOP_S (10 s, the contract's bound for a signal before the
    caches synced). Both operators exit 0 in under half a second; a wait that sleeps without
    listening (mutants deaf-while-waiting-crd, deaf-while-waiting-crd-go) never returns.
    """
    # The operator is stopped before the CRD exists: its only requests are discovery reads
    # outside every namespace, so request accounting has nothing in scope to compare.
    record_property(ACCOUNTING_SCOPE_PROPERTY, "cluster-scoped discovery only, by design")
    with _without_crd(isolated) as lab:
        op = lab.operators.start(wait_ready=False)
        seen = wait_for(
            lambda: (_crd_requests(op), op.running()),
            lambda seen: not seen[1] or len(seen[0]) >= 2,
            ATTEMPTS_TIMEOUT_S,
            "a second attempt of the operator to find the CRD",
        )
        evidence.record("attempts_before_sigterm", len(seen[0]))
        assert seen[1], f"the operator exited (code {op.returncode()}) while waiting for its CRD"
        code = op.terminate(timeout=WAITING_STOP_S)
        evidence.record("sigterm_exit_code", code)
        assert code == 0, (
            "after SIGTERM the operator waiting for its CRD "
            + (
                f"did not exit within {WAITING_STOP_S:.0f} s and was SIGKILLed"
                if code == -9
                else f"exited with code {code}"
            )
            + ": a wait for the CRD must end on a stop request, and exit 0"
        )
