"""Prometheus metrics with controller-runtime's names and labels (CONTRACT.md, "Metrics").

The twin of sigs.k8s.io/controller-runtime/pkg/internal/controller/metrics and
pkg/internal/metrics (workqueue), so that the harness reads reconcile counts from either
implementation with the same query:

* ``controller_runtime_reconcile_total{controller, result}``, result one of success, error,
  requeue, requeue_after (all four exported from the start, at 0, as controller-runtime does);
* ``controller_runtime_reconcile_errors_total{controller}``;
* ``controller_runtime_reconcile_time_seconds{controller}``, controller-runtime's buckets;
* ``workqueue_depth{name}``, ``workqueue_adds_total{name}``.

They live in their own registry, ``REGISTRY`` (controller-runtime's ``metrics.Registry``),
with the process collector; ``*_created`` series are turned off, as Go has none.
"""

from __future__ import annotations

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

REGISTRY = CollectorRegistry(auto_describe=True)
prometheus_client.ProcessCollector(registry=REGISTRY)

RESULTS = ("success", "error", "requeue", "requeue_after")

RECONCILE_TOTAL = Counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
    registry=REGISTRY,
)
RECONCILE_ERRORS = Counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
    registry=REGISTRY,
)
RECONCILE_PANICS = Counter(
    "controller_runtime_reconcile_panics_total",
    "Total number of reconciliation panics per controller",
    ["controller"],
    registry=REGISTRY,
)
RECONCILE_TIME = Histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    ["controller"],
    buckets=(
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.15,
        0.2,
        0.25,
        0.3,
        0.35,
        0.4,
        0.45,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        1.0,
        1.25,
        1.5,
        1.75,
        2.0,
        2.5,
        3.0,
        3.5,
        4.0,
        4.5,
        5,
        6,
        7,
        8,
        9,
        10,
        15,
        20,
        25,
        30,
        40,
        50,
        60,
    ),
    registry=REGISTRY,
)
WORKQUEUE_DEPTH = Gauge(
    "workqueue_depth", "Current depth of workqueue", ["name"], registry=REGISTRY
)
WORKQUEUE_ADDS = Counter(
    "workqueue_adds_total", "Total number of adds handled by workqueue", ["name"], registry=REGISTRY
)


def init_controller(name: str) -> None:
    """Export the controller's series at 0 before its first reconcile."""
    for result in RESULTS:
        RECONCILE_TOTAL.labels(controller=name, result=result)
    RECONCILE_ERRORS.labels(controller=name)
    RECONCILE_PANICS.labels(controller=name)


class QueueMetrics:
    """workqueue.QueueMetrics backed by the workqueue_* series of one queue."""

    def __init__(self, name: str) -> None:
        self._depth = WORKQUEUE_DEPTH.labels(name=name)
        self._adds = WORKQUEUE_ADDS.labels(name=name)

    def add(self) -> None:
        self._adds.inc()
        self._depth.inc()

    def get(self) -> None:
        self._depth.dec()


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus text format, and its content type."""
    return prometheus_client.generate_latest(REGISTRY), prometheus_client.CONTENT_TYPE_LATEST
