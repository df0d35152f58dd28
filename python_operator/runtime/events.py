"""Events: the twin of client-go's ``tools/record`` (v0.34): ``EventRecorder``,
``EventBroadcaster`` and ``EventCorrelator``, writing core/v1 Events, the ones
``kubectl describe`` lists under an object.

The official Python client has no recorder: ``CoreV1Api.create_namespaced_event`` is a plain
create, so an operator that calls it on every occurrence writes a new Event object every
time. client-go's recorder does three things on top, all reproduced here with the same
constants, so that the Go reference and the Python operator leave the same Events behind:

* **Count, don't multiply.** An Event identical to one already written by this process
  (same source, involved object, type, reason and message; ``getEventKey``) is not created
  again: the existing Event is PATCHed (strategic merge) with ``count + 1``, a new
  ``lastTimestamp`` and the message. ``kubectl describe`` shows it as ``(x5 over 2m)``.
* **Aggregate.** When one source reports more than ``AGGREGATE_MAX_EVENTS`` (10) different
  messages with the same involved object, type and reason within ``AGGREGATE_INTERVAL``
  (600 s), the next ones go into one Event ``(combined from similar events): <message>``.
* **Filter spam.** Per source, involved object and type, a token bucket allows a burst of
  ``SPAM_BURST`` (25) Events, then refills one every 300 s; the others are dropped.

And it never makes the caller wait: ``EventRecorder.event`` builds the Event and puts it on a
queue (at most ``MAX_QUEUED_EVENTS`` behind the one being written; when full the Event is
dropped without a log line, as client-go drops it: the queue that fills in client-go is its
broadcaster's channel to the sink's watcher, ``watch.DropIfChannelFull``, which logs nothing;
its logged drop, at the broadcaster's incoming channel, is not reached while that channel is
drained; CONTRACT.md, "Events", "Under a burst"). One
background thread correlates and writes them. A write that the API server refuses (an
``ApiError``: 403, 422, AlreadyExists, ...) is dropped; a write that did not reach it
(connection refused, timeout) is tried again, up to ``MAX_TRIES_PER_EVENT`` times,
``SLEEP_DURATION`` apart (the first wait randomised). A failing Event write is logged and
nothing else: it never fails or delays a reconcile.

Threads: ``EventRecorder.event`` may be called from any thread. ``EventCorrelator`` is used by
the broadcaster's one thread only (tests drive it directly, with a ``FakeClock``).

Times come from a ``Clock`` whose ``now()`` is seconds since the epoch (``WallClock``); the
Event's name is ``<involved object name>.<nanoseconds since the epoch, hex>``, its timestamps
RFC 3339 to the second, as Go's ``metav1.Time`` serialises them.
"""

from __future__ import annotations

import collections
import dataclasses
import queue
import random
import re
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

from python_operator.runtime import client as client_
from python_operator.runtime import clock as clock_
from python_operator.runtime import log as log_

Obj = client_.Obj

EVENTS = client_.Resource(group="", version="v1", plural="events", kind="Event")

NORMAL = "Normal"
WARNING = "Warning"

# client-go tools/record/events_cache.go and event.go, v0.34.
MAX_LRU_CACHE_ENTRIES = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL_SECONDS = 600
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
MAX_TRIES_PER_EVENT = 12
SLEEP_DURATION = 10.0
MAX_QUEUED_EVENTS = 1000
AGGREGATE_PREFIX = "(combined from similar events): "
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"

_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

log = log_.get_logger("events")


class WallClock:
    """Seconds since the epoch (``time.time``): Event names and timestamps are wall times."""

    def now(self) -> float:
        return time.time()


class Recorder(Protocol):
    """What the reconciler calls (client-go's ``record.EventRecorder.Event``)."""

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None: ...


class NullRecorder:
    """Records nothing: a reconciler built without a recorder (Go: a nil EventRecorder)."""

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        pass


