"""What the checks expect, stated independently of any implementation.

This module restates conformance/CONTRACT.md in test terms: the fields a converged
ModelService's children and status must have, and small helpers to create ModelServices and
wait for convergence. It imports no operator code, so a check can never pass because the
suite and the operator share a bug.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from kubernetes.client.exceptions import ApiException

from conformance.premises import set_up
from harness.accounting import Accounting
from harness.audit import Request, select
from harness.checks import converge_timeout
from harness.faults.apiproxy.records import RequestLog, seconds
from harness.kube import (
    PROBE_LABEL,
    Kube,
    bind_refusing_policy,
    probe_deployment,
    unbind_refusing_policy,
    wait_for,
)
from harness.lab.pool import OperatorPool

# Re-exported for the checks (``from x import y as y``: explicit under mypy --strict).
from harness.modelservice import GROUP_VERSION as GROUP_VERSION
from harness.modelservice import SELECTOR_LABEL as SELECTOR_LABEL
from harness.modelservice import condition as condition
from harness.modelservice import modelservice as modelservice
from harness.modelservice import status_converged as status_converged
from harness.operators import START_TIMEOUT, OperatorProcess
from harness.verdicts import PremiseFailed

T = TypeVar("T")

FINALIZER = "modeldock.io/cleanup"

#: The ModelService's children, as resources (CONTRACT.md: one Deployment and one Service).
CHILDREN = ("deployments", "services")

# --------------------------------------------------------------------------- Timeouts
# The one place the suite's waits are bounded. Each is a bound, not a measurement: on an idle
# machine the thing waited for takes milliseconds to a few seconds; the bounds are for a loaded
# 2-core machine running four checks at once. A check that needs a bound of its own (a fault's
# recovery, a Lease of its own) names it next to the check, derived from these where it can be.
# harness/tests/test_conformance_style.py fails on a literal timeout anywhere in conformance/.

#: CONVERGE_TIMEOUT_ENV (harness/checks.py) shortens CONVERGE_TIMEOUT for a run whose operators are
#: expected to fail (seconds, > 0): the CI subsets of the kill matrix and of the RBAC
#: ablation (Makefile: mutants-ci, mutants-sim-ci, rbac-ablation-ci) set it to 20, so a mutant
#: that never converges is failed after 20 s instead of 60. The real operators converge in
#: about a second, so a kill by this bound still means "never", and the full runs (`make
#: mutants`, `make rbac-ablation`) and `make conformance` keep the 60 s.


#: How long convergence may take: a new or changed ModelService to reach its children and
#: status, a repair of a child, a deletion's cleanup, a crash point on the way to convergence,
#: a condition (ChildConflict) reported. Each is a few reconciles of milliseconds plus watch
#: delivery; 60 s leaves room for rate-limited retries of 409s on a loaded machine.
CONVERGE_TIMEOUT = converge_timeout(60.0)

#: How long the operator may take to react once: to reconcile again after an event or a
#: RequeueAfter, to make the request a check waits for (its next write after a 409, a
#: reconnect after a cut). A reaction is one informer delivery plus one reconcile, or one step
#: of a client's retry backoff (client-go's reflector starts at 0.8 s); 30 s is generous.
REACT_TIMEOUT = 30.0

#: How long the operator may take to go quiet (workqueue empty, reconcile count still), and
#: its Events to stop changing: what remains after a change is a few reconciles caused by its
#: own writes' events, and Event writes sent in the background moments after them.
SETTLE_TIMEOUT = 30.0

#: "Nothing changed for this long" counts as quiet: the reconcile count and workqueue depth
#: (``wait_settled``) or the namespace's Events (``wait_events_settled``). Locally a write's own
#: watch event reaches the operator within ~100 ms and a reconcile takes milliseconds, so 1 s
#: without a change means the write -> event -> reconcile chain has ended.
QUIET_PERIOD = 1.0

#: "No request for this long" counts as quiet on the operator's API proxy: the harness's own
#: view, which closes every settled window (``wait_settled``), the operator's metrics being
#: only a premise. Twice QUIET_PERIOD: a request that a reconcile's own write caused comes
#: within ~100 ms of it locally, and the Python client's watch restarts (every 30-60 s) are
#: not requests the window judges. It bounds only what follows a change within Q seconds: a
#: write on a timer (a heartbeat every 20 s) needs a longer window, noop-stable[long-quiet].
PROXY_QUIET = 2.0

#: Requests that do not break the quiet on the proxy: an open or re-opened watch (the client
#: restarts it on its own timeout), and Lease requests (leader election renews every retry
#: period whatever the operator reconciles; leader-failover judges those).
QUIET_IGNORED_VERBS = ("watch",)
QUIET_IGNORED_RESOURCES = ("leases",)

#: How long a check waits for late writes before reading its request accounting, where no one process's
#: metrics can say the operator is quiet (several instances run, leader-failover): twice
#: QUIET_PERIOD, for a reconcile in flight in another process.
LATE_WRITES_WAIT = 2 * QUIET_PERIOD

#: Events are written in the background, moments after the write or problem they report, and
#: a repeated Warning (ChildConflict: every 5 s RequeueAfter, CONTRACT.md) needs a few
#: reconciles to be counted: bounded like the convergence they report on.
EVENT_TIMEOUT = CONVERGE_TIMEOUT

#: A rollout where Pods become Ready (sim, kwok nodes): ReplicaSet, scheduling, kwok marking
#: the Pods Ready, the deployment controller's status, then the operator's; half again a plain
#: convergence bounds that on a loaded 2-core machine, and follows CONVERGE_TIMEOUT where a
#: run shortens it. The one value: ``tiered.wait_rolled_out``, test_status and test_sim.
ROLLOUT_TIMEOUT = 1.5 * CONVERGE_TIMEOUT

#: How long an operator process may take from its start to its first request or to ready:
#: the harness's own bound for starting one (``harness.operators.START_TIMEOUT``). Neither a
#: reaction nor an API server catching up; process start and imports, on a loaded machine.
OPERATOR_START_TIMEOUT = START_TIMEOUT

#: How long the API server's own informers may take to see what admin just wrote before a
#: check's premise holds: a new RoleBinding for the RBAC authorizer, a ResourceQuota's status
#: for quota admission. They are watch-fed and normally catch up in well under a second.
APISERVER_SYNC_TIMEOUT = 10.0

#: Allowance for polling and a loaded machine on top of leader election's own bound.
LEADER_SLACK = 3.0


def leader_timeout(lease: tuple[float, float, float]) -> float:
    """The longest a Lease may be without a live holder, in seconds, when the operator runs
    with ``lease`` = (LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD), the contract's inputs, in
    seconds: a holder that stopped renewing keeps the Lease for its duration, a candidate
    tries again every retry period, plus LEADER_SLACK. The bound of a takeover after a
    SIGKILL, and of the first holder of a new Lease. With the contract's defaults (15, 10, 2):
    20 s."""
    duration, _renew_deadline, retry = lease
    return duration + retry + LEADER_SLACK


#: How far past a bound a check keeps waiting for what the bound is about, so that a late
#: result is measured and reported against the bound ("took 14.2s; the bound is 12s") rather
#: than cut off by a timeout that says nothing about how late it was.
OVERRUN_MARGIN = 30.0


def premise(holds: object, message: str) -> None:
    """Assert something the experiment needs, not something the operator must do: that the
    fault was injected, that the API server answered as the experiment requires. False:
    ``PremiseFailed`` with ``message``, which the report shows as an error of the check
    (verdict ``error``), never as the operator failing it, and the kill matrix never counts
    as a kill. Use ``assert`` for what the operator is judged on."""
    if not holds:
        raise PremiseFailed.because(message)


def create_modelservice(admin: Kube, namespace: str, name: str, **spec: Any) -> dict[str, Any]:
    """Create a ModelService as admin; return the stored object (defaults applied)."""
    return admin.create("modelservices", namespace, modelservice(name, **spec))


def create_foreign_deployment(
    admin: Kube,
    namespace: str,
    name: str,
    replicas: int = 1,
    owner: dict[str, Any] | None = None,
    pod_labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Create, as admin, a Deployment ``name`` that another controller owns: its controller
    ownerReference is ``owner`` (an ownerReference dict, ``controller: true`` set here) or, by
    default, points at a ConfigMap ``other-owner`` (created too, once). Its selector and pod
    labels are ``pod_labels`` (default ``{"app": "other"}``). Returns the stored Deployment.
    The situation of ChildConflict: a same-named child the ModelService does not control."""
    if owner is None:
        other = admin.get("configmaps", namespace, "other-owner") or admin.create(
            "configmaps",
            namespace,
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other-owner"}},
        )
        owner = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "other-owner",
            "uid": other["metadata"]["uid"],
        }
    pods = pod_labels or {"app": "other"}
    return admin.create(
        "deployments",
        namespace,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": name,
                "ownerReferences": [{**owner, "controller": True}],
            },
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": dict(pods)},
                "template": {
                    "metadata": {"labels": dict(pods)},
                    "spec": {"containers": [{"name": "c", "image": "other:1"}]},
                },
            },
        },
    )


