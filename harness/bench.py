"""``make bench``: benchmarks of the implementations (DESIGN.md section 8), not timed tests.

``python -m harness.bench`` builds the implementations, starts one control plane, runs every
implementation in turn on it with the same inputs and the same worker count
(``MAX_CONCURRENT_RECONCILES``), and writes ``reports/bench.json``::

    {"machine": {...}, "settings": {...},
     "implementations": {"go": FIGURES, "python": FIGURES},
     "ratios": {"python/go": FIGURES},
     "latency_samples_s": {"go": [...], "python": [...]},
     "details": {"go": {per-run numbers, "failed_writes": {kind: {count, cause}}}, ...},
     "errors": [...]}

FIGURES has the keys of ``FIGURE_KEYS``; ``throughput_s`` is an object keyed by N (as a
string). Every figure is absolute on the machine described in "machine". The phases, each in
a fresh namespace with a fresh operator process running as its own user (``modeldock:<id>``):

- **latency** (``--repeats`` times): create ``--latency-objects`` ModelServices one at a
  time, each after the previous one converged and a 0.25 s gap; per object, the time from
  sending the create to the first watch event showing it converged. p50 and p95 per run; the
  figure is the median over runs.

- **throughput** (``--throughput-repeats`` times per N, median): create N ModelServices at
  once (8 client threads), time from the first create sent until the last one converged.
- **writes, reconciles, requests**: from the audit log (by user and namespace) and the
  operator's ``/metrics``, over the latency and throughput phases, in the window from the
  operator being ready to it having settled (work queue empty, reconcile count still for 1 s).
- **quiet** (after N = ``--rss-size`` settled): writes by the operator's user during
  ``--quiet-seconds`` in which nothing changes.
- **peak RSS**: ``VmHWM`` of the operator process (its own pid: the Go binary, the Python
  interpreter) at the end of the N = ``--rss-size`` phase (a fresh process per phase).
- **restart** (after N = ``--restart-size`` settled): SIGKILL; while it is down, change
  spec.replicas of every tenth ModelService; start it again. restart_to_converged_s is the
  time from the new process being started until both (a) every changed ModelService shows
  converged status at its new generation and (b) the operator has reconciled at least N + 1
  times (the N and the warm-up object) with an empty work queue: every object looked at again.

Every run (latency, and throughput for each N) gets a fresh namespace and a fresh operator
process, measures only after one unmeasured warm-up ModelService, and afterwards stops the
operator and empties the namespace, so that each run starts on the same API server (envtest
frees nothing by itself). Runs alternate between the implementations (go, python, go, ...).
The control plane is warmed up once (the first ModelService create of a new kube-apiserver
takes ~2 s) and has a /16 Service range (the harness default /24 runs out of ClusterIPs).

"Converged" (the status half of conformance/support.py's ``is_converged``): status
observedGeneration equals metadata.generation and both conditions Ready and Progressing are
present, Ready's reason not ChildConflict. Observed through one watch per namespace (admin),
so the resolution is the watch event's arrival at this process, milliseconds; metrics are
polled every 0.1 s.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "reports" / "bench.json"
LOG_DIR = REPO_ROOT / "build" / "bench"

#: The figures of every implementation, in this order (DESIGN.md section 8).
FIGURE_KEYS: tuple[str, ...] = (
    "latency_p50_s",
    "latency_p95_s",
    "throughput_s",
    "writes_per_object",
    "failed_writes_per_object",
    "quiet_writes",
    "reconciles_per_object",
    "requests_per_reconcile",
    "peak_rss_mib",
    "restart_to_converged_s",
)

#: Labels for the table printed at the end.
FIGURE_LABELS = {
    "latency_p50_s": "latency p50 (s)",
    "latency_p95_s": "latency p95 (s)",
    "throughput_s": "N at once until all converged (s)",
    "writes_per_object": "writes per ModelService (floor 4)",
    "failed_writes_per_object": "failed writes per ModelService",
    "quiet_writes": "writes in the quiet period (floor 0)",
    "reconciles_per_object": "reconciles per ModelService",
    "requests_per_reconcile": "API requests per reconcile",
    "peak_rss_mib": "peak RSS (MiB)",
    "restart_to_converged_s": "SIGKILL, restart to converged (s)",
}

#: Why a failed write happens, by ``"<verb> <resource[/sub]> <code> <reason>"``.
FAILED_WRITE_CAUSES = {
    "update modelservices/status 409 Conflict": (
        "the second reconcile of a new ModelService (queued again by the watch events of the "
        "first one's own writes) ran before the watch event of the first one's status update "
        "reached the cache: it read the ModelService as of the finalizer update, without "
        "status, and sent a status update with that stale resourceVersion; the error requeues "
        "the key and the third reconcile, on the caught-up cache, writes nothing. Seen when "
        "the queue is short (one object at a time), rarely when hundreds are queued"),
    "update modelservices 409 Conflict": (
        "a finalizer update sent with a stale resourceVersion (the cached ModelService lagged "
        "a write made meanwhile)"),
    "create deployments 409 AlreadyExists": (
        "the Deployment created by the previous reconcile was not yet in the cache, so the "
        "next reconcile created it again"),
    "create services 409 AlreadyExists": (
        "the Service created by the previous reconcile was not yet in the cache, so the next "
        "reconcile created it again"),
    "update deployments 409 Conflict": (
        "a Deployment update sent from a cached copy older than the stored one"),
    "update services 409 Conflict": (
        "a Service update sent from a cached copy older than the stored one"),
}


def _say(line: str) -> None:
    print(f"[bench] {line}", file=sys.stderr, flush=True)


# =========================================================================== pure parts
def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks (numpy's
    default, "linear"). Raises ValueError on an empty sequence."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside 0..100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def median_or_none(values: Iterable[float | None]) -> float | None:
    """The median of the values that are not None, or None if there are none."""
    present = [v for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def ratio(num: float | None, den: float | None, digits: int = 2) -> float | None:
    """num / den rounded, or None when either is missing or den is 0 (no ratio to a floor of
    zero: 0/0 writes in a quiet period are both perfect, not "undefined times better")."""
    if num is None or den is None or isinstance(num, bool) or isinstance(den, bool):
        return None
    if den == 0:
        return None
    return round(num / den, digits)


def ratio_figures(num: Mapping[str, Any], den: Mapping[str, Any]) -> dict[str, Any]:
    """FIGURES of num / den, key by key; ``throughput_s`` N by N."""
    out: dict[str, Any] = {}
    for key in FIGURE_KEYS:
        if key == "throughput_s":
            a, b = num.get(key) or {}, den.get(key) or {}
            out[key] = {n: ratio(a.get(n), b.get(n)) for n in sorted({*a, *b}, key=int)}
        else:
            out[key] = ratio(num.get(key), den.get(key))
    return out


def empty_figures() -> dict[str, Any]:
    return {key: ({} if key == "throughput_s" else None) for key in FIGURE_KEYS}


def is_converged(obj: Mapping[str, Any]) -> bool:
    """A ModelService's status says converged: observedGeneration = generation, Ready and
    Progressing present, Ready not ChildConflict."""
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    if not isinstance(status, dict) or status.get("observedGeneration") != meta.get("generation"):
        return False
    conditions = {c.get("type"): c for c in status.get("conditions") or [] if isinstance(c, dict)}
    ready = conditions.get("Ready")
    return (ready is not None and "Progressing" in conditions
            and ready.get("reason") != "ChildConflict")


@dataclass
class AuditEvent:
    """The fields of one audit event the bench counts."""

    user: str
    verb: str
    target: str  # resource[/subresource]
    namespace: str
    code: int
    reason: str

    @property
    def is_write(self) -> bool:
        return self.verb in ("create", "update", "patch", "delete", "deletecollection")

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 300

    @property
    def kind(self) -> str:
        """``"<verb> <target> <code>[ <reason>]"``, e.g. ``create deployments 409 AlreadyExists``."""
        return f"{self.verb} {self.target} {self.code}" + (f" {self.reason}" if self.reason else "")


def parse_audit_lines(data: bytes, users: Iterable[str] | None = None) -> Iterator[AuditEvent]:
    """The events in a chunk of the audit log (JSON lines). A half-written last line is
    skipped; ``users``: keep only these users' events (checked before decoding fully)."""
    wanted = None if users is None else [u.encode() for u in users]
    for line in data.splitlines():
        if not line.strip():
            continue
        if wanted is not None and not any(u in line for u in wanted):
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        ref = ev.get("objectRef") or {}
        resp = ev.get("responseStatus") or {}
        user = (ev.get("user") or {}).get("username", "")
        if users is not None and user not in set(users):
            continue
        res, sub = ref.get("resource", ""), ref.get("subresource", "")
        yield AuditEvent(user=user, verb=ev.get("verb", ""),
                         target=f"{res}/{sub}" if sub else res,
                         namespace=ref.get("namespace", ""), code=int(resp.get("code", 0) or 0),
                         reason=str(resp.get("reason", "") or ""))