class FakeRecorder:
    """For tests, as client-go's ``record.FakeRecorder``: each Event as the string
    ``"<type> <reason> <message>"``, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self._lock = threading.Lock()

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        with self._lock:
            self.events.append(f"{event_type} {reason} {message}")


# ---------------------------------------------------------------------- the Event itself
def rfc3339(seconds: float) -> str:
    """A wall time as metav1.Time serialises it: UTC, to the second, ``Z``."""
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_reference(obj: Obj) -> Obj:
    """client-go's ``reference.GetReference``: the involvedObject of an Event about obj. Empty
    fields are left out, as Go's omitempty does. ValueError when obj says no kind."""
    meta = obj.get("metadata") or {}
    ref = {
        "kind": obj.get("kind") or "",
        "namespace": meta.get("namespace") or "",
        "name": meta.get("name") or "",
        "uid": meta.get("uid") or "",
        "apiVersion": obj.get("apiVersion") or "",
        "resourceVersion": meta.get("resourceVersion") or "",
    }
    if not ref["kind"] or not ref["apiVersion"]:
        raise ValueError("object has no kind or apiVersion: cannot reference it")
    return {k: v for k, v in ref.items() if v}


def event_name(ref_name: str, seconds: float) -> str:
    """``util.GenerateEventName``: ``<name>.<unix nanoseconds, hex>``, or a UUID when that is
    not a valid object name."""
    name = f"{ref_name}.{int(seconds * 1e9):x}"
    if len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        return str(uuid.uuid4())
    return name


def make_event(
    ref: Obj, event_type: str, reason: str, message: str, component: str, host: str, now: float
) -> Obj:
    """The core/v1 Event ``recorderImpl.generateEvent`` builds (before correlation)."""
    source = {"component": component} | ({"host": host} if host else {})
    stamp = rfc3339(now)
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": event_name(ref.get("name", ""), now),
            "namespace": ref.get("namespace") or "default",
        },
        "involvedObject": dict(ref),
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
        "type": event_type,
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host,
    }


def _copy(event: Obj) -> Obj:
    out = dict(event)
    out["metadata"] = dict(event.get("metadata") or {})
    return out


def _involved(event: Obj) -> list[str]:
    ref = event.get("involvedObject") or {}
    return [
        str(ref.get("kind", "")),
        str(ref.get("namespace", "")),
        str(ref.get("name", "")),
    ]


def _source(event: Obj) -> list[str]:
    source = event.get("source") or {}
    return [str(source.get("component", "")), str(source.get("host", ""))]


def get_event_key(event: Obj) -> str:
    """Source, involved object, type, reason and message: what makes two Events the same."""
    ref = event.get("involvedObject") or {}
    return "".join(
        _source(event)
        + _involved(event)
        + [str(ref.get("fieldPath", "")), str(ref.get("uid", "")), str(ref.get("apiVersion", ""))]
        + [str(event.get("type", "")), str(event.get("reason", "")), str(event.get("message", ""))]
    )


def get_spam_key(event: Obj) -> str:
    """Source, involved object and type: what the spam filter's token bucket is kept per."""
    ref = event.get("involvedObject") or {}
    return "".join(
        _source(event)
        + _involved(event)
        + [str(ref.get("uid", "")), str(ref.get("apiVersion", "")), str(event.get("type", ""))]
    )


def aggregate_key(event: Obj) -> tuple[str, str]:
    """``EventAggregatorByReasonFunc``: (the group: all but the message, the message)."""
    ref = event.get("involvedObject") or {}
    group = "".join(
        _source(event)
        + _involved(event)
        + [str(ref.get("uid", "")), str(ref.get("apiVersion", ""))]
        + [str(event.get("type", "")), str(event.get("reason", ""))]
        + [str(event.get("reportingComponent", "")), str(event.get("reportingInstance", ""))]
    )
    return group, str(event.get("message", ""))


