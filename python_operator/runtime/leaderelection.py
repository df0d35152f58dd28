"""Lease-based leader election: the twin of client-go's tools/leaderelection (v0.34), released
the way go_reference/main.go releases it: on stop, after the workers have stopped, and never
after a lost renewal.

client-go's ``ReleaseOnCancel`` (controller-runtime's ``LeaderElectionReleaseOnCancel``) is not
that: its release runs at the end of ``renew`` whatever ended it, a failed renewal included, and
before the manager hears that leadership ended, so a partitioned leader's workers keep writing
while it spends up to another renew deadline trying to release (go_reference/leaderelection.go
tells the story; the Go reference runs with it off and releases from main). Here
``release_on_stop`` (on by default) releases only when ``stop`` was set, and the manager sets
it only once its workers have stopped.

Several instances run; only the one holding the Lease runs its workers, so only it writes.

* **Acquire.** Every ``retry_period`` (plus up to 1.2x jitter) read the Lease. Take it if it
  is absent, has no holder, or its holder has not renewed it for ``leaseDurationSeconds`` as
  *this* instance observed it (the local monotonic clock decides, never a clock difference
  between machines): write it with this identity, using the read resourceVersion, so of two
  candidates exactly one wins and the other gets 409.
* **Renew.** Every ``retry_period``, renew (first optimistically from the last written
  Lease, then by reading it again). If no renewal succeeds within ``renew_deadline`` the
  leader has lost the Lease: ``on_stopped_leading`` runs. Every request is bounded by what is
  left of the deadline, so a stalled connection cannot keep a deposed leader believing it
  leads. Since renew_deadline < lease_duration, a leader gives up before any other instance
  may take over.
* **Release.** When ``run`` ends because ``stop`` was set while leading (the manager sets it on
  SIGTERM, after the workers have stopped), write the Lease with an empty holderIdentity and
  ``leaseDurationSeconds: 1`` (client-go's ``release``): a standby takes over at its next
  retry instead of waiting for the lease to expire. When it ends because a renewal failed,
  nothing is written: ``on_stopped_leading`` runs at once (the manager exits the process).

Time: ``clock`` (monotonic seconds, ``clock.Clock``) measures the renew deadline and how long
ago a record was observed; ``wall_clock`` stamps acquireTime and renewTime; the waits between
attempts are real time (``stop.wait``), whatever the clock.

What ``kubernetes.leaderelection`` (kubernetes 37.0.2) lacked, and why this module replaces it
rather than wrapping it:

* no way to stop it or to release the Lease: ``LeaderElection.run`` loops until renewal
  fails, and there is no release at all;
* its requests have no timeout, so a stalled connection blocks the renew loop and a leader
  that has lost the Lease keeps running its workers (and writing) indefinitely;
* ``Config`` exits the process (``sys.exit``) for a ``retry_period`` under 1 s, while the
  contract allows fractional seconds, and it judges expiry by its own configured duration,
  not by the Lease's ``leaseDurationSeconds``;
* ``LeaseLock`` reads and writes generated models and round-trips times through naive
  local-time strings.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from python_operator.runtime import client as client_
from python_operator.runtime import clock as clock_
from python_operator.runtime import log as log_

#: How often a release that meets a 409 is tried in all, and the seconds between tries
#: (client-go's retry.DefaultRetry, which the Go operator uses: 5 steps, 10 ms).
RELEASE_CONFLICT_TRIES = 5
RELEASE_CONFLICT_BACKOFF = 0.01

JITTER_FACTOR = 1.2


@dataclasses.dataclass(frozen=True)
class LeaderElectionRecord:
    """What the Lease spec says (client-go's resourcelock.LeaderElectionRecord)."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: str = ""
    renew_time: str = ""
    leader_transitions: int = 0


class Lock(Protocol):
    """Where the record lives (client-go's resourcelock.Interface)."""

    identity: str

    def get(self, *, timeout: float) -> LeaderElectionRecord:
        """Read the record; raises client.ApiError 404 if there is none."""

    def create(self, record: LeaderElectionRecord, *, timeout: float) -> None: ...

    def update(self, record: LeaderElectionRecord, *, timeout: float) -> None:
        """Write the record over the version last read or written (409 if it moved)."""

    def describe(self) -> str: ...


def micro_time(moment: datetime) -> str:
    """metav1.MicroTime's JSON form: RFC 3339, microseconds, UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaseLock:
    """A Lock on a coordination.k8s.io/v1 Lease, read and written as a dict."""

    def __init__(self, client: client_.Client, *, namespace: str, name: str, identity: str) -> None:
        self.identity = identity
        self._client = client
        self._namespace = namespace
        self._name = name
        self._lease: client_.Obj | None = None

    def describe(self) -> str:
        return f"{self._namespace}/{self._name}"

    def get(self, *, timeout: float) -> LeaderElectionRecord:
        lease = self._client.get(client_.LEASES, self._namespace, self._name, timeout=timeout)
        self._lease = lease
        spec = lease.get("spec") or {}
        return LeaderElectionRecord(
            holder_identity=str(spec.get("holderIdentity") or ""),
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=str(spec.get("acquireTime") or ""),
            renew_time=str(spec.get("renewTime") or ""),
            leader_transitions=int(spec.get("leaseTransitions") or 0),
        )

    def create(self, record: LeaderElectionRecord, *, timeout: float) -> None:
        lease: client_.Obj = {
            "apiVersion": client_.LEASES.api_version,
            "kind": client_.LEASES.kind,
            "metadata": {"name": self._name, "namespace": self._namespace},
            "spec": self._spec(record),
        }
        self._lease = self._client.create(client_.LEASES, lease, timeout=timeout)

    def update(self, record: LeaderElectionRecord, *, timeout: float) -> None:
        if self._lease is None:
            raise RuntimeError("lease not initialized: get or create it first")
        lease = dict(self._lease)
        lease["spec"] = self._spec(record)
        self._lease = self._client.update(client_.LEASES, lease, timeout=timeout)

    @staticmethod
    def _spec(record: LeaderElectionRecord) -> client_.Obj:
        spec: client_.Obj = {
            "holderIdentity": record.holder_identity,
            "leaseDurationSeconds": record.lease_duration_seconds,
            "leaseTransitions": record.leader_transitions,
        }
        if record.acquire_time:
            spec["acquireTime"] = record.acquire_time
        if record.renew_time:
            spec["renewTime"] = record.renew_time
        return spec


class LeaderElector:
    """Runs the acquire / renew / release cycle of one candidate; see the module docstring.

    Timings as client-go's LeaderElectionConfig (lease_duration > renew_deadline >
    1.2 x retry_period, else ValueError, as NewLeaderElector refuses them). on_started_leading
    is called in run's thread (client-go starts a goroutine) and must return; clock, wall_clock
    and rng are for tests (see "Time" in the module docstring)."""

    def __init__(
        self,
        *,
        lock: Lock,
        lease_duration: timedelta,
        renew_deadline: timedelta,
        retry_period: timedelta,
        on_started_leading: Callable[[], None],
        on_stopped_leading: Callable[[], None],
        release_on_stop: bool = True,
        clock: clock_.Clock | None = None,
        wall_clock: Callable[[], datetime] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if lease_duration <= renew_deadline:
            raise ValueError("lease_duration must be greater than renew_deadline")
        if renew_deadline.total_seconds() <= JITTER_FACTOR * retry_period.total_seconds():
            raise ValueError("renew_deadline must be greater than retry_period * 1.2")
        self._lock = lock
        self._lease_duration = lease_duration.total_seconds()
        self._renew_deadline = renew_deadline.total_seconds()
        self._retry_period = retry_period.total_seconds()
        self._on_started_leading = on_started_leading
        self._on_stopped_leading = on_stopped_leading
        self._release_on_stop = release_on_stop
        self._clock: clock_.Clock = clock if clock is not None else clock_.RealClock()
        self._wall_clock = wall_clock if wall_clock is not None else (lambda: datetime.now(UTC))
        self._rng = rng if rng is not None else random.Random()
        self._log = log_.get_logger("leaderelection").with_values(lease=lock.describe())
        # The record last read or written, and when (local monotonic clock) it was observed.
        self._observed: LeaderElectionRecord = LeaderElectionRecord()
        self._observed_time = 0.0
        self._observed_lock = threading.Lock()

    # ------------------------------------------------------------------ public
    def is_leader(self) -> bool:
        """Whether the record last observed names this instance (client-go's IsLeader)."""
        with self._observed_lock:
            return self._observed.holder_identity == self._lock.identity

    def run(self, stop: threading.Event) -> None:
        """Acquire, lead, renew until stop is set or renewal fails; release (when
        release_on_stop) only if stop was set, never after a failed renewal.

        on_started_leading runs once the Lease is held, in this thread; on_stopped_leading
        once leadership ends for any reason, after the release (it is not called if stop is
        set before the Lease is held; client-go calls OnStoppedLeading then too).
        """
        if not self._acquire(stop):
            return
        try:
            self._on_started_leading()
            self._renew(stop)
        finally:
            if stop.is_set() and self._release_on_stop:
                self.release()
            self._on_stopped_leading()

    def release(self) -> bool:
        """Give the Lease up (empty holder, 1 s duration, leaseTransitions kept) if this
        instance holds it, as client-go's release does: read the Lease, then, if the last
        record observed names this instance, update it. True when released or not held;
        False (logged) when the read or the update failed. Each request is bounded by the
        renew deadline. A 409 (a renewal the shutdown cancelled still reached the API server
        after the read) is read again and retried, RELEASE_CONFLICT_TRIES times in all, as
        the Go operator does with retry.RetryOnConflict."""
        for attempt in range(1, RELEASE_CONFLICT_TRIES + 1):
            try:
                old = self._lock.get(timeout=self._renew_deadline)
            except Exception as err:
                self._log.error("error retrieving lease to release it", error=str(err))
                return False
            if not self.is_leader():
                return True
            now = micro_time(self._wall_clock())
            record = LeaderElectionRecord(
                holder_identity="",
                lease_duration_seconds=1,
                acquire_time=now,
                renew_time=now,
                leader_transitions=old.leader_transitions,
            )
            try:
                self._lock.update(record, timeout=self._renew_deadline)
            except Exception as err:
                if client_.is_conflict(err) and attempt < RELEASE_CONFLICT_TRIES:
                    time.sleep(RELEASE_CONFLICT_BACKOFF)
                    continue
                self._log.error(
                    "could not release the Lease; standbys wait for it to expire", error=str(err)
                )
                return False
            self._set_observed(record)
            self._log.info("Released Lease")
            return True
        return False

    # ------------------------------------------------------------------ the cycle
    def _acquire(self, stop: threading.Event) -> bool:
        self._log.info("attempting to acquire leader lease")
        while not stop.is_set():
            if self.try_acquire_or_renew(timeout=self._renew_deadline):
                self._log.info("successfully acquired lease", identity=self._lock.identity)
                return True
            stop.wait(self._retry_period * (1 + JITTER_FACTOR * self._rng.random()))
        return False

    def _renew(self, stop: threading.Event) -> None:
        while not stop.is_set():
            deadline = self._clock.now() + self._renew_deadline
            renewed = False
            while True:
                remaining = deadline - self._clock.now()
                if remaining <= 0:
                    break
                if self.try_acquire_or_renew(timeout=remaining):
                    renewed = True
                    break
                wait = min(self._retry_period, deadline - self._clock.now())
                if wait > 0 and stop.wait(wait):
                    return
            if not renewed:
                self._log.info("failed to renew lease: leadership lost")
                return
            stop.wait(self._retry_period)

    def try_acquire_or_renew(self, *, timeout: float) -> bool:
        """One attempt, as client-go's tryAcquireOrRenew, all of its requests together taking
        at most timeout seconds. True if this instance now leads."""
        now = self._clock.now()
        deadline = now + timeout

        def left() -> float:
            return max(0.001, deadline - self._clock.now())

        stamp = micro_time(self._wall_clock())
        record = LeaderElectionRecord(
            holder_identity=self._lock.identity,
            lease_duration_seconds=int(self._lease_duration),
            acquire_time=stamp,
            renew_time=stamp,
        )

        # 1. Fast path: the leader renews from the Lease it last wrote, without reading.
        if self.is_leader() and self._lease_valid(now):
            observed = self._observed_record()
            fast = dataclasses.replace(
                record,
                acquire_time=observed.acquire_time,
                leader_transitions=observed.leader_transitions,
            )
            try:
                self._lock.update(fast, timeout=left())
                self._set_observed(fast)
                return True
            except Exception as err:
                self._log.info("failed to update lease optimistically, reading it", error=str(err))
            if self._clock.now() >= deadline:
                return False

        # 2. Read the Lease, or create it.
        try:
            old = self._lock.get(timeout=left())
        except client_.ApiError as err:
            if not client_.is_not_found(err):
                self._log.info("error retrieving lease", error=str(err))
                return False
            try:
                self._lock.create(record, timeout=left())
            except Exception as create_err:
                self._log.info("error creating lease", error=str(create_err))
                return False
            self._set_observed(record)
            return True
        except Exception as err:
            self._log.info("error retrieving lease", error=f"{type(err).__name__}: {err}")
            return False

        # 3. Someone else holds it and, as far as this instance has seen, renews it.
        if old != self._observed_record():
            self._set_observed(old)
        if old.holder_identity and self._lease_valid(now) and not self.is_leader():
            return False

        # 4. Take it over (or renew through the slow path).
        if self.is_leader():
            record = dataclasses.replace(
                record, acquire_time=old.acquire_time, leader_transitions=old.leader_transitions
            )
        else:
            record = dataclasses.replace(record, leader_transitions=old.leader_transitions + 1)
        try:
            self._lock.update(record, timeout=left())
        except Exception as err:
            self._log.info("failed to update lease", error=str(err))
            return False
        self._set_observed(record)
        return True

    # ------------------------------------------------------------------ observed record
    def _observed_record(self) -> LeaderElectionRecord:
        with self._observed_lock:
            return self._observed

    def _set_observed(self, record: LeaderElectionRecord) -> None:
        with self._observed_lock:
            self._observed = record
            self._observed_time = self._clock.now()

    def _lease_valid(self, now: float) -> bool:
        with self._observed_lock:
            return self._observed_time + self._observed.lease_duration_seconds > now