def read_audit(path: Path, start: int, end: int, users: Iterable[str] | None = None
               ) -> list[AuditEvent]:
    """The events between byte offsets start and end of the audit log (read once)."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(max(0, end - start))
    return list(parse_audit_lines(data, users))


@dataclass
class Accounting:
    """An operator user's requests in one window: all of them, and its writes in one
    namespace."""

    requests: int = 0
    writes_ok: int = 0
    writes_failed: int = 0
    writes_by_kind: dict[str, int] = field(default_factory=dict)
    failed_by_kind: dict[str, int] = field(default_factory=dict)
    requests_by_kind: dict[str, int] = field(default_factory=dict)


def account(events: Iterable[AuditEvent], user: str, namespace: str | None) -> Accounting:
    """Count ``user``'s requests (any namespace) and its writes in ``namespace`` (None: any)."""
    acc = Accounting()
    ok: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    every: Counter[str] = Counter()
    for ev in events:
        if ev.user != user:
            continue
        acc.requests += 1
        every[f"{ev.verb} {ev.target} {ev.code}"] += 1
        if not ev.is_write or (namespace is not None and ev.namespace != namespace):
            continue
        if ev.ok:
            acc.writes_ok += 1
            ok[f"{ev.verb} {ev.target}"] += 1
        else:
            acc.writes_failed += 1
            failed[ev.kind] += 1
    acc.writes_by_kind = dict(sorted(ok.items()))
    acc.failed_by_kind = dict(sorted(failed.items()))
    acc.requests_by_kind = dict(sorted(every.items()))
    return acc


