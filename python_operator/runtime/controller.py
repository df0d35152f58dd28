"""The controller's worker loop and event routing: the twin of controller-runtime's internal
controller (pkg/internal/controller) and of its handlers (EnqueueRequestForObject for
``For``, EnqueueRequestForOwner with OnlyControllerOwner for ``Owns``).

Events never reach the reconciler: a handler turns each one into a ``reconcile.Request``
(namespace, name) and adds it to the work queue; ``max_concurrent_reconciles`` workers take
requests from the queue and call ``reconcile(req)``. The queue guarantees one reconcile per
request at a time, and collapses the notifications that arrive meanwhile into one more run.
Go's queue is a ``workqueue.TypedRateLimitingInterface[reconcile.Request]``; this one is a
``RateLimitingQueue[Request]``, Request being frozen and so hashable.

After a reconcile (``reconcile_handler``, as in Go):

* raised: ``Reconciler error`` is logged, ``add_rate_limited(req)``, result ``error``;
* raised, and not an error the reconcile may return (``Controller``'s ``errors``): a *panic*,
  recovered as controller-runtime v0.22 recovers one (``RecoverPanic`` defaults to true;
  pkg/internal/controller/controller.go, ``Controller.Reconcile``'s deferred ``recover``):
  ``controller_runtime_reconcile_panics_total`` counts it, ``Observed a panic`` is logged
  (apimachinery's ``logPanic``, k8s.io/apimachinery v0.34 pkg/util/runtime/runtime.go) with the
  exception and its traceback, and the reconcile then ends as an error whose text is
  ``panic: <exception> [recovered]`` (the row above);
* ``requeue_after``: ``forget(req)``, ``add_after(req, requeue_after)``, result ``requeue_after``;
* ``requeue``: ``add_rate_limited(req)``, result ``requeue``;
* otherwise: ``forget(req)``, result ``success``.

Stopping: ``stop()`` makes workers take no new request, shuts the queue down and waits for
the reconciles in flight. A stopping controller does not drain its queue: the requests left
are recomputed from the cache by whoever runs next.
"""

from __future__ import annotations

import threading
import time
import traceback

from python_operator.runtime import client as client_
from python_operator.runtime import informer, metrics, reconcile, workqueue
from python_operator.runtime import log as log_
from python_operator.runtime.reconcile import Request

Obj = client_.Obj


class EnqueueRequestForObject:
    """For(resource): an event on an object enqueues a Request for that object (Go:
    handler.EnqueueRequestForObject)."""

    def __init__(self, queue: workqueue.RateLimitingQueue[Request]) -> None:
        self._queue = queue

    def on_add(self, obj: Obj) -> None:
        self._queue.add(request_for(obj))

    def on_update(self, old: Obj, new: Obj) -> None:
        self._queue.add(request_for(new))

    def on_delete(self, obj: Obj) -> None:
        self._queue.add(request_for(obj))


class EnqueueRequestForOwner:
    """Owns(resource): an event on a child enqueues the owner named by the child's
    *controller* ownerReference, if that owner is of the given group and kind (the version
    does not matter, as in controller-runtime). On update, the old and the new object's owners
    both are enqueued, so a child that changed hands is seen by both."""

    def __init__(
        self, queue: workqueue.RateLimitingQueue[Request], *, group: str, kind: str
    ) -> None:
        self._queue = queue
        self._group = group
        self._kind = kind

    def on_add(self, obj: Obj) -> None:
        self._enqueue(obj)

    def on_update(self, old: Obj, new: Obj) -> None:
        self._enqueue(old)
        self._enqueue(new)

    def on_delete(self, obj: Obj) -> None:
        self._enqueue(obj)

    def _enqueue(self, obj: Obj) -> None:
        ref = controller_of(obj)
        if ref is None or ref.get("kind") != self._kind:
            return
        group = str(ref.get("apiVersion", "")).rpartition("/")[0]
        if group != self._group:
            return
        namespace = (obj.get("metadata") or {}).get("namespace", "")
        self._queue.add(Request(namespace=namespace, name=str(ref.get("name", ""))))


