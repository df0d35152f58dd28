"""The work queue keeps client-go's contract. Time moves only through a FakeClock; a test that
needs a blocked get() uses a thread and events, never sleeps."""

from __future__ import annotations

import threading
from datetime import timedelta

from python_operator.runtime import clock, workqueue

MS = timedelta(milliseconds=1)


def new_queue(fake: clock.FakeClock | None = None) -> workqueue.RateLimitingQueue[str]:
    return workqueue.RateLimitingQueue(clock=fake or clock.FakeClock())


def drain(q: workqueue.Queue[str]) -> list[str]:
    items = []
    while q.len():
        item, shutdown = q.get()
        assert not shutdown and item is not None
        items.append(item)
        q.done(item)
    return items


def test_fifo_order() -> None:
    q = new_queue()
    for key in ("ns/a", "ns/b", "ns/c"):
        q.add(key)
    assert drain(q) == ["ns/a", "ns/b", "ns/c"]


def test_duplicates_collapse() -> None:
    q = new_queue()
    for _ in range(10):
        q.add("ns/a")
    q.add("ns/b")
    q.add("ns/a")
    assert q.len() == 2
    assert drain(q) == ["ns/a", "ns/b"]


def test_one_in_flight_per_key() -> None:
    q = new_queue()
    q.add("ns/a")
    item, _ = q.get()
    assert item == "ns/a"
    q.add("ns/a")
    # Still processing: a second worker must not receive it.
    assert q.len() == 0


def test_collapse_while_processing() -> None:
    q = new_queue()
    q.add("ns/a")
    q.get()
    q.add("ns/a")
    q.add("ns/a")
    q.add("ns/a")
    assert q.len() == 0
    q.done("ns/a")
    # Added (three times) while processing: runs exactly once more after done.
    assert q.len() == 1
    assert drain(q) == ["ns/a"]
    assert q.len() == 0


def test_done_without_new_add_does_not_requeue() -> None:
    q = new_queue()
    q.add("ns/a")
    q.get()
    q.done("ns/a")
    assert q.len() == 0


def test_add_after_waits_for_its_time() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    q.add_after("ns/a", 10 * MS)
    assert q.len() == 0
    fake.step(0.009)
    assert q.len() == 0
    fake.step(0.001)
    assert q.len() == 1


def test_add_after_zero_adds_now() -> None:
    q = new_queue()
    q.add_after("ns/a", timedelta(0))
    assert q.len() == 1


def test_add_after_keeps_earlier() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    q.add_after("ns/a", timedelta(seconds=10))
    q.add_after("ns/a", timedelta(seconds=5))
    fake.step(5)
    assert q.len() == 1
    assert drain(q) == ["ns/a"]
    # The abandoned 10 s entry does not fire a second time.
    fake.step(10)
    assert q.len() == 0

    q.add_after("ns/b", timedelta(seconds=1))
    q.add_after("ns/b", timedelta(seconds=10))
    fake.step(1)
    assert q.len() == 1
    assert q.waiting() == 0


def test_add_after_of_queued_item_collapses_when_due() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    q.add("ns/a")
    q.add_after("ns/a", timedelta(seconds=1))
    fake.step(1)
    assert q.len() == 1


def test_backoff_exponential_then_capped() -> None:
    limiter: workqueue.ItemExponentialFailureRateLimiter[str] = (
        workqueue.ItemExponentialFailureRateLimiter(
            base_delay=5 * MS, max_delay=timedelta(seconds=1000)
        )
    )
    delays = [limiter.when("ns/a") for _ in range(20)]
    assert delays[:4] == [5 * MS, 10 * MS, 20 * MS, 40 * MS]
    assert delays[17] == timedelta(seconds=655.36)
    assert delays[18] == timedelta(seconds=1000)
    assert delays[19] == timedelta(seconds=1000)
    assert limiter.num_requeues("ns/a") == 20
    # Other keys have their own count.
    assert limiter.when("ns/b") == 5 * MS
    for _ in range(2000):  # no overflow however long it fails
        limiter.when("ns/c")
    assert limiter.when("ns/c") == timedelta(seconds=1000)