def explain_failed(by_kind: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """``{kind: {"count": n, "cause": text}}`` for each kind of failed write."""
    return {kind: {"count": n, "cause": FAILED_WRITE_CAUSES.get(kind, "not classified")}
            for kind, n in sorted(by_kind.items(), key=lambda kv: -kv[1])}


@dataclass
class LatencyRun:
    samples: list[float]

    @property
    def p50(self) -> float:
        return percentile(self.samples, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples, 95)


@dataclass
class LoadRun:
    """One phase that created objects: its counts from the audit log and /metrics."""

    phase: str  # "latency" or "throughput"
    n: int
    objects: int
    seconds: float | None  # throughput: first create to last converged
    create_seconds: float
    reconciles: float
    accounting: Accounting
    #: user + system CPU seconds of the operator process from its start to settled
    operator_cpu_s: float | None = None


@dataclass
class RestartRun:
    n: int
    changed: int
    seconds: float
    ready_s: float
    changed_converged_s: float
    all_reconciled_s: float
    reconciles: float
    accounting: Accounting


@dataclass
class QuietRun:
    seconds: float
    writes: int
    requests: int
    reconciles: float
    requests_by_kind: dict[str, int]


@dataclass
class ImplResults:
    """Everything measured for one implementation."""

    latency: list[LatencyRun] = field(default_factory=list)
    loads: list[LoadRun] = field(default_factory=list)
    restarts: list[RestartRun] = field(default_factory=list)
    quiet: list[QuietRun] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    rss_by_n: dict[int, list[float]] = field(default_factory=dict)
    #: create-to-converged of the unmeasured first ModelService of each run
    warmups_s: list[float] = field(default_factory=list)


def figures_of(res: ImplResults) -> dict[str, Any]:
    """FIGURES from one implementation's measurements (None where a phase did not run)."""
    fig = empty_figures()
    if res.latency:
        fig["latency_p50_s"] = round(statistics.median(r.p50 for r in res.latency), 4)
        fig["latency_p95_s"] = round(statistics.median(r.p95 for r in res.latency), 4)
    by_n: dict[int, list[float]] = {}
    for run in res.loads:
        if run.phase == "throughput" and run.seconds is not None:
            by_n.setdefault(run.n, []).append(run.seconds)
    fig["throughput_s"] = {str(n): round(statistics.median(v), 3) for n, v in sorted(by_n.items())}
    objects = sum(r.objects for r in res.loads)
    if objects:
        fig["writes_per_object"] = round(sum(r.accounting.writes_ok for r in res.loads) / objects, 3)
        fig["failed_writes_per_object"] = round(
            sum(r.accounting.writes_failed for r in res.loads) / objects, 3)
        fig["reconciles_per_object"] = round(sum(r.reconciles for r in res.loads) / objects, 3)
    reconciles = sum(r.reconciles for r in res.loads)
    if reconciles:
        fig["requests_per_reconcile"] = round(
            sum(r.accounting.requests for r in res.loads) / reconciles, 3)
    if res.quiet:
        fig["quiet_writes"] = max(q.writes for q in res.quiet)
    if res.rss_mib:
        fig["peak_rss_mib"] = round(statistics.median(res.rss_mib), 1)
    if res.restarts:
        fig["restart_to_converged_s"] = round(statistics.median(r.seconds for r in res.restarts), 3)
    return fig


def details_of(res: ImplResults) -> dict[str, Any]:
    """The per-run numbers behind the figures."""
    failed: Counter[str] = Counter()
    writes: Counter[str] = Counter()
    for run in res.loads:
        failed.update(run.accounting.failed_by_kind)
        writes.update(run.accounting.writes_by_kind)
    return {
        "latency_runs": [{"objects": len(r.samples), "p50_s": round(r.p50, 4),
                          "p95_s": round(r.p95, 4), "max_s": round(max(r.samples), 4),
                          "samples_in_creation_order_s": [round(x, 4) for x in r.samples]}
                         for r in res.latency],
        "load_runs": [{"phase": r.phase, "n": r.n, "seconds": r.seconds,
                       "create_seconds": round(r.create_seconds, 3),
                       "reconciles": r.reconciles, "requests": r.accounting.requests,
                       "operator_cpu_s": r.operator_cpu_s,
                       "writes_ok": r.accounting.writes_ok,
                       "writes_failed": r.accounting.writes_failed,
                       "writes_by_kind": r.accounting.writes_by_kind,
                       "failed_by_kind": r.accounting.failed_by_kind,
                       "requests_by_kind": r.accounting.requests_by_kind}
                      for r in res.loads],
        "writes_by_kind": dict(sorted(writes.items())),
        "failed_writes": explain_failed(failed),
        "restart_runs": [asdict(r) for r in res.restarts],
        "quiet_runs": [asdict(q) for q in res.quiet],
        "peak_rss_mib_runs": res.rss_mib,
        "peak_rss_mib_by_n": {str(n): v for n, v in sorted(res.rss_by_n.items())},
        "warmup_object_s": res.warmups_s,
    }


def build_report(results: Mapping[str, ImplResults], machine: Mapping[str, Any],
                 settings: Mapping[str, Any], errors: Sequence[str] = ()) -> dict[str, Any]:
    """The bench.json document. Ratios are "<impl>/<first impl>" for each other
    implementation (``python/go`` when run as ``--impl go --impl python``)."""
    impls = list(results)
    figures = {impl: figures_of(res) for impl, res in results.items()}
    ratios = {f"{impl}/{impls[0]}": ratio_figures(figures[impl], figures[impls[0]])
              for impl in impls[1:]}
    return {
        "machine": dict(machine),
        "settings": dict(settings),
        "implementations": figures,
        "ratios": ratios,
        "latency_samples_s": {impl: sorted(round(s, 4) for r in res.latency for s in r.samples)
                              for impl, res in results.items()},
        "details": {impl: details_of(res) for impl, res in results.items()},
        "errors": list(errors),
    }


def missing_figures(report: Mapping[str, Any]) -> list[str]:
    """``impl.key`` (``impl.throughput_s[N]``) for each figure that is absent or None."""
    sizes = [str(n) for n in (report.get("settings") or {}).get("sizes", [])]
    out = []
    for impl, fig in (report.get("implementations") or {}).items():
        for key in FIGURE_KEYS:
            value = fig.get(key)
            if key == "throughput_s":
                out += [f"{impl}.{key}[{n}]" for n in sizes if (value or {}).get(n) is None]
            elif value is None:
                out.append(f"{impl}.{key}")
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def render_table(report: Mapping[str, Any]) -> str:
    """A plain-text table: one row per figure (throughput per N), a column per
    implementation and per ratio."""
    impls = list(report.get("implementations") or {})
    ratios = list(report.get("ratios") or {})
    rows: list[list[str]] = [["figure", *impls, *ratios]]
    for key in FIGURE_KEYS:
        if key == "throughput_s":
            ns = sorted({n for i in impls for n in report["implementations"][i].get(key) or {}},
                        key=int)
            for n in ns:
                rows.append([f"N = {n} at once until all converged (s)",
                             *[_fmt((report["implementations"][i].get(key) or {}).get(n))
                               for i in impls],
                             *[_fmt((report["ratios"][r].get(key) or {}).get(n)) for r in ratios]])
            continue
        rows.append([FIGURE_LABELS[key], *[_fmt(report["implementations"][i].get(key)) for i in impls],
                     *[_fmt(report["ratios"][r].get(key)) for r in ratios]])
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                       for c, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# =========================================================================== machine
def _run(cmd: Sequence[str]) -> str:
    from harness import process

    try:
        return process.run(list(cmd), capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_info(apiserver_version: str = "", etcd_version: str = "") -> dict[str, Any]:
    """What the figures are absolute on."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    go = _run(["go", "version"]).removeprefix("go version ")
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "kernel": platform.release(),
        "go": go.split()[0] if go else "",
        "python": platform.python_version(),
        "control_plane": f"envtest: etcd {etcd_version or '?'}, kube-apiserver "
                         f"{apiserver_version or '?'}",
        "host": socket.gethostname(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "figures": "absolute on this machine (shared, noisy: compare ratios, not runs)",
    }


# =========================================================================== observation
class ConvergenceWatch:
    """A watch on the ModelServices of one namespace (as admin) that records, per name and
    generation, when it was first seen converged (``time.monotonic()`` at the event's arrival).
    Re-watches from the last resourceVersion when a watch ends, relists on 410 or an error."""

    def __init__(self, kube: Any, namespace: str) -> None:
        self.kube = kube
        self.namespace = namespace
        self.converged: dict[str, dict[int, float]] = {}
        self.generation: dict[str, int] = {}
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._resp: Any = None
        self._rv = ""
        self._thread = threading.Thread(target=self._run, name=f"watch-{namespace}", daemon=True)
        self.errors = 0

    @property
    def path(self) -> str:
        return f"/apis/modeldock.io/v1alpha1/namespaces/{self.namespace}/modelservices"

    def start(self) -> ConvergenceWatch:
        self._list()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        resp = self._resp
        sock = getattr(getattr(resp, "connection", None), "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(5)

    def _observe(self, obj: Mapping[str, Any], now: float) -> None:
        meta = obj.get("metadata") or {}
        name, gen = meta.get("name", ""), int(meta.get("generation") or 0)
        with self._cond:
            self.generation[name] = gen
            if is_converged(obj):
                seen = self.converged.setdefault(name, {})
                if gen not in seen:
                    seen[gen] = now
                    self._cond.notify_all()

    def _list(self) -> None:
        out = self.kube.request("GET", self.path)
        now = time.monotonic()
        for item in out.get("items") or []:
            self._observe(item, now)
        self._rv = str((out.get("metadata") or {}).get("resourceVersion", ""))

    def _run(self) -> None:
        from kubernetes.watch.watch import iter_resp_lines

        while not self._stop.is_set():
            try:
                if not self._rv:
                    self._list()
                query = [("watch", "true"), ("resourceVersion", self._rv),
                         ("allowWatchBookmarks", "true"), ("timeoutSeconds", "300")]
                api = self.kube.api
                method, url, headers, body, post = api.param_serialize(
                    "GET", self.path, query_params=query,
                    header_params={"Accept": "application/json"}, auth_settings=["BearerToken"])
                self._resp = api.call_api(method, url, header_params=headers, body=body,
                                          post_params=post, _request_timeout=(10, 330)).response
                if self._resp.status != 200:
                    self._resp.release_conn()
                    self._rv = ""
                    raise RuntimeError(f"watch answered {self._resp.status}")
                for line in iter_resp_lines(self._resp):
                    if self._stop.is_set():
                        return
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    now = time.monotonic()
                    obj = event.get("object") or {}
                    if event.get("type") == "ERROR":
                        self._rv = ""  # 410 Gone or another error: list again
                        break
                    rv = (obj.get("metadata") or {}).get("resourceVersion")
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        self._observe(obj, now)
                    if rv:
                        self._rv = str(rv)
            except Exception:
                if self._stop.is_set():
                    return
                self.errors += 1
                self._rv = ""
                self._stop.wait(0.2)

    def count_converged(self, names: Iterable[str] | None = None,
                        generations: Mapping[str, int] | None = None) -> int:
        with self._cond:
            return self._count(names, generations)

    def _count(self, names: Iterable[str] | None, generations: Mapping[str, int] | None) -> int:
        if generations is not None:
            return sum(1 for n, g in generations.items() if g in self.converged.get(n, {}))
        wanted = self.converged if names is None else names
        return sum(1 for n in wanted if self.converged.get(n))

    def wait(self, names: Sequence[str], timeout: float,
             generations: Mapping[str, int] | None = None,
             progress: Callable[[int], None] | None = None) -> float:
        """Block until every name converged (at ``generations[name]`` when given, else at any
        generation); return the latest of their first-converged times. TimeoutError with how
        many converged."""
        deadline = time.monotonic() + timeout
        target = len(generations) if generations is not None else len(names)
        last_report = time.monotonic()
        with self._cond:
            while True:
                done = self._count(None if generations is not None else names, generations)
                if done >= target:
                    if generations is not None:
                        return max(self.converged[n][g] for n, g in generations.items())
                    return max(min(self.converged[n].values()) for n in names)
                now = time.monotonic()
                if now > deadline:
                    raise TimeoutError(f"{done}/{target} ModelServices in {self.namespace} "
                                       f"converged within {timeout:.0f}s")
                if progress is not None and now - last_report >= 5:
                    progress(done)
                    last_report = now
                self._cond.wait(min(1.0, deadline - now))


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds a process has used (``/proc/<pid>/stat``), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)
    except (OSError, ValueError, IndexError):
        return None


def vm_kib(pid: int, field_name: str) -> int | None:
    """A ``/proc/<pid>/status`` field in KiB (VmHWM, VmRSS), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


# =========================================================================== the control plane
def bench_control_plane(workdir: Path | None = None) -> Any:
    """The control plane the bench runs on (its /16 Service range holds every run's Services:
    envtest never frees a ClusterIP)."""
    from harness.controlplane import ControlPlane

    return ControlPlane(workdir=workdir)


# =========================================================================== the runs
class BenchError(RuntimeError):
    """A phase could not be measured (a timeout, a process that died)."""


@dataclass
class Settings:
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
    create_threads: int = 8
    latency_gap_s: float = 0.25
    settle_quiet_s: float = 1.0
    converge_timeout_s: float = 900.0
    quick: bool = False

    def describe(self) -> dict[str, Any]:
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
            "isolation": ("each run: a fresh namespace and operator process, one unmeasured "
                          "warm-up ModelService first; afterwards the operator is stopped and the "
                          "namespace emptied (finalizers dropped, deletecollection), so every run "
                          "starts on the same near-empty API server"),
            "observation": ("one watch per namespace as admin; converged = status."
                            "observedGeneration == metadata.generation, Ready and Progressing "
                            "present, Ready not ChildConflict; time = arrival of the watch "
                            "event (ms resolution); /metrics polled every 0.1 s"),
            "latency": (f"{self.latency_objects} objects created one at a time, each after the "
                        f"previous converged + {self.latency_gap_s} s; create sent to converged "
                        f"seen; figure = median over {self.repeats} runs of each run's p50/p95"),
            "throughput": (f"N created at once by {self.create_threads} client threads; first "
                           "create sent to last converged seen; median over "
                           f"{self.throughput_repeats} run(s)"),
            "writes": ("audit log, the operator user's writes in its namespace, from the "
                       "operator ready to settled (queue empty, reconcile count still 1 s), "
                       "over every latency and throughput run, divided by objects created"),
            "requests_per_reconcile": ("every API request by the operator user (any verb, "
                                       "watches included, any namespace) in the same windows "
                                       "/ reconciles (controller_runtime_reconcile_total)"),
            "quiet_writes": (f"writes by the operator user in {self.quiet_seconds} s after "
                             f"N = {self.rss_size} settled; max over runs"),
            "peak_rss_mib": (f"VmHWM of the operator process at the end of the N = "
                             f"{self.rss_size} run (a fresh process per run); median over runs"),
            "restart_to_converged_s": (
                f"N = {self.restart_size} converged; SIGKILL; spec.replicas changed on every "
                f"{self.restart_every}th; process started: time until those converged at "
                f"their new generation AND reconcile count >= N + 1 (with the warm-up object) and an empty queue"),
        }


def modelservice(name: str, replicas: int = 1) -> dict[str, Any]:
    return {"apiVersion": "modeldock.io/v1alpha1", "kind": "ModelService",
            "metadata": {"name": name},
            "spec": {"model": "m", "image": "srv:1", "replicas": replicas, "port": 8000}}


class Bench:
    """Runs the phases against one control plane. ``cp``: a started ControlPlane."""

    def __init__(self, cp: Any, impls: Mapping[str, Any], settings: Settings) -> None:
        from harness.audit import AuditLog
        from harness.kube import Kube

        self.cp = cp
        self.impls = impls
        self.s = settings
        self.admin = Kube(cp.admin_kubeconfig)
        self.audit = AuditLog(cp.audit_log)
        self.results: dict[str, ImplResults] = {i: ImplResults() for i in settings.impls}
        self.errors: list[str] = []
        self.started = time.monotonic()
        self._run_id = uuid.uuid4().hex[:4]
        LOG_DIR.mkdir(parents=True, exist_ok=True)

    def say(self, line: str) -> None:
        _say(f"{time.monotonic() - self.started:6.0f}s  {line}")

    # ------------------------------------------------------------ plumbing
    def _namespace(self, impl_id: str, label: str) -> str:
        from harness import rbac
        from harness.pytest_plugin import create_namespace

        impl = self.impls[impl_id]
        return create_namespace(self.admin, f"bench-{impl_id}-{label}-{self._run_id}",
                                impl.user, rbac.load_role(impl.role) if impl.role else None)

    def _operator(self, impl_id: str, namespace: str, label: str) -> Any:
        from harness.operators import OperatorProcess

        impl = self.impls[impl_id]
        log = LOG_DIR / f"{impl_id}-{label}.log"
        log.unlink(missing_ok=True)
        return OperatorProcess(impl=impl, kubeconfig=self.cp.kubeconfig_for(impl.user),
                               namespace=namespace, log_path=log,
                               env={"MAX_CONCURRENT_RECONCILES": str(self.s.workers)})

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
        raise BenchError(f"{op.impl.id} operator did not settle within {timeout:.0f}s "
                         f"(reconciles {last}, queue depth {op.workqueue_depth()})")

    def _window(self, start: int, end: int, user: str, namespace: str | None) -> Accounting:
        return account(read_audit(self.audit.path, start, end, [user]), user, namespace)

    def _create_all(self, namespace: str, names: Sequence[str]) -> tuple[float, float]:
        """Create the ModelServices with create_threads threads; return (t_first_sent,
        seconds the creates took)."""
        t0 = time.monotonic()
        with ThreadPoolExecutor(self.s.create_threads) as pool:
            list(pool.map(lambda n: self.admin.create("modelservices", namespace,
                                                      modelservice(n)), names))
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
                list(pool.map(lambda n: self.admin.patch(
                    "modelservices", ns, n, {"metadata": {"finalizers": None}}), names))
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
        from harness.pytest_plugin import create_namespace

        ns = create_namespace(self.admin, f"bench-warmup-{self._run_id}", "modeldock:nobody")
        t0 = time.monotonic()
        self.admin.create("modelservices", ns, modelservice("warmup"))
        labels = {"app": "warmup"}
        self.admin.create("deployments", ns, {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "warmup"},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
        self.admin.create("services", ns, {
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "warmup"},
            "spec": {"selector": labels, "ports": [{"port": 80}]}})
        for res in ("modelservices", "deployments", "services"):
            self.admin.delete(res, ns, "warmup")
        self.say(f"control plane warmed up in {time.monotonic() - t0:.2f}s (first create of "
                 f"each kind)")

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
            t_begin = time.monotonic()
            for i in range(self.s.latency_objects):
                name = f"lat-{i:03d}"
                sent = time.monotonic()
                self.admin.create("modelservices", ns, modelservice(name))
                done = watch.wait([name], timeout=60)
                samples.append(done - sent)
                time.sleep(self.s.latency_gap_s)
            reconciles = self._settle(op) - rc0
            cpu = cpu_seconds(op.pid)
            acc = self._window(start, self._sync(), user, ns)
        finally:
            watch.stop()
            op.terminate()
            self._clean(ns)
        run = LatencyRun(samples)
        self.results[impl_id].latency.append(run)
        self.results[impl_id].loads.append(LoadRun(
            "latency", self.s.latency_objects, self.s.latency_objects, None,
            time.monotonic() - t_begin, reconciles, acc, cpu))
        self.say(f"latency {impl_id} run {rep + 1}: p50 {run.p50:.3f}s p95 {run.p95:.3f}s "
                 f"({len(samples)} objects); writes {acc.writes_ok} ok / {acc.writes_failed} "
                 f"failed; {reconciles:.0f} reconciles")

    # ------------------------------------------------------------ throughput (+ quiet, RSS, restart)
    def run_throughput(self, impl_id: str, n: int, rep: int, *, quiet: bool, restart: bool) -> None:
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
            t0, create_s = self._create_all(ns, names)
            self.say(f"throughput {impl_id} N={n}: {n} created in {create_s:.1f}s; waiting")
            t_last = watch.wait(names, timeout=self.s.converge_timeout_s, progress=lambda d: self.say(
                f"throughput {impl_id} N={n}: {d}/{n} converged at {time.monotonic() - t0:.0f}s"))
            seconds = t_last - t0
            reconciles = self._settle(op) - rc0
            cpu = cpu_seconds(op.pid)
            acc = self._window(start, self._sync(), user, ns)
            res.loads.append(LoadRun("throughput", n, n, seconds, create_s, reconciles, acc, cpu))
            self.say(f"throughput {impl_id} N={n}: all converged in {seconds:.2f}s; writes "
                     f"{acc.writes_ok} ok / {acc.writes_failed} failed; {reconciles:.0f} "
                     f"reconciles; {acc.requests} requests; operator CPU {cpu}s")
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

    def _quiet(self, impl_id: str, op: Any) -> None:
        user = self.impls[impl_id].user
        self.say(f"quiet {impl_id}: {self.s.quiet_seconds:.0f}s with nothing changing")
        start = self._sync()
        rc0 = op.reconcile_count()
        time.sleep(self.s.quiet_seconds)
        rc1 = op.reconcile_count()
        acc = self._window(start, self._sync(), user, None)
        q = QuietRun(self.s.quiet_seconds, acc.writes_ok + acc.writes_failed, acc.requests,
                     rc1 - rc0, acc.requests_by_kind)
        self.results[impl_id].quiet.append(q)
        self.say(f"quiet {impl_id}: {q.writes} writes, {q.requests} requests, "
                 f"{q.reconciles:.0f} reconciles")

    def _restart(self, impl_id: str, op: Any, watch: ConvergenceWatch, ns: str,
                 names: Sequence[str]) -> None:
        from harness.operators import OperatorProcess

        user = self.impls[impl_id].user
        n = len(names)
        self.say(f"restart {impl_id} N={n}: SIGKILL, changing spec.replicas of every "
                 f"{self.s.restart_every}th")
        op.kill()
        changed: dict[str, int] = {}
        for name in names[::self.s.restart_every]:
            out = self.admin.patch("modelservices", ns, name, {"spec": {"replicas": 2}})
            changed[name] = int(out["metadata"]["generation"])
        start = self._sync()
        t0 = time.monotonic()
        op.start(wait_ready=False)
        ready_at = reconciled_at = None
        deadline = t0 + self.s.converge_timeout_s
        while time.monotonic() < deadline:
            now = time.monotonic()
            if ready_at is None and OperatorProcess._get(
                    f"http://127.0.0.1:{op.health_port}/readyz") == 200:
                ready_at = now
            if reconciled_at is None and ready_at is not None:
                try:
                    # every object in the namespace: the N and the warm-up one
                    if op.reconcile_count() >= n + 1 and op.workqueue_depth() == 0:
                        reconciled_at = now
                except Exception:
                    pass
            if reconciled_at is not None and watch.count_converged(generations=changed) == len(changed):
                break
            if not op.running():
                raise BenchError(f"{impl_id} operator exited after restart (code {op.returncode()})")
            time.sleep(0.1)
        else:
            raise BenchError(f"{impl_id} operator did not converge after restart within "
                             f"{self.s.converge_timeout_s:.0f}s")
        changed_at = watch.wait(list(changed), timeout=1, generations=changed)
        assert ready_at is not None and reconciled_at is not None
        seconds = max(changed_at, reconciled_at) - t0
        reconciles = self._settle(op)
        acc = self._window(start, self._sync(), user, ns)
        run = RestartRun(n=n, changed=len(changed), seconds=round(seconds, 3),
                         ready_s=round(ready_at - t0, 3),
                         changed_converged_s=round(changed_at - t0, 3),
                         all_reconciled_s=round(reconciled_at - t0, 3), reconciles=reconciles,
                         accounting=acc)
        self.results[impl_id].restarts.append(run)
        self.say(f"restart {impl_id} N={n}: converged {seconds:.2f}s after start (ready "
                 f"{run.ready_s:.2f}s, changed converged {run.changed_converged_s:.2f}s, all "
                 f"reconciled {run.all_reconciled_s:.2f}s); writes {acc.writes_ok} ok / "
                 f"{acc.writes_failed} failed")

    # ------------------------------------------------------------ all
    def _attempt(self, what: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:
            msg = f"{what}: {type(exc).__name__}: {exc}"
            self.errors.append(msg)
            self.say(f"FAILED {msg}")

    def run(self) -> None:
        s = self.s
        self.warm_up_control_plane()
        for rep in range(s.repeats):
            for impl_id in s.impls:
                self._attempt(f"latency {impl_id} run {rep + 1}",
                              lambda i=impl_id, r=rep: self.run_latency(i, r))  # type: ignore[misc]
        for n in s.sizes:
            for rep in range(s.throughput_repeats):
                for impl_id in s.impls:
                    self._attempt(
                        f"throughput {impl_id} N={n} run {rep + 1}",
                        lambda i=impl_id, n=n, r=rep: self.run_throughput(  # type: ignore[misc]
                            i, n, r, quiet=(n == s.rss_size), restart=(n == s.restart_size)))

    def report(self, machine: Mapping[str, Any]) -> dict[str, Any]:
        return build_report(self.results, machine, self.s.describe(), self.errors)


# =========================================================================== command line
def settings_from_args(args: argparse.Namespace) -> Settings:
    if args.quick:
        sizes = [20]
        latency_objects, repeats, quiet = 10, 1, 5.0
    else:
        sizes = sorted({int(x) for x in args.sizes.split(",") if x.strip()})
        latency_objects, repeats, quiet = args.latency_objects, args.repeats, args.quiet_seconds
    restart = args.restart_size or (500 if 500 in sizes else sizes[len(sizes) // 2])
    rss = args.rss_size or max(sizes)
    if restart not in sizes or rss not in sizes:
        raise SystemExit(f"--restart-size {restart} and --rss-size {rss} must be among --sizes")
    return Settings(impls=args.impl or ["go", "python"], sizes=sizes,
                    latency_objects=latency_objects, repeats=repeats,
                    throughput_repeats=1 if args.quick else args.throughput_repeats,
                    quiet_seconds=quiet, workers=args.workers, restart_size=restart,
                    rss_size=rss, quick=args.quick)


def _versions(cp: Any, admin: Any) -> tuple[str, str]:
    try:
        api = str(admin.request("GET", "/version").get("gitVersion", ""))
    except Exception:
        api = ""
    etcd = ""
    try:
        from harness import binaries

        out = _run([str(binaries.ensure(["etcd"])["etcd"]), "--version"])
        m = re.search(r"etcd Version: (\S+)", out)
        etcd = m.group(1) if m else ""
    except Exception:
        pass
    return api, etcd


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", action="append",
                        help="implementation id (repeatable; default: go, python); ratios are "
                             "<each>/<first>")
    parser.add_argument("--impl-file", action="append", default=[],
                        help="extra implementations TOML")
    parser.add_argument("--sizes", default="100,500,1000", help="N for throughput (comma list)")
    parser.add_argument("--latency-objects", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3, help="latency runs per implementation")
    parser.add_argument("--throughput-repeats", type=int, default=3,
                        help="runs per N (each N = --restart-size run also measures a restart, "
                             "each N = --rss-size run peak RSS and a quiet period)")
    parser.add_argument("--quiet-seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=1,
                        help="MAX_CONCURRENT_RECONCILES for every implementation (default 1, "
                             "the contract's default)")
    parser.add_argument("--restart-size", type=int, default=0,
                        help="N for the SIGKILL restart (default 500)")
    parser.add_argument("--rss-size", type=int, default=0,
                        help="N for peak RSS and the quiet period (default the largest)")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--keep", action="store_true",
                        help=f"keep the control plane's folder (audit log, logs) in "
                             f"{LOG_DIR / 'control-plane'}")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: N = 20, 10 latency objects once, 5 s quiet")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    from harness import binaries, runs
    from harness.controlplane import ControlPlaneError
    from harness.operators import ImplementationError, load_implementations

    settings = settings_from_args(args)
    # Own the run: clean up after dead ones; SIGTERM unwinds like Ctrl-C (operators and the
    # control plane are stopped on the way out); SIGKILL takes the children along.
    runs.claim()
    reaped = runs.reap()
    if reaped:
        _say(reaped.describe())
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        impls = load_implementations(args.impl_file)
        unknown = [i for i in settings.impls if i not in impls]
        if unknown:
            _say(f"unknown implementation(s) {unknown}; declared: {sorted(impls)}")
            return 2
        binaries.ensure(binaries.ENVTEST_BINARIES)
        for impl_id in settings.impls:
            _say(f"building {impl_id}")
            impls[impl_id].run_build()
    except ImplementationError as exc:
        _say(str(exc))
        return 2
    _say(f"settings: {json.dumps({k: v for k, v in asdict(settings).items()})}")
    try:
        workdir = None
        if args.keep:
            workdir = LOG_DIR / "control-plane"
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir(parents=True)
        with bench_control_plane(workdir) as cp:
            bench = Bench(cp, impls, settings)
            api, etcd = _versions(cp, bench.admin)
            machine = machine_info(api, etcd)
            machine["max_concurrent_reconciles"] = settings.workers
            bench.run()
            machine["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
            machine["bench_seconds"] = round(time.monotonic() - bench.started)
            report = bench.report(machine)
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    except KeyboardInterrupt:
        _say("interrupted; processes stopped, nothing written")
        return 130
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs.write_text_atomic(out, json.dumps(report, indent=2) + "\n")
    print(render_table(report))
    for impl_id, det in report["details"].items():
        for kind, info in det["failed_writes"].items():
            print(f"{impl_id}: {info['count']} x {kind}: {info['cause']}")
    missing = missing_figures(report)
    _say(f"wrote {out}" + (f"; missing figures: {', '.join(missing)}" if missing else ""))
    for err in report["errors"]:
        _say(f"error: {err}")
    return 1 if missing or report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
