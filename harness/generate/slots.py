"""Several sequences at once on one control plane (``generate --parallel K``).

Most of a step's wall time is waiting (docs/design.md, "Generated workloads", where the time
goes: the quiet windows, the operators' reactions), not CPU. ``run_slots`` runs ``K``
*slots*, each a ``machine.World`` of its own with its own lanes (namespaces
``gen<i>-<impl>``, an API proxy and an operator process per implementation) and its own
hypothesis run (seed ``seed + i``, its share of the sequences), in a thread each, on the one
control plane the run started. Nothing an oracle reads is shared between slots: each lane's
proxy log holds only its own operator's requests, so the quiet and budget oracles read their
own lane's writes; a fault, a crash or a held watch event is armed on the lane's own proxy
and hits only that lane's operator; ``restart`` and ``crash`` kill only the lane's operator
process. What the slots share is the API server (and on sim its controllers), which is what
``--jobs`` paid a control plane per job for.

With ``K == 1`` the one slot is the run of old (namespaces ``gen-<impl>``, seed ``seed``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from harness.generate.lane import OracleFailure, Settings
from harness.generate.machine import World, run
from harness.operators import Implementation


@dataclass
class Slot:
    """One slot of a ``--parallel`` run: its world, its hypothesis seed, its share of the
    sequences and, once run, the failure of its smallest failing sequence (None: none)."""

    world: World
    seed: int
    sequences: int
    failure: OracleFailure | None = None


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
    progress: Callable[[str], None] = print,
) -> list[Slot]:
    """Run ``sequences`` sequences of at most ``steps`` steps in ``slots`` slots at once
    (module docstring) on ``settings.control_plane``; every slot's lanes are stopped before
    this returns. The slots in order, each with its world (stats, clock, failing sequences)
    and failure. A harness error of a slot (``ApiException``, ``PremiseBroken``) is raised
    once every slot has ended; Ctrl-C freezes every slot (its remaining steps pass at once)
    and is raised again."""
    parts = shares(sequences, slots)
    many = len(parts) > 1
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
        out.append(Slot(world, seed_value + i, n))
    with ThreadPoolExecutor(max_workers=len(out)) as pool:
        try:
            for opened in [pool.submit(s.world.open) for s in out]:
                opened.result()

            def one(s: Slot) -> None:
                s.failure = run(s.world, s.sequences, steps, s.seed, shrink=shrink)

            done = [pool.submit(one, s) for s in out]
            errors = [e for f in done if (e := f.exception()) is not None]
            if errors:
                raise errors[0]
        except BaseException:
            for s in out:
                s.world.frozen = True
            raise
        finally:
            for closed in [pool.submit(s.world.close) for s in out]:
                closed.exception()
    return out
