"""The phases of a bench run: each drives one operator process in a fresh namespace of the
shared control plane and records what it measured in an ``ImplResults``.

``Runner.run`` does, implementations alternating: the latency runs, then for each N the
throughput runs, the N = ``rss_size`` run also measuring peak RSS and a quiet period, the
N = ``restart_size`` run a SIGKILL restart. Every run starts a fresh operator (as its own
user), converges one unmeasured warm-up ModelService, measures, then stops the operator and
empties the namespace (envtest has no garbage collector).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.audit import AuditLog
from harness.bench.accounting import RequestCounts, account_window
from harness.bench.figures import spread_of, time_split
from harness.bench.measure import ConvergenceWatch, CpuSnapshot, cpu_seconds, vm_kib
from harness.bench.results import (
    CapacityRun,
    FloorRun,
    ImplResults,
    LatencyRun,
    LoadRun,
    QuietRun,
    RestartRun,
    build_report,
    floor_violations,
)
from harness.bench.scaling import run_capacity, run_floor, run_workers
from harness.bench.settings import LOG_DIR, Settings, say
from harness.modelservice import modelservice


def bench_control_plane(workdir: Path | None = None) -> Any:
    """The control plane the bench runs on (its /16 Service range holds every run's Services:
    envtest never frees a ClusterIP)."""
    from harness.envtest.controlplane import ControlPlane

    return ControlPlane(workdir=workdir)


#: Seconds without a new Event write after which a run's Events count as all written.
EVENTS_QUIET_S = 3.0


class BenchError(RuntimeError):
    """A phase could not be measured (a timeout, a process that died)."""


class Runner:
    """Runs the phases against one control plane. ``cp``: a started ControlPlane."""

    def __init__(self, cp: Any, impls: Mapping[str, Any], settings: Settings) -> None:
        from harness.kube import Kube

        self.cp = cp
        self.impls = impls
        self.s = settings
        self.admin = Kube(cp.admin_kubeconfig)
        self.audit = AuditLog(cp.audit_log)
        self.results: dict[str, ImplResults] = {i: ImplResults() for i in settings.impls}
        self.errors: list[str] = []
        self.floor_runs: list[FloorRun] = []
        self.capacity_runs: list[CapacityRun] = []
        #: what the API proxy adds to a request (``run_apiproxy_overhead``)
        self.apiproxy_overhead: dict[str, Any] = {}
        self.started = time.monotonic()
        #: py-spy summaries (``--py-spy``, ``harness.bench.profile.summary`` + impl, n, round)
        self.profiles: list[dict[str, Any]] = []
        #: where to write the document so far after every run, and the machine it names
        self.partial: tuple[Path, Mapping[str, Any]] | None = None
        #: the 1-minute load average at the start of every run (the machine is shared)
        self.load_samples: list[float] = []
        self._run_id = uuid.uuid4().hex[:4]
        LOG_DIR.mkdir(parents=True, exist_ok=True)

    def say(self, line: str) -> None:
        """A progress line with the seconds since the bench started."""
        say(f"{time.monotonic() - self.started:6.0f}s  {line}")

    # ------------------------------------------------------------ plumbing
    def _namespace(self, impl_id: str, label: str) -> str:
        from harness.lab.namespaces import create_namespace
        from harness.rbac import role as rbac

        impl = self.impls[impl_id]  # bound to the role it declares, as in the checks
        return create_namespace(
            self.admin,
            f"bench-{impl_id}-{label}-{self._run_id}",
            impl.user,
            rbac.load_role(impl.role) if impl.role else None,
        )

    def _operator(
        self, impl_id: str, namespace: str, label: str, workers: int | None = None
    ) -> Any:
        """An operator process (not started) for ``namespace`` with ``workers`` workers
        (default the settings' ``workers``)."""
        from harness.operators import OperatorProcess

        impl = self.impls[impl_id]
        log = LOG_DIR / f"{impl_id}-{label}.log"
        log.unlink(missing_ok=True)
        return OperatorProcess(
            impl=impl,
            kubeconfig=self.cp.kubeconfig_for(impl.user),
            namespace=namespace,
            log_path=log,
            env={"MAX_CONCURRENT_RECONCILES": str(workers or self.s.workers)},
        )

    def _cpu(self, op: Any = None) -> CpuSnapshot:
        """CPU seconds of kube-apiserver, etcd, the operator ``op`` (if given), this process
        and the machine, now."""
        pids = {
            "kube-apiserver": getattr(self.cp.apiserver, "pid", None),
            "etcd": getattr(self.cp.etcd, "pid", None),
        }
        if op is not None:
            pids["operator"] = op.pid
        return CpuSnapshot(pids)

    def _sync(self) -> int:
        return int(self.audit.sync(self.admin, timeout=30))

    def _settle(self, op: Any, min_count: float = 0, timeout: float = 300) -> float:
        """Wait until the work queue is empty and the reconcile count (>= min_count) has not
        moved for settle_quiet_s; return that count."""
        deadline = time.monotonic() + timeout
        last, since = -1.0, time.monotonic()
        while time.monotonic() < deadline:
            count = op.reconcile_count()
            if count != last or op.workqueue_depth() > 0 or count < min_count:
                last, since = count, time.monotonic()
            elif time.monotonic() - since >= self.s.settle_quiet_s:
                return float(count)
            time.sleep(0.1)
        raise BenchError(
            f"{op.impl.id} operator did not settle within {timeout:.0f}s "
            f"(reconciles {last}, queue depth {op.workqueue_depth()})"
        )

    def _drain_events(self, ns: str, timeout: float = 120) -> int:
        """Wait until the Events in ``ns`` (the sum of their counts) have not changed for
        ``EVENTS_QUIET_S``; return that sum. The recorders write Events in the background,
        behind the reconciles (CONTRACT.md, "Events"), so a window closed when the work
        queue settled would count the Events still waiting as never written."""
        deadline = time.monotonic() + timeout
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            total = sum(int(e.get("count") or 1) for e in self.admin.list("events", ns))
            if total != last:
                last, since = total, time.monotonic()
            elif time.monotonic() - since >= EVENTS_QUIET_S:
                break
            time.sleep(0.25)
        return last

    def _window(
        self, start: int, end: int, user: str, namespace: str | None, *, writes: bool = False
    ) -> RequestCounts:
        """``account_window`` of ``user`` between two ``_sync`` offsets. ``writes``: the
        window covers objects created, so 0 writes means the accounting missed the run
        (BenchError, rather than a run averaged in as 0 writes per object)."""
        acc = account_window(self.audit, start, end, user, namespace)
        if writes and acc.writes_ok + acc.writes_failed == 0:
            raise BenchError(
                f"the audit window of {user} in {namespace} (bytes {start}..{end}) counted "
                f"0 writes and {acc.requests} requests: the accounting missed the run"
            )
        return acc

    def _create_all(self, namespace: str, names: Sequence[str]) -> tuple[float, float]:
        """Create the ModelServices with create_threads threads; return (t_first_sent,
        seconds the creates took)."""
        t0 = time.monotonic()
        with ThreadPoolExecutor(self.s.create_threads) as pool:
            list(
                pool.map(
                    lambda n: self.admin.create("modelservices", namespace, modelservice(n)), names
                )
            )
        return t0, time.monotonic() - t0

    def _clean(self, ns: str) -> None:
        """Empty a namespace once its operator is stopped: drop the finalizers, delete the
        ModelServices, Deployments and Services (deletecollection), then the namespace. envtest
        has no garbage collector or namespace controller, so without this every run would
        leave its objects in etcd and in the API server's watch cache, and later runs (the
        other implementation's included) would measure a fuller, slower API server."""
        from harness.kube import Kube

        try:
            items = self.admin.list("modelservices", ns)
            names = [m["metadata"]["name"] for m in items if m["metadata"].get("finalizers")]
            with ThreadPoolExecutor(self.s.create_threads) as pool:
                list(
                    pool.map(
                        lambda n: self.admin.patch(
                            "modelservices", ns, n, {"metadata": {"finalizers": None}}
                        ),
                        names,
                    )
                )
            for res in ("modelservices", "deployments", "services"):
                self.admin.request("DELETE", Kube.path(res, ns))
            self.admin.delete("namespaces", None, ns)
        except Exception as exc:
            self.say(f"could not empty namespace {ns}: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ warm-up
    def warm_up_control_plane(self) -> None:
        """Create and delete one ModelService, Deployment and Service as admin. The first
        ModelService create in a new API server waits about 2 s (kube-apiserver adds the
        quota admission evaluator for the new resource: "quota admission added evaluator for:
        modelservices.modeldock.io"); that belongs to no implementation."""
        from harness.lab.namespaces import create_namespace

        ns = create_namespace(self.admin, f"bench-warmup-{self._run_id}", "modeldock:nobody")
        t0 = time.monotonic()
        self.admin.create("modelservices", ns, modelservice("warmup"))
        labels = {"app": "warmup"}
        self.admin.create(
            "deployments",
            ns,
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "warmup"},
                "spec": {
                    "replicas": 0,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "c", "image": "x"}]},
                    },
                },
            },
        )
        self.admin.create(
            "services",
            ns,
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "warmup"},
                "spec": {"selector": labels, "ports": [{"port": 80}]},
            },
        )
        for res in ("modelservices", "deployments", "services"):
            self.admin.delete(res, ns, "warmup")
        self.say(
            f"control plane warmed up in {time.monotonic() - t0:.2f}s (first create of each kind)"
        )

    def _warm_up_operator(self, watch: ConvergenceWatch, ns: str, op: Any) -> float:
        """One ModelService before the measured ones, so that each process's first-use costs
        (lazy clients, discovery, imports) are not in the steady-state figures; the restart
        figure is where start-up costs show. Returns its create-to-converged seconds."""
        sent = time.monotonic()
        self.admin.create("modelservices", ns, modelservice("warmup"))
        seconds = watch.wait(["warmup"], timeout=60) - sent
        self._settle(op)
        return seconds

    # ------------------------------------------------------------ latency
    def run_latency(self, impl_id: str, rep: int) -> None:
        """Latency run ``rep`` of ``impl_id``: ``latency_objects`` ModelServices one at a time;
        appends a LatencyRun (seconds per object) and a LoadRun (writes, reconciles)."""
        user = self.impls[impl_id].user
        label = f"latency{rep}"
        ns = self._namespace(impl_id, label)
        op = self._operator(impl_id, ns, label).start(timeout=60)
        watch = ConvergenceWatch(self.admin, ns).start()
        try:
            self.results[impl_id].warmups_s.append(round(self._warm_up_operator(watch, ns, op), 4))
            start = self._sync()
            rc0 = op.reconcile_count()
            samples = []
            cpu0 = self._cpu(op)
            t_begin = time.monotonic()
            for i in range(self.s.latency_objects):
                name = f"lat-{i:03d}"
                sent = time.monotonic()
                self.admin.create("modelservices", ns, modelservice(name))
                done = watch.wait([name], timeout=60)
                samples.append(done - sent)
                time.sleep(self.s.latency_gap_s)
            reconciles = self._settle(op) - rc0
            events_stored = self._drain_events(ns)
            window_cpu = cpu0.delta(self._cpu(op))
            cpu = cpu_seconds(op.pid)
            acc = self._window(start, self._sync(), user, ns, writes=True)
        finally:
            watch.stop()
            op.terminate()
            self._clean(ns)
        run = LatencyRun(samples)
        self.results[impl_id].latency.append(run)
        self.results[impl_id].loads.append(
            LoadRun(
                "latency",
                self.s.latency_objects,
                self.s.latency_objects,
                None,
                time.monotonic() - t_begin,
                reconciles,
                acc,
                cpu,
                events_stored=events_stored,
                round=rep,
                window_cpu=window_cpu,
            )
        )
        self.say(
            f"latency {impl_id} run {rep + 1}: p50 {run.p50:.3f}s p95 {run.p95:.3f}s "
            f"({len(samples)} objects); writes {acc.writes_ok} ok / {acc.writes_failed} "
            f"failed; {reconciles:.0f} reconciles"
        )

    # ------------------------------------------------------------ throughput (+ quiet, RSS, restart)
    def run_throughput(self, impl_id: str, n: int, rep: int, *, quiet: bool, restart: bool) -> None:
        """Throughput run ``rep`` of ``impl_id`` with N = ``n`` created at once; appends a
        LoadRun and peak RSS (MiB); then, if asked, a quiet period and a SIGKILL restart."""
        user = self.impls[impl_id].user
        label = f"n{n}-{rep}"
        ns = self._namespace(impl_id, label)
        op = self._operator(impl_id, ns, label).start(timeout=60)
        watch = ConvergenceWatch(self.admin, ns).start()
        res = self.results[impl_id]
        try:
            res.warmups_s.append(round(self._warm_up_operator(watch, ns, op), 4))
            start = self._sync()
            rc0 = op.reconcile_count()
            names = [f"tp-{i:04d}" for i in range(n)]
            self.say(f"throughput {impl_id} N={n} run {rep + 1}: creating")
            spy = self._py_spy(impl_id, op, label)
            cpu0 = self._cpu(op)
            t0, create_s = self._create_all(ns, names)
            self.say(f"throughput {impl_id} N={n}: {n} created in {create_s:.1f}s; waiting")
            t_last = watch.wait(
                names,
                timeout=self.s.converge_timeout_s,
                progress=lambda d: self.say(
                    f"throughput {impl_id} N={n}: {d}/{n} converged at {time.monotonic() - t0:.0f}s"
                ),
            )
            delta = cpu0.delta(self._cpu(op))
            split = time_split(delta, delta.get("operator"), "operator")
            seconds = t_last - t0
            reconciles = self._settle(op) - rc0
            events_stored = self._drain_events(ns)
            window_cpu = cpu0.delta(self._cpu(op))
            self._profiled(spy, impl_id, n, rep)
            cpu = cpu_seconds(op.pid)
            acc = self._window(start, self._sync(), user, ns, writes=True)
            res.loads.append(
                LoadRun(
                    "throughput",
                    n,
                    n,
                    seconds,
                    create_s,
                    reconciles,
                    acc,
                    cpu,
                    split,
                    events_stored=events_stored,
                    round=rep,
                    window_cpu=window_cpu,
                )
            )
            self.say(
                f"throughput {impl_id} N={n}: all converged in {seconds:.2f}s; writes "
                f"{acc.writes_ok} ok / {acc.writes_failed} failed ({acc.event_writes} of "
                f"Events; {events_stored} Events stored); {reconciles:.0f} "
                f"reconciles; {acc.requests} requests; operator CPU {cpu}s "
                f"({window_cpu.get('operator')}s from the first create to the Events "
                f"written); "
                f"limited by {split['limited_by']}: {split['why']}"
            )
            if quiet:
                self._quiet(impl_id, op)
            hwm = vm_kib(op.pid, "VmHWM")
            if hwm is not None:
                res.rss_by_n.setdefault(n, []).append(round(hwm / 1024, 1))
                if n == self.s.rss_size:
                    res.rss_mib.append(round(hwm / 1024, 1))
                    self.say(f"peak RSS {impl_id} N={n}: {hwm / 1024:.1f} MiB")
            if restart:
                self._restart(impl_id, op, watch, ns, names)
        finally:
            watch.stop()
            op.terminate()
            self._clean(ns)

    def _py_spy(self, impl_id: str, op: Any, label: str) -> Any:
        """A started ``profile.PySpy`` on the operator if ``--py-spy`` names ``impl_id``."""
        if impl_id not in self.s.py_spy:
            return None
        from harness.bench.profile import PySpy

        return PySpy(op.pid, LOG_DIR / f"pyspy-{impl_id}-{label}-{self._run_id}.txt").start()

    def _profiled(self, spy: Any, impl_id: str, n: int, rep: int) -> None:
        """Stop ``spy`` (None: nothing), keep its summary in ``profiles`` and say it."""
        if spy is None:
            return
        from harness.bench.profile import render, summary

        raw = spy.stop()
        if raw is None:
            self.say(f"py-spy {impl_id} N={n}: no profile written (see {spy.out}.log)")
            return
        got = {"impl": impl_id, "n": n, "round": rep, **summary(raw)}
        self.profiles.append(got)
        raw.with_suffix(".top.txt").write_text(render(got) + "\n")
        self.say(f"py-spy {impl_id} N={n} run {rep + 1}:\n{render(got)}")

    def _quiet(self, impl_id: str, op: Any) -> None:
        user = self.impls[impl_id].user
        self.say(f"quiet {impl_id}: {self.s.quiet_seconds:.0f}s with nothing changing")
        start = self._sync()
        rc0 = op.reconcile_count()
        time.sleep(self.s.quiet_seconds)
        rc1 = op.reconcile_count()
        acc = self._window(start, self._sync(), user, None)
        q = QuietRun(
            self.s.quiet_seconds,
            acc.writes_ok + acc.writes_failed,
            acc.requests,
            rc1 - rc0,
            acc.requests_by_kind,
        )
        self.results[impl_id].quiet.append(q)
        self.say(
            f"quiet {impl_id}: {q.writes} writes, {q.requests} requests, "
            f"{q.reconciles:.0f} reconciles"
        )

    def _restart(
        self, impl_id: str, op: Any, watch: ConvergenceWatch, ns: str, names: Sequence[str]
    ) -> None:
        from harness.operators import OperatorProcess

        user = self.impls[impl_id].user
        n = len(names)
        self.say(
            f"restart {impl_id} N={n}: SIGKILL, changing spec.replicas of every "
            f"{self.s.restart_every}th"
        )
        op.kill()
        changed: dict[str, int] = {}
        for name in names[:: self.s.restart_every]:
            out = self.admin.patch("modelservices", ns, name, {"spec": {"replicas": 2}})
            changed[name] = int(out["metadata"]["generation"])
        start = self._sync()
        t0 = time.monotonic()
        op.start(wait_ready=False)
        ready_at = reconciled_at = None
        deadline = t0 + self.s.converge_timeout_s
        while time.monotonic() < deadline:
            now = time.monotonic()
            if (
                ready_at is None
                and OperatorProcess._get(f"http://127.0.0.1:{op.health_port}/readyz") == 200
            ):
                ready_at = now
            if reconciled_at is None and ready_at is not None:
                try:
                    # every object in the namespace: the N and the warm-up one
                    if op.reconcile_count() >= n + 1 and op.workqueue_depth() == 0:
                        reconciled_at = now
                except Exception:
                    pass
            if reconciled_at is not None and watch.count_converged(generations=changed) == len(
                changed
            ):
                break
            if not op.running():
                raise BenchError(
                    f"{impl_id} operator exited after restart (code {op.returncode()})"
                )
            time.sleep(0.1)
        else:
            raise BenchError(
                f"{impl_id} operator did not converge after restart within "
                f"{self.s.converge_timeout_s:.0f}s"
            )
        changed_at = watch.wait(list(changed), timeout=1, generations=changed)
        assert ready_at is not None and reconciled_at is not None
        seconds = max(changed_at, reconciled_at) - t0
        reconciles = self._settle(op)
        acc = self._window(start, self._sync(), user, ns)
        run = RestartRun(
            n=n,
            changed=len(changed),
            seconds=round(seconds, 3),
            ready_s=round(ready_at - t0, 3),
            changed_converged_s=round(changed_at - t0, 3),
            all_reconciled_s=round(reconciled_at - t0, 3),
            reconciles=reconciles,
            accounting=acc,
        )
        self.results[impl_id].restarts.append(run)
        self.say(
            f"restart {impl_id} N={n}: converged {seconds:.2f}s after start (ready "
            f"{run.ready_s:.2f}s, changed converged {run.changed_converged_s:.2f}s, all "
            f"reconciled {run.all_reconciled_s:.2f}s); writes {acc.writes_ok} ok / "
            f"{acc.writes_failed} failed"
        )

    # ------------------------------------------------------------ all
    def _attempt(self, what: str, fn: Callable[[], None]) -> None:
        self.load_samples.append(os.getloadavg()[0])
        try:
            fn()
        except Exception as exc:
            msg = f"{what}: {type(exc).__name__}: {exc}"
            self.errors.append(msg)
            self.say(f"FAILED {msg}")
        if self.partial is not None:
            import json

            from harness import runs

            path, machine = self.partial
            doc = {"partial": f"after {what}", **self.report(machine)}
            runs.write_text_atomic(path, json.dumps(doc, indent=2) + "\n")

    def run(self) -> None:
        """Every phase, the implementations alternating; a phase that fails is recorded in
        ``errors`` and the bench goes on."""
        s = self.s
        self.warm_up_control_plane()
        self._attempt("API proxy overhead", self.run_apiproxy_overhead)
        for rep in range(s.throughput_repeats if s.floor else 0):
            for c in s.capacity_concurrency:
                self._attempt(
                    f"capacity concurrency={c} run {rep + 1}",
                    lambda c=c, r=rep: run_capacity(self, s.capacity_size, c, r),  # type: ignore[misc]
                )
        for rep in range(s.repeats):
            for impl_id in s.impls:
                self._attempt(
                    f"latency {impl_id} run {rep + 1}",
                    lambda i=impl_id, r=rep: self.run_latency(i, r),  # type: ignore[misc]
                )
        for n in s.sizes:
            for rep in range(s.throughput_repeats):
                if s.floor:
                    self._attempt(
                        f"floor N={n} run {rep + 1}",
                        lambda n=n, r=rep: run_floor(self, n, s.workers, r),  # type: ignore[misc]
                    )
                for impl_id in s.impls:
                    self._attempt(
                        f"throughput {impl_id} N={n} run {rep + 1}",
                        lambda i=impl_id, n=n, r=rep: self.run_throughput(  # type: ignore[misc]
                            i, n, r, quiet=(n == s.rss_size), restart=(n == s.restart_size)
                        ),
                    )
            if s.floor and s.throughput_repeats:
                # a closing floor run, so that each round's last runs have a floor run after
                # them too (paired.paired: the faster of the floor runs around a run)
                r = s.throughput_repeats
                self._attempt(
                    f"floor N={n} run {r + 1} (closing)",
                    lambda n=n, r=r: run_floor(self, n, s.workers, r),  # type: ignore[misc]
                )
        for w in s.scaling_workers:
            for rep in range(s.scaling_repeats):
                # a floor run in every round, even where the throughput phase already ran the
                # floor at this N and worker count: a ratio compares runs made side by side
                # (on a shared machine a few minutes apart can differ by a factor of two)
                if s.floor:
                    self._attempt(
                        f"floor N={s.scaling_size} workers={w} run {rep + 1}",
                        lambda w=w, r=rep: run_floor(self, s.scaling_size, w, r),  # type: ignore[misc]
                    )
                for impl_id in s.impls:
                    self._attempt(
                        f"scaling {impl_id} workers={w} run {rep + 1}",
                        lambda i=impl_id, w=w, r=rep: run_workers(self, i, w, r),  # type: ignore[misc]
                    )
            if s.floor and s.scaling_repeats:
                r = s.scaling_repeats
                self._attempt(
                    f"floor N={s.scaling_size} workers={w} run {r + 1} (closing)",
                    lambda w=w, r=r: run_floor(self, s.scaling_size, w, r),  # type: ignore[misc]
                )

    def run_apiproxy_overhead(self) -> None:
        """What the API proxy adds to a request (``harness.bench.apiproxy_overhead``)."""
        from harness.bench import apiproxy_overhead

        self.apiproxy_overhead = apiproxy_overhead.measure(self.cp)
        self.say(f"API proxy overhead: {self.apiproxy_overhead}")

    def report(self, machine: Mapping[str, Any]) -> dict[str, Any]:
        """The bench.json document of what was measured (``results.build_report``), with the
        API proxy's overhead as ``apiproxy_overhead``; each ratio to the floor below 1 is an
        error (``results.floor_violations``); ``machine`` gains the spread of the load
        average at the start of each run."""
        machine = dict(machine)
        if self.load_samples:
            machine["load_average_1m_at_each_run"] = spread_of(self.load_samples, 2)
        doc = build_report(
            self.results,
            machine,
            self.s.describe(),
            self.errors,
            self.floor_runs,
            self.capacity_runs,
        )
        # the floor must be one: an implementation faster than it says the floor is wrong
        doc["errors"] += [f"beat the floor: {v}" for v in floor_violations(doc)]
        if self.apiproxy_overhead:
            doc["apiproxy_overhead"] = self.apiproxy_overhead
        if self.profiles:
            doc["profiles"] = self.profiles
        return doc
