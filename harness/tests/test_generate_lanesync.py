"""A step on a child acts in every lane or in none (``harness.generate.lanesync``): which steps
need which children, and the decision from each lane's state; the waiting on lanes at rest
without a ModelService (stand-ins: no cluster). The waiting on live lanes runs on a control
plane (``python -m harness replay``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.generate.lanesync import (
    APPLY,
    FOREIGN_CHILDREN,
    NONE,
    ORPHANED,
    OWNED_CHILDREN,
    WAIT,
    adopted,
    children_needed,
    decide,
    even_step,
    lane_ready,
    settles_first,
)
from harness.generate.world import CHILD_KINDS, FOREIGN_FIELDS, OPS, OWNED_FIELDS, ROLLOUT_PHASES


def test_every_foreign_and_owned_field_names_its_children() -> None:
    assert set(FOREIGN_CHILDREN) == set(FOREIGN_FIELDS)
    assert set(OWNED_CHILDREN) == set(OWNED_FIELDS)
    for children in (*FOREIGN_CHILDREN.values(), *OWNED_CHILDREN.values()):
        assert set(children) <= set(CHILD_KINDS)


def test_the_steps_on_a_child_need_it_and_no_other_step_needs_one() -> None:
    """The case python-e88500864f: ``foreign session-affinity`` needs the Service."""
    assert children_needed({"op": "foreign", "field": "session-affinity"}, sim=False) == (
        "services",
    )
    assert children_needed({"op": "foreign", "field": "label"}, sim=False) == (
        "deployments",
        "services",
    )
    assert children_needed({"op": "owned", "field": "service-port"}, sim=False) == ("services",)
    assert children_needed({"op": "delete-child", "kind": "deployments"}, sim=False) == (
        "deployments",
    )
    for phase in ROLLOUT_PHASES:
        assert children_needed({"op": "rollout", "phase": phase}, sim=False) == ("deployments",)
        assert children_needed({"op": "rollout", "phase": phase}, sim=True) == ()
    # sim: the real deployment controller writes the status; the step does nothing.
    assert children_needed({"op": "foreign", "field": "status"}, sim=True) == ()
    assert children_needed({"op": "delete", "policy": "Orphan"}, sim=False) == ORPHANED
    # any delete: the children it leaves behind (Orphan) or may find unadopted (lane_ready)
    assert children_needed({"op": "delete", "policy": "Background"}, sim=False) == ORPHANED
    assert children_needed({"op": "admission", "refuse": True}, sim=False) == ORPHANED
    assert children_needed({"op": "admission", "refuse": False}, sim=False) == ()
    on_children = {"foreign", "rollout", "owned", "delete-child"}
    for op in set(OPS) - on_children - {"admission", "delete"}:
        assert children_needed({"op": op}, sim=False) == ()


@pytest.mark.parametrize(
    ("present", "at_rest", "retrying", "expired", "verdict"),
    [
        # the case: go's Service not there yet, its operator still at work; python's there
        ([False, True], [False, True], [False, False], False, WAIT),
        ([True, True], [True, True], [False, False], False, APPLY),
        # present everywhere: the bound is moot
        ([True, True], [False, False], [False, False], True, APPLY),
        # refused everywhere (the spec's child): it will not come, in no lane
        ([False, False], [True, True], [False, False], False, NONE),
        # every lane's first child write failed by the same fault: wait for the retries
        ([False, False], [True, True], [True, True], False, WAIT),
        # go reports the fault's FailedCreate, its retry due: wait for the retry
        ([False, True], [True, True], [True, False], False, WAIT),
        # go at rest without it and no retry owed: the operators disagree; in no lane
        ([False, True], [True, True], [False, False], False, NONE),
        # one lane at rest without it, the other still on its way: wait for the other
        ([False, False], [True, False], [False, False], False, WAIT),
        # the bound passed with a lane still lacking it: in no lane, never in some
        ([False, True], [False, True], [False, False], True, NONE),
        ([True, False, True], [True, False, True], [False, False, False], False, WAIT),
    ],
)
def test_a_step_on_a_child_acts_in_every_lane_or_in_none(
    present: list[bool], at_rest: list[bool], retrying: list[bool], expired: bool, verdict: str
) -> None:
    assert decide(present, at_rest, retrying, expired) == verdict


def test_the_first_judgements_flaw_waits_for_the_second_lanes_children() -> None:
    """The first generate-judge run's sixth sequence (seed 20261206: create, two crashes, five
    foreign writes, three crashes, a foreign write) failed the differential for the second
    lane of every target, every foreign field missing there: written before lanesync, its
    foreign steps edited nothing in a lane whose operator, restarted by the crashes, had not
    made its children yet (``edit_child`` skips an absent child). Each of those steps needs a
    child, and while that lane's operator is still at work without them the step waits; it
    is applied in both lanes once they are there, in neither if the bound passes."""
    steps = [
        {"op": "foreign", "field": f, "value": "1"}
        for f in ("template-annotation", "env", "status", "sidecar", "sidecar", "label")
    ]
    assert all("deployments" in children_needed(s, sim=False) for s in steps)
    # lane 1 has them; lane 2's operator restarting after a crash: not at rest, no retry owed
    assert decide([True, False], [True, False], [False, False], False) == WAIT
    assert decide([True, True], [True, False], [False, False], False) == APPLY
    assert decide([True, False], [True, False], [False, False], True) == NONE


def test_the_decision_needs_every_lanes_state() -> None:
    with pytest.raises(ValueError):
        decide([True, False], [True], [False, False], False)


class _AtRestLane:
    """A lane with no ModelService (so at rest) and only the children it is given."""

    window_from, ns = 0, "gen-go"

    def __init__(self, impl: str, children: set[str]) -> None:
        from types import SimpleNamespace

        self.impl = SimpleNamespace(id=impl)
        self.log = SimpleNamespace(records=lambda after=0: [])
        self.admin = SimpleNamespace(get=lambda res, ns, name: {} if res in children else None)

    def handle_crash(self) -> bool:
        return False


def test_an_orphan_delete_waits_like_a_step_on_a_child_but_is_never_skipped() -> None:
    """An Orphan delete right after a delete-child raced the re-create (go kept an orphan,
    python none): it waits for the children like a step on one, and then acts in every lane
    even where a lane at rest lacks one, as a delete-child would not."""
    from harness.generate.lane import Settings

    settings = Settings(control_plane=None, workdir=Path("."), quiet_timeout=5.0)  # type: ignore[arg-type]
    lanes = [_AtRestLane("go", {"deployments", "services"}), _AtRestLane("python", {"services"})]
    said: list[str] = []
    orphan = {"op": "delete", "policy": "Orphan"}
    child = {"op": "delete-child", "kind": "deployments"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Settings, "sim", property(lambda _: False))
        assert even_step(lanes, orphan, settings, said.append) is True  # type: ignore[arg-type]
        refuse = {"op": "admission", "refuse": True}
        assert even_step(lanes, refuse, settings, said.append) is True  # type: ignore[arg-type]
        assert said == []
        assert even_step(lanes, child, settings, said.append) is False  # type: ignore[arg-type]
        assert "applied in no lane" in said[0]


class _OwnerLane:
    """A lane whose ModelService has uid ``u1`` and whose children have the given
    controllers (a uid, or None for an orphan)."""

    ns = "gen-go"

    def __init__(self, controllers: dict[str, str | None]) -> None:
        from types import SimpleNamespace

        def get(res: str, ns: str, name: str) -> dict[str, object] | None:
            if res == "modelservices":
                return {"metadata": {"uid": "u1"}}
            if res not in controllers:
                return None
            uid = controllers[res]
            refs = [{"controller": True, "kind": "ModelService", "uid": uid}] if uid else []
            return {"metadata": {"ownerReferences": refs}}

        self.admin = SimpleNamespace(get=get)


def test_a_delete_waits_until_every_lane_adopted_its_orphans() -> None:
    """Case python-4946b7d81c (1000-sequence nightly): after an Orphan delete and a new
    create, a Foreground delete came while go, held back by a fault, had not yet adopted the
    orphaned Service; the garbage collector deleted python's and left go's. A Background or
    Foreground delete now waits until each child there is controlled by the live
    ModelService (or the lane is at rest); an Orphan delete still waits for presence."""
    both = ("deployments", "services")
    background = {"op": "delete", "policy": "Background"}
    orphan_left = _OwnerLane({"deployments": "u1", "services": None})
    assert not adopted(orphan_left, both)  # type: ignore[arg-type]
    assert not lane_ready(orphan_left, background, both)  # type: ignore[arg-type]
    assert not lane_ready(orphan_left, {"op": "delete", "policy": "Foreground"}, both)  # type: ignore[arg-type]
    # an Orphan delete leaves both behind either way: presence is enough
    assert lane_ready(orphan_left, {"op": "delete", "policy": "Orphan"}, both)  # type: ignore[arg-type]
    # on sim the real collector's strip may overtake an adoption held back: it waits for both
    orphan = {"op": "delete", "policy": "Orphan"}
    assert not lane_ready(orphan_left, orphan, both, sim=True)  # type: ignore[arg-type]
    assert not lane_ready(_OwnerLane({"deployments": "u1"}), orphan, both, sim=True)  # type: ignore[arg-type]
    assert lane_ready(_OwnerLane({"deployments": "u1", "services": "u1"}), orphan, both, sim=True)  # type: ignore[arg-type]
    assert lane_ready(_OwnerLane({"deployments": "u1", "services": "u1"}), background, both)  # type: ignore[arg-type]
    # children not made yet (a delete right after a create): no wait, the race stays drawn
    assert lane_ready(_OwnerLane({}), background, both)  # type: ignore[arg-type]
    # a child another ModelService controls is not this one's: it waits (at rest: applied)
    assert not lane_ready(_OwnerLane({"services": "u0"}), background, both)  # type: ignore[arg-type]


def test_the_steps_that_freeze_what_the_operators_left_settle_first() -> None:
    """Cases python-7cb7dbfea6 (owned replicas, then a played rollout) and python-ea09576a35
    (admission lifted, then refusing again): each comes after a quiet point."""
    for phase in ROLLOUT_PHASES:
        assert settles_first({"op": "rollout", "phase": phase}, sim=False)
        assert not settles_first({"op": "rollout", "phase": phase}, sim=True)
    assert settles_first({"op": "foreign", "field": "status", "value": "1"}, sim=False)
    assert not settles_first({"op": "foreign", "field": "status", "value": "1"}, sim=True)
    assert not settles_first({"op": "foreign", "field": "env", "value": "1"}, sim=False)
    assert settles_first({"op": "admission", "refuse": True}, sim=True)
    assert not settles_first({"op": "admission", "refuse": False}, sim=False)
    for op in set(OPS) - {"rollout", "foreign", "admission"}:
        assert not settles_first({"op": op}, sim=False)


def test_a_world_runs_a_quiet_point_before_a_step_that_settles_first() -> None:
    """``World.step``: a quiet point (all its oracles) before a played rollout or a refusing
    admission, none when the step before was ``quiet``; the trace holds the drawn steps only,
    so a case file replays the same way."""
    from types import SimpleNamespace

    from harness.generate.machine import World

    quiet_at: list[int] = []

    class _Counting(World):
        def quiet(self) -> None:
            quiet_at.append(len(self.trace))

    w = _Counting(settings=SimpleNamespace(sim=False), impls=[], progress=lambda _: None)  # type: ignore[arg-type]
    w.begin()
    for step in (
        {"op": "create", "spec": {}, "labels": {}, "annotations": {}},
        {"op": "owned", "field": "replicas", "value": 2},
        {"op": "rollout", "phase": "complete"},  # after owned: a quiet point first
        {"op": "quiet"},  # its own quiet point
        {"op": "admission", "refuse": True},  # right after quiet: none more
        {"op": "admission", "refuse": False},
        {"op": "admission", "refuse": True},  # after lifting: a quiet point first
    ):
        w.step(step)
    assert quiet_at == [2, 4, 6]  # before the rollout, the quiet step, before the refusal
    assert [s["op"] for s in w.trace].count("quiet") == 1


class _BusyLane:
    """A lane whose ModelService (uid ``u1``) is not at rest (its status behind its
    generation) and whose Service is an orphan until ``adopt_after`` looks at it, then
    controlled by ``u1``; its Deployment is ``u1``'s throughout."""

    window_from, sequence_from, ns, refusing = 0, 0, "gen-go", False

    def __init__(self, impl: str, adopt_after: int | None) -> None:
        from types import SimpleNamespace

        self.impl = SimpleNamespace(id=impl)
        self.log = SimpleNamespace(records=lambda after=0: [])
        self.looks = 0

        def get(res: str, ns: str, name: str) -> dict[str, object] | None:
            if res == "modelservices":
                return {"metadata": {"uid": "u1", "generation": 2}, "status": {}}
            if res == "services":
                self.looks += 1
                mine = adopt_after is not None and self.looks > adopt_after
                refs = [{"controller": True, "kind": "ModelService", "uid": "u1"}] if mine else []
                return {"metadata": {"ownerReferences": refs}}
            return {
                "metadata": {
                    "ownerReferences": [{"controller": True, "kind": "ModelService", "uid": "u1"}]
                }
            }

        self.admin = SimpleNamespace(get=get)

    def handle_crash(self) -> bool:
        return False


