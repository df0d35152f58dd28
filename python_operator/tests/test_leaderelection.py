"""Leader election decisions, driven by a FakeClock, on a Lease record held as plain data.
The run-loop tests use real waits of a few milliseconds, bounded by events."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from python_operator.runtime import client as client_
from python_operator.runtime import clock, leaderelection

Record = leaderelection.LeaderElectionRecord
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class Lease:
    """One Lease: its record and a version number that every write moves on."""

    def __init__(self) -> None:
        self.record: Record | None = None
        self.version = 0
        self.broken = False


class MemoryLock:
    """A Lock over a shared Lease; an update based on an old version fails, like a 409."""

    def __init__(self, lease: Lease, identity: str) -> None:
        self.lease = lease
        self.identity = identity
        self._seen = -1

    def describe(self) -> str:
        return "lab/modeldock.lab"

    def get(self, *, timeout: float) -> Record:
        if self.lease.broken:
            raise TimeoutError("stalled")
        if self.lease.record is None:
            raise client_.ApiError(404, "NotFound", "not found")
        self._seen = self.lease.version
        return self.lease.record

    def create(self, record: Record, *, timeout: float) -> None:
        if self.lease.record is not None:
            raise client_.ApiError(409, "AlreadyExists", "exists")
        self._write(record)

    def update(self, record: Record, *, timeout: float) -> None:
        if self.lease.broken:
            raise TimeoutError("stalled")
        if self._seen != self.lease.version:
            raise client_.ApiError(409, "Conflict", "modified")
        self._write(record)

    def _write(self, record: Record) -> None:
        self.lease.record = record
        self.lease.version += 1
        self._seen = self.lease.version


def elector(
    lease: Lease,
    identity: str,
    fake: clock.Clock,
    *,
    lease_s: float = 15,
    renew_s: float = 10,
    retry_s: float = 2,
    started: threading.Event | None = None,
    stopped: threading.Event | None = None,
) -> leaderelection.LeaderElector:
    return leaderelection.LeaderElector(
        lock=MemoryLock(lease, identity),
        lease_duration=timedelta(seconds=lease_s),
        renew_deadline=timedelta(seconds=renew_s),
        retry_period=timedelta(seconds=retry_s),
        on_started_leading=(started or threading.Event()).set,
        on_stopped_leading=(stopped or threading.Event()).set,
        clock=fake,
        # Wall time moves with the test's clock, so each renewal writes a new renewTime.
        wall_clock=lambda: EPOCH + timedelta(seconds=fake.now()),
    )


def test_first_candidate_creates_the_lease() -> None:
    lease = Lease()
    a = elector(lease, "a", clock.FakeClock())
    assert a.try_acquire_or_renew(timeout=1)
    assert a.is_leader()
    assert lease.record is not None
    assert (lease.record.holder_identity, lease.record.lease_duration_seconds) == ("a", 15)
    assert lease.record.renew_time == "2026-01-01T00:16:40.000000Z"  # FakeClock starts at 1000


def test_held_lease_is_respected_until_it_expires_as_observed_locally() -> None:
    lease = Lease()
    fake = clock.FakeClock()
    a, b = elector(lease, "a", fake), elector(lease, "b", fake)
    assert a.try_acquire_or_renew(timeout=1)
    assert not b.try_acquire_or_renew(timeout=1)
    fake.step(14)
    assert not b.try_acquire_or_renew(timeout=1)  # b saw the record 14 s ago: still valid
    fake.step(1.5)
    assert b.try_acquire_or_renew(timeout=1)
    assert lease.record is not None and lease.record.holder_identity == "b"
    assert lease.record.leader_transitions == 1
    assert not a.is_leader() or not a.try_acquire_or_renew(timeout=1)


def test_renewal_seen_by_standby_restarts_its_clock() -> None:
    lease = Lease()
    fake = clock.FakeClock()
    a, b = elector(lease, "a", fake), elector(lease, "b", fake)
    a.try_acquire_or_renew(timeout=1)
    b.try_acquire_or_renew(timeout=1)
    fake.step(10)
    assert a.try_acquire_or_renew(timeout=1)  # renews: the record changes
    assert not b.try_acquire_or_renew(timeout=1)
    fake.step(10)  # 20 s since b first looked, 10 s since it saw the renewal
    assert not b.try_acquire_or_renew(timeout=1)


def test_leader_renewal_keeps_acquire_time_and_transitions() -> None:
    lease = Lease()
    times = iter([datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, 0, 0, 2, tzinfo=UTC)])
    a = leaderelection.LeaderElector(
        lock=MemoryLock(lease, "a"),
        lease_duration=timedelta(seconds=15),
        renew_deadline=timedelta(seconds=10),
        retry_period=timedelta(seconds=2),
        on_started_leading=lambda: None,
        on_stopped_leading=lambda: None,
        clock=clock.FakeClock(),
        wall_clock=lambda: next(times),
    )
    a.try_acquire_or_renew(timeout=1)
    a.try_acquire_or_renew(timeout=1)
    assert lease.record is not None
    assert lease.record.acquire_time == "2026-01-01T00:00:00.000000Z"
    assert lease.record.renew_time == "2026-01-01T00:00:02.000000Z"
    assert lease.record.leader_transitions == 0


def test_release_empties_holder_so_a_standby_takes_over_at_once() -> None:
    lease = Lease()
    fake = clock.FakeClock()
    a, b = elector(lease, "a", fake), elector(lease, "b", fake)
    a.try_acquire_or_renew(timeout=1)
    assert not b.try_acquire_or_renew(timeout=1)
    assert a.release()
    assert lease.record is not None
    assert (lease.record.holder_identity, lease.record.lease_duration_seconds) == ("", 1)
    assert not a.is_leader()
    assert b.try_acquire_or_renew(timeout=1)  # no waiting for the old lease to expire


def test_release_by_a_standby_writes_nothing() -> None:
    lease = Lease()
    fake = clock.FakeClock()
    a, b = elector(lease, "a", fake), elector(lease, "b", fake)
    a.try_acquire_or_renew(timeout=1)
    b.try_acquire_or_renew(timeout=1)
    version = lease.version
    assert b.release()
    assert lease.version == version


def test_invalid_timings_are_refused() -> None:
    with pytest.raises(ValueError):
        elector(Lease(), "a", clock.FakeClock(), lease_s=10, renew_s=10)
    with pytest.raises(ValueError):
        elector(Lease(), "a", clock.FakeClock(), renew_s=2.4, retry_s=2)


def test_run_leads_then_releases_on_stop() -> None:
    lease = Lease()
    started, stopped, stop = threading.Event(), threading.Event(), threading.Event()
    a = elector(
        lease,
        "a",
        clock.RealClock(),
        lease_s=1.5,
        renew_s=1,
        retry_s=0.01,
        started=started,
        stopped=stopped,
    )
    t = threading.Thread(target=a.run, args=(stop,))
    t.start()
    assert started.wait(10)
    stop.set()
    t.join(10)
    assert stopped.is_set()
    assert lease.record is not None and lease.record.holder_identity == ""


def test_run_stops_leading_when_renewal_fails_within_deadline() -> None:
    lease = Lease()
    started, stopped = threading.Event(), threading.Event()
    a = elector(
        lease,
        "a",
        clock.RealClock(),
        lease_s=0.2,
        renew_s=0.1,
        retry_s=0.01,
        started=started,
        stopped=stopped,
    )
    t = threading.Thread(target=a.run, args=(threading.Event(),))
    t.start()
    assert started.wait(10)
    lease.broken = True  # every request now fails, as through a stalled connection
    t.join(10)
    assert not t.is_alive()
    assert stopped.is_set()
    # Lost, not stopped: no release was attempted, the record still names the old leader.
    assert lease.record is not None and lease.record.holder_identity == "a"


def test_run_releases_on_stop_not_after_a_lost_renewal() -> None:
    """client-go's ReleaseOnCancel would release after the failed renewal too (its release
    runs at the end of renew, whatever ended it); this elector calls release only when stop
    was set."""

    class Counting(leaderelection.LeaderElector):
        releases = 0

        def release(self) -> bool:
            Counting.releases += 1
            return super().release()

    for lose in (True, False):
        Counting.releases = 0
        lease, started, stop = Lease(), threading.Event(), threading.Event()
        a = Counting(
            lock=MemoryLock(lease, "a"),
            lease_duration=timedelta(seconds=0.2),
            renew_deadline=timedelta(seconds=0.1),
            retry_period=timedelta(seconds=0.01),
            on_started_leading=started.set,
            on_stopped_leading=lambda: None,
        )
        t = threading.Thread(target=a.run, args=(stop,))
        t.start()
        assert started.wait(10)
        if lose:
            lease.broken = True
        else:
            stop.set()
        t.join(10)
        assert not t.is_alive()
        assert Counting.releases == (0 if lose else 1), f"lose={lose}"


def test_one_attempt_spends_at_most_its_timeout_over_all_requests() -> None:
    """The fast-path update and the fallback read share one budget: a stalled connection
    cannot stretch one renewal attempt past the renew deadline."""
    lease = Lease()
    fake = clock.FakeClock()
    a = elector(lease, "a", fake)
    assert a.try_acquire_or_renew(timeout=1)
    spent: list[float] = []

    class Hanging(MemoryLock):
        def get(self, *, timeout: float) -> Record:
            spent.append(timeout)
            fake.step(timeout)  # hangs until its timeout
            raise TimeoutError("stalled")

        def update(self, record: Record, *, timeout: float) -> None:
            spent.append(timeout)
            fake.step(timeout)
            raise TimeoutError("stalled")

    a._lock = Hanging(lease, "a")
    start = fake.now()
    assert not a.try_acquire_or_renew(timeout=4)
    assert fake.now() - start <= 4.01
    assert spent[0] == 4


def test_release_retries_when_a_late_renewal_lands_after_its_read() -> None:
    """A renewal the shutdown cancelled can still reach the API server after the release read
    the Lease: the release's update meets a 409, reads again and releases (without the
    retry a standby waited the whole lease out; seen for the Go operator under load)."""
    lease = Lease()
    fake = clock.FakeClock()
    a = elector(lease, "a", fake)
    a.try_acquire_or_renew(timeout=1)
    real_get = a._lock.get
    late = [True]

    def get_then_a_late_renewal(*, timeout: float) -> Record:
        record = real_get(timeout=timeout)
        if late.pop() if late else False:
            lease.version += 1  # the cancelled renewal lands now
        return record

    a._lock.get = get_then_a_late_renewal  # type: ignore[method-assign]
    assert a.release()
    assert lease.record is not None
    assert lease.record.holder_identity == ""
