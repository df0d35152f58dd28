"""One exploration case: a scenario run once, clean or with one perturbation, judged by the
oracle.

Every case has its own namespace, its own API proxy and its own operator process (started
through the proxy, with no crash point: exploration needs none). A crash is the proxy's: at
the k-th write of the operator to ModelServices, Deployments or Services (Events and Leases
are not counted: they are written in the background, in no fixed order) the proxy freezes the
connection and reports; the harness SIGKILLs the operator, acks, and starts a new one.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubernetes.client.exceptions import ApiException

from harness.audit import WRITE_VERBS, AuditLog, select
from harness.envtest.controlplane import ControlPlane
from harness.explore.scenarios import NAME, Scenario
from harness.explore.state import (
    CHILDREN,
    RESOURCES,
    Write,
    diff,
    invariants,
    recovery_writes,
    snapshot,
)
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import (
    CLIENT_BODY_INCOMPLETE,
    ProxyRequest,
    RequestLog,
    WatchEvent,
    compare,
    seconds,
)
from harness.kube import Kube
from harness.lab.namespaces import create_namespace
from harness.operators import Implementation, OperatorProcess

#: Outcomes of a case.
PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"
#: Crash variants, and the error variant (the k-th write answered 409 without forwarding).
WITHHELD, DELIVERED, CONFLICT = "withheld", "delivered", "conflict"
#: Seconds the child events are late in the stale-view run, and the coalescing window.
STALE_DELAY, COALESCE_WINDOW = 2.0, 1.0
#: Seconds of no write that end the set-up before the perturbation is armed.
SETTLE = 1.5
#: Issuing a user's certificate and kubeconfig is not safe from several threads at once.
_ISSUE = threading.Lock()


@dataclass(frozen=True)
class Perturbation:
    """``clean``; ``crash`` at write ``k`` (variant withheld or delivered); ``error`` (409) at
    write ``k``; ``stale-view``; ``coalesced``."""

    kind: str
    k: int = 0
    variant: str = ""

    @property
    def id(self) -> str:
        if self.kind in ("crash", "error"):
            return f"write-{self.k}-{self.variant}"
        return self.kind


CLEAN = Perturbation("clean")


@dataclass
class Settings:
    """What every case of a run shares."""

    control_plane: ControlPlane
    impl: Implementation
    workdir: Path
    #: seconds of no write (to ModelServices, Deployments, Services) that make an operator quiet
    quiet: float = 10.0
    #: seconds to wait for a boundary to be reached, and for quiet after the perturbation
    crash_wait: float = 30.0
    quiet_timeout: float = 90.0


@dataclass
class CaseResult:
    """What a case found. ``writes``: the operator's writes after ``act`` (``verb
    resource[/sub] name code``, ``!`` marking an answer the proxy injected); ``state``: the
    normalised end state."""

    impl: str
    scenario: str
    perturbation: str
    outcome: str = PASSED
    message: str = ""
    details: str = ""
    writes: list[str] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    workdir: str = ""
    #: runs without a kill: the proxy's accounting against the audit log's, request for
    #: request (``records.compare``): ``{"compared": N, "differences": [...]}``
    accounting: dict[str, Any] = field(default_factory=dict)
    #: stale-view and coalesced runs: what the proxy's request log shows of the perturbation
    #: (``event_premise``): ``{"delayed": N, "max_delayed_ms": F, "coalesced": N, "holds": B}``
    premise: dict[str, Any] = field(default_factory=dict)
    #: crash runs: the writes of the process started after the crash (``describe``)
    recovery: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"explore[{self.scenario}@{self.perturbation}]"


class CaseEnv:
    """What a scenario acts on: the admin client, the namespace, and the operator."""

    def __init__(
        self, settings: Settings, admin: Kube, ns: str, proxy: ApiProxy, workdir: Path
    ) -> None:
        self.settings = settings
        self.admin = admin
        self.ns = ns
        self.proxy = proxy
        self.workdir = workdir
        self.op: OperatorProcess | None = None
        self.starts = 0
        #: epoch seconds the last start became ready
        self.ready_at = 0.0

    def start_operator(self) -> None:
        """Start a new operator process through the proxy and wait until it is ready."""
        self.op = OperatorProcess(
            impl=self.settings.impl,
            kubeconfig=self.proxy.kubeconfig,
            namespace=self.ns,
            log_path=self.workdir / f"operator-{self.starts}.log",
        )
        self.starts += 1
        self.op.start(timeout=60)
        self.ready_at = time.time()

    def stop_operator(self) -> None:
        if self.op is not None:
            self.op.terminate(timeout=10)

    def kill_operator(self) -> None:
        if self.op is not None:
            self.op.kill()


def operator_writes(log: RequestLog, after: int) -> list[ProxyRequest]:
    """The operator's writes to ``RESOURCES`` with a request id above ``after``, forwarded or
    answered by the proxy (but not those it dropped while frozen, nor those whose client never
    finished sending the body)."""
    return [
        r
        for r in log.records()
        if r.id > after
        and r.verb in WRITE_VERBS
        and r.resource in RESOURCES
        and r.reason not in ("Frozen", CLIENT_BODY_INCOMPLETE)
    ]


def describe(r: ProxyRequest) -> str:
    target = f"{r.resource}/{r.subresource}" if r.subresource else r.resource
    return f"{r.verb} {target} {r.name} {r.code}{'!' if r.injected else ''}"


def wait_quiet(log: RequestLog, after: int, since: float, quiet: float, timeout: float) -> None:
    """Wait until no write (``operator_writes``) for ``quiet`` s, counting from ``since``
    (epoch seconds) at the earliest. AssertionError naming the writes of the last window if
    the operator is still writing after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        writes = operator_writes(log, after)
        last = max([since, *(seconds(w.time) for w in writes)])
        if time.time() - last >= quiet:
            return
        if time.monotonic() > deadline:
            recent = [describe(w) for w in writes if seconds(w.time) > time.time() - quiet]
            raise AssertionError(
                f"the operator did not go quiet: {len(recent)} writes in the "
                f"last {quiet:.0f}s after {timeout:.0f}s: {recent[-12:]}"
            )
        time.sleep(0.25)


