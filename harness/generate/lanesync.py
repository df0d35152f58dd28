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
(``even_step``), bounded by the run's convergence bound (``Settings.quiet_timeout``, or
longer while a lane owes a retry: ``retries.retry_bound``), and applies it in every lane, or
in none when a child cannot come (``decide``): a lane without it at rest (a refused child
write reported) that owes no retry of a write its API proxy failed, or the bound passed.

Two more rules keep the lanes' inputs alike (stop 45, three races of the 1000-sequence
nightly): a step that takes the operator's means of repair away waits on the children too
(``ORPHANED``, ``ALWAYS_APPLIED``; any delete on their ownership, ``lane_ready``), and a
step that freezes the world as each operator left it comes after a quiet point
(``settles_first``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from harness.audit import WRITE_VERBS
from harness.generate.lane import Lane, Settings
from harness.generate.oracles import converged
from harness.generate.relation import controller_uid
from harness.generate.retries import extended, retry_bound
from harness.generate.world import NAME, apply_step, msvc

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

#: The children an ``Orphan`` delete leaves behind, that a refusing ``admission`` stops
#: the operator from creating, and whose ownership a ``Background`` or ``Foreground`` delete
#: looks at (``lane_ready``). Such a step takes the operator's means of repair away, so it
#: waits, like a step on a child, until they exist in every lane or every lane lacking one is
#: at rest, and is then applied in every lane whatever the answer (never skipped: the
#: sequence's next steps count on it; ``ALWAYS_APPLIED``). Without the wait, a
#: ``delete-child`` just before an Orphan delete raced the operators' re-create (the lane that
#: had re-created the child kept it as an orphan, the other had none), and an ``admission``
#: right after a ``create`` raced the first Deployment create (one lane's was admitted, the
#: other's refused); the differential named the difference (a 96- and a 200-sequence run,
#: go and python each way round).
ORPHANED = ("deployments", "services")
#: The steps ``even_step`` waits for and then applies in every lane even when a lane lacks a
#: child at rest. A ``Background`` or ``Foreground`` delete waits on ownership, not presence
#: (``lane_ready``): it takes the operator's chance to adopt an orphan away, and the garbage
#: collector deletes only the children that reference the ModelService. Without the wait, a
#: delete right after a ``create`` that found orphans (left by an ``Orphan`` delete) raced
#: the adoption: python had adopted its Service and the collector deleted it, go had not yet
#: (a fault held it back) and kept it (1000-sequence nightly, case python-4946b7d81c).
ALWAYS_APPLIED = ("delete", "admission")


def settles_first(step: dict[str, Any], sim: bool) -> bool:
    """Whether ``step`` freezes the world as each operator left it, so that ``World.step``
    runs a quiet point before it (unless the step before was ``quiet``): a played rollout
    and a foreign Deployment status (envtest; on sim the deployment controller writes it, and
    these steps do nothing) count the Deployment's generation as it stands, and a refusing
    ``admission`` keeps what the operator had not yet repaired. Whether an operator had
    already undone an ``owned`` edit, or made the retry a lifted admission owed it, is
    timing, and ``converged`` cannot tell (it reads the status, which an ``owned`` edit does
    not change). Seen in the 1000-sequence nightly: ``owned replicas`` then ``rollout``, go
    reported "waiting for the deployment controller", python "981/982 available" (case
    python-7cb7dbfea6); ``admission`` lifted then refusing again, python's retry came
    between them and go's did not (python-ea09576a35)."""
    op = step["op"]
    if op == "admission":
        return bool(step["refuse"])
    if op == "rollout" or (op == "foreign" and step["field"] == "status"):
        return not sim
    return False


#: Seconds between two looks at the lanes while waiting.
POLL = 0.2


def children_needed(step: dict[str, Any], sim: bool) -> tuple[str, ...]:
    """The children (``deployments``, ``services``) ``step`` acts on, which must exist in a
    lane for the step to write there (for an ``Orphan`` delete and a refusing ``admission``:
    the children it leaves behind or stops, ``ORPHANED``; for any delete, ``ORPHANED``,
    whose ownership ``lane_ready`` reads); empty for a step that acts on no child, or that does
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
    if op == "delete" or (op == "admission" and step["refuse"]):
        return ORPHANED
    return ()


def lane_ready(
    lane: Lane, step: dict[str, Any], children: Sequence[str], sim: bool = False
) -> bool:
    """Whether ``step`` may act in ``lane`` as far as its ``children`` go: each of them
    exists (``has_children``); for a ``Background`` or ``Foreground`` delete, each one that
    exists is controlled by the live ModelService (``adopted``); for an ``Orphan`` delete on
    the ``sim`` tier, both. There the real garbage collector strips the ownerReferences
    without waiting for the operator's finalizer, so an adoption Update held back (a
    ``fault`` on the proxy) can land after the strip, leaving the child to a UID that is
    gone, which the collector deletes while the other lane adopts: both operators right, the
    differential split. On envtest the harness plays the collector only once the operator
    has removed its finalizer, in a later reconcile than any adoption of the same key, and
    an Orphan delete's race with a stale cache stays drawn (it found
    ``vanished-owner[orphaned-unseen]``'s fault, stop 46)."""
    if step["op"] == "delete":
        if step.get("policy") != "Orphan":
            return adopted(lane, children)
        return has_children(lane, children) and (not sim or adopted(lane, children))
    return has_children(lane, children)


