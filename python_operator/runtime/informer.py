"""Informer: list, then watch, into a local cache; the twin of client-go's Reflector +
SharedIndexInformer and of controller-runtime's cache reader.

An ``Informer`` keeps a ``Store`` of one resource in one namespace equal to the API server's,
and tells its event handlers about every change: ``on_add``, ``on_update(old, new)``,
``on_delete``. The loop follows client-go's ``ListAndWatch`` (v0.34), with the differences
named in each step:

1. **List** (no resourceVersion: a consistent read; client-go's first list asks for
   resourceVersion "0", which the watch cache may answer), replace the store, and fire the
   difference: ``on_delete`` for keys that are gone, ``on_update`` for keys still there,
   ``on_add`` for new ones. A relist therefore repairs whatever was missed, deletions
   included. The informer has *synced* after its first list.
2. **Watch** from the list's resourceVersion, with ``timeoutSeconds`` drawn at random in
   ``watch_timeout`` (client-go: 5 to 10 minutes; here 30 to 60 s) and a socket read timeout a
   few seconds above it. A watch that ends normally is restarted from the last
   resourceVersion seen (bookmarks included), at once. A stalled connection (bytes accepted,
   none forwarded) hits the read timeout, which is a failure (step 3): after the backoff delay
   the watch is restarted from the last resourceVersion seen. Why shorter than
   client-go: Go notices a silent HTTP/2 connection by pinging it (30 s idle + 15 s ping
   timeout); urllib3 speaks HTTP/1.1 and cannot ping, so the read timeout is the only
   detector, and a 30-60 s window keeps the blind time of a stalled watch near Go's.
3. **410 Gone** (an ``ERROR`` event or the HTTP status: the resourceVersion was compacted
   away): relist at once (client-go relists too, after its backoff delay). Any other
   failure: wait with exponential backoff, then watch again from the same resourceVersion,
   or list again if the list failed (client-go relists after most watch failures).

   The backoff (``BACKOFF``, ``_delay``): 0.8 s, doubling per failure, capped at 30 s, each
   delay times a random factor in [1, 1.2); the count of failures starts again after a watch
   that ended normally or a 410. client-go's reflector has the same 0.8 s, factor 2 and 30 s
   cap, but jitter 1.0 (a factor in [1, 2): the delays settle in [30 s, 60 s)) and it starts
   again from 0.8 s only when 2 minutes have passed since its last backoff
   (``NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`` in reflector.go). The waits
   are real time (a stop Event's ``wait``): the informer takes no Clock; tests pass
   ``backoff=(0, 0)``.

Reads (``get``, ``list``) return deep copies, as controller-runtime's cache does: the
reconciler edits what it reads, and an edit must never leak into the cache other readers see.
Handlers receive the stored objects themselves and must not modify them. A handler added
while the informer runs first gets ``on_add`` for every object already stored, then every
change, with nothing missed or doubled in between (client-go's ``AddEventHandler``): this is
how a controller that starts late (on becoming leader) sees the whole cache.

What ``kubernetes.informer.SharedInformer`` (kubernetes 37.0.2) lacked, and why this module
does not wrap it (each point is shown on the library in tests/test_library_gaps.py):

* no ``timeout_seconds`` and no read timeout on the watch unless a resync period is set: a
  stalled TCP connection leaves it blind for ever;
* its list path reads ``resp.items`` and ``resp.metadata.resource_version`` from a generated
  model, so dicts (``CustomObjectsApi`` or ``response_type='object'``) do not work: on a dict,
  ``getattr(resp, "items")`` is ``dict.items`` and the list fails; and with generated models
  every Deployment is deserialised twice (``Watch.unmarshal_event`` re-dumps the JSON);
* on any watch error other than an ``ApiException`` it reconnects at once, with no backoff: a
  stopped API server makes it spin, logging a stack trace per attempt;
* ``kubernetes.watch.Watch.stream`` with ``deserialize=False`` (the way to get plain dicts)
  raises ``KeyError('raw_object')`` on an ``ERROR`` event instead of the 410 the informer
  waits for, and without ``timeout_seconds`` it silently retries a 410 once;
* handlers get only the new object on update (controller-runtime maps the old object's owner
  too), there is no "has synced" to gate readiness and workers on, and the cache hands out
  the very objects it stores.
"""

from __future__ import annotations

import random
import threading
import traceback
from collections.abc import Iterable, Iterator
from typing import Protocol

from python_operator.runtime import client as client_
from python_operator.runtime import log as log_

Obj = client_.Obj
ObjList = list[Obj]
Updates = list[tuple[Obj, Obj]]

# Watch request length in seconds (random in this range, so that watches do not all restart
# at once), and how much longer the socket waits for bytes before calling it stalled.
WATCH_TIMEOUT = (30, 60)
READ_TIMEOUT_MARGIN = 5.0
# Backoff after failures, in seconds: initial, cap. Doubling per failure, times a random
# factor in [1, 1.2) (BACKOFF_JITTER); see the module docstring for client-go's.
BACKOFF = (0.8, 30.0)
BACKOFF_JITTER = 0.2


