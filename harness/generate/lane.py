"""A lane of a generated sequence (``Lane``: one implementation's namespace, API proxy and
operator process), the run's ``Settings``, and the two ways a step can end a sequence
(``OracleFailure``, ``PremiseBroken``). ``harness.generate.world`` applies the steps to lanes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.audit import WRITE_VERBS
from harness.envtest.controlplane import ControlPlane
from harness.explore.state import RESOURCES
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube
from harness.operators import Implementation, OperatorProcess


class OracleFailure(AssertionError):
    """An oracle failed for implementation ``impl``: ``oracle`` (invariant, quiet, budget,
    differential, level-triggered, refused) and the message."""

    def __init__(self, impl: str, oracle: str, message: str) -> None:
        super().__init__(f"[{impl}] {oracle}: {message}")
        self.impl, self.oracle, self.message = impl, oracle, message
        #: the other lanes' failures at the same point of the sequence
        self.also: list[OracleFailure] = []


class PremiseBroken(RuntimeError):
    """The world did not do what the step needs to judge anything (the API server admitted
    an invalid edit): not the operator's failure."""


@dataclass
class Lane:
    """One implementation in its own namespace, behind its own API proxy."""

    impl: Implementation
    admin: Kube
    ns: str
    proxy: ApiProxy
    workdir: Path
    op: OperatorProcess | None = None
    starts: int = 0
    #: id of the last request-log record when the current window began
    window_from: int = 0
    #: when the current window began (epoch seconds)
    window_at: float = 0.0
    #: the steps of the current window
    window_ops: list[str] = field(default_factory=list)
    #: a crash was armed on the proxy in this sequence (``crash`` step): the proxy may hold
    #: several, each triggering at its own write, so it is asked at every step and wait
    #: until the sequence ends
    crash_armed: bool = False
    #: crashes that triggered (the operator SIGKILLed at its write) and write errors injected
    crashes: int = 0
    #: seconds the proxy currently holds each watch event (``events`` step); quiet waits them
    event_delay: float = 0.0
    #: the admission policy refusing the operator's Deployment writes is bound (``admission``)
    refusing: bool = False
    #: the lane is on the sim tier (a real deployment controller and garbage collector)
    sim: bool = False

    @property
    def log(self) -> RequestLog:
        return RequestLog(self.proxy.request_log)

    def start_operator(self) -> None:
        """Start a new operator process through the lane's proxy; wait until ready."""
        self.op = OperatorProcess(
            impl=self.impl,
            kubeconfig=self.proxy.kubeconfig,
            namespace=self.ns,
            log_path=self.workdir / f"operator-{self.starts}.log",
            request_log=self.proxy.request_log,
        )
        self.starts += 1
        self.op.start(timeout=60)

    def open_window(self) -> None:
        """Begin a new window (its writes, steps and, on sim, Deployment events) from now."""
        self.window_from, self.window_at, self.window_ops = self.last_id(), time.time(), []

    def deployment_events(self) -> int:
        """Deployment MODIFIED events the proxy delivered to the operator since the window
        began: on sim each may be the deployment controller's status write, which the
        operator follows with one status write of its own."""
        return sum(
            1
            for r in self.log.records()
            for e in r.events
            if e.kind == "Deployment" and e.type == "MODIFIED" and seconds(e.time) >= self.window_at
        )

    def handle_crash(self) -> bool:
        """If an armed crash triggered (the proxy froze the operator right after its write):
        SIGKILL the operator, let the proxy drop the frozen requests, start a new process.
        True when it did."""
        if not self.crash_armed:
            return False
        report = self.proxy.wait_crash(0)
        if not report.get("triggered"):
            return False
        if self.op is not None:
            self.op.kill()
        self.proxy.ack_crash()
        self.crashes += 1
        self.start_operator()
        return True

    def stop(self) -> None:
        if self.op is not None:
            self.op.terminate(timeout=10)
        self.proxy.stop()

    def writes(self, after: int = 0) -> list[ProxyRequest]:
        """The operator's successful writes to ModelServices, Deployments and Services with a
        request id above ``after``, as its proxy logged them."""
        return [
            r
            for r in self.log.records()
            if r.id > after
            and r.verb in WRITE_VERBS
            and r.resource in RESOURCES
            and 200 <= r.code < 300
            and not r.injected
        ]

    def last_id(self) -> int:
        records = self.log.records()
        return records[-1].id if records else 0


def describe(r: ProxyRequest) -> str:
    """``verb resource[/sub] name code`` of one request."""
    target = f"{r.resource}/{r.subresource}" if r.subresource else r.resource
    return f"{r.verb} {target} {r.name} {r.code}"


@dataclass
class Settings:
    """What every lane shares: ``quiet`` s of no write after convergence; ``quiet_timeout`` s
    for convergence and quiet together."""

    control_plane: ControlPlane
    workdir: Path
    quiet: float = 2.0
    quiet_timeout: float = 60.0

    @property
    def sim(self) -> bool:
        """The sim tier: a deployment controller, a garbage collector and fake nodes act,
        so the harness plays neither (the ``rollout`` and ``foreign status`` steps do
        nothing; a delete waits for the real garbage collector)."""
        return self.control_plane.tier == "sim"