def _settings(quiet_timeout: float) -> object:
    from harness.generate.lane import Settings

    return Settings(control_plane=None, workdir=Path("."), quiet_timeout=quiet_timeout)  # type: ignore[arg-type]


def test_even_step_holds_a_delete_until_every_lane_adopted() -> None:
    """The rule of python-4946b7d81c inside ``even_step``: go's orphaned Service is adopted
    only on the fourth look; the Background delete waits for it and is then applied (the
    presence rule of before applied it at once: both Services exist)."""
    from harness.generate.lane import Settings

    go, python = _BusyLane("go", adopt_after=3), _BusyLane("python", adopt_after=0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Settings, "sim", property(lambda _: False))
        delete = {"op": "delete", "policy": "Background"}
        assert even_step([go, python], delete, _settings(5.0), print) is True  # type: ignore[arg-type,list-item]
    assert go.looks >= 4  # it looked until the adoption


def test_even_step_waits_out_an_owed_retry_past_the_convergence_bound() -> None:
    """A lane not ready that owes a retry (``retries.retry_bound``, here 1.5 s from now)
    keeps the wait going past ``quiet_timeout`` (0.3 s), as the quiet oracle's bound does: a
    lifted admission's retry after many refusals is minutes away."""
    import time

    from harness.generate import lanesync
    from harness.generate.lane import Settings

    due = time.time() + 1.5
    go, python = _BusyLane("go", adopt_after=None), _BusyLane("python", adopt_after=0)
    delete = {"op": "delete", "policy": "Foreground"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Settings, "sim", property(lambda _: False))
        mp.setattr(lanesync, "retry_bound", lambda lane, settings: due if lane is go else None)
        start = time.monotonic()
        assert even_step([go, python], delete, _settings(0.3), print) is True  # type: ignore[arg-type,list-item]
        waited = time.monotonic() - start
        assert waited >= 1.4  # past 0.3 s: until the retry's bound
        # without a retry owed, the convergence bound ends the wait
        mp.setattr(lanesync, "retry_bound", lambda lane, settings: None)
        start = time.monotonic()
        assert even_step([go, python], delete, _settings(0.3), print) is True  # type: ignore[arg-type,list-item]
        assert time.monotonic() - start < waited