class EventHandler(Protocol):
    """Receives an informer's notifications (client-go's ResourceEventHandler)."""

    def on_add(self, obj: Obj) -> None: ...

    def on_update(self, old: Obj, new: Obj) -> None: ...

    def on_delete(self, obj: Obj) -> None: ...


class Stream(Protocol):
    """One watch: iterate its events; close() from another thread ends it."""

    def __iter__(self) -> Iterator[Obj]: ...

    def close(self) -> None: ...


class ListerWatcher(Protocol):
    """Where an informer gets its objects (client-go's ListerWatcher)."""

    def list(self) -> tuple[ObjList, str]:
        """All objects and the resourceVersion of the list."""

    def watch(self, resource_version: str, timeout_seconds: int, read_timeout: float) -> Stream:
        """Events after resource_version."""


class ResourceListerWatcher:
    """Lists and watches one resource in one namespace through a ``client.Client``."""

    def __init__(self, client: client_.Client, resource: client_.Resource, namespace: str) -> None:
        self._client = client
        self._resource = resource
        self._namespace = namespace

    def list(self) -> tuple[ObjList, str]:
        return self._client.list(self._resource, self._namespace)

    def watch(self, resource_version: str, timeout_seconds: int, read_timeout: float) -> Stream:
        return self._client.watch(
            self._resource,
            self._namespace,
            resource_version=resource_version,
            timeout_seconds=timeout_seconds,
            read_timeout=read_timeout,
        )


def key_of(obj: Obj) -> str:
    """``namespace/name``, the key of the store and of the work queue."""
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    name = meta.get("name") or ""
    return f"{namespace}/{name}" if namespace else str(name)


def deep_copy(value: object) -> object:
    """Copy JSON-shaped data (dicts, lists, scalars), key by key: every dict and list of the
    copy is new, even where the original shared one (an object the operator built itself may;
    a pickle round trip would keep that sharing, so an edit of one place would show in the
    other). Several times faster than copy.deepcopy; a pickle round trip costs about 1.3x less
    CPU (docs/bench.md) but keeps shared references, so it is not used."""
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value


def copy_obj(obj: Obj) -> Obj:
    """deep_copy of a JSON object, typed as one (Go: DeepCopy / DeepCopyObject)."""
    copied = deep_copy(obj)
    assert isinstance(copied, dict)
    return copied


class Store:
    """Thread-safe map of key to object. Invariant: it holds only what the API server sent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, Obj] = {}

    def get(self, key: str) -> Obj | None:
        """A deep copy of the object at key, or None."""
        with self._lock:
            obj = self._items.get(key)
        return None if obj is None else copy_obj(obj)

    def list(self) -> ObjList:
        with self._lock:
            items = list(self._items.values())
        return [copy_obj(obj) for obj in items]

    def keys(self) -> Iterable[str]:
        with self._lock:
            return list(self._items)

    def objects(self) -> ObjList:
        """The stored objects themselves, not copies: for event handlers, which only read."""
        with self._lock:
            return list(self._items.values())

    def put(self, obj: Obj) -> Obj | None:
        """Store obj; return what it replaced."""
        with self._lock:
            key = key_of(obj)
            old = self._items.get(key)
            self._items[key] = obj
            return old

    def remove(self, obj: Obj) -> Obj | None:
        with self._lock:
            return self._items.pop(key_of(obj), None)

    def replace(self, objs: Iterable[Obj]) -> tuple[ObjList, Updates, ObjList]:
        """Make the store hold exactly objs; return (added, updated as (old, new), deleted)."""
        new = {key_of(obj): obj for obj in objs}
        with self._lock:
            old = self._items
            self._items = new
        added = [obj for key, obj in new.items() if key not in old]
        updated = [(old[key], obj) for key, obj in new.items() if key in old]
        deleted = [obj for key, obj in old.items() if key not in new]
        return added, updated, deleted


class _Expired(Exception):
    """The watch's resourceVersion is too old (410 Gone): relist."""


