"""What the API proxy adds to a request: the same GET made directly and through the proxy,
alternately, on one control plane, as one user. A measurement, never a test (``make bench``
records it in ``bench.json`` as ``apiproxy_overhead``; the goal is p50 under 1 ms added)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.faults.apiproxy import ApiProxy
from harness.kube import Kube
from harness.lab.namespaces import create_namespace

if TYPE_CHECKING:
    from harness.envtest.controlplane import ControlPlane

USER = "modeldock:apiproxy-overhead"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(cp: ControlPlane, n: int = 400) -> dict[str, Any]:
    """``n`` GETs (a list of Deployments in a namespace where ``USER`` holds the operator role)
    directly and through a proxy, interleaved, after a warm-up. Milliseconds: p50 and p95 of
    each, and the p50 and p95 added by the proxy (the difference)."""
    admin = Kube(cp.admin_kubeconfig)
    ns = create_namespace(admin, "apiproxy-overhead", USER)
    admin.close()
    with (
        tempfile.TemporaryDirectory(prefix="modeldock-overhead-") as tmp,
        ApiProxy.for_user(cp, USER, workdir=Path(tmp)) as proxy,
    ):
        direct = Kube(cp.kubeconfig_for(USER))
        proxied = Kube(proxy.kubeconfig)
        times: dict[str, list[float]] = {"direct": [], "proxied": []}
        try:
            for i in range(n + 50):
                for name, kube in (("direct", direct), ("proxied", proxied)):
                    t0 = time.perf_counter()
                    kube.list("deployments", ns)
                    if i >= 50:  # warm-up: connections, caches
                        times[name].append((time.perf_counter() - t0) * 1000)
        finally:
            direct.close()
            proxied.close()
    out: dict[str, Any] = {"requests": n, "request": "list deployments (JSON), HTTP/1.1 client"}
    for name, values in times.items():
        out[f"{name}_p50_ms"] = round(statistics.median(values), 3)
        out[f"{name}_p95_ms"] = round(_quantile(values, 0.95), 3)
    out["added_p50_ms"] = round(out["proxied_p50_ms"] - out["direct_p50_ms"], 3)
    out["added_p95_ms"] = round(out["proxied_p95_ms"] - out["direct_p95_ms"], 3)
    return out