def test_forget_resets_backoff() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    for _ in range(3):
        q.add_rate_limited("ns/a")
    assert q.num_requeues("ns/a") == 3
    q.forget("ns/a")
    assert q.num_requeues("ns/a") == 0
    q.add_rate_limited("ns/a")
    fake.step(0.005)
    assert q.len() == 1


def test_rate_limited_requeue_waits_backoff() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    q.add_rate_limited("ns/a")  # 5 ms
    assert q.len() == 0
    fake.step(0.005)
    assert drain(q) == ["ns/a"]
    q.add_rate_limited("ns/a")  # 10 ms
    fake.step(0.009)
    assert q.len() == 0
    fake.step(0.001)
    assert q.len() == 1


def test_bucket_allows_burst_then_ten_per_second() -> None:
    fake = clock.FakeClock()
    bucket: workqueue.BucketRateLimiter[str] = workqueue.BucketRateLimiter(
        qps=10, burst=100, clock=fake
    )
    assert all(bucket.when(f"k{i}") == timedelta(0) for i in range(100))
    assert bucket.when("k100") == 100 * MS
    assert bucket.when("k101") == 200 * MS
    fake.step(0.2)
    assert bucket.when("k102") == 100 * MS


def test_default_limiter_is_max_of_item_and_bucket() -> None:
    fake = clock.FakeClock()
    limiter: workqueue.MaxOfRateLimiter[str] = workqueue.default_controller_rate_limiter(clock=fake)
    # Within the burst, the per-item backoff decides.
    assert limiter.when("ns/a") == 5 * MS
    assert limiter.when("ns/a") == 10 * MS
    for i in range(98):
        limiter.when(f"ns/other-{i}")
    # The bucket is empty: a fresh key waits for a token although its own backoff is 5 ms.
    assert limiter.when("ns/fresh") == 100 * MS


def test_shutdown_unblocks_get() -> None:
    q = new_queue()
    got: list[tuple[str | None, bool]] = []
    waiting = threading.Event()

    def worker() -> None:
        waiting.set()
        got.append(q.get())

    t = threading.Thread(target=worker)
    t.start()
    waiting.wait()
    q.shutdown()
    t.join(timeout=10)
    assert not t.is_alive()
    assert got == [(None, True)]


def test_add_wakes_blocked_get() -> None:
    q = new_queue()
    got: list[tuple[str | None, bool]] = []
    waiting = threading.Event()

    def worker() -> None:
        waiting.set()
        got.append(q.get())

    t = threading.Thread(target=worker)
    t.start()
    waiting.wait()
    q.add("ns/a")
    t.join(timeout=10)
    assert got == [("ns/a", False)]


def test_get_hands_out_queued_items_after_shutdown() -> None:
    q = new_queue()
    q.add("ns/a")
    q.shutdown()
    assert q.get() == ("ns/a", False)
    assert q.get() == (None, True)


def test_adds_ignored_after_shutdown() -> None:
    fake = clock.FakeClock()
    q = new_queue(fake)
    q.add_after("ns/waiting", timedelta(seconds=1))
    q.shutdown()
    q.add("ns/a")
    q.add_after("ns/b", timedelta(0))
    q.add_rate_limited("ns/c")
    fake.step(100)
    assert q.len() == 0
    assert q.get() == (None, True)


class RecordingMetrics:
    def __init__(self) -> None:
        self.adds = 0
        self.depth = 0

    def add(self) -> None:
        self.adds += 1
        self.depth += 1

    def get(self) -> None:
        self.depth -= 1


def test_metrics_count_adds_and_depth() -> None:
    metrics = RecordingMetrics()
    q: workqueue.Queue[str] = workqueue.Queue(metrics=metrics)
    q.add("ns/a")
    q.add("ns/a")  # collapsed: not an add
    q.add("ns/b")
    assert (metrics.adds, metrics.depth) == (2, 2)
    item, _ = q.get()
    assert (metrics.adds, metrics.depth) == (2, 1)
    q.add("ns/a")  # dirty again while processing: counted
    assert (metrics.adds, metrics.depth) == (3, 2)
    assert item is not None
    q.done(item)
    assert drain(q) == ["ns/b", "ns/a"]
    assert (metrics.adds, metrics.depth) == (3, 0)