def delivered_events(log: RequestLog) -> list[tuple[str, WatchEvent]]:
    """Every watch event the proxy delivered to the operator, with the resource its watch
    was of: ``[(resource, event)]``, in request order."""
    return [(r.resource, e) for r in log.records() if r.verb == "watch" for e in r.events]


def event_premise(
    kind: str, events: list[tuple[str, WatchEvent]], since: float, delay: float
) -> dict[str, Any]:
    """Whether the perturbation of a ``stale-view`` or ``coalesced`` run (``kind``) really
    happened, from the proxy's own log: ``events`` as ``delivered_events`` gives them, those
    delivered at or after ``since`` (epoch seconds: the act) counted. A stale view needs a
    child's event (Deployment or Service) that the proxy kept at least ``delay`` seconds
    (``WatchEvent.delayed_ms``); coalescing needs an event into which the proxy merged at
    least one earlier one (``WatchEvent.coalesced``). Returns ``{"delayed": N (events kept at
    least delay), "max_delayed_ms": F, "coalesced": N (events merged away), "holds": B,
    "message": why not, "" when it holds}``. A run whose premise does not hold judged the
    operator without the perturbation: the case is an error, not a pass (issue 23)."""
    late = [e for _, e in events if seconds(e.time) >= since]
    children = [e for res, e in events if res in CHILDREN and seconds(e.time) >= since]
    delayed = [e for e in children if e.delayed_ms >= delay * 1000]
    merged = sum(e.coalesced for e in late)
    out: dict[str, Any] = {
        "delayed": len(delayed),
        "max_delayed_ms": max((e.delayed_ms for e in late), default=0.0),
        "coalesced": merged,
    }
    if kind == "stale-view":
        out["holds"] = bool(delayed)
        out["message"] = (
            ""
            if delayed
            else f"premise: no event of a child reached the operator {delay:g}s late after "
            f"the act ({len(children)} child events delivered, none delayed by the proxy): the "
            "stale view never happened"
        )
    else:
        out["holds"] = merged > 0
        out["message"] = (
            ""
            if merged
            else f"premise: the proxy merged no event after the act ({len(late)} events "
            "delivered, each alone): nothing was coalesced"
        )
    return out


