"""Several sequences at once on one control plane (``generate --parallel K``).

Most of a step's wall time is waiting (docs/design.md, "Generated workloads", where the time
goes: the quiet windows, the operators' reactions), not CPU. ``run_slots`` runs ``K``
*slots*, each a ``machine.World`` of its own with its own lanes (namespaces
``gen<i>-<impl>``, an API proxy and an operator process per implementation) and its own
hypothesis runs (seed ``seed + i``, then ``seed + i + ROUND_STRIDE * k`` for its k-th round),
in a thread each, on the one control plane the run started. The slots take their sequences
from one ``Pool``, a round of at most ``ROUND_SIZE`` at a time, not as fixed shares: a slot
whose operator waits out a backoff of minutes (the contract's 5 ms doubling up to 1000 s, after
a refusal retried many times) no longer holds the run's end back with its share. Nothing an oracle reads is shared between slots: each lane's
proxy log holds only its own operator's requests, so the quiet and budget oracles read their
own lane's writes; a fault, a crash or a held watch event is armed on the lane's own proxy
and hits only that lane's operator; ``restart`` and ``crash`` kill only the lane's operator
process. What the slots share is the API server (and on sim its controllers), which is what
``--jobs`` paid a control plane per job for.

With ``K == 1`` the one slot is the run of old (namespaces ``gen-<impl>``, seed ``seed``, every
sequence in one round).

Hypothesis ends a run at its first failing sequence (after shrinking it), and that ends the
slot. With ``keep_going`` (``generate --keep-going``, the nightly) the slot goes on: the
sequences its round did not draw go to a next round (back to the pool), so one failure no
longer ends a slot's part of a long run; each failing round keeps its own failing sequences
(``Round``) for its own case file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from harness.generate.casefile import save_case, save_other_cases
from harness.generate.lane import Halted, OracleFailure, Settings
from harness.generate.machine import World, run
from harness.operators import Implementation

#: How far apart the seeds of a slot's rounds are: above any slot or job count, so that no
#: round of one slot draws another slot's sequences.
ROUND_STRIDE = 100_003


@dataclass
class Round:
    """A round of a slot that ended at a failure: its hypothesis seed, every failing sequence
    it ran (``World.failing``: trace and failure, shrinking tries included) and the failure
    of the smallest."""

    seed: int
    failing: list[tuple[list[dict[str, Any]], OracleFailure]]
    failure: OracleFailure | None
    #: how many sequences the round was given (with its seed, what re-runs it)
    size: int = 0
    #: its case file and the smallest of each other oracle's (``save_round``), once written
    case: Path | None = None
    other_cases: list[Path] = field(default_factory=list)


def save_round(folder: Path, world: World, r: Round) -> None:
    """Write round ``r``'s case files under ``folder`` (``casefile.save_case`` and
    ``save_other_cases`` on its failing sequences), once; ``r.case`` and ``r.other_cases``
    name them."""
    if r.case is not None:
        return
    world.failing = r.failing
    r.case = save_case(folder, world, r.seed)
    r.other_cases = save_other_cases(folder, world, r.seed)


@dataclass
class Slot:
    """One slot of a ``--parallel`` run: its world, its hypothesis seed, its share of the
    sequences and, once run, its failing rounds (one at most without ``keep_going``) and the
    first one's failure (None: none)."""

    world: World
    seed: int
    sequences: int
    failure: OracleFailure | None = None
    rounds: list[Round] = field(default_factory=list)


@dataclass
class Pool:
    """The sequences of a ``--parallel`` run that no slot has taken yet. Slots take them a
    round of at most ``ROUND_SIZE`` at a time (``run_rounds``), so a slot held up (an
    operator's backoff of minutes after a long refusal, a failure's shrinking) leaves the
    rest to the others instead of a fixed share waiting behind it. Thread-safe."""

    left: int
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, n: int) -> int:
        """Up to ``n`` sequences (fewer at the end; 0: none left)."""
        with self._lock:
            k = max(min(n, self.left), 0)
            self.left -= k
            return k

    def give(self, n: int) -> None:
        """Give back ``n`` sequences a round took and did not draw."""
        with self._lock:
            self.left += max(n, 0)


#: Rounds in a row whose first failure was found before, after which a slot stops going on.
MAX_REPEATS = 3

#: The most sequences a slot takes from the ``Pool`` for one round (one hypothesis run).
#: Hypothesis draws its simplest sequence first in every run, so much smaller rounds spend
#: more of the run on it; much larger ones leave a slow slot holding many.
ROUND_SIZE = 25


