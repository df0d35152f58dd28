"""A lane of a generated sequence (``Lane``: one implementation's namespace, API proxy and
operator process), the run's ``Settings``, and the two ways a step can end a sequence
(``OracleFailure``, ``PremiseBroken``). ``harness.generate.world`` applies the steps to lanes."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.audit import WRITE_VERBS
from harness.envtest.controlplane import ControlPlane
from harness.explore.state import RESOURCES
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube
from harness.operators import Implementation, OperatorProcess

#: Seconds an operator process may take to be ready (``Lane.start_operator``): a Go operator
#: once took over 60 s to sync its caches through its proxy with 16 operator processes and
#: the load average at 40 on 2 cores (a harness error, not an oracle's).
START_TIMEOUT = 180.0


class TailLog(RequestLog):
    """A proxy's request log read incrementally: each read parses only the lines appended
    since the last one (a line being written waits for its newline) and keeps the parsed
    lines, so a poll costs what is new, not the whole run's log (``RequestLog.records`` reads
    and parses the file whole on every call: minutes of CPU over a long run).
    ``records(after)`` builds only the requests with an id above ``after``."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path)
        self._offset = 0
        self._parsed: list[dict[str, Any]] = []
        self._after = 0
        self.max_id = 0
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        try:
            with self.path.open("rb") as f:
                if f.seek(0, 2) < self._offset:  # a new file under the same name
                    self._offset, self._parsed, self.max_id = 0, [], 0
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return
        complete = data.rfind(b"\n") + 1
        self._offset += complete
        for line in data[:complete].splitlines():
            try:
                ln = json.loads(line)
            except ValueError:
                continue  # not a record (the proxy writes whole lines)
            self._parsed.append(ln)
            if ln.get("t") == "req":
                self.max_id = max(self.max_id, int(ln.get("id", 0)))

    def _lines(self) -> Iterable[dict[str, Any]]:
        self._refresh()
        after = self._after
        return (
            [ln for ln in self._parsed if int(ln.get("id", 0)) > after] if after else self._parsed
        )

    def records(self, after: int = 0) -> list[ProxyRequest]:
        """The requests with an id above ``after`` (``RequestLog.records``' shape), each with
        its end and the watch events delivered on it."""
        with self._lock:
            self._after = after
            try:
                return super().records()
            finally:
                self._after = 0

    def last_id(self) -> int:
        """The highest request id logged so far (0: none)."""
        with self._lock:
            self._refresh()
            return self.max_id


class OracleFailure(AssertionError):
    """An oracle failed for implementation ``impl``: ``oracle`` (invariant, status, quiet,
    budget, panic, differential, level-triggered, refused) and the message."""

    def __init__(self, impl: str, oracle: str, message: str) -> None:
        super().__init__(f"[{impl}] {oracle}: {message}")
        self.impl, self.oracle, self.message = impl, oracle, message
        #: the other lanes' failures at the same point of the sequence
        self.also: list[OracleFailure] = []


class PremiseBroken(RuntimeError):
    """The world did not do what the step needs to judge anything (the API server admitted
    an invalid edit): not the operator's failure."""