def wait_observed(
    admin: Kube, namespace: str, name: str, generation: int, timeout: float = CONVERGE_TIMEOUT
) -> dict[str, Any]:
    """Wait until the ModelService's status.observedGeneration is ``generation``; return it.
    AssertionError with the last observed object on timeout."""
    return wait_for(
        lambda: admin.get("modelservices", namespace, name),
        lambda m: (m.get("status") or {}).get("observedGeneration") == generation,
        timeout,
        f"status.observedGeneration of {namespace}/{name} to reach {generation}",
    )


def status_of(call: Callable[[], object]) -> int:
    """The HTTP status a request of the harness's own got: 200 when ``call()`` returns, the
    ApiException's status when it raises one (for premises on what the API server refuses)."""
    try:
        call()
    except ApiException as exc:
        return int(exc.status)
    return 200


def labels(name: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/managed-by": "modeldock",
        SELECTOR_LABEL: name,
    }


def present(value: T | None, what: str) -> T:
    """``value``, which the check knows is there (an object it created or waited for, a
    condition the status it waited for has). None: LookupError naming ``what``, an error of
    the check's own reading (verdict ``error``), not an assertion about the operator."""
    if value is None:
        raise LookupError(f"{what} is absent, where the check expected it")
    return value


def get_present(admin: Kube, resource: str, namespace: str | None, name: str) -> dict[str, Any]:
    """``admin.get`` of an object the check knows is there: it created it, or waited until it
    existed. Absent: LookupError (``present``)."""
    return present(admin.get(resource, namespace, name), f"{resource} {namespace}/{name}")


