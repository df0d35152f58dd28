"""The manager: the twin of controller-runtime's manager (pkg/manager) for one controller.

``Manager.start()`` runs the process until ``stop()``:

1. serve ``/metrics`` and ``/healthz`` + ``/readyz`` (addresses ``"0"`` turn them off);
   then wait until the API server serves every resource passed to ``wait_served`` (a CRD
   installed after the process started), asking discovery again after ``served_retry_delay``
   for as long as the process runs: never an exit (CONTRACT.md, "Process");
2. start one informer per resource (the ``Cache``), on every instance, leader or not, and
   wait for them to sync: ``/readyz`` answers 200 from then on;
3. without leader election, start the controllers' workers; with it, start them when the
   Lease is acquired;
4. on ``stop()`` (SIGTERM/SIGINT): stop the workers and wait for the reconciles in flight
   (up to ``graceful_shutdown_timeout``), *then* stop the elector, which releases the Lease
   (``release_on_stop``), so that no write of this instance can land after another instance
   has started leading; if the workers did not stop in time the Lease is not released but
   left to expire, and the exit code is 1. Stop the Event broadcaster last
   (``get_event_recorder_for``). The Go reference does the same from main.go
   (LeaderElectionReleaseOnCancel off, releaseLease after mgr.Start has returned).

Losing the Lease (renewal failed within the renew deadline) ends the process at once with
exit code 1, as controller-runtime does ("leader election lost", graceful shutdown skipped):
a deposed leader must stop writing now, and a fresh process starts clean as a standby.
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
from datetime import timedelta
from http.server import ThreadingHTTPServer
from typing import Any

from python_operator.runtime import client as client_
from python_operator.runtime import controller as controller_
from python_operator.runtime import events, httpserver, informer, leaderelection, metrics, reconcile
from python_operator.runtime import log as log_

Obj = client_.Obj

EXIT_LEADER_ELECTION_LOST = 1

#: The wait for a resource not served yet (``Manager.wait_served``), in seconds: the first
#: delay, doubled after each attempt, and its cap (the informer's reflector backoff, without
#: jitter). Go: crdWaitInitial, crdWaitCap (main.go).
SERVED_RETRY_INITIAL = 0.8
SERVED_RETRY_CAP = 30.0


def served_retry_delay(attempt: int) -> float:
    """Seconds to wait after the attempt-th (0 for the first) discovery that did not find a
    resource served: SERVED_RETRY_INITIAL doubled attempt times, capped at SERVED_RETRY_CAP.
    Go: crdBackoff, called through the seam crdRetryDelay."""
    return min(SERVED_RETRY_CAP, SERVED_RETRY_INITIAL * 2.0 ** min(attempt, 30))


@dataclasses.dataclass(frozen=True, kw_only=True)
class LeaderElectionOptions:
    """Where the Lease is and how it is held (Go: the LeaderElection* fields of ctrl.Options;
    CONTRACT.md, "Process"): Lease namespace/name, this instance's identity, and the three
    timings, which the LeaderElector checks (ValueError)."""

    namespace: str
    name: str
    identity: str
    lease_duration: timedelta
    renew_deadline: timedelta
    retry_period: timedelta


class Cache:
    """Reads objects from the informers' stores (controller-runtime's cache reader): deep
    copies, never a request to the API server."""

    def __init__(self) -> None:
        self._informers: dict[client_.Resource, informer.Informer] = {}

    def add(self, resource: client_.Resource, inf: informer.Informer) -> None:
        self._informers[resource] = inf

    def get_informer(self, resource: client_.Resource) -> informer.Informer:
        return self._informers[resource]

    def informers(self) -> list[informer.Informer]:
        return list(self._informers.values())

    def get(self, resource: client_.Resource, namespace: str, name: str) -> Obj | None:
        """A deep copy of the cached object, or None if the cache does not hold it."""
        return self._informers[resource].get(namespace, name)

    def has_synced(self) -> bool:
        return all(inf.has_synced() for inf in self._informers.values())


class Manager:
    """Runs one process's caches, endpoints, leader election and controllers; see the module
    docstring. ``metrics_bind_address`` and ``health_probe_bind_address`` are host:port or
    "0" (off); ``leader_election`` None runs the controllers at once, without a Lease."""

    def __init__(
        self,
        *,
        client: client_.Client,
        namespace: str,
        metrics_bind_address: str = ":8080",
        health_probe_bind_address: str = ":8081",
        leader_election: LeaderElectionOptions | None = None,
        graceful_shutdown_timeout: timedelta = timedelta(seconds=30),
        watch_silence: tuple[float, float] | None = None,
    ) -> None:
        self.client = client
        self.namespace = namespace
        self.cache = Cache()
        self._metrics_address = metrics_bind_address
        self._health_address = health_probe_bind_address
        self._leader_election = leader_election
        self._grace = graceful_shutdown_timeout.total_seconds()
        # (idle, grace) seconds, from HTTP2_READ_IDLE_TIMEOUT_SECONDS and
        # HTTP2_PING_TIMEOUT_SECONDS: each watch asks the server to end it after ``idle`` s
        # and gives up a connection silent for ``idle + grace`` s, the deadline client-go's
        # HTTP/2 health check gives the Go operator. None: the informer's own defaults.
        self._watch_silence = watch_silence
        self._controllers: list[controller_.Controller] = []
        self._needs_served: list[client_.Resource] = []
        self._servers: list[ThreadingHTTPServer] = []
        self._event_broadcaster: events.Broadcaster | None = None
        self._stop = threading.Event()
        self._elector_stop = threading.Event()
        self._log = log_.get_logger("manager")

    # ------------------------------------------------------------------ wiring
    def informer_for(self, resource: client_.Resource) -> informer.Informer:
        """The informer of resource in the watch namespace, created on first use."""
        try:
            return self.cache.get_informer(resource)
        except KeyError:
            options: dict[str, Any] = {}
            if self._watch_silence is not None:
                idle, grace = self._watch_silence
                options = {
                    "watch_timeout": (max(1, math.ceil(idle)),) * 2,
                    "read_timeout_margin": grace,
                }
            inf = informer.Informer(
                informer.ResourceListerWatcher(self.client, resource, self.namespace),
                name=str(resource),
                **options,
            )
            self.cache.add(resource, inf)
            return inf

    def add_controller(
        self,
        *,
        name: str,
        for_: client_.Resource,
        owns: tuple[client_.Resource, ...],
        reconciler: reconcile.Reconciler,
        max_concurrent_reconciles: int = 1,
        errors: tuple[type[BaseException], ...] = (),
    ) -> controller_.Controller:
        """For(for_), Owns(each of owns): route their events to a new controller's queue.
        ``errors``: the exceptions the reconciler raises for a failed reconcile, beside the API
        requests' own (``controller.Controller``: any other is recovered as a panic)."""
        ctrl = controller_.Controller(
            name=name,
            reconciler=reconciler,
            max_concurrent_reconciles=max_concurrent_reconciles,
            errors=errors,
        )
        # The informers exist from now on, on every instance; the controller hears of their
        # events only once it starts (on the leader), replaying the cache then.
        ctrl.watch(self.informer_for(for_), ctrl.for_handler())
        for resource in owns:
            ctrl.watch(
                self.informer_for(resource), ctrl.owner_handler(group=for_.group, kind=for_.kind)
            )
        self._controllers.append(ctrl)
        return ctrl

    def wait_served(self, resource: client_.Resource) -> None:
        """Make start() wait, before it starts the informers, until the API server serves
        resource (``Client.served``): a custom resource whose CRD may be installed after the
        process started."""
        self._needs_served.append(resource)

    def get_event_recorder_for(self, name: str) -> events.EventRecorder:
        """A recorder of Events with source component ``name`` (controller-runtime's
        ``mgr.GetEventRecorderFor``). One broadcaster writes the Events of every recorder, in
        the background; it is stopped last, after the workers."""
        if self._event_broadcaster is None:
            self._event_broadcaster = events.Broadcaster(events.ClientSink(self.client))
        return self._event_broadcaster.new_recorder(name)

    # ------------------------------------------------------------------ running
    def stop(self) -> None:
        """Ask start() to shut down (safe from a signal handler)."""
        self._stop.set()

    def start(self) -> int:
        """Run until stop(); return the exit code."""
        self._serve()
        for resource in self._needs_served:
            if not self._wait_until_served(resource):
                self._log.info("Stopped before the informer caches synced")
                return self._shutdown(elector=None)
        for inf in self.cache.informers():
            inf.start()
        self._log.info("Waiting for caches to sync")
        for inf in self.cache.informers():
            if not inf.wait_for_sync(self._stop):
                # As the Go operator says it: nothing has started (no worker, no Lease).
                self._log.info("Stopped before the informer caches synced")
                return self._shutdown(elector=None)
        self._log.info("Caches synced")

        elector: tuple[leaderelection.LeaderElector, threading.Thread] | None = None
        if self._leader_election is None:
            self._start_controllers()
        else:
            le = self._new_elector(self._leader_election)
            thread = threading.Thread(
                target=le.run, args=(self._elector_stop,), name="leader-election", daemon=True
            )
            thread.start()
            elector = (le, thread)
        self._stop.wait()
        return self._shutdown(elector=elector)

    def _wait_until_served(self, resource: client_.Resource) -> bool:
        """Ask discovery whether resource is served until it is (True) or stop() was called
        (False), waiting served_retry_delay(n) after the n-th attempt that did not find it (no
        answer, or an error, counts the same) and logging ``Waiting for the <Kind> CRD`` each
        time; ``<Kind> CRD served`` once it is. The informers would fail their lists (404) and
        retry on their own, but the wait says what is missing in one line, and starts nothing
        (no list, no watch, no worker) until there is something to list."""
        gv = resource.api_version
        attempt = 0
        while not self._stop.is_set():
            try:
                if self.client.served(resource):
                    self._log.info(f"{resource.kind} CRD served", groupVersion=gv)
                    return True
                error = f"{resource.plural} not served in {gv}"
            except Exception as err:
                error = f"{type(err).__name__}: {err}"
            delay = served_retry_delay(attempt)
            attempt += 1
            self._log.info(
                f"Waiting for the {resource.kind} CRD",
                groupVersion=gv,
                error=error,
                retryAfterSeconds=delay,
            )
            self._stop.wait(delay)
        return False

    def _start_controllers(self) -> None:
        for ctrl in self._controllers:
            ctrl.start()

    def _new_elector(self, opts: LeaderElectionOptions) -> leaderelection.LeaderElector:
        lock = leaderelection.LeaseLock(
            self.client, namespace=opts.namespace, name=opts.name, identity=opts.identity
        )
        return leaderelection.LeaderElector(
            lock=lock,
            lease_duration=opts.lease_duration,
            renew_deadline=opts.renew_deadline,
            retry_period=opts.retry_period,
            on_started_leading=self._start_controllers,
            on_stopped_leading=self._on_stopped_leading,
            release_on_stop=True,
        )

    def _on_stopped_leading(self) -> None:
        if self._stop.is_set():
            return  # our own shutdown: the Lease was released
        self._log.error("leader election lost")
        for ctrl in self._controllers:
            ctrl.stop(timeout=0)
        log_.flush()
        os._exit(EXIT_LEADER_ELECTION_LOST)

    def _shutdown(
        self, *, elector: tuple[leaderelection.LeaderElector, threading.Thread] | None
    ) -> int:
        self._log.info("Stopping and waiting for workers")
        # A worker waiting out a Retry-After gives up now (Go: the manager's context ends).
        self.client.stop_waiting()
        clean = all(ctrl.stop(timeout=self._grace) for ctrl in self._controllers)
        if elector is not None:
            le, thread = elector
            if clean:
                # Workers are done: now the Lease can go, and a standby may start writing.
                self._elector_stop.set()
                if le.is_leader():
                    thread.join(timeout=max(self._grace, 1.0))
                # A standby holds nothing to release; its pending attempt is not waited for.
            else:
                self._log.error("workers did not stop in time; leaving the Lease to expire")
        for inf in self.cache.informers():
            inf.stop()
        for server in self._servers:
            server.shutdown()
        if self._event_broadcaster is not None:
            # Last, as controller-runtime stops its recorder provider: Events of the final
            # reconciles get a short chance to be written.
            self._event_broadcaster.shutdown()
        self._log.info("Stopped")
        return 0 if clean else 1

    def _serve(self) -> None:
        if self._metrics_address != "0":
            self._servers.append(httpserver.serve(self._metrics_address, {"/metrics": _metrics}))
        if self._health_address != "0":
            self._servers.append(
                httpserver.serve(self._health_address, {"/healthz": _ok, "/readyz": self._readyz})
            )

    def _readyz(self) -> tuple[int, str, bytes]:
        if self.cache.has_synced():
            return _ok()
        return 500, "text/plain", b"informer caches not synced yet\n"


def _ok() -> tuple[int, str, bytes]:
    return 200, "text/plain", b"ok"


def _metrics() -> tuple[int, str, bytes]:
    body, content_type = metrics.exposition()
    return 200, content_type, body
