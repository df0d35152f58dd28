"""Sequences drawn by hypothesis's stateful testing, run on every lane, judged, shrunk, saved.

``World`` holds one lane per implementation (``world.Lane``) and runs a sequence's steps on
all of them: after each step the safety invariants; at each ``quiet`` step, before a step
that freezes what the operators left (``lanesync.settles_first``) and at the end the quiet,
liveness, status, budget and differential oracles; at the end the level-triggered oracle.
``machine_class(world)`` is the ``RuleBasedStateMachine`` that draws the steps; each
hypothesis example is one sequence, from a world with no ModelService (the previous
sequence's is deleted and the lanes quiet before it starts). A failing sequence is shrunk by
hypothesis, each try run on the cluster again; the smallest one that still failed is written
as a case file (``casefile.save_case``), which ``replay`` runs again without hypothesis.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)
from kubernetes.client.exceptions import ApiException

from harness.generate import schema
from harness.generate.casefile import EXAMPLE_CASE as EXAMPLE_CASE
from harness.generate.casefile import CaseError as CaseError
from harness.generate.casefile import case_id, smallest_failure
from harness.generate.casefile import case_implementations as case_implementations
from harness.generate.casefile import read_case as read_case
from harness.generate.lane import Halted, Lane, OracleFailure, PremiseBroken, Settings
from harness.generate.lanesync import apply_or_not, even_step, settles_first
from harness.generate.oracles import (
    budget_check,
    foreign_state,
    level_triggered_verdict,
    liveness,
    new_panics,
    normalised,
    safety,
    settled,
    status_follows,
    wait_converged,
    wait_quiet,
    without_residue,
    world_diff,
    write_foreign,
)
from harness.generate.timing import Clock
from harness.generate.world import (
    CHILD_KINDS,
    DELETE_POLICIES,
    EVENT_MODES,
    EVENT_RESOURCES,
    FOREIGN_FIELDS,
    NAME,
    OWNED_FIELDS,
    ROLLOUT_PHASES,
    apply_step,
    close_lane,
    new_lane,
)
from harness.operators import Implementation

#: Label and annotation keys and values a metadata edit draws from (null removes one).
_KEYS = st.sampled_from(("team", "tier", "example.com/owner", "app.kubernetes.io/part-of"))
_VALUES = st.one_of(
    st.none(), st.text("abcxyz-019", min_size=0, max_size=8).map(lambda s: s.strip("-") or "v")
)
_METADATA = st.dictionaries(_KEYS, _VALUES, max_size=2)


def _present(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` without its null values (a create has nothing to remove)."""
    return {k: v for k, v in d.items() if v is not None}


@dataclass
class Stats:
    """Counts of a run per implementation: sequences and steps run, oracle failures (and
    per oracle), crashes the proxy triggered (the operator SIGKILLed at its write)."""

    sequences: int = 0
    steps: int = 0
    failures: int = 0
    oracles: dict[str, int] = field(default_factory=dict)
    crashes: int = 0