def controller_of(obj: Obj) -> Obj | None:
    """The ownerReference with controller: true (metav1.GetControllerOf), or None."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def request_for(obj: Obj) -> Request:
    """The Request naming obj: its metadata's namespace and name, "" for either when absent
    (Go: the Request EnqueueRequestForObject builds from GetNamespace() and GetName())."""
    meta = obj.get("metadata") or {}
    return Request(namespace=str(meta.get("namespace") or ""), name=str(meta.get("name") or ""))


class Controller:
    """A named work queue, its workers, and the reconciler they call.

    ``errors``: the exception classes the reconciler declares it raises for a reconcile that
    failed (Go: the ``error`` a Reconcile returns), beside every error of an API request
    (``client.REQUEST_ERRORS``), which a reconcile may always raise. Anything else escaping
    ``reconcile`` (a TypeError, an AttributeError, a KeyError ...) is a bug of the reconciler,
    Python's panic: recovered, counted and logged as ``Observed a panic`` (the module
    docstring's table), as controller-runtime recovers a Go panic. CONTRACT.md, "A reconcile
    never panics"."""

    def __init__(
        self,
        *,
        name: str,
        reconciler: reconcile.Reconciler,
        max_concurrent_reconciles: int = 1,
        queue: workqueue.RateLimitingQueue[Request] | None = None,
        errors: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.name = name
        self.errors: tuple[type[BaseException], ...] = (*client_.REQUEST_ERRORS, *errors)
        self.queue: workqueue.RateLimitingQueue[Request] = (
            queue
            if queue is not None
            else workqueue.RateLimitingQueue(metrics=metrics.QueueMetrics(name))
        )
        self._reconciler = reconciler
        self._workers_wanted = max_concurrent_reconciles
        self._workers: list[threading.Thread] = []
        self._sources: list[tuple[informer.Informer, informer.EventHandler]] = []
        self._stopping = threading.Event()
        self._log = log_.get_logger("controller").with_values(controller=name)
        metrics.init_controller(name)

    def for_handler(self) -> EnqueueRequestForObject:
        """The handler For(resource) routes through: a Request for each object's event."""
        return EnqueueRequestForObject(self.queue)

    def owner_handler(self, *, group: str, kind: str) -> EnqueueRequestForOwner:
        """The handler Owns(resource) routes through: a Request for the controller owner of
        group and kind, if the object has one."""
        return EnqueueRequestForOwner(self.queue, group=group, kind=kind)

    def watch(self, source: informer.Informer, handler: informer.EventHandler) -> None:
        """Route source's events through handler into the queue, from start() on."""
        self._sources.append((source, handler))

    def start(self) -> None:
        """Hook the event handlers to their informers (which replay what they hold), then
        start the workers. Call once the caches have synced, and on the leader only: a
        standby's queue stays empty."""
        self._log.info("Starting EventSource", sources=len(self._sources))
        for source, handler in self._sources:
            source.add_event_handler(handler)
        self._log.info("Starting workers", workerCount=self._workers_wanted)
        for i in range(self._workers_wanted):
            worker = threading.Thread(
                target=self._worker, name=f"{self.name}-worker-{i}", daemon=True
            )
            worker.start()
            self._workers.append(worker)

    def stop(self, timeout: float | None = None) -> bool:
        """Take no new request, and wait up to timeout for the reconciles in flight.
        True if every worker has ended."""
        self._stopping.set()
        self.queue.shutdown()
        deadline = None if timeout is None else time.monotonic() + timeout
        for worker in self._workers:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            worker.join(remaining)
        return not any(worker.is_alive() for worker in self._workers)

    def _worker(self) -> None:
        while self.process_next_work_item():
            pass

    def process_next_work_item(self) -> bool:
        """Take one request and reconcile it. False when the worker should end (Go:
        processNextWorkItem)."""
        req, shutdown = self.queue.get()
        if shutdown or req is None:
            return False
        try:
            if self._stopping.is_set():
                return False
            self.reconcile_handler(req)
        finally:
            self.queue.done(req)
        return True

    def reconcile_handler(self, req: Request) -> None:
        """Reconcile req and requeue it as the result asks (the module docstring's table;
        Go: reconcileHandler). An exception of the reconciler is logged and counted, never
        raised."""
        start = time.monotonic()
        try:
            try:
                result = self._reconciler.reconcile(req)
            except Exception as err:
                error = _describe(err)
                if not isinstance(err, self.errors):
                    self._observe_panic(req, err)
                    error = f"panic: {error} [recovered]"
                self.queue.add_rate_limited(req)
                metrics.RECONCILE_ERRORS.labels(controller=self.name).inc()
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="error").inc()
                self._log.error(
                    "Reconciler error",
                    namespace=req.namespace,
                    name=req.name,
                    modelservice=str(req),
                    error=error,
                )
                return
            if result.requeue_after.total_seconds() > 0:
                self.queue.forget(req)
                self.queue.add_after(req, result.requeue_after)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="requeue_after").inc()
            elif result.requeue:
                self.queue.add_rate_limited(req)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="requeue").inc()
            else:
                self.queue.forget(req)
                metrics.RECONCILE_TOTAL.labels(controller=self.name, result="success").inc()
        finally:
            metrics.RECONCILE_TIME.labels(controller=self.name).observe(time.monotonic() - start)

    def _observe_panic(self, req: Request, err: BaseException) -> None:
        """Count and log an exception that is no error the reconcile may raise (``errors``):
        one JSON line ``{"msg": "Observed a panic", "controller": ..., "namespace": ...,
        "name": ..., "modelservice": "<namespace>/<name>", "panic": "<Type>: <text>",
        "stacktrace": "<traceback>"}``, the keys controller-runtime's line carries for the same
        request (``panicGoValue`` and ``reconcileID`` aside: Python has neither)."""
        metrics.RECONCILE_PANICS.labels(controller=self.name).inc()
        self._log.error(
            "Observed a panic",
            namespace=req.namespace,
            name=req.name,
            modelservice=str(req),
            panic=_describe(err),
            stacktrace="".join(traceback.format_exception(err)),
        )


def _describe(err: BaseException) -> str:
    if isinstance(err, client_.ApiError):
        return str(err)
    return f"{type(err).__name__}: {err}"
