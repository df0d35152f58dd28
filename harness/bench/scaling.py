"""The floor runs and the worker-scaling runs of a bench (docs/design.md, "Measurements").

``run_floor``: the Go floor client (``harness.bench.gofloor``) at N ModelServices with W
goroutines, in a fresh namespace, timed like an operator's throughput run (first create sent
to last converged seen by the same watch), with the CPU split; ``run_capacity``: the same
client at a saturating concurrency, the writes per second the API server answers. ``run_workers``: one implementation
with ``MAX_CONCURRENT_RECONCILES`` = W, N created at once while ``ProbeLoop`` changes probe
ModelServices one at a time and times each change; operator CPU, peak RSS, failed writes and
the CPU split. Both take the ``Runner`` of ``harness.bench.phases`` (described here by
``BenchLike``, so that this module does not import that one).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from harness.bench.accounting import RequestCounts
from harness.bench.figures import time_split
from harness.bench.floor import FLOOR_USER
from harness.bench.measure import ConvergenceWatch, CpuSnapshot, vm_kib
from harness.bench.results import CapacityRun, FloorRun, ImplResults, WorkersRun
from harness.bench.settings import LOG_DIR, Settings


class BenchLike(Protocol):
    """What the runs here use of ``harness.bench.phases.Runner``."""

    cp: Any
    admin: Any
    impls: Mapping[str, Any]
    s: Settings
    results: dict[str, ImplResults]
    floor_runs: list[FloorRun]
    capacity_runs: list[CapacityRun]
    _run_id: str

    def say(self, line: str) -> None: ...
    def _namespace(self, impl_id: str, label: str) -> str: ...
    def _operator(
        self, impl_id: str, namespace: str, label: str, workers: int | None = None
    ) -> Any: ...
    def _cpu(self, op: Any = None) -> CpuSnapshot: ...
    def _sync(self) -> int: ...
    def _settle(self, op: Any, min_count: float = 0, timeout: float = 300) -> float: ...
    def _window(
        self, start: int, end: int, user: str, namespace: str | None, *, writes: bool = False
    ) -> RequestCounts: ...
    def _drain_events(self, ns: str, timeout: float = 120) -> int: ...
    def _create_all(self, namespace: str, names: Sequence[str]) -> tuple[float, float]: ...
    def _clean(self, ns: str) -> None: ...
    def _warm_up_operator(self, watch: ConvergenceWatch, ns: str, op: Any) -> float: ...


def run_floor(b: BenchLike, n: int, workers: int, rep: int) -> None:
    """Floor run ``rep``: the Go floor client (``harness.bench.gofloor``) with N ModelServices
    and ``workers`` goroutines; appends a FloorRun."""
    label = f"floor-n{n}-w{workers}-{rep}"
    out, run_s, acc, split = _floor_batch(b, label, n, workers, b.s.create_threads)
    run = FloorRun(
        round=rep,
        n=n,
        workers=workers,
        seconds=run_s,
        writes_done_s=float(out["last_write_done_s"]),
        create_seconds=float(out["creates_done_s"]),
        accounting=acc,
        split=split,
    )
    b.floor_runs.append(run)
    b.say(
        f"floor N={n} workers={workers}: all converged in {run.seconds:.2f}s (last write "
        f"answered at {run.writes_done_s:.2f}s); writes {acc.writes_ok} ok / "
        f"{acc.writes_failed} failed; limited by {split['limited_by']}: {split['why']}"
    )


def run_capacity(b: BenchLike, n: int, concurrency: int, rep: int) -> None:
    """The API server's write capacity: the floor's writes for N ModelServices with
    ``concurrency`` goroutines creating and as many writing (a concurrency that saturates
    it); appends a CapacityRun with the writes it answered per second."""
    label = f"capacity-n{n}-c{concurrency}-{rep}"
    out, _, acc, split = _floor_batch(b, label, n, concurrency, concurrency)
    last = float(out["last_write_done_s"])
    run = CapacityRun(
        n=n,
        concurrency=concurrency,
        writes=acc.writes_ok,
        seconds=last,
        writes_per_s=round(acc.writes_ok / last, 1) if last > 0 else None,
        apiserver_cpu_s=split.get("apiserver_cpu_s"),
        etcd_cpu_s=split.get("etcd_cpu_s"),
        machine_busy=split.get("machine_busy"),
    )
    b.capacity_runs.append(run)
    b.say(
        f"capacity N={n} concurrency={concurrency}: {run.writes} writes answered in "
        f"{last:.2f}s = {run.writes_per_s} writes/s; machine {split.get('machine_busy')} busy"
    )


def _floor_batch(
    b: BenchLike, label: str, n: int, workers: int, create_threads: int
) -> tuple[dict[str, Any], float, RequestCounts, dict[str, Any]]:
    """One batch of the Go floor client in a fresh namespace: (its outcome, seconds from the
    start line to the last ModelService seen converged by the admin's watch, the audit log's
    count of the floor user's writes, the CPU split)."""
    from harness.bench.gofloor import GoFloor, floor_binary
    from harness.lab.namespaces import create_namespace

    ns = create_namespace(b.admin, f"bench-{label}-{b._run_id}", FLOOR_USER)
    proc = GoFloor(
        floor_binary(b.say),
        admin_kubeconfig=b.cp.admin_kubeconfig,
        kubeconfig=b.cp.kubeconfig_for(FLOOR_USER),
        namespace=ns,
        objects=n,
        workers=workers,
        create_threads=create_threads,
        stderr_path=LOG_DIR / f"{label}.log",
    )
    watch = ConvergenceWatch(b.admin, ns).start()
    try:
        proc.start()  # connects, then one unmeasured object (connections, first use)
        watch.wait(["warmup"], timeout=60)
        start = b._sync()
        names = [f"tp-{i:04d}" for i in range(n)]
        b.say(f"{label}: creating and writing")
        cpu0 = b._cpu()
        t0 = proc.go()
        out = proc.outcome(timeout=b.s.converge_timeout_s)
        t_last = watch.wait(names, timeout=b.s.converge_timeout_s)
        delta = cpu0.delta(b._cpu())
        # the process has exited by now: its CPU is what it measured of itself (getrusage)
        split = time_split(delta, float(out.get("cpu_s") or 0.0), "floor client")
        acc = b._window(start, b._sync(), FLOOR_USER, ns, writes=True)
        return out, t_last - t0, acc, split
    finally:
        watch.stop()
        proc.stop()
        b._clean(ns)


class ProbeLoop:
    """Changes ``spec.replicas`` of the probe ModelServices one at a time (at most one change
    every ``interval`` s; a probe again only once its last change converged) and records each
    change's seconds from the patch sent to its new generation seen converged."""

    def __init__(
        self, admin: Any, watch: ConvergenceWatch, ns: str, names: Sequence[str], interval: float
    ) -> None:
        self.admin, self.watch, self.ns, self.interval = admin, watch, ns, interval
        self.free: deque[str] = deque(names)
        self.replicas = dict.fromkeys(names, 1)
        self.pending: dict[str, tuple[float, int]] = {}
        self.samples: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="probes", daemon=True)

    def start(self) -> ProbeLoop:
        """Start changing probes in a thread."""
        self._thread.start()
        return self

    def _collect(self) -> None:
        for name, (sent, gen) in list(self.pending.items()):
            at = self.watch.converged_at(name, gen)
            if at is not None:
                self.samples.append(at - sent)
                del self.pending[name]
                self.free.append(name)

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self._collect()
            now = time.monotonic()
            if self.free and now >= next_at:
                name = self.free.popleft()
                self.replicas[name] = 3 - self.replicas[name]  # 1 -> 2 -> 1 ...
                sent = time.monotonic()
                try:
                    out = self.admin.patch(
                        "modelservices", self.ns, name, {"spec": {"replicas": self.replicas[name]}}
                    )
                    self.pending[name] = (sent, int(out["metadata"]["generation"]))
                except Exception:
                    self.errors += 1
                    self.free.append(name)
                next_at = now + self.interval
            self._stop.wait(0.02)

    def stop(self, timeout: float = 120.0) -> list[float]:
        """Send no more changes; wait (up to ``timeout`` s) for those sent to converge; return
        the samples, seconds."""
        self._stop.set()
        self._thread.join(5)
        deadline = time.monotonic() + timeout
        while self.pending and time.monotonic() < deadline:
            self._collect()
            time.sleep(0.05)
        self.errors += len(self.pending)
        return self.samples


