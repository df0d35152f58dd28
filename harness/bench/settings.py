"""The settings of a bench run, where it writes, and its progress lines.

``Settings`` holds what the command line chose (``settings_from_args``); ``Settings.describe``
is the ``settings`` object of ``reports/bench.json``, which also says in words how each figure
is measured (docs/design.md, section "Measurements").
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any

from harness.paths import BUILD_DIR, REPORTS_DIR

#: Where ``python -m harness.bench`` writes its result by default (``--out``).
DEFAULT_OUT = REPORTS_DIR / "bench.json"

#: The operators' logs of every run (``<impl>-<run>.log``) and, with ``--keep``, the control
#: plane's folder.
LOG_DIR = BUILD_DIR / "bench"


def say(line: str) -> None:
    """Write one progress line, prefixed ``[bench]``, to stderr (stdout is the result table)."""
    print(f"[bench] {line}", file=sys.stderr, flush=True)


@dataclass
class Settings:
    """What one bench run does: which implementations, the sizes N, how many objects and
    repeats per phase, the worker count. Times are seconds; ``sizes`` are object counts."""

    impls: list[str]
    sizes: list[int]
    latency_objects: int
    repeats: int
    throughput_repeats: int
    quiet_seconds: float
    workers: int
    restart_size: int
    rss_size: int
    restart_every: int = 10
    #: the worker counts of the scaling runs (empty: none), their N, runs per count
    scaling_workers: list[int] = field(default_factory=lambda: [1, 4, 16])
    scaling_size: int = 1000
    scaling_repeats: int = 3
    #: the write-capacity runs: the floor client's writes for capacity_size ModelServices at
    #: each of these concurrencies (goroutines creating, and as many writing)
    capacity_concurrency: list[int] = field(default_factory=lambda: [64])
    capacity_size: int = 1000
    #: the floor client's runs (at each N and each scaling worker count)
    floor: bool = True
    #: ModelServices changed one at a time during a scaling run, at most one change per
    #: interval, each object again only once its last change converged
    probe_objects: int = 20
    probe_interval_s: float = 0.25
    create_threads: int = 8
    latency_gap_s: float = 0.25
    settle_quiet_s: float = 1.0
    converge_timeout_s: float = 900.0
    quick: bool = False
    #: implementations whose throughput runs are profiled with py-spy (``--py-spy``)
    py_spy: list[str] = field(default_factory=list)

    def describe(self) -> dict[str, Any]:
        """The ``settings`` object of bench.json: the numbers, and in words how each figure
        is measured (``{key: number | list | str}``)."""
        return {
            "impls": self.impls,
            "sizes": self.sizes,
            "latency_objects": self.latency_objects,
            "latency_repeats": self.repeats,
            "throughput_repeats": self.throughput_repeats,
            "quiet_seconds": self.quiet_seconds,
            "max_concurrent_reconciles": self.workers,
            "restart_size": self.restart_size,
            "restart_changed": f"spec.replicas of every {self.restart_every}th ModelService",
            "rss_size": self.rss_size,
            "create_threads": self.create_threads,
            "latency_gap_s": self.latency_gap_s,
            "quick": self.quick,
            "isolation": (
                "each run: a fresh namespace and operator process, one unmeasured "
                "warm-up ModelService first; afterwards the operator is stopped and the "
                "namespace emptied (finalizers dropped, deletecollection), so every run "
                "starts on the same near-empty API server"
            ),
            "observation": (
                "one watch per namespace as admin; converged = status."
                "observedGeneration == metadata.generation, Ready and Progressing "
                "present, Ready not ChildConflict; time = arrival of the watch "
                "event (ms resolution); /metrics polled every 0.1 s"
            ),
            "latency": (
                f"{self.latency_objects} objects created one at a time, each after the "
                f"previous converged + {self.latency_gap_s} s; create sent to converged "
                f"seen; figure = median over {self.repeats} runs of each run's p50/p95"
            ),
            "throughput": (
                f"N created at once by {self.create_threads} client threads; first "
                "create sent to last converged seen; median over "
                f"{self.throughput_repeats} run(s)"
            ),
            "writes": (
                "audit log, the operator user's writes in its namespace, from the "
                "operator ready to settled (queue empty, reconcile count still 1 s), "
                "over every latency and throughput run, divided by objects created"
            ),
            "requests_per_reconcile": (
                "every API request by the operator user (any verb, "
                "watches included, any namespace) in the same windows "
                "/ reconciles (controller_runtime_reconcile_total)"
            ),
            "quiet_writes": (
                f"writes by the operator user in {self.quiet_seconds} s after "
                f"N = {self.rss_size} settled; max over runs"
            ),
            "peak_rss_mib": (
                f"VmHWM of the operator process at the end of the N = "
                f"{self.rss_size} run (a fresh process per run); median over runs"
            ),
            "restart_to_converged_s": (
                f"N = {self.restart_size} converged; SIGKILL; spec.replicas changed on every "
                f"{self.restart_every}th; process started: time until those converged at "
                f"their new generation AND reconcile count >= N + 1 (with the warm-up object) and an empty queue"
            ),
            "py_spy": self.py_spy,
            "scaling_workers": self.scaling_workers,
            "scaling_size": self.scaling_size,
            "scaling_repeats": self.scaling_repeats,
            "capacity_concurrency": self.capacity_concurrency,
            "capacity_size": self.capacity_size,
            "capacity": (
                f"the API server's write capacity: the floor client's writes for "
                f"{self.capacity_size} ModelServices with C goroutines creating and C writing, "
                f"C in {self.capacity_concurrency}; writes answered (audit log) / seconds from "
                "the start to the last write answered; median over runs, the best C"
            ),
            "floor": (
                (
                    "the writes a perfect operator needs (finalizer update, Deployment "
                    "create, Service create, status update) sent by a Go client (client-go, "
                    "no informer, no work queue, no client-side rate limit; "
                    "harness/bench/floorclient) as user modeldock:floor: the admin creates "
                    "N ModelServices (the same "
                    f"{self.create_threads} threads) and each create's answer goes straight "
                    "to W threads (W = max_concurrent_reconciles for throughput_s, each "
                    "scaling worker count for workers), no informer, no queue; time = first "
                    "create sent to last converged seen by the same watch as the operators; "
                    "median over runs like the operators' throughput"
                )
                if self.floor
                else "not run"
            ),
            "workers": (
                f"per worker count W in {self.scaling_workers}: a fresh operator with "
                f"MAX_CONCURRENT_RECONCILES=W, {self.probe_objects} probe ModelServices "
                f"converged first, then N = {self.scaling_size} created at once; "
                "throughput_s as above; latency = while the N converge, spec.replicas "
                f"of one probe changed at most every {self.probe_interval_s} s (each "
                "probe again only after its change converged), patch sent to converged "
                "at the new generation seen, p50/p95; cpu_s = operator CPU from the "
                "first create to the last converged; peak_rss_mib = VmHWM at the end; "
                "failed writes from the audit log / (N + probe changes); median over "
                f"{self.scaling_repeats} run(s)"
            ),
            "time_split": (
                "CPU seconds from /proc/<pid>/stat of the operator process (floor: "
                "its threads' thread_time), kube-apiserver and etcd, and of the "
                "bench process (creates, watch), from the first create to the last "
                "converged; other_cpu_s = the machine's busy time (/proc/stat) no "
                "process of the run accounts for; limited_by: the client's CPU if it "
                "was on a core >= 85% of the wall time, else the machine's CPU if "
                "all cores were >= 90% busy, else waiting (round trips)"
            ),
        }


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from the command line (``harness.bench.cli.build_parser``): ``--quick`` is
    N = 20 (the floor too), 10 latency objects once, one throughput run, 5 s quiet,
    worker scaling 1 and 4 at N = 40 once, the write capacity at N = 40. The capacity's N is
    the largest of the sizes unless given. Raises SystemExit when
    the restart or RSS size is not among the sizes."""
    if args.quick:
        sizes = [20]
        latency_objects, repeats, quiet = 10, 1, 5.0
    else:
        sizes = sorted({int(x) for x in args.sizes.split(",") if x.strip()})
        latency_objects, repeats, quiet = args.latency_objects, args.repeats, args.quiet_seconds
    scaling = [int(x) for x in (args.scaling_workers or "").split(",") if x.strip()]
    scaling_size = args.scaling_size
    capacity = [int(x) for x in (args.capacity_concurrency or "").split(",") if x.strip()]
    capacity_size = args.capacity_size or max(sizes)
    if args.quick:
        scaling, scaling_size = [1, 4], 40
        capacity_size = 40
    restart = args.restart_size or (500 if 500 in sizes else sizes[len(sizes) // 2])
    rss = args.rss_size or max(sizes)
    if restart not in sizes or rss not in sizes:
        raise SystemExit(f"--restart-size {restart} and --rss-size {rss} must be among --sizes")
    return Settings(
        impls=args.impl or ["go", "python"],
        sizes=sizes,
        latency_objects=latency_objects,
        repeats=repeats,
        throughput_repeats=1 if args.quick else args.throughput_repeats,
        quiet_seconds=quiet,
        workers=args.workers,
        restart_size=restart,
        rss_size=rss,
        quick=args.quick,
        scaling_workers=sorted(set(scaling)),
        scaling_size=scaling_size,
        scaling_repeats=1 if args.quick else args.scaling_repeats,
        capacity_concurrency=sorted(set(capacity)),
        capacity_size=capacity_size,
        floor=not args.no_floor,
        py_spy=list(getattr(args, "py_spy", None) or []),
    )
