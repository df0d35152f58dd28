"""``generate --keep-going``: a slot goes on past a failing sequence (``slots.run_rounds``).

Run with real hypothesis on a world with no lanes (no implementation, so no cluster): its
steps do nothing but are drawn, counted and judged as in a run, and a world that fails every
sequence containing a ``restart`` stands in for an oracle failure."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.generate import slots
from harness.generate.cli import _slot_data, merge
from harness.generate.lane import Halted, OracleFailure, Settings
from harness.generate.machine import World
from harness.generate.slots import MAX_REPEATS, ROUND_SIZE, ROUND_STRIDE, Pool, Slot, run_rounds


class _FailsAtRestart(World):
    """A world without lanes whose every sequence with a ``restart`` step fails."""

    def step(self, step: dict[str, Any]) -> None:
        super().step(step)
        if step["op"] == "restart" and not self.frozen:
            exc = OracleFailure("python", "invariant", "a restart")
            self._failed(exc)
            raise exc


def _world(cls: type[World] = World) -> World:
    settings = SimpleNamespace(sim=False)  # what a world without lanes reads of its settings
    w = cls(settings=settings, impls=[], progress=lambda _: None)  # type: ignore[arg-type]
    w.shrink_seconds = 3.0
    return w


def test_without_keep_going_a_slot_ends_at_its_first_failure() -> None:
    slot = Slot(_world(_FailsAtRestart), seed=3, sequences=40)
    run_rounds(slot, 8)
    assert len(slot.rounds) == 1 and slot.rounds[0].seed == 3
    assert slot.failure is not None and slot.failure.oracle == "invariant"
    assert slot.world.drawn < 40  # hypothesis stopped drawing at the failure


def test_with_keep_going_every_sequence_is_drawn_and_every_failing_round_kept() -> None:
    slot = Slot(_world(_FailsAtRestart), seed=3, sequences=40)
    run_rounds(slot, 8, keep_going=True)
    assert len(slot.rounds) >= 2
    assert [r.seed for r in slot.rounds] == [3 + ROUND_STRIDE * k for k in range(len(slot.rounds))]
    assert slot.world.drawn >= 40  # the failing sequences count as drawn, shrink tries not
    assert slot.failure is slot.rounds[0].failure
    for r in slot.rounds:  # each round keeps its own failing sequences, each at a restart
        assert r.failing and all(t[-1]["op"] == "restart" for t, _ in r.failing)
    assert slot.world.frozen is False  # a new round is judged again, not passed at once


def test_a_passing_run_is_one_round_with_or_without_keep_going() -> None:
    for keep_going in (False, True):
        slot = Slot(_world(), seed=5, sequences=12)
        run_rounds(slot, 6, keep_going=keep_going)  # hypothesis may draw one more
        assert slot.rounds == [] and slot.failure is None and slot.world.drawn >= 12


def test_a_halted_run_starts_no_further_round() -> None:
    slot = Slot(_world(_FailsAtRestart), seed=3, sequences=40)
    slot.world.halted = True
    run_rounds(slot, 8, keep_going=True)
    assert slot.rounds == [] and slot.world.drawn == 0


@pytest.mark.parametrize("as_it_ends", [False, True])
def test_every_round_is_saved_as_its_own_case_and_finding(tmp_path: Path, as_it_ends: bool) -> None:
    """Each failing round is a finding with its case file, whether the case files were
    written as each round ended (``cases``, as a run does) or only when the JSON is made."""
    slot = Slot(_world(_FailsAtRestart), seed=3, sequences=30)
    run_rounds(slot, 8, keep_going=True, cases=tmp_path / "generated" if as_it_ends else None)
    assert all((r.case is not None) == as_it_ends for r in slot.rounds)
    args = argparse.Namespace(
        steps=8, quiet=2.0, operator_root=None, cluster="envtest", keep_going=True
    )
    data = _slot_data(args, slot, tmp_path, 1.0)
    assert len(data["findings"]) == len(slot.rounds) >= 2
    assert data["failure"] == data["findings"][0]
    assert {f["seed"] for f in data["findings"]} == {r.seed for r in slot.rounds}
    for f in data["findings"]:
        assert Path(f["case"]).is_file() and f["oracle"] == "invariant"
    assert data["sequences_drawn"] == slot.world.drawn and data["keep_going"] is True
    merged = merge([data, data], 3, 2.0, tmp_path / "generated")
    assert len(merged["findings"]) == 2 * len(data["findings"])
    assert merged["sequences_drawn"] == 2 * data["sequences_drawn"]


def _on_one_pool(keep_going: bool, total: int) -> tuple[Pool, Slot, Slot]:
    import threading

    pool = Pool(total)
    fast, failing = Slot(_world(), seed=1, sequences=0), Slot(_world(_FailsAtRestart), 2, 0)
    threads = [
        threading.Thread(
            target=run_rounds, args=(s, 6), kwargs={"pool": pool, "keep_going": keep_going}
        )
        for s in (fast, failing)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return pool, fast, failing


def test_slots_take_rounds_from_one_pool_so_a_slow_slot_holds_none_back() -> None:
    """Two slots on one pool, one failing often: each takes rounds of at most ROUND_SIZE,
    and with keep_going every sequence is taken once and drawn (hypothesis may draw one
    more a round); without it the failing slot stops at its first failure and what it gave
    back is drawn only by a slot still running."""
    total = 2 * ROUND_SIZE + 7
    pool, fast, failing = _on_one_pool(True, total)
    assert pool.left == 0 and fast.sequences + failing.sequences == total
    assert fast.world.drawn >= fast.sequences and failing.world.drawn >= failing.sequences
    assert len(failing.rounds) >= 2 and fast.rounds == []
    pool, fast, failing = _on_one_pool(False, total)
    assert failing.failure is not None and len(failing.rounds) == 1
    assert fast.sequences + failing.sequences + pool.left == total
    assert fast.sequences > failing.sequences


def test_a_pool_gives_what_it_has_and_takes_back_what_was_not_drawn() -> None:
    pool = Pool(30)
    assert pool.take(ROUND_SIZE) == ROUND_SIZE and pool.take(ROUND_SIZE) == 30 - ROUND_SIZE
    assert pool.take(ROUND_SIZE) == 0
    pool.give(3)
    assert pool.take(ROUND_SIZE) == 3


class _FailsAtCreate(World):
    """A world whose every sequence fails at its first step: hypothesis's simplest
    sequence, which it draws first in every round, fails."""

    def step(self, step: dict[str, Any]) -> None:
        super().step(step)
        if not self.frozen:
            exc = OracleFailure("go", "quiet", "never quiet")
            self._failed(exc)
            raise exc


def test_a_failure_found_again_first_in_every_round_stops_the_slot_unshrunk() -> None:
    slot = Slot(_world(_FailsAtCreate), seed=3, sequences=40)
    run_rounds(slot, 8, keep_going=True)
    assert len(slot.rounds) == 1  # one finding; the repeats are not findings
    assert slot.world.drawn == 1 + MAX_REPEATS  # each repeat drew its first sequence only
    assert slot.world.flaky == 0  # a pass because the world froze is not a flaky sequence
    shrink_tries = len(slot.rounds[0].failing)
    assert shrink_tries >= 1 and slot.world.stats == {}  # no lanes: nothing else counted


def _started(fn: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    """``fn`` running in a daemon thread (a wait that never ends fails the test, not hangs the
    suite), and the list that receives what it raises."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            raised.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    return runner, raised