#: The ModelService every sequence is about.
NAME = "gen"
#: The ValidatingAdmissionPolicy's message for a refused operator write (``admission`` step).
POLICY_MESSAGE = "modeldock generate: this namespace refuses the operator's Deployment writes"


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
    #: id of the last request-log record when the current sequence began (``World._clear``):
    #: what the operator did for an earlier sequence's ModelService is not owed any more
    sequence_from: int = 0
    #: id of the last request-log record when the current operator process started: a new
    #: process's rate limiter has seen no failure, so the backoff of its retries counts its
    #: own failures only (``retries.history``)
    process_from: int = 0
    #: when the current window began (epoch seconds)
    window_at: float = 0.0
    #: the steps of the current window
    window_ops: list[str] = field(default_factory=list)
    #: a crash was armed on the proxy in this sequence (``crash`` step): the proxy may hold
    #: several, each triggering at its own write, so it is asked at every step and wait
    #: until the sequence ends
    crash_armed: bool = False
    #: a write error was armed on the proxy in this sequence (``fault`` step)
    fault_armed: bool = False
    #: crashes that triggered (the operator SIGKILLed at its write) and write errors injected
    crashes: int = 0
    #: seconds the proxy currently holds each watch event (``events`` step); quiet waits them
    event_delay: float = 0.0
    #: the admission policy refusing the operator's Deployment writes is bound (``admission``)
    refusing: bool = False
    #: the lane is on the sim tier (a real deployment controller and garbage collector)
    sim: bool = False
    #: per operator log (``operator-<n>.log``): bytes and lines the panic oracle has read
    #: (``oracles.new_panics``)
    panic_read: dict[str, tuple[int, int]] = field(default_factory=dict)
    _log: TailLog | None = None

    @property
    def log(self) -> TailLog:
        """The proxy's request log, read incrementally (``TailLog``)."""
        if self._log is None:
            self._log = TailLog(self.proxy.request_log)
        return self._log

    def start_operator(self) -> None:
        """Start a new operator process through the lane's proxy; wait until it is ready
        (``START_TIMEOUT``). A crash armed on the proxy may trigger at one of the new
        process's first writes, before it is ready: the proxy then holds every later request
        of it, so it would never be; that crash is handled here like any other (the process
        SIGKILLed, the crash acknowledged, a new one started). A process that exits because
        another took a port the harness picked for it (``OperatorProcess.lost_port_race``;
        seen once in a 1000-sequence nightly, 16 operators restarting) is started again with
        new ports, once. Raises TimeoutError, or RuntimeError when the process exits first
        (each naming its log)."""
        lost_port = port_race = False
        while True:
            self.process_from = self.last_id()
            log = self.workdir / f"operator-{self.starts}.log"
            self.op = OperatorProcess(
                impl=self.impl,
                kubeconfig=self.proxy.kubeconfig,
                namespace=self.ns,
                log_path=log,
                request_log=self.proxy.request_log,
            )
            self.starts += 1
            self.op.start(wait_ready=False)
            deadline = time.monotonic() + START_TIMEOUT
            while not self.op.ready():
                if self.crash_armed and self.proxy.wait_crash(0).get("triggered"):
                    break
                if not self.op.running():
                    if self.op.lost_port_race() and not lost_port:
                        lost_port = port_race = True  # a port picked for it was taken: once
                        break
                    raise RuntimeError(f"the {self.impl.id} operator exited while starting: {log}")
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"the {self.impl.id} operator was not ready {START_TIMEOUT:.0f}s after "
                        f"its start: {log}"
                    )
                time.sleep(0.1)
            else:
                return
            if port_race:
                port_race = False
                continue  # a new process, with new ports; no crash to handle
            self.op.kill()
            self.proxy.ack_crash()
            self.crashes += 1

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
            for r in self.log.records(after)
            if r.id > after
            and r.verb in WRITE_VERBS
            and r.resource in RESOURCES
            and 200 <= r.code < 300
            and not r.injected
        ]

    def last_id(self) -> int:
        """The id of the last request the proxy logged (0: none)."""
        return self.log.last_id()


def describe(r: ProxyRequest) -> str:
    """``verb resource[/sub] name code`` of one request."""
    target = f"{r.resource}/{r.subresource}" if r.subresource else r.resource
    return f"{r.verb} {target} {r.name} {r.code}"


class Halted(BaseException):
    """The run is stopping (Ctrl-C, SIGTERM, a harness error in another slot): a wait of the
    generator gives up at once (``Settings.sleep``). A BaseException, as KeyboardInterrupt
    is, so that hypothesis does not take it for a failing sequence to shrink, and no oracle
    failure or case file comes of it."""


@dataclass
class Settings:
    """What every lane shares: ``quiet`` s of no write after convergence; ``quiet_timeout`` s
    for convergence and quiet together; ``halt``, set when the run is to stop."""

    control_plane: ControlPlane
    workdir: Path
    quiet: float = 2.0
    quiet_timeout: float = 60.0
    halt: threading.Event = field(default_factory=threading.Event, repr=False)

    def sleep(self, seconds: float) -> None:
        """A wait loop's pause between polls: ``seconds``, cut short when ``halt`` is set.
        Raises Halted once it is set, so that a wait that may last minutes (an owed retry's
        bound, ``retries.extended``) ends as soon as the run is told to stop."""
        if self.halt.wait(seconds):
            raise Halted("the run is stopping")

    @property
    def sim(self) -> bool:
        """The sim tier: a deployment controller, a garbage collector and fake nodes act,
        so the harness plays neither (the ``rollout`` and ``foreign status`` steps do
        nothing; a delete waits for the real garbage collector)."""
        return self.control_plane.tier == "sim"
