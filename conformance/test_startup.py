"""Starting: the operator waits for its custom resource (waits-for-crd), and refuses a
configuration it cannot use (config-refused).

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

A configuration is read once, at start. A value the operator cannot use (a Lease timing that
is no positive number of seconds, timings that contradict each other) is a mistake in the
Deployment that runs it, and the only place it is seen at once is the first log line of a
process that refuses to run; config-refused runs on the shared control plane, in its own
namespace, since a refusing operator sends nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.support import (
    CONVERGE_TIMEOUT,
    OPERATOR_START_TIMEOUT,
    create_modelservice,
    premise,
    wait_converged,
)
from harness.accounting_check import ACCOUNTING_SCOPE_PROPERTY
from harness.envtest.controlplane import CRD_DIR
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import Isolated, IsolatedLab, OperatorPool
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

#: How much longer than the contract's delays the first ATTEMPTS_WATCHED - 1 waits may take in
#: all, as a factor and seconds: a loaded machine delays each attempt and its answer (three
#: suites side by side: up to a second each), while a backoff that starts one doubling late
#: (1.6 s, not 0.8: 24 s in all) or at its cap takes twice as long or more.
WAITS_FACTOR = 1.25
WAITS_SLACK_S = 5.0


def contract_waits(count: int) -> float:
    """The contract's first ``count`` waits between attempts, summed, in seconds: 0.8 s doubled
    per attempt up to 30 s (CRD_RETRY_INITIAL_S, CRD_RETRY_CAP_S); 12.0 for four."""
    return float(sum(min(CRD_RETRY_CAP_S, CRD_RETRY_INITIAL_S * 2.0**n) for n in range(count)))


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


def _served_plurals(admin: Kube) -> set[str]:
    """The resources the API server's discovery lists in modeldock.io/v1alpha1 (as admin):
    none when it does not serve the group version (404)."""
    try:
        found = admin.request("GET", f"/apis/{GROUP}/v1alpha1")
    except ApiException as exc:
        if exc.status == 404:
            return set()
        raise
    return {str(r.get("name")) for r in found.get("resources") or [] if isinstance(r, dict)}


def _served(admin: Kube) -> bool:
    """Whether the API server's discovery serves modelservices in modeldock.io/v1alpha1."""
    return "modelservices" in _served_plurals(admin)


#: The decoy of waits-for-crd: another CRD of the ModelService's group and version, served
#: before the ModelService CRD is (a group whose CRDs are applied one by one), so discovery of
#: modeldock.io/v1alpha1 answers 200 with a list that does not name modelservices.
DECOY_PLURAL = "modeldecoys"
DECOY_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"{DECOY_PLURAL}.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": DECOY_PLURAL, "singular": "modeldecoy", "kind": "ModelDecoy"},
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            }
        ],
    },
}


def _serve_decoy(admin: Kube) -> None:
    """Create DECOY_CRD and wait until discovery lists it in modeldock.io/v1alpha1 (a
    premise), the ModelService CRD still absent."""
    admin.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body=DECOY_CRD)
    wait_for(
        lambda: _served_plurals(admin),
        lambda plurals: DECOY_PLURAL in plurals,
        CONVERGE_TIMEOUT,
        f"discovery to serve the decoy {DECOY_PLURAL} in {GROUP}/v1alpha1",
        premise=True,
    )


#: The one message at level error a clean start may log: a reconcile's own error (a 409 of a
#: cache one write behind is ordinary, CONTRACT.md "Logs"), retried with backoff.
RECONCILE_ERROR_MSG = "Reconciler error"