class _WaitsAtRestart(World):
    """A world without lanes whose ``restart`` step waits for ever, as a wait on a retry owed
    minutes away does (``Settings.sleep`` between polls); ``waiting`` is set once it waits.
    In the slot named ``gen1`` the step raises a harness error instead, once another slot
    waits."""

    waiting = threading.Event()

    def step(self, step: dict[str, Any]) -> None:
        super().step(step)
        if step["op"] != "restart" or self.frozen:
            return
        if self.label == "gen1":
            assert type(self).waiting.wait(60), "no other slot reached a restart step"
            raise RuntimeError("a harness error in slot 1")
        type(self).waiting.set()
        for _ in range(300):  # bounded: a regression fails the test in a minute, not hangs it
            self.settings.sleep(0.2)


def test_a_halt_ends_a_waiting_slot_at_once_with_no_failure_and_no_case(
    tmp_path: Path,
) -> None:
    """A run stopped while a slot waits (Ctrl-C during an owed retry's minutes) ends that
    wait within a poll: Halted, a BaseException, passes through hypothesis untouched, so the
    slot records no failing round and shrinks nothing."""
    settings = Settings(SimpleNamespace(tier="envtest"), tmp_path)  # type: ignore[arg-type]
    world = _WaitsAtRestart(settings=settings, impls=[], progress=lambda _: None, label="gen")
    world.shrink_seconds = 3.0
    _WaitsAtRestart.waiting = threading.Event()
    slot = Slot(world, seed=3, sequences=40)
    runner, raised = _started(lambda: run_rounds(slot, 8, keep_going=True))
    assert _WaitsAtRestart.waiting.wait(60), "no sequence reached a restart step"
    world.frozen = world.halted = True
    settings.halt.set()
    runner.join(5)
    assert not runner.is_alive(), "the wait did not end within 5 s of the halt"
    assert [type(e) for e in raised] == [Halted]
    assert slot.rounds == [] and world.failing == [] and world.flaky == 0