@dataclass
class World:
    """The lanes of one run and what the current sequence did to them."""

    settings: Settings
    impls: list[Implementation]
    lanes: list[Lane] = field(default_factory=list)
    #: the steps of the current sequence, as data
    trace: list[dict[str, Any]] = field(default_factory=list)
    #: every failing sequence's trace and failure, in the order hypothesis ran them
    failing: list[tuple[list[dict[str, Any]], OracleFailure]] = field(default_factory=list)
    stats: dict[str, Stats] = field(default_factory=dict)
    progress: Callable[[str], None] = print
    #: seconds hypothesis may spend shrinking after the first failure, each try a sequence
    #: on the cluster; past them every sequence is skipped (passes at once), so hypothesis
    #: ends with the smallest failing sequence it had found
    shrink_seconds: float = 600.0
    #: set once the shrinking time is spent
    frozen: bool = False
    _first_failure: float = 0.0
    #: the level-triggered oracle's lanes, one per implementation id, reused by every sequence
    fresh: dict[str, Lane] = field(default_factory=dict)
    #: sequences hypothesis saw fail and then pass when it ran them again (``run``)
    flaky: int = 0
    _started: float = 0.0
    #: wall time per phase (``timing.Clock``): generated.json's ``phases``
    clock: Clock = field(default_factory=Clock)
    #: the namespaces' prefix: ``<label>-<impl>`` and ``<label>-fresh-<impl>`` (one per
    #: slot of ``--parallel``)
    label: str = "gen"
    _pool: ThreadPoolExecutor | None = None
    #: sequences hypothesis drew in its generate phase (a shrinking try is not one)
    drawn: int = 0
    #: set when the run is to stop (Ctrl-C): no further round of ``slots.run_rounds``
    halted: bool = False
    #: ``case_id``s of the first failing sequences of the run's rounds (one set for every
    #: slot); a round whose first failure is one of them is a ``duplicate``, not shrunk again
    known: set[str] = field(default_factory=set)
    duplicate: bool = False
    #: the current sequence failed (``_failed``): its teardown (``end``) judges nothing more,
    #: or the failure was recorded twice (a quiet point that failed, then ``end``'s own)
    judged: bool = False

    def open(self) -> None:
        """Start a lane per implementation (their operators started together)."""
        self._pool = ThreadPoolExecutor(max_workers=max(len(self.impls), 1))
        for impl in self.impls:
            self.stats.setdefault(impl.id, Stats())
        self.lanes = self.each(
            lambda impl: new_lane(self.settings, impl, f"{self.label}-{impl.id}"), self.impls
        )

    def each(self, fn: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
        """``fn`` on every item at once (one thread each: the lanes are independent, each
        in its own namespace behind its own proxy), the results in order. Every call ends
        before this returns; then the first exception is raised, an ``OracleFailure`` with
        the other lanes' in its ``also``."""
        items = list(items)
        if self._pool is None or len(items) < 2:
            return [fn(i) for i in items]
        futures = [self._pool.submit(fn, i) for i in items]
        errors = [e for f in futures if (e := f.exception()) is not None]
        if errors:
            oracles = [e for e in errors if isinstance(e, OracleFailure)]
            if len(oracles) == len(errors):
                _raise_first(oracles)
            raise next(e for e in errors if not isinstance(e, OracleFailure))
        return [f.result() for f in futures]

    def close(self) -> None:
        """Stop every lane (its operator and proxy), its crash count kept in ``stats``."""
        for lane in self.lanes:
            self.stats[lane.impl.id].crashes = lane.crashes
        self.each(close_lane, [*self.lanes, *self.fresh.values()])
        self.lanes, self.fresh = [], {}
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    # -------------------------------------------------------------- a sequence
    def begin(self) -> None:
        """A new sequence: the ModelService of the last one deleted, each lane quiet, its
        window empty."""
        self.trace, self.judged = [], False
        if self.failing and time.monotonic() - self._first_failure > self.shrink_seconds:
            if not self.frozen:
                self.progress(f"shrinking stopped after {self.shrink_seconds:.0f}s")
            self.frozen = True
        if self.frozen:
            return
        self.drawn += 0 if self.failing else 1
        self._started = time.monotonic()
        with self.clock.phase("begin"):
            for lane in self.lanes:
                self.stats[lane.impl.id].sequences += 1
            self.each(self._begin_lane, self.lanes)

    def _begin_lane(self, lane: Lane) -> None:
        self._clear(lane)

    def _reset(self, lane: Lane) -> None:
        """A lane the last sequence left broken: its ModelService's finalizers removed."""
        m = lane.admin.get("modelservices", lane.ns, NAME)
        if m is not None:
            lane.admin.patch("modelservices", lane.ns, NAME, {"metadata": {"finalizers": None}})
            lane.admin.delete("modelservices", lane.ns, NAME, missing_ok=True)

    def step(self, step: dict[str, Any]) -> None:
        """Apply ``step`` to every lane (a step on a child in all or none: ``even_step``; a
        step that freezes what the operators left after a quiet point: ``settles_first``),
        then judge: safety after it; after ``quiet`` the window's oracles. Raises
        ``OracleFailure`` (recorded in ``failing``)."""
        if self.frozen:
            return
        if settles_first(step, self.settings.sim) and self.trace[-1:] != [{"op": "quiet"}]:
            try:  # a quiet point first, not in the trace (lanesync.settles_first)
                with self.clock.phase("settle"):
                    self.quiet()
            except OracleFailure as exc:
                self._failed_here(exc)
                raise
        self.trace.append(step)
        try:
            for lane in self.lanes:
                self.stats[lane.impl.id].steps += 1
                lane.window_ops.append(step["op"])
            with self.clock.phase("apply:children"):  # every lane or none (lanesync.py)
                act = even_step(self.lanes, step, self.settings, self.progress)
            with self.clock.phase(f"apply:{step['op']}"):
                self.each(lambda lane: apply_or_not(lane, step, self.settings, act), self.lanes)
            with self.clock.phase("safety"):
                unsafe = self.each(safety, self.lanes)
                panicked = [new_panics(lane) for lane in self.lanes]
            _raise_first(
                [
                    OracleFailure(lane.impl.id, "invariant", "; ".join(problems))
                    for lane, problems in zip(self.lanes, unsafe, strict=True)
                    if problems
                ]
                + [
                    OracleFailure(lane.impl.id, "panic", "; ".join(panics[:3]))
                    for lane, panics in zip(self.lanes, panicked, strict=True)
                    if panics
                ]
            )
            if step["op"] == "quiet":
                self.quiet()
        except OracleFailure as exc:
            self._failed_here(exc)
            raise

    def _failed_here(self, exc: OracleFailure) -> None:
        """``_failed`` and the sequence's line in the run's log."""
        self._failed(exc)
        self.progress(f"sequence [{' '.join(s['op'] for s in self.trace)}]: FAIL {exc}")

    def _failed(self, exc: OracleFailure) -> None:
        self.judged = True
        if not self.failing:
            self._first_failure = time.monotonic()
            key = case_id(self.trace, exc.impl)
            self.duplicate = key in self.known  # found before: not shrunk again
            self.frozen = self.halted or self.duplicate  # a halt's freeze stays
            self.known.add(key)
        self.failing.append((list(self.trace), exc))
        for e in (exc, *exc.also):
            if e.impl in self.stats:
                self.stats[e.impl].failures += 1
                oracles = self.stats[e.impl].oracles
                oracles[e.oracle] = oracles.get(e.oracle, 0) + 1

    def quiet(self) -> None:
        """Every lane quiet; then liveness and budget per lane; then the differential. Every
        lane is judged; the first failure is raised with the others in its ``also``."""
        found: list[OracleFailure] = []
        worlds: dict[str, Any] = {}
        with self.clock.phase("quiet"):
            judged = self.each(self._quiet_lane, self.lanes)
        for lane, (failures, world) in zip(self.lanes, judged, strict=True):
            found += failures
            if world is not None:
                worlds[lane.impl.id] = world
        _raise_first(found)
        with self.clock.phase("differential"):
            self._differential(found, worlds)
        _raise_first(found)

    def _quiet_lane(self, lane: Lane) -> tuple[list[OracleFailure], dict[str, Any] | None]:
        """Wait until ``lane`` is quiet, then judge it: its failures (quiet; or liveness,
        status and budget) and its normalised world (None when it never went quiet); a new
        window. Phases ``quiet:wait`` and ``quiet:oracles`` count per lane."""
        try:
            with self.clock.phase("quiet:wait"):
                wait_quiet(lane, self.settings)
        except OracleFailure as exc:
            return [exc], None
        with self.clock.phase("quiet:oracles"):
            return self._judge_quiet(lane)

    def _judge_quiet(self, lane: Lane) -> tuple[list[OracleFailure], dict[str, Any]]:
        found: list[OracleFailure] = []
        problems = liveness(lane)
        if problems:
            found.append(OracleFailure(lane.impl.id, "invariant", "; ".join(problems)))
        problems = status_follows(lane)
        if problems:
            found.append(OracleFailure(lane.impl.id, "status", "; ".join(problems)))
        over = budget_check(lane)
        if over:
            found.append(OracleFailure(lane.impl.id, "budget", over))
        panics = new_panics(lane)
        if panics:
            found.append(OracleFailure(lane.impl.id, "panic", "; ".join(panics[:3])))
        world = normalised(lane)
        lane.open_window()
        return found, world

    def _differential(self, found: list[OracleFailure], worlds: dict[str, Any]) -> None:
        """The differential oracle over the quiet lanes' ``worlds`` into ``found``."""
        if self.settings.sim:
            # The deployment controller moved the lanes waited first on meanwhile: compare
            # worlds read together, and only once every rollout is over.
            if not all(settled(lane) for lane in self.lanes):
                return
            worlds = {lane.impl.id: normalised(lane) for lane in self.lanes}
        if len(worlds) > 1:
            (ref, w0), *rest = worlds.items()
            for other, w in rest:
                d = world_diff(*without_residue(w0, w))
                if d:
                    found.append(
                        OracleFailure(
                            other, "differential", f"differs from {ref}: " + "; ".join(d[:8])
                        )
                    )

    def end(self) -> None:
        """The end of a sequence: quiet, then the level-triggered oracle; nothing when a
        step of the sequence failed (hypothesis tears a failing sequence down too)."""
        if self.frozen or self.judged:
            return
        ops = " ".join(s["op"] for s in self.trace)
        try:
            self.quiet()
            with self.clock.phase("level-triggered"):
                self.each(self.level_triggered, self.lanes)
        except OracleFailure as exc:
            self._failed_here(exc)
            raise
        self.progress(f"sequence [{ops}]: ok in {time.monotonic() - self._started:.1f}s")

    def level_triggered(self, lane: Lane) -> None:
        """The lane's world equals the one the same operator reaches from a fresh ModelService
        created with the final spec and metadata under the same admission, the same foreign
        fields written on; where a write is refused, its report does
        (``oracles.level_triggered_verdict``)."""
        m = lane.admin.get("modelservices", lane.ns, NAME)
        if m is None or m["metadata"].get("deletionTimestamp"):
            return
        fresh = self._fresh(lane.impl)
        t0 = time.monotonic()
        here = normalised(lane)
        foreign = foreign_state(lane)
        try:
            meta = m["metadata"]
            self.clock.add("level-triggered:read", time.monotonic() - t0)
            t0 = time.monotonic()
            # the same admission: the lane's refusing policy bound on the fresh lane too
            apply_step(fresh, {"op": "admission", "refuse": lane.refusing}, self.settings)
            apply_step(
                fresh,
                {
                    "op": "create",
                    "spec": m["spec"],
                    "labels": meta.get("labels") or {},
                    "annotations": meta.get("annotations") or {},
                },
                self.settings,
            )
            # Converged is enough before the foreign fields go on (the children exist); the
            # quiet window is waited once, after them.
            wait_converged(fresh, self.settings)
            write_foreign(fresh, foreign)
            self.clock.add("level-triggered:converge", time.monotonic() - t0)
            fresh.open_window()
            with self.clock.phase("level-triggered:quiet"):
                wait_quiet(fresh, self.settings)
            panics = new_panics(fresh)
            if panics:
                raise OracleFailure(lane.impl.id, "panic", "fresh world: " + "; ".join(panics[:3]))
            if not (settled(lane) and settled(fresh)):
                return  # sim: a rollout still under way; the worlds differ by timing
            # a refused write: the reports compared, not the worlds (level_triggered_verdict)
            problem = level_triggered_verdict(
                lane.refusing,
                m,
                fresh.admin.get("modelservices", fresh.ns, NAME) or {},
                here,
                normalised(fresh),
            )
            if problem:
                raise OracleFailure(lane.impl.id, "level-triggered", problem)
        finally:
            with self.clock.phase("level-triggered:clear"):
                self._clear(fresh)

    def _fresh(self, impl: Implementation) -> Lane:
        """The implementation's lane for the level-triggered oracle's fresh worlds: started
        once per run (a namespace, a proxy, an operator) and emptied after each use."""
        if impl.id not in self.fresh:
            with self.clock.phase("level-triggered:start-lane"):
                self.fresh[impl.id] = new_lane(self.settings, impl, f"{self.label}-fresh-{impl.id}")
        lane = self.fresh[impl.id]
        lane.open_window()
        return lane

    def _clear(self, lane: Lane) -> None:
        """Empty ``lane`` for the next sequence: its admission policy removed; its ModelService
        deleted (Background) and gone, or its finalizers removed when the operator does not
        let it go; children left behind deleted; faults cleared (the operator started again
        when it had any); a new window."""
        apply_step(lane, {"op": "admission", "refuse": False}, self.settings)
        try:
            apply_step(lane, {"op": "delete", "policy": "Background"}, self.settings)
        except (OracleFailure, PremiseBroken):
            self._reset(lane)
        for res in ("deployments", "services"):
            for c in lane.admin.list(res, lane.ns):
                lane.admin.delete(res, lane.ns, c["metadata"]["name"])
        # Nothing the sequence armed may reach the next one, whose ModelService has the same
        # name: a crash that triggered after the last look is handled like any other; then an
        # operator that had a fault or a crash armed or its events held is started again, so
        # that no request the proxy froze or refused (a retry still queued) and no event it
        # held arrives in the next sequence's windows. Seen: a [create] sequence after one
        # that ended "events crash crash" failed the budget (go: a second status write) and
        # the differential (python: its children gone after the quiet point).
        lane.handle_crash()
        dirty = lane.crash_armed or lane.fault_armed or lane.event_delay > 0
        lane.proxy.clear_faults()
        if dirty and lane.op is not None:
            lane.op.kill()
            lane.start_operator()
        lane.crash_armed, lane.fault_armed, lane.event_delay = False, False, 0.0
        # Clearing is not a step of any sequence: a panic logged while it ran is shown, not
        # judged (the drawn steps' own panics were judged after each step and each quiet).
        for line in new_panics(lane):
            self.progress(f"[{lane.impl.id}] panic while clearing the lane, not judged: {line}")
        lane.open_window()
        lane.sequence_from = lane.window_from


_T = TypeVar("_T")
_R = TypeVar("_R")


def _raise_first(found: list[OracleFailure]) -> None:
    """Raise the first of ``found`` with the others in its ``also``; nothing when empty."""
    if found:
        found[0].also = found[1:]
        raise found[0]


def machine_class(world: World) -> type[RuleBasedStateMachine]:
    """The state machine drawing sequences on ``world`` (module docstring)."""

    class Sequence(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            world.begin()
            self.exists = False
            #: the last step's op: no quiet after a quiet, no restart after either
            self.last = ""

        def do(self, step: dict[str, Any]) -> None:
            self.last = step["op"]
            world.step(step)

        @initialize(spec=schema.spec_values(), labels=_METADATA, annotations=_METADATA)
        def first_create(
            self, spec: dict[str, Any], labels: dict[str, Any], annotations: dict[str, Any]
        ) -> None:
            """Every sequence starts with its ModelService."""
            self.create(spec, labels, annotations)

        @precondition(lambda self: not self.exists)
        @rule(spec=schema.spec_values(), labels=_METADATA, annotations=_METADATA)
        def create(
            self, spec: dict[str, Any], labels: dict[str, Any], annotations: dict[str, Any]
        ) -> None:
            self.do(
                {
                    "op": "create",
                    "spec": spec,
                    "labels": _present(labels),
                    "annotations": _present(annotations),
                }
            )
            self.exists = True

        @precondition(lambda self: self.exists)
        @rule(patch=schema.spec_edits())
        def patch_spec(self, patch: dict[str, Any]) -> None:
            self.do({"op": "patch-spec", "patch": patch})

        @precondition(lambda self: self.exists)
        @rule(patch=schema.invalid_edits())
        def invalid_spec(self, patch: dict[str, Any]) -> None:
            self.do({"op": "invalid-spec", "patch": patch})

        @precondition(lambda self: self.exists)
        @rule(labels=_METADATA, annotations=_METADATA)
        def metadata(self, labels: dict[str, Any], annotations: dict[str, Any]) -> None:
            self.do({"op": "metadata", "labels": labels, "annotations": annotations})

        @precondition(lambda self: self.exists)
        @rule(policy=st.sampled_from(DELETE_POLICIES))
        def delete(self, policy: str) -> None:
            self.do({"op": "delete", "policy": policy})
            self.exists = False

        @precondition(lambda self: self.exists)
        @rule(what=st.sampled_from(FOREIGN_FIELDS), value=st.sampled_from(("1", "2", "a", "")))
        def foreign(self, what: str, value: str) -> None:
            self.do({"op": "foreign", "field": what, "value": value})

        @precondition(lambda self: self.exists)
        @rule(phase=st.sampled_from(ROLLOUT_PHASES))
        def rollout(self, phase: str) -> None:
            self.do({"op": "rollout", "phase": phase})

        @precondition(lambda self: self.exists)
        @rule(what=st.sampled_from(OWNED_FIELDS), value=st.integers(2, 9))
        def owned(self, what: str, value: int) -> None:
            v: Any = f"other:{value}" if what == "image" else value
            self.do({"op": "owned", "field": what, "value": v})

        @precondition(lambda self: self.exists)
        @rule(kind=st.sampled_from(CHILD_KINDS))
        def delete_child(self, kind: str) -> None:
            self.do({"op": "delete-child", "kind": kind})

        @precondition(lambda self: self.last not in ("restart", "quiet"))
        @rule()
        def restart(self) -> None:
            self.do({"op": "restart"})

        @rule(code=st.sampled_from((409, 429, 500, 503)), nth=st.integers(1, 3))
        def fault(self, code: int, nth: int) -> None:
            self.do({"op": "fault", "code": code, "nth": nth})

        @rule(nth=st.integers(1, 4), delivered=st.booleans())
        def crash(self, nth: int, delivered: bool) -> None:
            self.do({"op": "crash", "nth": nth, "delivered": delivered})

        @rule(
            mode=st.sampled_from(EVENT_MODES),
            resource=st.sampled_from((*EVENT_RESOURCES, "all")),
            seconds=st.sampled_from((0.5, 1.0, 2.0)),
        )
        def events(self, mode: str, resource: str, seconds: float) -> None:
            self.do({"op": "events", "mode": mode, "resource": resource, "seconds": seconds})

        @precondition(lambda self: self.exists)
        @rule(refuse=st.booleans())
        def admission(self, refuse: bool) -> None:
            self.do({"op": "admission", "refuse": refuse})

        @precondition(lambda self: self.last != "quiet")
        @rule()
        def quiet(self) -> None:
            self.do({"op": "quiet"})

        def teardown(self) -> None:
            world.end()

    return Sequence


def run(
    world: World, sequences: int, steps: int, seed_value: int, shrink: bool = True
) -> OracleFailure | None:
    """Run ``sequences`` sequences of at most ``steps`` steps from ``seed_value`` on
    ``world`` (opened); return the failure of the smallest failing sequence, or None."""
    cls = machine_class(world)

    def factory() -> RuleBasedStateMachine:
        return cls()

    factory = seed(seed_value)(factory)  # run_state_machine_as_test takes any factory
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    conf = settings(
        max_examples=sequences,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )
    try:
        run_state_machine_as_test(factory, settings=conf)  # type: ignore[arg-type]
    except OracleFailure:
        pass
    except Halted:
        # The run is stopping (Settings.halt). A failure found before it, shrunk or not, is
        # still this round's finding: its case file is written (slots.run_rounds).
        if not world.failing:
            raise
    except (Flaky, ExceptionGroup) as exc:
        # A sequence that raised once (an oracle, or the harness: a step's own request) and
        # passed when hypothesis ran it again. Counted, so that a run is not green in silence;
        # not when it passed because the world was frozen (shrinking time spent, a duplicate),
        # nor when a halt cut a sequence short (hypothesis calls that a flaky strategy).
        if not world.halted and not (world.frozen and world.failing):
            world.flaky += 1
            world.progress(f"a sequence failed once and passed again (not judged): {exc!r}"[:2000])
    except (ApiException, PremiseBroken) as exc:
        world.progress(f"[generate] the harness was not able to judge: {type(exc).__name__}: {exc}")
        raise
    smallest = smallest_failure(world)
    return smallest[1] if smallest else None


def replay(world: World, steps: list[dict[str, Any]]) -> OracleFailure | None:
    """Run ``steps`` on ``world`` (opened) as one sequence; the oracle's failure, or None."""
    world.begin()
    try:
        for step in steps:
            world.step(step)
        world.end()
    except OracleFailure as exc:
        return exc
    return None


def elapsed(start: float) -> float:
    return round(time.monotonic() - start, 1)