def adopted(lane: Lane, children: Sequence[str]) -> bool:
    """Whether every one of ``children`` named ``world.NAME`` that exists in the lane is
    controlled by the lane's live ModelService (True when there is none)."""
    m = msvc(lane)
    if m is None:
        return True
    for res in children:
        c = lane.admin.get(res, lane.ns, NAME)
        if c is not None and controller_uid(c) != m["metadata"]["uid"]:
            return False
    return True


def decide(
    present: Sequence[bool], at_rest: Sequence[bool], retrying: Sequence[bool], expired: bool
) -> str:
    """What to do with a step on children, from each lane's state (the sequences in lane
    order): ``present[i]``, lane i has every child the step needs (for a ``Background`` or
    ``Foreground`` delete: each child there is adopted, ``lane_ready``); ``at_rest[i]``, lane i is
    converged as the contract defines it (``oracles.converged``), which a lane without the
    child is only when it reports a failed or refused child write or a ChildConflict, or has
    no ModelService; ``retrying[i]``, lane i's last child write was one its API proxy failed
    (``fault``: reported ``FailedCreate`` like a refusal, but the retry it owes brings the
    child); ``expired``, the wait's bound has passed. Only the lanes without the child are read
    in the last two.

    ``APPLY`` when the children exist in every lane. Else ``NONE`` when the bound has passed
    or every lane without them is at rest and owes no retry of an injected failure (the
    spec's child refused by the API server or its policy; or the operators disagree at rest,
    which the differential oracle names at the next quiet point): a step applied in some
    lanes only would give the lanes different inputs. Else ``WAIT``. Raises ValueError when
    the sequences differ in length."""
    if not len(present) == len(at_rest) == len(retrying):
        raise ValueError(f"lanes: {len(present)} present, {len(at_rest)}, {len(retrying)}")
    if all(present):
        return APPLY
    lacking = [i for i, here in enumerate(present) if not here]
    if expired or all(at_rest[i] and not retrying[i] for i in lacking):
        return NONE
    return WAIT


def retrying(lane: Lane) -> bool:
    """Whether the lane's last write of a child (Deployment or Service, as its API proxy
    logged it in the current window) is one the proxy answered itself (an injected
    ``fault``): the operator owes its retry, which the API server has not refused."""
    last = [
        r
        for r in lane.log.records(lane.window_from)  # a quiet point saw every retry made
        if r.resource in ("deployments", "services") and r.verb in WRITE_VERBS
    ]
    return bool(last) and last[-1].injected


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
    ``settings.quiet_timeout`` s, or while a lane owes a retry ``quiet_timeout`` after the
    contract's backoff puts it (``retries.retry_bound``, as the quiet oracle waits: the
    retry a lifted admission owes after many refusals is minutes away), handling a crash that triggers meanwhile
    (``Lane.handle_crash``: a frozen operator creates nothing). True when the step is to be
    applied in every lane (always for the steps of ``ALWAYS_APPLIED``); False when in none, said on ``progress`` with the lanes that lacked
    a child and after how long (the step's line in the run's log). The time waited is the
    caller's to measure."""
    children = children_needed(step, settings.sim)
    if not children or len(lanes) < 2:
        return True
    start = time.monotonic()
    deadline, looked = start + settings.quiet_timeout, start
    while True:
        for lane in lanes:
            lane.handle_crash()
        present = [lane_ready(lane, step, children, settings.sim) for lane in lanes]
        now = time.monotonic()
        if not all(present) and now >= min(looked + 1.0, deadline):
            # a lane not ready that owes a retry: its bound, a GET a second and at every
            # look past the deadline (as oracles.wait_quiet)
            looked = now
            for lane, here in zip(lanes, present, strict=True):
                if not here:
                    deadline = extended(deadline, start, retry_bound(lane, settings), settings)
        at_rest = [here or converged(lane) for here, lane in zip(present, lanes, strict=True)]
        owed = [
            not here and rest and retrying(lane)
            for here, rest, lane in zip(present, at_rest, lanes, strict=True)
        ]
        verdict = decide(present, at_rest, owed, time.monotonic() > deadline)
        if verdict == APPLY:
            return True
        if verdict == NONE:
            if step["op"] in ALWAYS_APPLIED:
                return True  # never skipped (ORPHANED); the lanes that lack one are at rest
            lacking = [
                f"{lane.impl.id} ({'at rest' if rest else 'not at rest'}"
                f"{', a retry owed' if owes else ''})"
                for lane, here, rest, owes in zip(lanes, present, at_rest, owed, strict=True)
                if not here
            ]
            progress(
                f"step {step}: applied in no lane: {'/'.join(children)} missing in "
                f"{', '.join(lacking)} after {time.monotonic() - start:.1f}s"
            )
            return False
        settings.sleep(POLL)


def apply_or_not(lane: Lane, step: dict[str, Any], settings: Settings, act: bool) -> None:
    """``world.apply_step`` when ``act`` (``even_step``'s answer); else only a crash that
    triggered handled, as every step does first."""
    if act:
        apply_step(lane, step, settings)
    else:
        lane.handle_crash()