def test_a_harness_error_in_one_slot_ends_the_others_waits_and_is_the_error_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slot 1's harness error halts the run: slot 0, waiting, ends at once with Halted, and
    run_slots raises slot 1's error, not the Halted it caused (slot 0's, first in order)."""
    monkeypatch.setattr(slots, "World", _WaitsAtRestart)
    _WaitsAtRestart.waiting = threading.Event()
    settings = Settings(SimpleNamespace(tier="envtest"), tmp_path)  # type: ignore[arg-type]
    runner, raised = _started(
        lambda: slots.run_slots(settings, [], 2, 40, 8, 3, shrink=False, progress=lambda _: None)
    )
    # A hang guard, not a timing: when the halt works the run ends as soon as both slots have
    # drawn a restart step, which a loaded 2-core machine (a fresh-clone make test with other
    # tests beside it, stop 49) took over 90 s to do.
    runner.join(300)
    assert not runner.is_alive(), "slot 0's wait did not end after slot 1's error"
    assert settings.halt.is_set()
    assert [type(e) for e in raised] == [RuntimeError]
    assert "a harness error in slot 1" in str(raised[0])


class _FailsThenWaits(World):
    """A world without lanes whose first ``restart`` fails an oracle; once it has failed, a
    ``restart`` waits as ``_WaitsAtRestart`` does (a shrinking try in a long wait)."""

    waiting = threading.Event()

    def step(self, step: dict[str, Any]) -> None:
        super().step(step)
        if step["op"] != "restart" or self.frozen:
            return
        if not self.failing:
            exc = OracleFailure("python", "invariant", "a restart")
            self._failed(exc)
            raise exc
        type(self).waiting.set()
        for _ in range(300):
            self.settings.sleep(0.2)


def test_a_halt_while_shrinking_keeps_the_failure_found_and_its_round(tmp_path: Path) -> None:
    """Ctrl-C while a shrinking try waits: the failure found before it is still the round's
    finding (its case file is written as the round ends), and the halt is no flaky
    sequence."""
    settings = Settings(SimpleNamespace(tier="envtest"), tmp_path)  # type: ignore[arg-type]
    world = _FailsThenWaits(settings=settings, impls=[], progress=lambda _: None, label="gen")
    world.shrink_seconds = 120.0
    _FailsThenWaits.waiting = threading.Event()
    slot = Slot(world, seed=3, sequences=40)
    runner, raised = _started(
        lambda: run_rounds(slot, 8, keep_going=True, cases=tmp_path / "cases")
    )
    assert _FailsThenWaits.waiting.wait(60), "no shrinking try reached a restart step"
    world.frozen = world.halted = True
    settings.halt.set()
    runner.join(30)
    assert not runner.is_alive(), "the wait did not end within 30 s of the halt"
    assert raised == [] and world.flaky == 0
    assert len(slot.rounds) == 1 and slot.failure is not None
    assert list((tmp_path / "cases").glob("*.yaml")), "the round's case file was not written"