def run_workers(b: BenchLike, impl_id: str, workers: int, rep: int) -> None:
    """Scaling run ``rep`` of ``impl_id`` with ``workers`` workers at N = scaling_size;
    appends a WorkersRun."""
    s = b.s
    n = s.scaling_size
    user = b.impls[impl_id].user
    label = f"w{workers}-n{n}-{rep}"
    ns = b._namespace(impl_id, label)
    op = b._operator(impl_id, ns, label, workers=workers).start(timeout=60)
    watch = ConvergenceWatch(b.admin, ns).start()
    try:
        b._warm_up_operator(watch, ns, op)
        probes = [f"probe-{i:02d}" for i in range(s.probe_objects)]
        b._create_all(ns, probes)
        watch.wait(probes, timeout=120)
        b._settle(op)
        start = b._sync()
        rc0 = op.reconcile_count()
        names = [f"tp-{i:04d}" for i in range(n)]
        b.say(f"scaling {impl_id} workers={workers} N={n} run {rep + 1}: creating")
        cpu0 = b._cpu(op)
        loop = ProbeLoop(b.admin, watch, ns, probes, s.probe_interval_s).start()
        t0, _ = b._create_all(ns, names)
        t_last = watch.wait(
            names,
            timeout=s.converge_timeout_s,
            progress=lambda d: b.say(
                f"scaling {impl_id} workers={workers}: {d}/{n} converged at "
                f"{time.monotonic() - t0:.0f}s"
            ),
        )
        delta = cpu0.delta(b._cpu(op))
        samples = loop.stop()
        split = time_split(delta, delta.get("operator"), "operator")
        reconciles = b._settle(op) - rc0
        # the Events too, as in the throughput runs: the recorders write them behind the
        # reconciles, and a window closed before would count those still queued as missing
        events_stored = b._drain_events(ns)
        window_cpu = cpu0.delta(b._cpu(op))
        acc = b._window(start, b._sync(), user, ns, writes=True)
        hwm = vm_kib(op.pid, "VmHWM")
        run = WorkersRun(
            workers=workers,
            n=n,
            seconds=t_last - t0,
            probe_samples=samples,
            cpu_s=delta.get("operator"),
            peak_rss_mib=None if hwm is None else round(hwm / 1024, 1),
            reconciles=reconciles,
            accounting=acc,
            split=split,
            round=rep,
            window_cpu=window_cpu,
            events_stored=events_stored,
        )
        b.results[impl_id].workers_runs.append(run)
        b.say(
            f"scaling {impl_id} workers={workers}: all converged in {run.seconds:.2f}s; "
            f"{len(samples)} probe changes (p50 {_p(samples, 50)}, p95 {_p(samples, 95)}); "
            f"operator CPU {run.cpu_s}s ({window_cpu.get('operator')}s to the Events "
            f"written); RSS {run.peak_rss_mib} MiB; writes {acc.writes_ok} ok / "
            f"{acc.writes_failed} failed ({acc.event_writes} of Events; {events_stored} "
            f"Events stored); limited by {split['limited_by']}: "
            f"{split['why']}" + (f"; {loop.errors} probe changes lost" if loop.errors else "")
        )
    finally:
        watch.stop()
        op.terminate()
        b._clean(ns)


def _p(samples: Sequence[float], q: float) -> str:
    from harness.bench.figures import percentile

    return f"{percentile(samples, q):.3f}s" if samples else "-"
