"""The floor: what the API server allows. A client that issues exactly the writes a perfect
operator needs for each new ModelService, with no informer and no work queue, at the same
concurrency as the operators' workers, on the same control plane in the same bench run.

For each ModelService the admin creates (8 client threads, like every bench run), the create's
answer goes straight to a queue that ``workers`` threads take from; each thread sends, in the
contract's order (conformance/CONTRACT.md, "Reconcile, step by step"):

1. the ModelService with finalizer ``modeldock.io/cleanup`` appended (PUT, the create's
   resourceVersion as precondition),
2. the desired Deployment (POST), 3. the desired Service (POST), exactly as the contract's
   "Desired Deployment" and "Desired Service" say,
4. the status (PUT ``/status``, from the answer of write 1): what the operators compute for a
   Deployment without status (envtest runs no Deployment controller): Ready False
   ``ReplicasUnavailable``, Progressing True ``RolloutInProgress``.

A perfect operator learns of each object through a watch event some milliseconds after its
create; the floor learns of it from the create's own answer, so it is a bound no operator can
reach, not a target. The builders are pure functions on dicts; ``FloorClient`` makes the
requests as its own user, ``modeldock:floor`` (bound to the operator role like an operator's
user), so the audit log counts its writes apart.
"""

from __future__ import annotations

import datetime
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.modelservice import GROUP_VERSION, SELECTOR_LABEL

#: The user the floor client writes as (a client certificate issued by the bench).
FLOOR_USER = "modeldock:floor"

#: The User-Agent of the floor client's requests.
FLOOR_USER_AGENT = "modeldock-floor"

#: The finalizer the contract puts on every ModelService before its children.
FINALIZER = "modeldock.io/cleanup"

#: The CRD's defaults, used only when a ModelService's spec lacks them (the API server
#: defaults them on create, so the create's answer has them).
DEFAULT_REPLICAS = 1
DEFAULT_PORT = 8000


def child_labels(name: str) -> dict[str, str]:
    """The three labels on both children and on the pod template."""
    return {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/managed-by": "modeldock",
        SELECTOR_LABEL: name,
    }


def owner_reference(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The controller ownerReference a child of ``ms`` carries."""
    meta = ms["metadata"]
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "ModelService",
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _child_metadata(ms: Mapping[str, Any]) -> dict[str, Any]:
    meta = ms["metadata"]
    return {
        "name": meta["name"],
        "namespace": meta["namespace"],
        "labels": child_labels(meta["name"]),
        "ownerReferences": [owner_reference(ms)],
    }


def _spec(ms: Mapping[str, Any]) -> tuple[int, int]:
    spec = ms.get("spec") or {}
    return int(spec.get("replicas", DEFAULT_REPLICAS)), int(spec.get("port", DEFAULT_PORT))


def desired_deployment(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The Deployment the contract prescribes for ``ms`` (a ModelService as stored)."""
    name = ms["metadata"]["name"]
    spec = ms.get("spec") or {}
    replicas, port = _spec(ms)
    args = [f"--model={spec.get('model', '')}", f"--port={port}", *(spec.get("args") or [])]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _child_metadata(ms),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {SELECTOR_LABEL: name}},
            "template": {
                "metadata": {"labels": child_labels(name)},
                "spec": {
                    "containers": [
                        {
                            "name": "server",
                            "image": spec.get("image", ""),
                            "args": args,
                            "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
                            "resources": dict(spec.get("resources") or {}),
                        }
                    ]
                },
            },
        },
    }


def desired_service(ms: Mapping[str, Any]) -> dict[str, Any]:
    """The Service the contract prescribes for ``ms``."""
    name = ms["metadata"]["name"]
    _, port = _spec(ms)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _child_metadata(ms),
        "spec": {
            "type": "ClusterIP",
            "selector": {SELECTOR_LABEL: name},
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
        },
    }