def controller_ref(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The ownerReference with controller=true, or None."""
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


def is_converged(
    admin: Kube, namespace: str, name: str, msvc: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The ModelService if it has converged (status observedGeneration = generation, both
    conditions set and no ChildConflict, a Deployment with spec.replicas, and a Service),
    else None. ``msvc``: the ModelService as just read (default: read it now), so the
    verdict is about the very object returned."""
    msvc = msvc if msvc is not None else admin.get("modelservices", namespace, name)
    if not msvc:
        return None
    if not status_converged(msvc):
        return None
    dep = admin.get("deployments", namespace, name)
    if not dep or dep["spec"].get("replicas") != msvc["spec"]["replicas"]:
        return None
    if not admin.get("services", namespace, name):
        return None
    return msvc


def wait_converged(
    admin: Kube, namespace: str, name: str, timeout: float = CONVERGE_TIMEOUT
) -> dict[str, Any]:
    """Wait until ``is_converged``; return the ModelService. AssertionError with the last
    observed ModelService on timeout."""
    return wait_for(
        lambda: admin.get("modelservices", namespace, name),
        lambda m: is_converged(admin, namespace, name, m) is not None,
        timeout,
        f"ModelService {namespace}/{name} to converge",
    )


def wait_gone(
    admin: Kube,
    resource: str,
    namespace: str,
    name: str,
    timeout: float = CONVERGE_TIMEOUT,
    what: str | None = None,
) -> None:
    """Wait until the object is absent (404). AssertionError with the last observed object."""
    # {} stands for "gone": wait_for polls until it gets a value the predicate accepts.
    wait_for(
        lambda: admin.get(resource, namespace, name) or {},
        lambda obj: not obj,
        timeout,
        what or f"{resource} {namespace}/{name} to be deleted",
    )


def wait_still(
    sample: Callable[[], T],
    quiet: float,
    timeout: float,
    what: str,
    done: Callable[[T], bool] = lambda _value: True,
    interval: float = 0.1,
) -> T:
    """Poll ``sample()`` (first after ``interval`` seconds, then less often, as
    ``harness.kube.wait_for`` does) until its value has not changed for ``quiet`` seconds and
    ``done(value)`` holds; return that value. ``quiet``, ``timeout`` and ``interval`` are
    seconds. AssertionError naming ``what``, with the last value and how long
    it had been still, after ``timeout`` (``harness.kube.wait_for``)."""
    last: list[Any] = []  # [value, since]: the value seen and when it was first seen

    def still() -> dict[str, Any]:
        value, now = sample(), time.monotonic()
        if not last or value != last[0] or not done(value):
            last[:] = [value, now]
        return {"value": value, "still_for_s": round(now - last[1], 2)}

    return wait_for(  # type: ignore[no-any-return]
        still,
        lambda s: s["still_for_s"] >= quiet,
        timeout,
        what,
        interval,
    )["value"]


def wait_settled(
    op: OperatorProcess, timeout: float = SETTLE_TIMEOUT, quiet: float = QUIET_PERIOD
) -> float:
    """Wait until the operator's workqueue is empty and its reconcile count has not moved for
    ``quiet`` seconds (its own word, a premise), then until its API proxy has seen no
    request of it for PROXY_QUIET seconds (``wait_requests_quiet``: the harness's view,
    which is what closes a window); return the reconcile count. Seconds throughout;
    AssertionError on timeout (``timeout`` each)."""
    count, _depth = wait_still(
        lambda: (op.reconcile_count(), op.workqueue_depth()),
        quiet,
        timeout,
        f"{op.impl.id} operator to settle (workqueue empty, reconcile count still for {quiet:g}s)",
        done=lambda sample: sample[1] == 0,
    )
    wait_requests_quiet(op, timeout=timeout)
    return count


def last_request_at(request_log: Path) -> float:
    """When the latest request in ``request_log`` (an API proxy's, ``requests.jsonl``) that
    counts against quiet reached the proxy, in epoch seconds; 0.0 if none did. Watches and
    Lease requests do not count (QUIET_IGNORED_VERBS, QUIET_IGNORED_RESOURCES); a
    non-watch request still unanswered counts as made now."""
    latest = 0.0
    for rec in RequestLog(request_log).records():
        if rec.verb in QUIET_IGNORED_VERBS or rec.resource in QUIET_IGNORED_RESOURCES:
            continue
        at = time.time() if not rec.at else seconds(rec.start)
        latest = max(latest, at)
    return latest


def wait_requests_quiet(
    op: OperatorProcess, quiet: float = PROXY_QUIET, timeout: float = SETTLE_TIMEOUT
) -> float:
    """Wait until ``op``'s API proxy has seen no request of it (watches and Leases aside,
    ``last_request_at``) for ``quiet`` seconds; return how long it had been quiet, seconds.
    AssertionError naming the last request's age after ``timeout`` seconds. An operator
    started without a proxy (``op.request_log`` None) is a premise failure: the harness
    cannot see its requests."""
    log = op.request_log
    premise(log is not None, f"{op.impl.id} operator runs behind no API proxy: no request log")
    assert log is not None
    return wait_for(
        lambda: round(time.time() - last_request_at(log), 2),
        lambda age: age >= quiet,
        timeout,
        f"{op.impl.id} operator to make no request on its API proxy for {quiet:g}s",
        0.2,
    )


def wait_reconciled_past(
    op: OperatorProcess, count: float, timeout: float = REACT_TIMEOUT
) -> float:
    """Wait until the operator's reconcile count exceeds ``count``; return the new count."""
    return wait_for(
        op.reconcile_count,
        lambda c: c > count,
        timeout,
        f"{op.impl.id} operator to reconcile again (count was {count})",
    )


def first_within(
    fetch: Callable[[], T | None],
    predicate: Callable[[T], bool],
    window: float,
    what: str,
    interval: float = 0.5,
) -> T | None:
    """Poll ``fetch()`` for ``window`` seconds; return the first value for which ``predicate``
    holds, or None once the window has passed without one. For what must *not* happen (a
    zombie leader's write): the window is the experiment's length, and its passing is the
    outcome the check expects, not a timeout."""
    try:
        # premise=True only to tell "the window passed" (PremiseFailed) apart from an
        # AssertionError of fetch or predicate, which must propagate.
        return wait_for(fetch, predicate, window, what, interval, premise=True)
    except PremiseFailed:
        return None


# --------------------------------------------------------------------------- the request accounting
def writes_showing(
    audit: Accounting,
    admin: Kube,
    start: int,
    shown: Callable[[list[Request]], bool],
    what: str,
    **selection: Any,
) -> list[Request]:
    """The requests ``select(audit.requests(start, end), **selection)`` from ``start`` to a
    window end synced now, read again with a later end until ``shown(requests)`` holds or
    APISERVER_SYNC_TIMEOUT seconds have passed, then returned either way (the caller's
    assertions judge them; ``what`` names what is awaited).

    For a window closed on an effect the caller saw, such as an object gone: the API server
    (and an API proxy) logs a request once its answer is complete, which on a loaded machine can come just after
    the marker of a sync sent as soon as the effect was visible (seen in the RBAC ablation's
    baseline: the write that removed the finalizer missing from finalizer-ordered-delete's
    window). A correct operator's write shows within milliseconds; only a window that never
    shows it waits the whole bound.
    """

    last: list[Request] = []

    def read() -> list[Request]:
        last[:] = select(audit.requests(start, audit.sync(admin)), **selection)
        return last

    first_within(read, shown, APISERVER_SYNC_TIMEOUT, what)
    return last


class Window:
    """What ``writes_during`` saw.

    - ``writes``: the operator's write requests in the window (``harness.audit.Request``), in
      the API server's order; with ``ok_only`` only those answered 2xx;
    - ``results``: what each change returned, in order;
    - ``reconciles``: the operator's reconcile count once it had settled after each change
      (counted by the process running then: a restart counts from 0);
    - ``events``: with ``settle_events``, the namespace's Events (core/v1 objects) at the end
      of the window, else None;
    - ``opened``: the request accounting's marker at which the window opened (``audit.sync``),
      so that what came before it (a check's set-up) can be read apart.
    """

    def __init__(self) -> None:
        self.opened = 0
        self.writes: list[Request] = []
        self.results: list[Any] = []
        self.reconciles: list[float] = []
        self.events: list[dict[str, Any]] | None = None

    def described(self, ok_only: bool = False) -> list[str]:
        """The writes as ``describe()`` lines (``update deployments web -> 200``)."""
        return [r.describe() for r in self.writes if r.ok or not ok_only]


def writes_during(
    op: OperatorProcess,
    audit: Accounting,
    admin: Kube,
    namespace: str,
    *changes: Callable[[], Any],
    ok_only: bool = False,
    settle_events: bool = False,
) -> Window:
    """Make ``changes`` one after another and return the writes the operator made meanwhile,
    read from ``audit``, the check's request accounting (``harness.accounting.Accounting``:
    the audit log where the tier has one, else the operator's API proxies' request logs).

    ``changes``: callables taking no argument, each a change of the world (a patch, a delete
    and a wait for its repair, a restart of ``op``); what each returns is kept in
    ``Window.results``. Before the first, the operator is let settle (``wait_settled``), then
    the window opens (``audit.sync``). After each change the operator must reconcile past its
    settled count (``wait_reconciled_past``; a change that restarted ``op``, a new pid, counts
    from 0) and settle again; its settled count goes to ``Window.reconciles``. With
    ``settle_events``, the namespace's Events must then stop changing too (Event writes are
    sent in the background; ``wait_events_settled``). Then the window closes, and
    ``Window.writes`` holds the write requests (``harness.audit.WRITE_VERBS``) of
    ``op.impl.user`` in ``namespace`` within it, all answers or with ``ok_only`` the 2xx ones.
    Each wait is bounded by REACT_TIMEOUT or SETTLE_TIMEOUT, quiet after QUIET_PERIOD seconds;
    one that times out raises AssertionError (the operator did not react or never went quiet).
    """
    window = Window()
    settled = wait_settled(op)
    start = window.opened = audit.sync(admin)
    for change in changes:
        pid = op.pid
        window.results.append(change())
        wait_reconciled_past(op, settled if op.pid == pid else 0)
        settled = wait_settled(op)
        window.reconciles.append(settled)
    if settle_events:
        window.events = wait_events_settled(admin, namespace)
    end = audit.sync(admin)
    window.writes = select(
        audit.requests(start, end),
        user=op.impl.user,
        namespace=namespace,
        writes_only=True,
        ok_only=ok_only,
    )
    return window


def operator_writes(
    audit: Accounting,
    admin: Kube,
    start: int,
    user: str,
    namespace: str,
    resources: tuple[str, ...],
    verb: str | None = None,
    name: str | None = None,
) -> list[Request]:
    """The operator's (``user``) writes to ``resources`` in ``namespace`` since audit offset
    ``start``, admitted or refused, in the audit log's order (the log synced through
    ``admin`` first); only those of ``verb`` (``"delete"``) and of the object ``name`` when
    given. Checks that assert "nothing of ours was deleted" read ``r.ok``; those that count
    refusals read the rest."""
    return [
        r
        for r in select(
            audit.requests(start, audit.sync(admin)),
            user=user,
            namespace=namespace,
            writes_only=True,
            resources=resources,
        )
        if verb in (None, r.verb) and name in (None, r.name)
    ]


def refused_requests(
    audit: Accounting,
    start: int,
    user: str,
    namespace: str,
    resources: tuple[str, ...] | None = None,
) -> list[str]:
    """The operator's requests answered 403 since audit offset ``start``, as ``<refusal>
    (<request>)`` (``harness.audit.Request.refusal``: a right RBAC or admission refused, not
    a ResourceQuota's budget): those of ``user`` in ``namespace`` or at cluster scope, of
    ``resources`` if given, but not the harness's own (the same user runs in other namespaces
    at the same time, under other roles)."""
    return sorted(
        {
            f"{r.refusal} ({r.describe()})"
            for r in select(audit.requests(start), user=user, resources=resources)
            if r.refusal and not r.by_harness and r.namespace in (namespace, "")
        }
    )


def wait_unrefused(
    fetch: Callable[[], T | None],
    predicate: Callable[[T], bool],
    timeout: float,
    what: str,
    *,
    audit: Accounting,
    start: int,
    user: str,
    namespace: str,
    resources: tuple[str, ...] | None = None,
) -> T:
    """``wait_for(fetch, predicate, timeout, what)``, but fail at once, with AssertionError
    naming the 403s, as soon as ``audit`` (the request accounting) shows a request of the operator's refused since
    offset ``start`` (``refused_requests``, of ``resources`` if given): a missing right never
    heals by waiting, so waiting out ``timeout`` seconds would only hide the cause."""

    def checked() -> T | None:
        got = refused_requests(audit, start, user, namespace, resources)
        if got:
            raise AssertionError(
                f"the operator needed rights it was not given: its requests "
                f"were refused with 403 Forbidden while waiting for {what}: "
                f"{got}"
            )
        return fetch()

    return wait_for(
        checked, predicate, timeout, f"{what} (no request of {user} refused)", interval=0.2
    )


def expected_deployment_fields(msvc: dict[str, Any]) -> dict[str, Any]:
    """The fields of the Deployment that CONTRACT.md fixes, as (path -> value)."""
    name, spec = msvc["metadata"]["name"], msvc["spec"]
    return {
        "metadata.labels": labels(name),
        "spec.replicas": spec["replicas"],
        "spec.selector": {"matchLabels": {SELECTOR_LABEL: name}},
        "spec.template.metadata.labels": labels(name),
        "container.name": "server",
        "container.image": spec["image"],
        "container.args": [
            f"--model={spec['model']}",
            f"--port={spec['port']}",
            *spec.get("args", []),
        ],
        "container.ports": [{"name": "http", "containerPort": spec["port"], "protocol": "TCP"}],
    }


def actual_deployment_fields(dep: dict[str, Any]) -> dict[str, Any]:
    containers = dep["spec"]["template"]["spec"]["containers"]
    server: dict[str, Any] = next((c for c in containers if c.get("name") == "server"), {})
    return {
        "metadata.labels": {
            k: v
            for k, v in (dep["metadata"].get("labels") or {}).items()
            if k in labels(dep["metadata"]["name"])
        },
        "spec.replicas": dep["spec"].get("replicas"),
        "spec.selector": dep["spec"].get("selector"),
        "spec.template.metadata.labels": {
            k: v
            for k, v in (dep["spec"]["template"]["metadata"].get("labels") or {}).items()
            if k in labels(dep["metadata"]["name"])
        },
        "container.name": server.get("name"),
        "container.image": server.get("image"),
        "container.args": server.get("args"),
        "container.ports": [
            {k: p.get(k) for k in ("name", "containerPort", "protocol")}
            for p in server.get("ports") or []
        ],
    }


def expected_service_fields(msvc: dict[str, Any]) -> dict[str, Any]:
    name, spec = msvc["metadata"]["name"], msvc["spec"]
    return {
        "metadata.labels": labels(name),
        "spec.type": "ClusterIP",
        "spec.selector": {SELECTOR_LABEL: name},
        "spec.ports": [
            {"name": "http", "port": spec["port"], "targetPort": "http", "protocol": "TCP"}
        ],
    }


def actual_service_fields(svc: dict[str, Any]) -> dict[str, Any]:
    name = svc["metadata"]["name"]
    return {
        "metadata.labels": {
            k: v for k, v in (svc["metadata"].get("labels") or {}).items() if k in labels(name)
        },
        "spec.type": svc["spec"].get("type"),
        "spec.selector": svc["spec"].get("selector"),
        "spec.ports": [
            {k: p.get(k) for k in ("name", "port", "targetPort", "protocol")}
            for p in svc["spec"].get("ports") or []
        ],
    }


def diff_fields(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Lines ``path: expected X, got Y`` for each field that differs."""
    return [
        f"{k}: expected {expected[k]!r}, got {actual.get(k)!r}"
        for k in expected
        if expected[k] != actual.get(k)
    ]


# --------------------------------------------------------------------------- Events
#: The source of the operator's Events (CONTRACT.md, "Events").
EVENT_COMPONENT = "modelservice-controller"

#: Every Event reason in the contract, with its type.
EVENT_REASONS = {
    "CreatedDeployment": "Normal",
    "UpdatedDeployment": "Normal",
    "DeletedDeployment": "Normal",
    "CreatedService": "Normal",
    "UpdatedService": "Normal",
    "DeletedService": "Normal",
    "AdoptedDeployment": "Normal",
    "AdoptedService": "Normal",
    "ReplacingDeployment": "Normal",
    "RemovedFinalizer": "Normal",
    "ChildConflict": "Warning",
    "FailedCreate": "Warning",
    "FailedUpdate": "Warning",
    "FailedDelete": "Warning",
}


def event_component(event: dict[str, Any]) -> str:
    """Who reported an Event: ``source.component``, or ``reportingComponent`` (an Event written
    through events.k8s.io/v1 has only the latter); ``kubectl describe`` shows the same."""
    return (event.get("source") or {}).get("component") or event.get("reportingComponent") or ""


def operator_events(admin: Kube, namespace: str, uid: str | None = None) -> list[dict[str, Any]]:
    """The core/v1 Events in ``namespace`` reported by the operator's component, about the
    object with ``uid`` if given, oldest first."""
    found = [
        e
        for e in admin.list("events", namespace)
        if event_component(e) == EVENT_COMPONENT
        and (uid is None or (e.get("involvedObject") or {}).get("uid") == uid)
    ]
    return sorted(found, key=lambda e: (e.get("firstTimestamp") or "", e["metadata"]["name"]))


def describe_event(event: dict[str, Any]) -> str:
    """One line as ``kubectl describe`` shows it: ``Warning ChildConflict (x3) msvc/web: msg``."""
    ref = event.get("involvedObject") or {}
    return (
        f"{event.get('type')} {event.get('reason')} (x{event.get('count') or 1}) "
        f"{ref.get('kind')}/{ref.get('name')}: {event.get('message')}"
    )


def wait_events_settled(
    admin: Kube, namespace: str, quiet: float = QUIET_PERIOD, timeout: float = SETTLE_TIMEOUT
) -> list[dict[str, Any]]:
    """Wait until the Events in ``namespace`` (names and counts) have not changed for ``quiet``
    seconds, and return them. Event writes are asynchronous: an operator's recorder sends them
    shortly after the reconcile that caused them."""
    items: list[dict[str, Any]] = []

    def names_and_counts() -> list[tuple[str, int]]:
        items[:] = admin.list("events", namespace)
        return sorted((e["metadata"]["name"], int(e.get("count") or 1)) for e in items)

    wait_still(
        names_and_counts, quiet, timeout, f"Events in {namespace} to stop changing", interval=0.2
    )
    return items


# --------------------------------------------------------------------------- refusals
#: client-go's default controller rate limiter (CONTRACT.md step 7): after the n-th failure
#: in a row of one key, its retry waits BACKOFF_BASE_S * 2**(n-1) s, at most BACKOFF_MAX_S.
BACKOFF_BASE_S = 0.005
BACKOFF_MAX_S = 1000.0


#: Refused attempts a case waits for before it lifts a refusal: the work queue's retries of
#: the failed key, within 5 ms * (2**5 - 1) = 155 ms of the first plus a reconcile each
#: under the contract's backoff; an operator that drops the key after a refusal makes one
#: per event that brings the key back.
REFUSED_ATTEMPTS = 6


def first_convergence(
    operators: OperatorPool, admin: Kube, namespace: str, **spec: Any
) -> tuple[OperatorProcess, dict[str, Any]]:
    """Start an operator, create ModelService web with ``spec`` (``create_modelservice``),
    and wait, as set-up steps (PremiseFailed if not), for its first convergence and for the
    operator to settle (``wait_settled``): the world a refusal case starts from. Returns the
    operator and the ModelService as created."""
    op = operators.start()
    created = create_modelservice(admin, namespace, "web", **spec)
    set_up(lambda: wait_converged(admin, namespace, "web"), "the first convergence")
    wait_settled(op)
    return op, created


def backoff_after(failures: int) -> float:
    """Seconds the contract's backoff waits at most before the attempt after ``failures``
    failures in a row (``failures`` >= 1): 5 ms doubling per failure, at most 1000 s."""
    return min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2.0 ** (failures - 1))


def retry_owed(failures: int) -> tuple[float, str]:
    """How long a case waits, once a refusal is lifted, for what only the retry of the
    refused key can write (removing an admission policy is no event the operator watches):
    ``(seconds, why)``, the contract's backoff after ``failures`` refused attempts in a row
    (``backoff_after``, at least one) plus CONVERGE_TIMEOUT, and the sentence that says so
    for a failed wait's message."""
    owed = backoff_after(max(failures, 1))
    return owed + CONVERGE_TIMEOUT, (
        f"after {failures} refused attempts the backoff owes the next within {owed:.3f} s "
        f"(5 ms * 2**{max(failures, 1) - 1}, at most 1000 s), and no other event brings the "
        "key back"
    )


def admits_all_but(user: str, subject: str = "object") -> str:
    """The CEL expression of a refusing admission policy (``harness.kube.bind_refusing_policy``)
    that refuses the requests of ``user`` (the operator) and the harness's dry-run probes (an
    object labelled ``harness.kube.PROBE_LABEL``) and admits every other writer. ``subject``
    is where the label is read: ``object`` for a create or an update, ``oldObject`` for a
    delete (which has no new object)."""
    return (
        f"request.userInfo.username != '{user}' && "
        f"!(has({subject}.metadata.labels) && '{PROBE_LABEL}' in {subject}.metadata.labels)"
    )


@contextmanager
def refusal(
    admin: Kube,
    policy: str,
    namespace: str,
    operations: Sequence[str],
    expression: str,
    message: str,
    probe: Callable[[], int],
    admitted: int,
    *,
    group: str = "apps",
    resource: str = "deployments",
) -> Iterator[None]:
    """The API server refuses while the body runs: binds the admission policy ``policy``
    (``harness.kube.bind_refusing_policy`` with ``operations``, ``expression``, ``message``,
    ``group`` and ``resource``), waits up to REACT_TIMEOUT until ``probe`` (an admin dry run
    the policy refuses, returning the HTTP code) answers 403, runs the body, removes the policy
    also when the body raises, and once the body returned waits until ``probe`` answers
    ``admitted`` (``wait_refusal_lifted``). Raises PremiseFailed when the policy is never
    applied or never lifted: a refusal that did not happen judges nothing."""
    bind_refusing_policy(
        admin, policy, namespace, operations, expression, message, group=group, resource=resource
    )
    try:
        wait_for(
            probe,
            lambda code: code == 403,
            REACT_TIMEOUT,
            f"policy {policy} in force",
            premise=True,
        )
        yield
    finally:
        unbind_refusing_policy(admin, policy)
    wait_refusal_lifted(policy, probe, admitted)


#: The message of the policy ``refused_deletes`` binds: in its refused answers, and so in the
#: operator's Warning FailedDelete Event.
DELETE_MESSAGE = "modeldock refuses the operator's Deployment deletes until this policy is gone"


@contextmanager
def refused_deletes(admin: Kube, namespace: str, user: str) -> Iterator[None]:
    """The operator's (``user``) deletes of Deployments in ``namespace`` refused (403, with
    ``DELETE_MESSAGE``) while the body runs, every other writer's admitted: creates the probe
    Deployment (``harness.kube.probe_deployment``) and runs the body under ``refusal`` with
    the policy ``modeldock-refuse-deletes-<namespace>``, probed by ``delete_probe_code``.
    Raises PremiseFailed as ``refusal`` does."""
    admin.create("deployments", namespace, probe_deployment())
    with refusal(
        admin,
        f"modeldock-refuse-deletes-{namespace}",
        namespace,
        ("DELETE",),
        admits_all_but(user, "oldObject"),
        DELETE_MESSAGE,
        lambda: delete_probe_code(admin, namespace),
        200,
    ):
        yield


def wait_refusal_lifted(policy: str, probe: Callable[[], int], admitted: int) -> None:
    """Wait up to REACT_TIMEOUT, once the refusing admission policy ``policy`` is unbound
    (``harness.kube.unbind_refusing_policy``), until ``probe`` (an admin dry run the policy
    refused, returning the HTTP code) answers ``admitted`` (201 for a create, 200 for an
    update or delete). Raises PremiseFailed if it does not: a refusal that was never lifted
    judges nothing."""
    wait_for(
        probe,
        lambda code: code == admitted,
        REACT_TIMEOUT,
        f"policy {policy} no longer applied",
        premise=True,
    )


def wait_refused(
    requests: Callable[[], list[Request]],
    what: str,
    attempts: int = REFUSED_ATTEMPTS,
    *,
    unless: Callable[[], bool] | None = None,
) -> list[str]:
    """Wait up to REACT_TIMEOUT until at least ``attempts`` of the operator's ``requests()``
    (read again at each poll, e.g. from the audit log) were refused with 403: while a
    refusal lasts the work queue retries the failed key with backoff (5 ms doubling: six
    attempts within 155 ms plus a reconcile each, CONTRACT.md step 7) and never drops it.
    Returns the refused requests as ``Request.describe`` lines, oldest first. ``unless``:
    stop waiting as soon as it holds (what the case judges next came early, e.g. the
    ModelService gone). AssertionError naming ``what`` after REACT_TIMEOUT: the operator
    gave up on the key."""
    return wait_for(
        lambda: [r.describe() for r in requests() if r.code == 403],
        lambda refused: len(refused) >= attempts or (unless is not None and unless()),
        REACT_TIMEOUT,
        what,
    )


def delete_probe_code(admin: Kube, namespace: str) -> int:
    """The answer to an admin dry-run delete of Deployment ``probe`` (``probe_deployment``,
    labelled PROBE_LABEL) in ``namespace``: 403 while a policy refusing Deployment deletes
    applies, 200 once it does not (the ``probe`` of ``refusal`` for a refused delete)."""
    try:
        admin.request(
            "DELETE", admin.path("deployments", namespace, "probe"), query=[("dryRun", "All")]
        )
    except ApiException as exc:
        return int(exc.status)
    return 200


def refusal_events(
    admin: Kube, namespace: str, uid: str, reason: str, child: str, message: str
) -> list[str]:
    """The operator's Warning ``reason`` Events (``FailedUpdate``, ``FailedDelete``) about the
    ModelService with ``uid`` that name ``child`` (``Service "web"``) and carry the refusing
    policy's ``message``, as ``describe_event`` lines (CONTRACT.md, "A refused child write":
    ``Failed to update Service "web": <the server's message>``)."""
    return [
        describe_event(e)
        for e in operator_events(admin, namespace, uid)
        if e.get("type") == "Warning"
        and e.get("reason") == reason
        and child in str(e.get("message"))
        and message in str(e.get("message"))
    ]


def latest_events(admin: Kube, namespace: str, count: int = 5) -> list[str]:
    """The operator's last ``count`` Events in ``namespace``, as ``describe_event`` lines:
    what a failed assertion about a missing Event shows instead."""
    return [describe_event(e) for e in operator_events(admin, namespace)][-count:]