def _start_error_lines(log: str) -> list[str]:
    """The lines of an operator's log (one JSON object per line, CONTRACT.md "Process") at
    level ``error`` that are not a reconcile's error (RECONCILE_ERROR_MSG): what the process
    itself, its start and its wait for the CRD, reported as failed. Lines that are no JSON
    object are not counted here."""
    out = []
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("level") == "error"
            and record.get("msg") != RECONCILE_ERROR_MSG
        ):
            out.append(line)
    return out


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

    On a private control plane the harness deletes the ModelService CRD, serves a decoy CRD
    of the same group and version (``modeldecoys.modeldock.io``: discovery of
    modeldock.io/v1alpha1 answers 200, without modelservices), then starts the operator (not
    waiting for /readyz, which cannot come). Its requests in API group
    ``modeldock.io`` on its API proxy (discovery, or a list) are its attempts: the check
    watches until it has made five and at least five seconds have passed since the first, or
    it exited. Judged
    there: the process still runs and answers /healthz; every attempt was discovery, none a
    list or watch of a resource (its informers wait for modelservices); it asked again (at least five times);
    the gaps grow (the last of the first five is at least twice the first); and it made no
    more attempts than the contract's backoff (0.8 s doubling to 30 s) allows in the span it
    took, plus three (``allowed_attempts``), nor waited longer in all before its fifth than
    the contract's first four waits (12 s) by a quarter and five seconds (``contract_waits``).
    Then the CRD is applied and a ModelService
    created: it converges within the backoff's cap plus the usual bound, the operator never
    exited, and its log has no line at level error but a reconcile's own (``Reconciler
    error``: a 409 of a stale cache is ordinary); its start and its wait failed nowhere. An
    operator that exits
    (mutants exits-without-crd, exits-without-crd-go), retries every 50 ms (hot-retries-crd,
    hot-retries-crd-go), backs off from 1.6 s, one doubling late (slow-crd-backoff,
    slow-crd-backoff-go), takes the decoy's group version for its CRD (served-by-group,
    served-by-group-go) or logs the end of its wait as an error (wait-end-error,
    wait-end-error-go) fails.
    """
    with _without_crd(isolated) as lab:
        _judge(lab, evidence)


def _judge(lab: IsolatedLab, evidence: Evidence) -> None:
    """The body of waits-for-crd once the CRD is gone: the operator started, its attempts
    judged, the CRD applied and a ModelService converged."""
    cp, admin = lab.control_plane, lab.admin
    _serve_decoy(admin)
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
    early = [f"{r.verb} {r.path or r.resource} -> {r.code}" for r in attempts if r.resource]
    evidence.record("resource_requests_while_absent", early[:5])
    assert not early, (
        f"while discovery listed only the decoy {DECOY_PLURAL} in {GROUP}/v1alpha1, the "
        f"operator sent {len(early)} request(s) for a resource of the group: {early[:3]}. "
        'Its informers start only once discovery lists modelservices (CONTRACT.md, "Process")'
    )
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
    most = contract_waits(len(first)) * WAITS_FACTOR + WAITS_SLACK_S
    evidence.record("first_waits_s", {"sum": round(sum(first), 3), "most": most})
    assert sum(first) <= most, (
        f"the first {len(first)} waits between attempts took {sum(first):.1f}s in all "
        f"({first}); the contract's backoff (0.8 s doubling) waits {contract_waits(len(first)):g}s, "
        f"so at most {most:g}s with a loaded machine's delays: a backoff that starts late or "
        "at its cap leaves a CRD installed meanwhile unnoticed for longer"
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
    errors = _start_error_lines(op.log_text())
    evidence.record("start_error_lines", errors[:5])
    assert not errors, (
        f"a start that waited for its CRD and converged logged {len(errors)} line(s) at level "
        f"error that are no reconcile's error, where nothing failed: {errors[:3]}"
    )


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


# --------------------------------------------------------------------------- config-refused
#: How long an operator given an environment it cannot use may take to exit, seconds, once one
#: started at the same moment with usable values is ready: refusing is strictly less work than
#: starting (the same imports, no request, no cache to sync), so the ready one is the clock,
#: whatever the load (seven Python processes importing side by side on two loaded cores took
#: over 30 s); the grace is for scheduling alone. An operator that runs with the value never
#: exits.
CONFIG_EXIT_GRACE_S = 10.0

#: The exit code for an environment value that cannot be used (CONTRACT.md, "Process").
EXIT_BAD_CONFIG = 2

#: The environments config-refused starts an operator with (leader election on, the harness's
#: usual Lease timings otherwise): (name, variables set, the variables its message must name).
#: Each holds one fault, so an operator that lets one kind through still exits for none.
REFUSED_ENVIRONMENTS: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    ("malformed", {"LEASE_DURATION": "fifteen"}, ("LEASE_DURATION",)),
    ("zero", {"RENEW_DEADLINE": "0"}, ("RENEW_DEADLINE",)),
    ("infinite", {"REQUEST_TIMEOUT_SECONDS": "inf"}, ("REQUEST_TIMEOUT_SECONDS",)),
    (
        "lease-not-above-deadline",
        {"LEASE_DURATION": "10", "RENEW_DEADLINE": "10"},
        ("LEASE_DURATION", "RENEW_DEADLINE"),
    ),
    (
        "deadline-not-above-retries",
        {"LEASE_DURATION": "15", "RENEW_DEADLINE": "3", "RETRY_PERIOD": "2.5"},
        ("RENEW_DEADLINE", "RETRY_PERIOD"),
    ),
    ("no-workers", {"MAX_CONCURRENT_RECONCILES": "0"}, ("MAX_CONCURRENT_RECONCILES",)),
    (
        "catalog-not-http",
        {"MODELDOCK_CATALOG_URL": "ftp://catalog.example"},
        ("MODELDOCK_CATALOG_URL",),
    ),
]

#: The variable config-refused gives a port another process holds (the check's own listening
#: socket), in one more refused environment, ``port-held``.
HELD_PORT_VARIABLE = "METRICS_BIND_ADDRESS"
#: The health probe address, held by a second listening socket of the check: alone with the
#: metrics server off (``probe-port-held``: an address not tried is no reason to stop trying
#: the next), and with the metrics port held too (``ports-held``: both named, not the first).
PROBE_PORT_VARIABLE = "HEALTH_PROBE_BIND_ADDRESS"

#: The environment config-refused expects an operator to run with: every value usable, each
#: near a bound the refusals above test from the other side (the renew deadline just above
#: 1.2 retry periods, one worker), the lease duration unset (its default, 15 s), and the
#: metrics server off (``0``: not an address to try, the other side of ``port-held``).
ACCEPTED_ENVIRONMENT = {
    "LEASE_DURATION": "",
    "RENEW_DEADLINE": "2.5",
    "RETRY_PERIOD": "2",
    "MAX_CONCURRENT_RECONCILES": "1",
    "METRICS_BIND_ADDRESS": "0",
}

#: A second usable environment, started with the first: a sub-second retry period (any finite
#: number of seconds above 0 is a duration, CONTRACT.md "Process"), far below the renew
#: deadline, so that it is usable only as written: 2.5 s is above 1.2 x 0.4 s but not above
#: 1.2 / 0.4 s, and a fraction dropped (0 s) or rounded up to a whole second (1.2 x 1 s = 1.2 s)
#: is no such pair either way. The ``kubernetes`` library's leader election refuses a retry
#: period under 1 s; client-go takes any. Both operators contend for the same Lease: either
#: may lead.
SUBSECOND_ENVIRONMENT = {
    "LEASE_DURATION": "",
    "RENEW_DEADLINE": "2.5",
    "RETRY_PERIOD": "0.4",
    "METRICS_BIND_ADDRESS": "0",
}


@contextlib.contextmanager
def _held_port() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that this process listens on until the block ends (the
    ``port-held`` environment of config-refused: another process holds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        yield int(held.getsockname()[1])


def _seconds_until(deadline: float) -> float:
    """The seconds left until ``deadline`` (``time.monotonic()``), none once it has passed."""
    return max(0.0, deadline - time.monotonic())


def _refusal_line(log: str, variables: tuple[str, ...]) -> str | None:
    """The first line of ``log`` that names every one of ``variables`` as ``NAME=`` and says
    what the value must be (the word ``must``), or None."""
    for line in log.splitlines():
        if all(f"{v}=" in line for v in variables) and "must" in line:
            return line
    return None


@pytest.mark.modeldock_check("config-refused")
def test_config_refused(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """An operator given a configuration it cannot use refuses to start: it exits with code 2
    at once, names the variable and the fix, and sends no request; a usable one runs.

    A Lease timing that is not a number, zero or infinite, a lease that is not longer than
    its renew deadline, a renew deadline that leaves no second try, zero workers, a catalog
    URL that is not http(s), a metrics address another process holds: an operator that runs
    anyway, with a default in place of the value or with the value as given, runs with
    timings nobody chose, or fails on a port it cannot bind. The leader elector may refuse them
    later and less clearly, or never, and a fleet then hands its Lease over too slowly or
    every few seconds. The contract (CONTRACT.md, "Process") asks for the refusal at start,
    before any request, with exit code 2 and a log line naming the variable and what it must
    be. Here one operator is started per faulty environment (REFUSED_ENVIRONMENTS, and
    ``port-held``: METRICS_BIND_ADDRESS on a port the check itself listens on;
    ``probe-port-held``: the metrics server off and HEALTH_PROBE_BIND_ADDRESS on another such
    port; ``ports-held``: both held, and both must be named; leader election on, side by side) with one more given usable values at the same bounds
    (ACCEPTED_ENVIRONMENT, its metrics server off with ``0``). Once that one is ready
    (refusing is less work than starting), each of the others must have exited 2 within
    CONFIG_EXIT_GRACE_S, its log naming each variable at fault (``NAME=`` and ``must``), its
    API proxy having seen no request. Then one more is started, given a sub-second retry
    period (SUBSECOND_ENVIRONMENT: RETRY_PERIOD=0.4 under RENEW_DEADLINE=2.5); once it is
    ready, both must run on and, one of them as leader, converge a ModelService. Mutants:
    whole-second-retry, whole-second-retry-go (a retry
    period under 1 s refused, as the ``kubernetes`` library's leader election does); forgiving-config, forgiving-config-go (an unusable value replaced
    by its default, with a warning); ignores-held-port, ignores-held-port-go (the addresses
    never tried: the manager meets the held port after its first requests and exits 1);
    refuses-metrics-off, refuses-metrics-off-go (``0`` taken for an address and refused);
    first-address-only, first-address-only-go (stops at the first address it does not try or
    cannot listen on).
    """
    with _held_port() as port, _held_port() as probe_port:
        metrics = {HELD_PORT_VARIABLE: f"127.0.0.1:{port}"}
        probe = {PROBE_PORT_VARIABLE: f"127.0.0.1:{probe_port}"}
        held = [
            ("port-held", metrics, (HELD_PORT_VARIABLE,)),
            ("probe-port-held", {HELD_PORT_VARIABLE: "0", **probe}, (PROBE_PORT_VARIABLE,)),
            ("ports-held", {**metrics, **probe}, (HELD_PORT_VARIABLE, PROBE_PORT_VARIABLE)),
        ]
        evidence.record("held_ports", [port, probe_port])
        _judge_config(admin, namespace, operators, evidence, [*REFUSED_ENVIRONMENTS, *held])


def _judge_config(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    environments: list[tuple[str, dict[str, str], tuple[str, ...]]],
) -> None:
    """The body of config-refused: one operator per refused environment of ``environments``
    (name, variables set, variables its message must name) and one with
    ACCEPTED_ENVIRONMENT, started side by side and judged."""
    refused = [
        (name, variables, operators.new(leader_election=True, env=env))
        for name, env, variables in environments
    ]
    accepted = operators.new(leader_election=True, env=dict(ACCEPTED_ENVIRONMENT))
    subsecond = operators.new(leader_election=True, env=dict(SUBSECOND_ENVIRONMENT))
    for _, _, op in refused:
        op.start(wait_ready=False)
    accepted.start(wait_ready=False)

    # the clock: the operator with usable values, started with them, is ready (or gave up)
    wait_for(
        lambda: (accepted.ready(), accepted.running()),
        lambda seen: seen[0] or not seen[1],
        OPERATOR_START_TIMEOUT,
        f"the operator started with usable values {ACCEPTED_ENVIRONMENT} to become ready",
    )
    deadline = time.monotonic() + CONFIG_EXIT_GRACE_S
    outcomes: dict[str, Any] = {}
    for name, variables, op in refused:
        try:
            code: int | None = op.wait_exit(_seconds_until(deadline))
        except AssertionError:
            code = None
        log = op.request_log
        requests = [r for r in RequestLog(log).records() if r.start] if log else []
        line = _refusal_line(op.log_text(), variables)
        outcomes[name] = {"exit_code": code, "requests": len(requests), "message": line}
    evidence.record("refused", outcomes)
    evidence.record("accepted_running", accepted.running())
    for name, variables, op in refused:
        got = outcomes[name]
        assert got["exit_code"] is not None, (
            f"[{name}] the operator started with {op.env} still runs "
            f"{CONFIG_EXIT_GRACE_S:.0f} s after one started with usable values was ready: a "
            "value it cannot use must stop it at start"
        )
        assert got["exit_code"] == EXIT_BAD_CONFIG, (
            f"[{name}] the operator started with {op.env} exited {got['exit_code']}, not "
            f"{EXIT_BAD_CONFIG} (an environment that cannot be used)"
        )
        assert got["message"] is not None, (
            f"[{name}] the operator refused {op.env} without a log line naming "
            f"{' and '.join(variables)} and what the value must be: {op.log_text()[-600:]}"
        )
        assert got["requests"] == 0, (
            f"[{name}] the operator refused {op.env}, but only after {got['requests']} "
            "requests to the API server: a configuration is judged before any request"
        )

    assert accepted.running(), (
        f"the operator refused usable values {ACCEPTED_ENVIRONMENT} (exit code "
        f"{accepted.returncode()}): {accepted.log_text()[-600:]}"
    )
    # Started once the refusals are judged, not beside them: one more process importing at
    # the same time only slows the clock above (the ready one) on a loaded machine.
    subsecond.start(wait_ready=False)
    wait_for(
        lambda: (subsecond.ready(), subsecond.running()),
        lambda seen: seen[0] or not seen[1],
        OPERATOR_START_TIMEOUT,
        f"the operator started with usable values {SUBSECOND_ENVIRONMENT} to become ready",
    )
    create_modelservice(admin, namespace, "web", replicas=1)
    msvc = wait_converged(admin, namespace, "web")
    evidence.record("accepted_converged_generation", msvc["status"].get("observedGeneration"))
    # The elector is built once the caches have synced (after /readyz answered): judged after
    # the convergence, an operator that refuses the timings then has exited.
    evidence.record("subsecond_running", subsecond.running())
    for env, op in ((ACCEPTED_ENVIRONMENT, accepted), (SUBSECOND_ENVIRONMENT, subsecond)):
        assert op.running(), (
            f"the operator started with usable values {env} exited (code {op.returncode()}) "
            "while the other converged a ModelService: a duration is any finite number of "
            f"seconds above 0, fractions below 1 s included: {op.log_text()[-600:]}"
        )