def test_a_failed_quiet_point_is_recorded_once() -> None:
    """Hypothesis tears a failing sequence down (``World.end``) too: a quiet point that
    failed was judged again there and recorded twice (the 1000-sequence nightly counted 4
    python failures for 3 sequences, and a second judgement can fail another oracle and
    write a spurious case file)."""
    from types import SimpleNamespace

    from harness.generate.lane import OracleFailure
    from harness.generate.machine import World

    class _NeverQuiet(World):
        def quiet(self) -> None:
            raise OracleFailure("python", "quiet", "still writing")

    w = _NeverQuiet(settings=SimpleNamespace(sim=False), impls=[], progress=lambda _: None)  # type: ignore[arg-type]
    w.begin()
    w.step({"op": "owned", "field": "replicas", "value": 2})
    with pytest.raises(OracleFailure):
        w.step({"op": "rollout", "phase": "complete"})  # its quiet point fails
    w.end()  # the teardown judges nothing more
    assert len(w.failing) == 1 and w.failing[0][0] == [w.trace[0]]
    w.begin()  # a new sequence is judged again
    with pytest.raises(OracleFailure):
        w.end()
    assert len(w.failing) == 2


def test_a_delete_waits_for_the_finalizer_as_long_as_an_owed_retry_may_take() -> None:
    """``world._delete``: the operator's finalizer removal failed (a fault after many
    refusals puts its retry past the convergence bound): the wait goes on to the retry's
    bound (``retries.retry_bound``, here 1.2 s from now) instead of failing at
    ``quiet_timeout`` (0.3 s)."""
    import time
    from types import SimpleNamespace

    from harness.explore.state import FINALIZER
    from harness.generate import world
    from harness.generate.lane import OracleFailure, Settings

    released = time.time() + 1.0  # the retry removes the finalizer then

    def get(res: str, ns: str, name: str) -> dict[str, object] | None:
        if res != "modelservices" or time.time() > released + 0.3:
            return None  # gone once the finalizer is off (the harness's collector)
        fins = [FINALIZER] if time.time() < released else []
        return {"metadata": {"uid": "u1", "finalizers": fins}}

    lane = SimpleNamespace(
        ns="gen-go",
        impl=SimpleNamespace(id="go"),
        admin=SimpleNamespace(get=get, delete=lambda *a, **k: None, list=lambda *a: []),
        handle_crash=lambda: False,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Settings, "sim", property(lambda _: False))
        mp.setattr(world, "retry_bound", lambda ln, s: released + 0.2)
        world._delete(lane, "Background", _settings(0.3))  # type: ignore[arg-type]
        mp.setattr(world, "retry_bound", lambda ln, s: None)
        released = time.time() + 1.0
        with pytest.raises(OracleFailure, match="kept its finalizer"):
            world._delete(lane, "Background", _settings(0.3))  # type: ignore[arg-type]