def _last_id(log: RequestLog) -> int:
    records = log.records()
    return records[-1].id if records else 0


def run_case(
    settings: Settings, scenario: Scenario, pert: Perturbation, expected: dict[str, Any] | None
) -> CaseResult:
    """Run ``scenario`` under ``pert`` and judge it: the invariants (``state.invariants``), the
    end state equal to ``expected`` (the clean run's; None for the clean run itself), quiet,
    and after a crash the new process's writes (``state.recovery_writes``, against the world
    at its start). A stale-view or coalesced run whose perturbation the proxy's log does not
    show (``event_premise``) is an ``error``, not judged. Never raises: a harness failure is an
    ``error`` outcome."""
    res = CaseResult(settings.impl.id, scenario.id, pert.id)
    started = time.monotonic()
    casedir = settings.workdir / settings.impl.id / f"{scenario.id}@{pert.id}"
    casedir.mkdir(parents=True, exist_ok=True)
    res.workdir = str(casedir)
    admin = Kube(settings.control_plane.admin_kubeconfig)
    audit = AuditLog(settings.control_plane.audit_log)
    audit_start = audit.offset()
    ns = ""
    proxy: ApiProxy | None = None
    env: CaseEnv | None = None
    at_restart: dict[str, Any] = {}  # crash runs: the world the new process starts from
    restart_mark = 0
    try:
        ns = create_namespace(admin, f"x-{scenario.id}", settings.impl.user)
        with _ISSUE:
            proxy = ApiProxy.for_user(settings.control_plane, settings.impl.user, workdir=casedir)
        proxy.progress = lambda line: None
        proxy.start()
        log = RequestLog(proxy.request_log)
        env = CaseEnv(settings, admin, ns, proxy, casedir)
        if not scenario.start_in_act:
            env.start_operator()
        scenario.prepare(env)
        if not scenario.start_in_act:
            wait_quiet(log, 0, env.ready_at, SETTLE, settings.quiet_timeout)
        mark = _last_id(log)
        _arm(proxy, pert)
        act_at = time.time()
        scenario.act(env)
        if pert.kind == "coalesced":
            _touch(admin, ns)
        quiet_from = max(act_at, env.ready_at)
        if pert.kind == "crash":
            report = proxy.wait_crash(settings.crash_wait)
            if not report.get("triggered"):
                n = len(operator_writes(log, mark))
                res.outcome = SKIPPED
                res.message = (
                    f"boundary not reached: this run made {n} writes, fewer than "
                    f"{pert.k} (the clean run made more)"
                )
                res.writes = [describe(w) for w in operator_writes(log, mark)]
                return res
            env.kill_operator()
            proxy.ack_crash()
            proxy.clear_faults()
            at_restart = snapshot(admin, ns)
            restart_mark = _last_id(log)
            env.start_operator()
            quiet_from = env.ready_at
        wait_quiet(log, mark, quiet_from, settings.quiet, settings.quiet_timeout)
        if pert.kind == "error" and not all(f["fired"] for f in proxy.faults()["write_faults"]):
            n = len(operator_writes(log, mark))
            res.outcome = SKIPPED
            res.message = (
                f"boundary not reached: this run made {n} writes, fewer than "
                f"{pert.k} (the clean run made more)"
            )
            res.writes = [describe(w) for w in operator_writes(log, mark)]
            return res
        proxy.clear_faults()
        res.writes = [describe(w) for w in operator_writes(log, mark)]
        res.state = snapshot(admin, ns)
        problems = invariants(res.state)
        if expected is not None:
            problems += [
                f"end state differs from the clean run: {d}" for d in diff(expected, res.state)
            ]
        if pert.kind == "crash":
            after = [w for w in operator_writes(log, restart_mark) if w.forwarded]
            res.recovery = [describe(w) for w in after]
            problems += [
                f"after the restart: {p}"
                for p in recovery_writes(
                    at_restart, [Write(w.verb, w.resource, w.name, w.code) for w in after], expected
                )
            ]
        if pert.kind in ("stale-view", "coalesced"):
            delay = STALE_DELAY if pert.kind == "stale-view" else COALESCE_WINDOW
            res.premise = event_premise(pert.kind, delivered_events(log), act_at, delay)
            if not res.premise["holds"]:
                res.outcome, res.message = ERROR, res.premise["message"]
                res.details = (
                    res.message
                    + "\n\nnot judged; the oracle would have said: "
                    + ("\n".join(problems) or "nothing")
                    + "\n\nwrites after act:\n  "
                    + "\n  ".join(res.writes)
                )
                return res
        if problems:
            res.outcome = FAILED
            res.message = problems[0] + (
                f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            )
            res.details = (
                "\n".join(problems) + "\n\nwrites after act:\n  " + "\n  ".join(res.writes)
            )
            if res.recovery:
                res.details += "\n\nwrites after the restart:\n  " + "\n  ".join(res.recovery)
    except AssertionError as exc:
        res.outcome, res.message = FAILED, str(exc).splitlines()[0]
        res.details = str(exc)
        res.writes = res.writes or (
            [describe(w) for w in operator_writes(RequestLog(proxy.request_log), 0)]
            if proxy
            else []
        )
    except Exception as exc:  # a harness failure: the operator was not judged
        res.outcome, res.message = ERROR, f"{type(exc).__name__}: {exc}".splitlines()[0]
        res.details = traceback.format_exc()
    finally:
        if env is not None:
            env.stop_operator()
        if proxy is not None and ns and pert.kind not in ("crash",) and res.outcome != ERROR:
            res.accounting = _compare_accounting(
                audit, audit_start, admin, settings, ns, RequestLog(proxy.request_log)
            )
        if proxy is not None:
            proxy.stop()
        admin.close()
        res.seconds = round(time.monotonic() - started, 1)
        (casedir / "result.json").write_text(json.dumps(res.__dict__, indent=1, default=str))
    return res


