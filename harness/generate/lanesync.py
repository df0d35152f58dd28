"""A step on a child acts in every lane or in none, so the lanes are given the same inputs.

The lanes apply a step each on its own (``machine.World.each``), and a step that edits or
deletes a child (``foreign``, ``rollout``, ``owned``, ``delete-child``) does nothing in a lane
where that child does not exist (``world.edit_child``, ``Kube.delete(missing_ok)``). Right
after a ``create``, or while a fault or a crash holds one lane's operator back, the child may
exist in one lane and not yet in another: the step then wrote in one lane only, and the
differential oracle compared worlds that were given different inputs. Seen with seed 777
(case ``python-e88500864f``: ``create``, ``fault 500 nth 1``, ``foreign session-affinity``;
go's Service had ``sessionAffinity: None``, python's the foreign ``ClientIP``, once in three
runs). So before such a step the world waits until the children it needs exist in every lane
(``even_step``), bounded by the run's convergence bound (``Settings.quiet_timeout``), and
applies it in every lane, or in none when a child cannot come (``decide``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from harness.generate.lane import Lane, Settings
from harness.generate.oracles import converged
from harness.generate.world import NAME, apply_step

#: ``decide``'s answers: apply the step in every lane, wait and look again, apply it in none.
APPLY, WAIT, NONE = "apply", "wait", "none"

#: The children (plural resource names) each ``foreign`` field edits.
FOREIGN_CHILDREN: dict[str, tuple[str, ...]] = {
    "template-annotation": ("deployments",),
    "sidecar": ("deployments",),
    "env": ("deployments",),
    "label": ("deployments", "services"),
    "session-affinity": ("services",),
    "status": ("deployments",),
}
#: The children each ``owned`` field edits.
OWNED_CHILDREN: dict[str, tuple[str, ...]] = {
    "replicas": ("deployments",),
    "image": ("deployments",),
    "service-port": ("services",),
}

#: Seconds between two looks at the lanes while waiting.
POLL = 0.2


def children_needed(step: dict[str, Any], sim: bool) -> tuple[str, ...]:
    """The children (``deployments``, ``services``) ``step`` acts on, which must exist in a
    lane for the step to write there; empty for a step that acts on no child, or that does
    nothing on the sim tier (``foreign status`` and ``rollout``: the real deployment
    controller writes the status; ``world.apply_step``). Raises KeyError for a ``foreign`` or
    ``owned`` field ``world.FOREIGN_FIELDS`` and ``world.OWNED_FIELDS`` do not list."""
    op = step["op"]
    if op == "foreign":
        if sim and step["field"] == "status":
            return ()
        return FOREIGN_CHILDREN[step["field"]]
    if op == "rollout":
        return () if sim else ("deployments",)
    if op == "owned":
        return OWNED_CHILDREN[step["field"]]
    if op == "delete-child":
        return (step["kind"],)
    return ()


def decide(present: Sequence[bool], at_rest: Sequence[bool], expired: bool) -> str:
    """What to do with a step on children, from each lane's state (the two sequences in lane
    order): ``present[i]``, lane i has every child the step needs; ``at_rest[i]``, lane i is
    converged as the contract defines it (``oracles.converged``; only read for a lane whose
    child is missing), so a missing child will not come (a refused child write reported, a
    ChildConflict, no ModelService); ``expired``, the wait's bound has passed.

    ``APPLY`` when the children exist in every lane; else ``NONE`` when every lane that lacks
    one is at rest or the bound has passed (a step applied in some lanes only would give the
    lanes different inputs; absent at rest in one lane and present in another is the
    operators' disagreement, which the differential oracle names at the next quiet point);
    else ``WAIT``. Raises ValueError when the sequences differ in length."""
    if len(present) != len(at_rest):
        raise ValueError(f"{len(present)} lanes present, {len(at_rest)} at rest")
    if all(present):
        return APPLY
    if expired or all(rest for here, rest in zip(present, at_rest, strict=True) if not here):
        return NONE
    return WAIT


def has_children(lane: Lane, children: Sequence[str]) -> bool:
    """Whether every one of ``children`` (plural resource names) named ``world.NAME`` exists
    in the lane's namespace (read by the admin from the API server)."""
    return all(lane.admin.get(res, lane.ns, NAME) is not None for res in children)


def even_step(
    lanes: Sequence[Lane],
    step: dict[str, Any],
    settings: Settings,
    progress: Callable[[str], None] = print,
) -> bool:
    """Wait until ``step`` can act alike in every lane (``decide``), at most
    ``settings.quiet_timeout`` s, handling a crash that triggers meanwhile
    (``Lane.handle_crash``: a frozen operator creates nothing). True when the step is to be
    applied in every lane; False when in none, said on ``progress`` with the lanes that lacked
    a child and after how long (the step's line in the run's log). The time waited is the
    caller's to measure."""
    children = children_needed(step, settings.sim)
    if not children or len(lanes) < 2:
        return True
    start = time.monotonic()
    deadline = start + settings.quiet_timeout
    while True:
        for lane in lanes:
            lane.handle_crash()
        present = [has_children(lane, children) for lane in lanes]
        at_rest = [here or converged(lane) for here, lane in zip(present, lanes, strict=True)]
        verdict = decide(present, at_rest, time.monotonic() > deadline)
        if verdict == APPLY:
            return True
        if verdict == NONE:
            lacking = [
                f"{lane.impl.id} ({'at rest' if rest else 'not at rest'})"
                for lane, here, rest in zip(lanes, present, at_rest, strict=True)
                if not here
            ]
            progress(
                f"step {step}: applied in no lane: {'/'.join(children)} missing in "
                f"{', '.join(lacking)} after {time.monotonic() - start:.1f}s"
            )
            return False
        time.sleep(POLL)


def apply_or_not(lane: Lane, step: dict[str, Any], settings: Settings, act: bool) -> None:
    """``world.apply_step`` when ``act`` (``even_step``'s answer); else only a crash that
    triggered handled, as every step does first."""
    if act:
        apply_step(lane, step, settings)
    else:
        lane.handle_crash()
