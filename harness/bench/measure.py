"""What the bench measures outside the audit log: convergence as the watch shows it (latency,
throughput, restart), an operator process's CPU time and peak RSS, and the machine.

Times are ``time.monotonic()`` seconds at the arrival of a watch event in this process
(milliseconds resolution); CPU in seconds, memory in KiB from ``/proc/<pid>``.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.modelservice import GROUP_VERSION, status_converged


def command_output(cmd: Sequence[str]) -> str:
    """The stripped stdout of a short command (30 s at most), or "" if it could not run."""
    from harness import process

    try:
        out = process.run(list(cmd), capture_output=True, text=True, timeout=30).stdout
        return str(out).strip()
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
    go = command_output(["go", "version"]).removeprefix("go version ")
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


class ConvergenceWatch:
    """A watch on the ModelServices of one namespace (as admin) that records, per name and
    generation, when it was first seen converged (``harness.modelservice.status_converged``),
    as ``time.monotonic()`` at the event's arrival: ``converged[name][generation]``. Re-watches
    from the last resourceVersion when a watch ends, relists on 410 or an error. (It decodes
    the watch stream of ModelServices itself; the audit log is ``harness.audit``'s.)"""

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
        """The API path of the namespace's ModelServices."""
        return f"/apis/{GROUP_VERSION}/namespaces/{self.namespace}/modelservices"

    def start(self) -> ConvergenceWatch:
        """List the namespace's ModelServices, then watch from there in a thread."""
        self._list()
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the watch (closes its connection) and wait up to 5 s for the thread."""
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
            if status_converged(obj):
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
                query = [
                    ("watch", "true"),
                    ("resourceVersion", self._rv),
                    ("allowWatchBookmarks", "true"),
                    ("timeoutSeconds", "300"),
                ]
                api = self.kube.api
                method, url, headers, body, post = api.param_serialize(
                    "GET",
                    self.path,
                    query_params=query,
                    header_params={"Accept": "application/json"},
                    auth_settings=["BearerToken"],
                )
                self._resp = api.call_api(
                    method,
                    url,
                    header_params=headers,
                    body=body,
                    post_params=post,
                    _request_timeout=(10, 330),
                ).response
                if self._resp.status != 200:
                    self._resp.release_conn()
                    self._rv = ""
                    raise RuntimeError(f"watch answered {self._resp.status}")
                for line in iter_resp_lines(self._resp):  # type: ignore[no-untyped-call]
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

    def converged_at(self, name: str, generation: int) -> float | None:
        """When ``name`` was first seen converged at ``generation``, or None (not yet)."""
        with self._cond:
            return self.converged.get(name, {}).get(generation)

    def count_converged(
        self, names: Iterable[str] | None = None, generations: Mapping[str, int] | None = None
    ) -> int:
        """How many of ``names`` (None: every name seen) have been seen converged, at any
        generation; with ``generations``, how many at ``generations[name]``."""
        with self._cond:
            return self._count(names, generations)

    def _count(self, names: Iterable[str] | None, generations: Mapping[str, int] | None) -> int:
        if generations is not None:
            return sum(1 for n, g in generations.items() if g in self.converged.get(n, {}))
        wanted = self.converged if names is None else names
        return sum(1 for n in wanted if self.converged.get(n))

    def wait(
        self,
        names: Sequence[str],
        timeout: float,
        generations: Mapping[str, int] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> float:
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
                    raise TimeoutError(
                        f"{done}/{target} ModelServices in {self.namespace} "
                        f"converged within {timeout:.0f}s"
                    )
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


def run_queue_seconds(pid: int | None) -> float | None:
    """Seconds the threads of a process have spent runnable but waiting for a core, summed
    over its live threads (``/proc/<pid>/task/<tid>/schedstat``, second field, ns; needs a
    kernel with schedstats), or None. Threads that ended are not counted."""
    if pid is None:
        return None
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[1])
            except (OSError, ValueError, IndexError):
                continue
    except OSError:
        return None
    return round(total / 1e9, 3)


def vm_kib(pid: int, field_name: str) -> int | None:
    """A ``/proc/<pid>/status`` field in KiB (VmHWM, VmRSS), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores together, from
    the ``cpu`` line of ``/proc/stat`` (busy: everything but idle and iowait); (0, 0) if
    unreadable."""
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("cpu "):
                ticks = [int(x) for x in line.split()[1:]]
                idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
                hz = os.sysconf("SC_CLK_TCK")
                return (sum(ticks[:8]) - idle) / hz, sum(ticks[:8]) / hz
    except (OSError, ValueError, IndexError):
        pass
    return 0.0, 0.0


class CpuSnapshot:
    """CPU seconds of named processes (``/proc/<pid>/stat``), of this process (``os.times``)
    and of the whole machine at one moment; ``delta(later)`` gives what each used between."""

    def __init__(self, pids: Mapping[str, int | None]) -> None:
        self.t = time.monotonic()
        self.procs = {name: cpu_seconds(pid) for name, pid in pids.items()}
        self.waits = {name: run_queue_seconds(pid) for name, pid in pids.items()}
        times = os.times()
        self.harness = times.user + times.system
        self.machine_busy, self.machine_total = machine_cpu()

    def delta(self, later: CpuSnapshot) -> dict[str, float | None]:
        """``{name: seconds}`` for each process (None if unreadable at either end), with
        ``<name>_runqueue_s`` (its threads' seconds waiting for a core, when readable), plus
        ``harness`` (this process), ``machine_busy`` (every core), ``machine_total`` (every
        core's elapsed time) and ``wall`` (elapsed seconds)."""
        out: dict[str, float | None] = {}
        for name, before in self.procs.items():
            after = later.procs.get(name)
            out[name] = None if before is None or after is None else round(after - before, 2)
            w0, w1 = self.waits.get(name), later.waits.get(name)
            if w0 is not None and w1 is not None:
                out[f"{name}_runqueue_s"] = round(max(0.0, w1 - w0), 3)
        out["harness"] = round(later.harness - self.harness, 2)
        out["machine_busy"] = round(later.machine_busy - self.machine_busy, 2)
        out["machine_total"] = round(later.machine_total - self.machine_total, 2)
        out["wall"] = round(later.t - self.t, 3)
        return out