# ---------------------------------------------------------------------- correlation
K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """``k8s.io/utils/lru``: at most ``size`` entries, the least recently used one goes."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: collections.OrderedDict[K, V] = collections.OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def add(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class TokenBucket:
    """``golang.org/x/time/rate`` as ``flowcontrol.NewTokenBucketPassiveRateLimiter`` uses it:
    starts full (``burst`` tokens), refills ``qps`` tokens a second, ``try_accept`` takes one."""

    def __init__(self, qps: float, burst: int, clock: clock_.Clock) -> None:
        self._qps = qps
        self._burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock.now()

    def try_accept(self) -> bool:
        now = self._clock.now()
        elapsed = max(0.0, now - self._last)
        self._tokens = min(self._burst, self._tokens + elapsed * self._qps)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


@dataclasses.dataclass
class _AggregateRecord:
    local_keys: set[str]
    last_timestamp: float


@dataclasses.dataclass(frozen=True)
class _EventLog:
    count: int
    first_timestamp: str
    name: str
    resource_version: str


@dataclasses.dataclass(frozen=True)
class CorrelateResult:
    """What to write: ``event`` (create it when its count is 1, else apply ``patch`` to the
    Event of that name), or nothing (``skip``: the spam filter dropped it)."""

    event: Obj | None = None
    patch: Obj | None = None
    skip: bool = False


class EventCorrelator:
    """client-go's ``EventCorrelator`` (``NewEventCorrelatorWithOptions`` with the defaults):
    aggregate, then count, then filter."""

    def __init__(
        self,
        clock: clock_.Clock,
        *,
        lru_size: int = MAX_LRU_CACHE_ENTRIES,
        burst: int = SPAM_BURST,
        qps: float = SPAM_QPS,
        max_events: int = AGGREGATE_MAX_EVENTS,
        max_interval_seconds: float = AGGREGATE_INTERVAL_SECONDS,
    ) -> None:
        self._clock = clock
        self._burst = burst
        self._qps = qps
        self._max_events = max_events
        self._max_interval = max_interval_seconds
        self._spam: LRU[str, TokenBucket] = LRU(lru_size)
        self._aggregates: LRU[str, _AggregateRecord] = LRU(lru_size)
        self._logs: LRU[str, _EventLog] = LRU(lru_size)

    def correlate(self, event: Obj) -> CorrelateResult:
        """``EventCorrelate``: filter, aggregate, count and de-duplicate one new Event."""
        aggregated, key = self._aggregate(event)
        observed, patch = self._observe(aggregated, key)
        if self._filter(observed):
            return CorrelateResult(skip=True)
        return CorrelateResult(event=observed, patch=patch)

    def update_state(self, event: Obj) -> None:
        """Remember the Event as the API server stored it (its name and resourceVersion)."""
        meta = event.get("metadata") or {}
        self._logs.add(
            get_event_key(event),
            _EventLog(
                count=int(event.get("count") or 0),
                first_timestamp=str(event.get("firstTimestamp") or ""),
                name=str(meta.get("name", "")),
                resource_version=str(meta.get("resourceVersion", "")),
            ),
        )

    def _aggregate(self, event: Obj) -> tuple[Obj, str]:
        """``EventAggregator.EventAggregate``."""
        now = self._clock.now()
        event_key = get_event_key(event)
        group, local_key = aggregate_key(event)
        record = self._aggregates.get(group)
        if record is None or now - record.last_timestamp > self._max_interval:
            record = _AggregateRecord(local_keys=set(), last_timestamp=now)
        record.local_keys.add(local_key)
        record.last_timestamp = now
        self._aggregates.add(group, record)
        if len(record.local_keys) < self._max_events:
            return event, event_key

        # Do not grow the set of distinct messages beyond the maximum.
        record.local_keys.pop()
        ref = event.get("involvedObject") or {}
        stamp = rfc3339(now)
        combined = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{ref.get('name', '')}.{int(now * 1e9):x}",
                "namespace": (event.get("metadata") or {}).get("namespace", ""),
            },
            "count": 1,
            "firstTimestamp": stamp,
            "involvedObject": ref,
            "lastTimestamp": stamp,
            "message": AGGREGATE_PREFIX + str(event.get("message", "")),
            "type": event.get("type", ""),
            "reason": event.get("reason", ""),
            "source": event.get("source") or {},
            "eventTime": None,
            "reportingComponent": "",
            "reportingInstance": "",
        }
        return combined, group

    def _observe(self, event: Obj, key: str) -> tuple[Obj, Obj | None]:
        """``eventLogger.eventObserve``: a repeat becomes a patch of the first occurrence."""
        event = _copy(event)
        patch: Obj | None = None
        last = self._logs.get(key)
        if last is not None and last.count > 0:
            event["metadata"]["name"] = last.name
            event["metadata"]["resourceVersion"] = last.resource_version
            event["firstTimestamp"] = last.first_timestamp
            event["count"] = last.count + 1
            # What strategicpatch.CreateTwoWayMergePatch yields for count, lastTimestamp and
            # message against a copy with those three zeroed.
            patch = {"count": event["count"], "lastTimestamp": event["lastTimestamp"]}
            if event.get("message"):
                patch["message"] = event["message"]
        self._logs.add(
            key,
            _EventLog(
                count=int(event.get("count") or 0),
                first_timestamp=str(event.get("firstTimestamp") or ""),
                name=str(event["metadata"].get("name", "")),
                resource_version=str(event["metadata"].get("resourceVersion", "")),
            ),
        )
        return event, patch

    def _filter(self, event: Obj) -> bool:
        """``EventSourceObjectSpamFilter.Filter``: True drops the Event."""
        key = get_spam_key(event)
        bucket = self._spam.get(key)
        if bucket is None:
            bucket = TokenBucket(self._qps, self._burst, self._clock)
        accepted = bucket.try_accept()
        self._spam.add(key, bucket)
        return not accepted


# ---------------------------------------------------------------------- writing
class EventSink(Protocol):
    """Where Events go (client-go's ``record.EventSink``)."""

    def create(self, event: Obj) -> Obj: ...

    def patch(self, event: Obj, patch: Obj) -> Obj: ...


class ClientSink:
    """Events through the API client: POST, and PATCH as a strategic merge patch, in the
    Event's own namespace (``corev1client.EventSinkImpl``)."""

    def __init__(self, client: client_.Client) -> None:
        self._client = client

    def create(self, event: Obj) -> Obj:
        return self._client.create(EVENTS, event)

    def patch(self, event: Obj, patch: Obj) -> Obj:
        meta = event["metadata"]
        return self._client.patch(
            EVENTS, meta["namespace"], meta["name"], patch, content_type=STRATEGIC_MERGE_PATCH
        )


class Broadcaster:
    """client-go's ``EventBroadcaster`` with one sink (``StartRecordingToSink``), as
    controller-runtime's recorder provider runs it: a queue of at most ``MAX_QUEUED_EVENTS``
    and one thread that correlates each Event and writes it. The thread starts with the
    first Event; ``shutdown`` stops it."""

    def __init__(
        self,
        sink: EventSink,
        *,
        clock: clock_.Clock | None = None,
        correlator: EventCorrelator | None = None,
        sleep_duration: float = SLEEP_DURATION,
        max_queued: int = MAX_QUEUED_EVENTS,
    ) -> None:
        self._sink = sink
        self.clock: clock_.Clock = clock or WallClock()
        self.correlator = correlator or EventCorrelator(self.clock)
        self._sleep = sleep_duration
        self._queue: queue.Queue[Obj | None] = queue.Queue(maxsize=max_queued)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def new_recorder(self, component: str, host: str = "") -> EventRecorder:
        """A recorder whose Events name ``component`` as their source."""
        return EventRecorder(self, component=component, host=host)

    def enqueue(self, event: Obj) -> None:
        """Queue event for the writer thread without waiting: a full queue drops it silently,
        as client-go's broadcaster drops what does not fit in its sink watcher's channel
        (``distribute`` with ``DropIfChannelFull``); a broadcaster that was shut down drops it
        silently, as controller-runtime's stopped recorder provider does."""
        with self._lock:
            if self._stopping.is_set():
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="event-broadcaster", daemon=True
                )
                self._thread.start()
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            pass  # dropped, no log line: the Go reference's recorder says nothing either

    def shutdown(self, timeout: float = 2.0) -> None:
        """Stop taking Events; give those already queued up to timeout seconds to be written
        (a write waiting to be retried is abandoned), then return."""
        with self._lock:
            self._stopping.set()
            thread = self._thread
        if thread is None:
            return
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            pass
        thread.join(timeout=timeout)

    def _run(self) -> None:
        while True:
            event = self._queue.get()
            if event is None:
                return
            try:
                self.record_to_sink(event)
            except Exception as err:  # never let one Event end the thread
                log.error("Unable to record event", error=str(err))

    def record_to_sink(self, event: Obj) -> None:
        """``recordToSink``: correlate one Event and write it, retrying what did not reach
        the API server."""
        result = self.correlator.correlate(event)
        if result.skip or result.event is None:
            return
        tries = 0
        while not self._record(result.event, result.patch):
            tries += 1
            if tries >= MAX_TRIES_PER_EVENT:
                log.error("Unable to write event (retry limit exceeded!)", **_describe(event))
                return
            # The first wait is randomised so that clients do not all retry in step.
            delay = self._sleep * (random.random() if tries == 1 else 1.0)
            if self._stopping.wait(delay):
                log.error("Unable to write event (broadcaster is shut down)", **_describe(event))
                return

    def _record(self, event: Obj, patch: Obj | None) -> bool:
        """``recordEvent``: True when written, or refused and not worth trying again."""
        update_existing = int(event.get("count") or 0) > 1
        stored: Obj | None = None
        err: Exception | None = None
        if update_existing:
            try:
                stored = self._sink.patch(event, patch or {})
            except Exception as exc:
                err = exc
        # A repeat whose Event is gone (deleted, or expired after the API server's event TTL)
        # is created again.
        if not update_existing or (err is not None and client_.is_not_found(err)):
            new = _copy(event)
            new["metadata"].pop("resourceVersion", None)
            try:
                stored = self._sink.create(new)
                err = None
            except Exception as exc:
                err = exc
        if err is None and stored is not None:
            self.correlator.update_state(stored)
            return True
        if isinstance(err, client_.ApiError):
            # Refused by the API server (403, 422, AlreadyExists, ...): the same request would
            # be refused again.
            if err.reason == "AlreadyExists":
                log.debug("Server rejected event (will not retry!)", error=str(err))
            else:
                log.error(
                    "Server rejected event (will not retry!)", error=str(err), **_describe(event)
                )
            return True
        # The request did not reach the API server, or no answer came back: try again later.
        log.error(
            "Unable to write event (may retry after sleeping)", error=str(err), **_describe(event)
        )
        return False


def _describe(event: Obj) -> dict[str, Any]:
    ref = event.get("involvedObject") or {}
    return {
        "object": f"{ref.get('namespace', '')}/{ref.get('name', '')}",
        "type": event.get("type"),
        "reason": event.get("reason"),
        "eventMessage": event.get("message"),
    }


class EventRecorder:
    """Builds Events with one source (``component``) and hands them to the broadcaster. Never
    blocks and never raises: Events are best-effort."""

    def __init__(self, broadcaster: Broadcaster, *, component: str, host: str = "") -> None:
        self._broadcaster = broadcaster
        self.component = component
        self.host = host

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        if event_type not in (NORMAL, WARNING):
            log.error("Unsupported event type", eventType=event_type)
            return
        try:
            ref = object_reference(obj)
        except ValueError as err:
            log.error("Could not construct reference, will not report event", error=str(err))
            return
        event = make_event(
            ref,
            event_type,
            reason,
            message,
            self.component,
            self.host,
            self._broadcaster.clock.now(),
        )
        self._broadcaster.enqueue(event)