def with_finalizer(ms: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``ms`` (metadata copied one level deep) with the contract's finalizer
    appended; its resourceVersion is the update's precondition."""
    meta = dict(ms["metadata"])
    meta["finalizers"] = [*(meta.get("finalizers") or []), FINALIZER]
    return {**ms, "metadata": meta}


def floor_status(ms: Mapping[str, Any], now: datetime.datetime | None = None) -> dict[str, Any]:
    """The status the operators write after creating a Deployment that has no status yet (the
    contract's "Status": zero replicas, Ready False ``ReplicasUnavailable``, Progressing True
    ``RolloutInProgress``, both at the ModelService's generation)."""
    meta = ms["metadata"]
    name, namespace = meta["name"], meta["namespace"]
    generation = int(meta.get("generation") or 0)
    _, port = _spec(ms)
    when = (now or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # The Deployment was just created and has no status yet.
    message = (
        f'Deployment "{name}" is waiting for the deployment controller to observe its latest spec'
    )

    def cond(ctype: str, status: str, reason: str) -> dict[str, Any]:
        return {
            "type": ctype,
            "status": status,
            "observedGeneration": generation,
            "lastTransitionTime": when,
            "reason": reason,
            "message": message,
        }

    return {
        "observedGeneration": generation,
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "selector": f"{SELECTOR_LABEL}={name}",
        "url": f"http://{name}.{namespace}.svc:{port}",
        "conditions": [
            cond("Ready", "False", "ReplicasUnavailable"),
            cond("Progressing", "True", "RolloutInProgress"),
        ],
    }


@dataclass
class FloorOutcome:
    """What one floor run did. Times are ``time.monotonic()``; CPU is the sum of the worker
    threads' own CPU time (``time.thread_time``), not the creates'."""

    objects: int
    workers: int
    first_sent: float
    creates_done: float
    last_write_done: float
    writes_ok: int = 0
    writes_failed: int = 0
    failed_by_kind: dict[str, int] = field(default_factory=dict)
    client_cpu_s: float = 0.0


class FloorClient:
    """The floor's writer: ``workers`` threads, each taking a created ModelService from a
    queue and sending its four writes. ``kube``: a ``harness.kube.Kube`` as ``FLOOR_USER``
    (its connection pool is widened to the thread count, so no thread waits for a connection
    and none is opened per request)."""

    #: attempts per write: a failed write is counted, the object read again and the write sent
    #: again (the floor's writes fail only if something else writes the same objects)
    ATTEMPTS = 3

    def __init__(self, kube: Any, workers: int) -> None:
        self.kube = kube
        self.workers = workers
        self._lock = threading.Lock()
        self._failed: Counter[str] = Counter()
        self._ok = 0
        self._cpu = 0.0
        self._last = 0.0

    @classmethod
    def for_kubeconfig(cls, kubeconfig: Path, workers: int, pool: int) -> FloorClient:
        """A FloorClient whose Kube has a connection pool of ``pool`` (>= workers), retries
        off, User-Agent ``FLOOR_USER_AGENT``."""
        from kubernetes import client

        from harness.kube import Kube

        kube = Kube(kubeconfig)
        cfg = kube.api.configuration
        cfg.connection_pool_maxsize = max(pool, workers)
        cfg.retries = False
        kube.api = client.ApiClient(cfg)
        kube.api.user_agent = FLOOR_USER_AGENT
        return cls(kube, workers)

    def _write(
        self, kind: str, send: Callable[..., dict[str, Any]], *args: Any
    ) -> dict[str, Any] | None:
        """``send(*args)``; its answer, or None after counting a failure under ``kind``."""
        from kubernetes.client.exceptions import ApiException

        try:
            out = send(*args)
        except ApiException as exc:
            with self._lock:
                self._failed[f"{kind} {exc.status}"] += 1
            return None
        with self._lock:
            self._ok += 1
        return out

    def reconcile(self, ms: Mapping[str, Any]) -> None:
        """The four writes for one created ModelService (as the create answered it)."""
        meta = ms["metadata"]
        ns, name = meta["namespace"], meta["name"]
        stored: dict[str, Any] | None = None
        current: Mapping[str, Any] = ms
        for _ in range(self.ATTEMPTS):
            stored = self._write(
                "update modelservices", self.kube.update, "modelservices", with_finalizer(current)
            )
            if stored is not None:
                break
            current = self.kube.get("modelservices", ns, name) or ms
        if stored is None:
            return
        for resource, body in (
            ("deployments", desired_deployment(stored)),
            ("services", desired_service(stored)),
        ):
            for _ in range(self.ATTEMPTS):
                if (
                    self._write(f"create {resource}", self.kube.create, resource, ns, body)
                    is not None
                ):
                    break
        for _ in range(self.ATTEMPTS):
            body = {**stored, "status": floor_status(stored)}
            if (
                self._write(
                    "update modelservices/status", self.kube.update, "modelservices", body, "status"
                )
                is not None
            ):
                break
            stored = self.kube.get("modelservices", ns, name) or stored
        with self._lock:
            self._last = max(self._last, time.monotonic())

    def _worker(self, work: queue.Queue[Mapping[str, Any] | None]) -> None:
        cpu0 = time.thread_time()
        try:
            while True:
                ms = work.get()
                if ms is None:
                    return
                self.reconcile(ms)
        finally:
            with self._lock:
                self._cpu += time.thread_time() - cpu0

    def run(
        self, create: Callable[[str], dict[str, Any]], names: Sequence[str], create_threads: int
    ) -> FloorOutcome:
        """Create ``names`` with ``create`` (``create_threads`` threads, the bench's
        creates) and hand each answer to the workers as it comes; return when every write
        is answered."""
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            self._failed.clear()
            self._ok, self._cpu, self._last = 0, 0.0, 0.0
        work: queue.Queue[Mapping[str, Any] | None] = queue.Queue()
        threads = [
            threading.Thread(target=self._worker, args=(work,), daemon=True, name=f"floor-{i}")
            for i in range(self.workers)
        ]
        for t in threads:
            t.start()
        first = time.monotonic()
        with ThreadPoolExecutor(create_threads) as pool:
            list(pool.map(lambda n: work.put(create(n)), names))
        creates_done = time.monotonic()
        for _ in threads:
            work.put(None)
        for t in threads:
            t.join()
        return FloorOutcome(
            objects=len(names),
            workers=self.workers,
            first_sent=first,
            creates_done=creates_done,
            last_write_done=self._last,
            writes_ok=self._ok,
            writes_failed=sum(self._failed.values()),
            failed_by_kind=dict(sorted(self._failed.items())),
            client_cpu_s=round(self._cpu, 3),
        )