#: The annotation a coalesced run sets and removes right after the act (``_touch``).
TOUCH = "modeldock.io/explore-touch"


def _touch(admin: Kube, ns: str) -> None:
    """Right after the act of a coalesced run, set and remove an annotation of the
    ModelService (if it still exists): two more events of it within the coalescing window,
    which the proxy merges with each other and with the act's own event still queued, so the
    operator sees one event for several changes. The end state is the clean run's (an
    annotation added and removed; metadata changes leave ``generation`` alone). Without it
    an act whose changes are one event each (a scale, a child deleted) gives the proxy nothing
    to merge, and the premise (``event_premise``) would find no coalescing."""
    for value in ("1", None):
        try:
            admin.patch("modelservices", ns, NAME, {"metadata": {"annotations": {TOUCH: value}}})
        except ApiException as exc:
            if exc.status != 404:
                raise
            return


def _compare_accounting(
    audit: AuditLog, start: int, admin: Kube, settings: Settings, ns: str, log: RequestLog
) -> dict[str, Any]:
    """The operator is stopped: its requests in ``ns`` from the audit log (from offset
    ``start``) and from the proxy's log must be the same, request for request. A watch is
    audited once it ends, a moment after the operator did: compare until equal, at most 15 s."""
    deadline = time.monotonic() + 15
    while True:
        try:
            audit.sync(admin)
        except TimeoutError:
            pass
        audited = select(audit.requests(start), user=settings.impl.user, namespace=ns)
        proxied = log.requests(settings.impl.user, namespace=ns, completed_only=True)
        result = compare(audited, proxied)
        if result.equal or time.monotonic() > deadline:
            return {"compared": result.matched, "differences": result.differences[:20]}
        time.sleep(0.5)


def _arm(proxy: ApiProxy, pert: Perturbation) -> None:
    if pert.kind == "crash":
        proxy.crash_after_write(pert.k, delivered=pert.variant == DELIVERED, resources=RESOURCES)
    elif pert.kind == "error":
        proxy.inject_write_error(pert.k, 409, resources=RESOURCES)
    elif pert.kind == "stale-view":
        proxy.delay_events(["deployments", "services"], STALE_DELAY)
    elif pert.kind == "coalesced":
        proxy.coalesce_events(list(RESOURCES), COALESCE_WINDOW)