class Informer:
    """Keeps a Store in sync with one resource in one namespace; see the module docstring."""

    def __init__(
        self,
        lister_watcher: ListerWatcher,
        *,
        name: str,
        watch_timeout: tuple[int, int] = WATCH_TIMEOUT,
        read_timeout_margin: float = READ_TIMEOUT_MARGIN,
        backoff: tuple[float, float] = BACKOFF,
        rng: random.Random | None = None,
    ) -> None:
        self.name = name
        self.store = Store()
        self._lw = lister_watcher
        self._handlers: list[EventHandler] = []
        # Held while the store changes and the handlers hear of it, and while a handler is
        # added and replayed the store: each handler sees every object exactly once.
        self._handlers_lock = threading.RLock()
        self._watch_timeout = watch_timeout
        self._read_timeout_margin = read_timeout_margin
        self._backoff_initial, self._backoff_max = backoff
        self._rng = rng if rng is not None else random.Random()
        self._log = log_.get_logger("informer").with_values(resource=name)
        self._synced = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._stream_lock = threading.Lock()
        self._stream: Stream | None = None
        # The resourceVersion to watch from; None means "list first".
        self.resource_version: str | None = None

    # ------------------------------------------------------------------ public
    def add_event_handler(self, handler: EventHandler) -> None:
        """Register handler: on_add for each object stored now, then every change."""
        with self._handlers_lock:
            self._handlers.append(handler)
            for obj in self.store.objects():
                try:
                    handler.on_add(obj)
                except Exception as err:
                    self._handler_panicked(err)

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name=f"informer-{self.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._stream_lock:
            if self._stream is not None:
                self._stream.close()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def has_synced(self) -> bool:
        return self._synced.is_set()

    def wait_for_sync(self, stop: threading.Event) -> bool:
        """Block until the first list is in the store (True) or stop is set (False)."""
        while not stop.is_set():
            if self._synced.wait(0.1):
                return True
        return self._synced.is_set()

    def get(self, namespace: str, name: str) -> Obj | None:
        """A deep copy of the cached object, or None."""
        return self.store.get(f"{namespace}/{name}" if namespace else name)

    def list(self) -> ObjList:
        return self.store.list()

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        """List and watch until stop(): the body of the informer's thread."""
        failures = 0
        while not self._stop.is_set():
            try:
                if self.resource_version is None:
                    self._list()
                self._watch()
                failures = 0
            except _Expired:
                self._log.info("watch expired, relisting", resourceVersion=self.resource_version)
                self.resource_version = None
                failures = 0
            except Exception as err:
                if self._stop.is_set():
                    break
                delay = self._delay(failures)
                failures += 1
                self._log.info(
                    "list or watch failed, retrying",
                    error=f"{type(err).__name__}: {err}",
                    retryAfterSeconds=round(delay, 3),
                )
                self._stop.wait(delay)

    def _delay(self, failures: int) -> float:
        """Seconds to wait after a failure, failures being how many came before it in a row
        (0 for the first): the initial backoff doubled that often, capped, times a random
        factor in [1, 1 + BACKOFF_JITTER)."""
        base = min(self._backoff_max, self._backoff_initial * 2.0 ** min(failures, 30))
        return base * (1 + BACKOFF_JITTER * self._rng.random())

    def _list(self) -> None:
        items, resource_version = self._lw.list()
        with self._handlers_lock:
            self._replace(items, resource_version)

    def _replace(self, items: ObjList, resource_version: str) -> None:
        added, updated, deleted = self.store.replace(items)
        self.resource_version = resource_version
        self._synced.set()
        for obj in deleted:
            self._notify("on_delete", obj)
        for old, new in updated:
            self._notify("on_update", old, new)
        for obj in added:
            self._notify("on_add", obj)

    def _watch(self) -> None:
        assert self.resource_version is not None
        timeout = self._rng.randint(*self._watch_timeout)
        try:
            stream = self._lw.watch(
                self.resource_version, timeout, timeout + self._read_timeout_margin
            )
        except client_.ApiError as err:
            if client_.is_gone(err):
                raise _Expired() from err
            raise
        with self._stream_lock:
            self._stream = stream
        if self._stop.is_set():
            stream.close()
        try:
            for event in stream:
                if self._stop.is_set():
                    return
                with self._handlers_lock:
                    self._handle(event)
        finally:
            with self._stream_lock:
                self._stream = None

    def _handle(self, event: Obj) -> None:
        kind = event.get("type")
        obj = event.get("object")
        if not isinstance(obj, dict):
            return
        if kind == "ERROR":
            code = int(obj.get("code") or 0)
            if code == 410:
                raise _Expired()
            raise client_.ApiError(code, str(obj.get("reason", "")), str(obj.get("message", "")))
        resource_version = (obj.get("metadata") or {}).get("resourceVersion")
        if kind == "ADDED" or kind == "MODIFIED":
            old = self.store.put(obj)
            if old is None:
                self._notify("on_add", obj)
            else:
                self._notify("on_update", old, obj)
        elif kind == "DELETED":
            self.store.remove(obj)
            self._notify("on_delete", obj)
        # BOOKMARK: nothing changed, but the resourceVersion moves on.
        if resource_version:
            self.resource_version = str(resource_version)

    def _notify(self, method: str, *objs: Obj) -> None:
        """Call handler.<method>(*objs) on every handler."""
        for handler in self._handlers:
            try:
                getattr(handler, method)(*objs)
            except Exception as err:
                self._handler_panicked(err)

    def _handler_panicked(self, err: Exception) -> None:
        """Log an exception of an event handler as the panic it is (CONTRACT.md, "A reconcile
        never panics": a handler never fails on an object it did not expect): the JSON line
        ``{"msg": "Observed a panic", "resource": ..., "panic": "<Type>: <text>",
        "stacktrace": "<traceback>"}``, the message apimachinery's ``logPanic`` writes (Go:
        client-go's ``processorListener`` runs handlers under ``HandleCrash``, which logs it
        and ends the process). Here the event is dropped and the informer goes on."""
        self._log.error(
            "Observed a panic",
            panic=f"{type(err).__name__}: {err}",
            stacktrace="".join(traceback.format_exception(err)),
        )