def run_rounds(
    slot: Slot,
    steps: int,
    *,
    shrink: bool = True,
    keep_going: bool = False,
    pool: Pool | None = None,
    cases: Path | None = None,
) -> None:
    """Run sequences on ``slot``'s world (opened), a hypothesis run (``machine.run``) per
    round, the k-th from the seed ``slot.seed + ROUND_STRIDE * k``. Without ``pool`` the slot
    runs its own ``slot.sequences`` in one round; with one, it takes rounds of at most
    ``ROUND_SIZE`` from it until none are left (``slot.sequences`` then counts what it took).
    A round that a failure or a flaky sequence ended early ends the slot, or, with
    ``keep_going``, hands its undrawn sequences on to a next round (module docstring). Stops
    when the run is halted, or after ``MAX_REPEATS`` rounds in a row whose first failure was
    found before (``World.known``; hypothesis draws its simplest sequence first in every
    round, so a fault that sequence meets would otherwise be met, and shrunk, in every round).
    Such a round is not a finding and is not shrunk again. Fills ``slot.rounds`` (each
    round's case files written under ``cases`` as it ends, when given) and ``slot.failure``;
    raises what ``machine.run`` raises (a harness error ends the slot)."""
    world, k, repeats = slot.world, 0, 0
    remaining = 0 if pool else slot.sequences
    while not world.halted:
        n = pool.take(ROUND_SIZE) if pool else remaining
        if n <= 0:
            break
        slot.sequences += n if pool else 0
        seed_k = slot.seed + ROUND_STRIDE * k
        drawn, flaky = world.drawn, world.flaky
        failure = run(world, n, steps, seed_k, shrink=shrink)
        ended = bool(world.failing) or world.flaky > flaky
        repeats = repeats + 1 if world.duplicate else 0
        if world.failing and not world.duplicate:
            slot.rounds.append(Round(seed_k, world.failing, failure, n))
            if cases is not None:
                save_round(cases, world, slot.rounds[-1])  # now: a later error loses nothing
        world.duplicate = False
        undrawn = max(n - max(world.drawn - drawn, 1), 0) if ended else 0
        if pool:
            pool.give(undrawn)
            slot.sequences -= undrawn
        else:
            remaining = undrawn
        if ended and not keep_going:
            break
        if repeats >= MAX_REPEATS:
            world.progress(
                f"{repeats} rounds in a row failed first on a sequence found before; stopping"
            )
            break
        if ended:
            left = pool.left if pool else remaining
            world.progress(f"round {k + 1} ended early; {left} sequences left, going on")
            world.failing, world.frozen = [], False
        k += 1
    slot.failure = slot.rounds[0].failure if slot.rounds else None


def shares(sequences: int, slots: int) -> list[int]:
    """``sequences`` shared out over at most ``slots`` slots, the first ones one more when it
    does not divide, no slot empty: ``shares(5, 2) == [3, 2]``, ``shares(1, 3) == [1]``.
    Raises ValueError when either is below 1."""
    if sequences < 1 or slots < 1:
        raise ValueError(f"sequences {sequences} and slots {slots} must be at least 1")
    k = min(slots, sequences)
    return [sequences // k + (1 if i < sequences % k else 0) for i in range(k)]


def _tagged(progress: Callable[[str], None], tag: str, line: str) -> None:
    progress(tag + line)


def run_slots(
    settings: Settings,
    impls: list[Implementation],
    slots: int,
    sequences: int,
    steps: int,
    seed_value: int,
    *,
    shrink: bool = True,
    shrink_seconds: float = 600.0,
    keep_going: bool = False,
    cases: Path | None = None,
    progress: Callable[[str], None] = print,
) -> list[Slot]:
    """Run ``sequences`` sequences of at most ``steps`` steps in ``slots`` slots at once
    (module docstring) on ``settings.control_plane``; every slot's lanes are stopped before
    this returns. The slots in order, each with its world (stats, clock) and its failing
    rounds (``run_rounds``; ``keep_going`` goes on past a failure; each failing round's case
    files written under ``cases`` as it ends). A harness error of a slot (``ApiException``,
    ``PremiseBroken``) halts every slot and is raised once all have ended; Ctrl-C freezes and
    halts every slot (its remaining steps pass at once, and a wait in one ends at once:
    ``Settings.halt``, ``Halted``) and is raised again."""
    parts = shares(sequences, slots)
    many = len(parts) > 1
    left = Pool(sequences) if many else None
    known: set[str] = set()  # every slot's first failures (World.known)
    out = []
    for i, n in enumerate(parts):
        tag = f"[slot {i}] " if many else ""
        world = World(
            settings,
            impls,
            progress=partial(_tagged, progress, tag),
            label=f"gen{i}" if many else "gen",
        )
        world.shrink_seconds = shrink_seconds
        world.known = known
        out.append(Slot(world, seed_value + i, 0 if left else n))
    with ThreadPoolExecutor(max_workers=len(out)) as pool:
        try:
            for opened in [pool.submit(s.world.open) for s in out]:
                opened.result()

            def one(s: Slot) -> None:
                try:
                    run_rounds(
                        s, steps, shrink=shrink, keep_going=keep_going, pool=left, cases=cases
                    )
                except BaseException:
                    for other in out:  # a harness error ends the run, not only this slot
                        other.world.frozen = other.world.halted = True
                    settings.halt.set()  # and the other slots' waits (Settings.sleep)
                    raise

            done = [pool.submit(one, s) for s in out]
            errors = [e for f in done if (e := f.exception()) is not None]
            # the error that stopped the run, not a slot's Halted that it caused
            errors.sort(key=lambda e: isinstance(e, Halted))
            if errors:
                raise errors[0]
        except BaseException:
            for s in out:
                s.world.frozen = s.world.halted = True
            settings.halt.set()  # a slot waiting on an owed retry stops now, not in minutes
            raise
        finally:
            for closed in [pool.submit(s.world.close) for s in out]:
                closed.exception()
    return out
