"""Figures of a bench run that compare runs made side by side (issue 28): each implementation's
ratio to the floor run of the same round, and the CPU seconds per object of every process.

**Paired ratios to the floor.** The bench runs, in every round of a figure (an N of the
throughput phase, a worker count of the scaling phase), the floor first and then each
implementation, one after the other on the same control plane, never at the same time, and
one closing floor run after the last round. A run records its ``round`` (the repeat index).
``<impl>/floor`` of one round is the implementation's seconds over the faster of the floor
runs just before and just after the round (``paired``); the figure is the median over
rounds, with min and max in ``spread["<impl>/floor"]``. A ratio of medians would compare
a fast floor run with an operator run made ten minutes later under another load: on a
shared machine, one figure's runs differed by a factor of three.

**CPU per object.** Beside wall time, the CPU seconds each process used for a figure:
the operator's (``/proc/<pid>/stat``, from the first create until the work queue settled and
the Events stopped changing), the floor client's (``getrusage`` from its start line to its
last write answered) and kube-apiserver's plus etcd's over the same windows, in
milliseconds per object (objects created, plus probe changes in scaling runs). CPU time does
not count the time a process waits for a core, so on a shared machine it moves far less
than wall time; the ratios say whether a wall-time miss is the implementation's work or the
machine's queue.

``cpu_figures`` builds ``{"ms_per_object": {who: CPU}, "server_ms_per_object": {who: CPU},
"runqueue_ms_per_object": {impl: CPU}, "ratios": {"<impl>/<first impl>": CPU_RATIOS,
"<impl>/floor": CPU_RATIOS, "runqueue <impl>/<first impl>": CPU_RATIOS}}`` (runqueue: the
operator's threads' time runnable but waiting for a core, ``measure.run_queue_seconds``;
only where the kernel has schedstats) where CPU is
``{"latency": SPREAD, "throughput": {"<N>": SPREAD}, "workers": {"<W>": SPREAD}}`` (a key only
where runs exist; SPREAD is ``figures.spread_of``) and CPU_RATIOS the same shape with the
ratio of the medians.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.bench.figures import ratio, spread_of

#: (round, value) of one run.
Sample = tuple[int, float]


def paired(mine: Iterable[Sample], floor: Iterable[Sample]) -> list[float]:
    """The ratio of each round of ``mine``: the median of its values of that round over the
    floor around it, the faster of the floor's round r (run just before the round) and r + 1
    (run just after it; the bench ends each figure with a closing floor run). Rounds without
    a floor run, and floors <= 0, give no ratio. Unitless, 3 digits.

    Why the faster of the two: on a shared machine the share of the cores a run gets moves
    from one run to the next; in a bench at load 22-66, runs that beat the floor run before
    them had had the API server on 0.34 cores against the floor's 0.26 (docs/bench.md). The
    floor is the best a client can do, so the better of the two floor runs that bracket a
    run in time is the bound for it."""
    by_round: dict[int, list[float]] = {}
    base: dict[int, list[float]] = {}
    for r, v in mine:
        by_round.setdefault(r, []).append(v)
    for r, v in floor:
        base.setdefault(r, []).append(v)
    out = []
    for r in sorted(set(by_round) & set(base)):
        b = statistics.median(base[r])
        if r + 1 in base:
            b = min(b, statistics.median(base[r + 1]))
        if b > 0:
            out.append(round(statistics.median(by_round[r]) / b, 3))
    return out


def _spread(values: Sequence[float], digits: int = 3) -> dict[str, Any]:
    return spread_of(values, digits)


def floor_pairs(
    results: Mapping[str, Any],
    floor: Sequence[Any],
    workers: int,
    scaling_size: int,
    sizes: Sequence[int] | None = None,
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """``{impl: {"throughput_s": {"<N>": [ratio per round]}, "workers": {"<W>": [...]}}}``:
    each implementation's throughput runs (``ImplResults.loads``) paired by round with the
    floor runs at ``workers`` threads and the same N (of ``sizes``; None: any), its scaling
    runs with the floor runs at N = ``scaling_size`` and the same worker count."""
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for impl, res in results.items():
        loads = [r for r in res.loads if r.phase == "throughput" and r.seconds is not None]
        thr = {}
        for n in sorted({r.n for r in loads}):
            base = [
                (f.round, f.seconds)
                for f in floor
                if f.workers == workers and f.n == n and (sizes is None or n in sizes)
            ]
            pairs = paired([(r.round, r.seconds) for r in loads if r.n == n], base)
            if pairs:
                thr[str(n)] = pairs
        scaled = {}
        for w in sorted({r.workers for r in res.workers_runs}):
            base = [(f.round, f.seconds) for f in floor if f.workers == w and f.n == scaling_size]
            pairs = paired([(r.round, r.seconds) for r in res.workers_runs if r.workers == w], base)
            if pairs:
                scaled[str(w)] = pairs
        out[impl] = {"throughput_s": thr, "workers": scaled}
    return out


def floor_ratio_figures(
    pairs: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``ratios`` entries ``{"<impl>/floor": {"throughput_s": {"<N>": median}, "workers":
    {"<W>": median}}}``, ``spread`` entries of the same keys with SPREADs) from
    ``floor_pairs``; the medians to 2 digits like every ratio."""
    ratios: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for impl, figs in pairs.items():
        key = f"{impl}/floor"
        ratios[key] = {
            fig: {at: round(float(statistics.median(v)), 2) for at, v in by.items()}
            for fig, by in figs.items()
        }
        spread[key] = {fig: {at: _spread(v) for at, v in by.items()} for fig, by in figs.items()}
    return ratios, spread


def _per_object_ms(cpu_s: float | None, objects: int) -> float | None:
    if cpu_s is None or objects <= 0:
        return None
    return 1000.0 * cpu_s / objects


def _server(cpu: Mapping[str, Any] | None) -> float | None:
    """kube-apiserver + etcd CPU seconds of a window (None when neither was measured)."""
    if not cpu:
        return None
    got = [cpu.get(k) for k in ("kube-apiserver", "etcd", "apiserver_cpu_s", "etcd_cpu_s")]
    vals = [float(v) for v in got if v is not None]
    return sum(vals) if vals else None


def _cpu_of(
    values: Mapping[str, Mapping[str, list[float]]] | Mapping[str, Any],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fig, by in values.items():
        if isinstance(by, list):
            if by:
                out[fig] = _spread(by)
        else:
            got = {at: _spread(v) for at, v in sorted(by.items(), key=lambda kv: int(kv[0])) if v}
            if got:
                out[fig] = got
    return out


def cpu_samples(
    results: Mapping[str, Any],
    floor: Sequence[Any],
    workers: int,
    scaling_size: int,
    key: str = "operator",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(operator ms per object, server ms per object), each ``{who: {"latency": [ms per
    run], "throughput": {"<N>": [...]}, "workers": {"<W>": [...]}}}`` for each implementation
    and ``floor`` (runs whose CPU was not measured are left out). ``key``: the window's
    figure for the operator (``operator``: CPU; ``operator_runqueue_s``: waiting for a core;
    the floor has no such figure)."""
    own: dict[str, Any] = {}
    server: dict[str, Any] = {}
    for impl, res in results.items():
        o: dict[str, Any] = {"latency": [], "throughput": {}, "workers": {}}
        s: dict[str, Any] = {"latency": [], "throughput": {}, "workers": {}}
        for r in res.loads:
            cpu = r.window_cpu or {}
            mine = _per_object_ms(cpu.get(key), r.objects)
            theirs = _per_object_ms(_server(cpu), r.objects)
            if r.phase == "latency":
                o["latency"] += [mine] if mine is not None else []
                s["latency"] += [theirs] if theirs is not None else []
            elif r.phase == "throughput":
                if mine is not None:
                    o["throughput"].setdefault(str(r.n), []).append(mine)
                if theirs is not None:
                    s["throughput"].setdefault(str(r.n), []).append(theirs)
        for w in res.workers_runs:
            cpu = w.window_cpu or {}
            mine = _per_object_ms(cpu.get(key), w.objects)
            theirs = _per_object_ms(_server(cpu), w.objects)
            if mine is not None:
                o["workers"].setdefault(str(w.workers), []).append(mine)
            if theirs is not None:
                s["workers"].setdefault(str(w.workers), []).append(theirs)
        own[impl], server[impl] = o, s
    if floor and key == "operator":
        o = {"throughput": {}, "workers": {}}
        s = {"throughput": {}, "workers": {}}
        for f in floor:
            mine = _per_object_ms(f.split.get("client_cpu_s"), f.n)
            theirs = _per_object_ms(_server(f.split), f.n)
            for fig, at, ok in (
                ("throughput", str(f.n), f.workers == workers),
                ("workers", str(f.workers), f.n == scaling_size),
            ):
                if ok and mine is not None:
                    o[fig].setdefault(at, []).append(mine)
                if ok and theirs is not None:
                    s[fig].setdefault(at, []).append(theirs)
        own["floor"], server["floor"] = o, s
    return own, server


def _ratio_of(mine: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fig, by in mine.items():
        other = base.get(fig)
        if other is None:
            continue
        if "median" in by:
            out[fig] = ratio(by["median"], other.get("median"))
        else:
            got = {
                at: ratio(v["median"], (other.get(at) or {}).get("median"))
                for at, v in by.items()
                if at in other
            }
            if got:
                out[fig] = got
    return out


def cpu_figures(
    results: Mapping[str, Any], floor: Sequence[Any], workers: int, scaling_size: int
) -> dict[str, Any]:
    """The ``cpu`` object of bench.json (shape in the module docstring): CPU milliseconds per
    object of each operator (and the floor client), of kube-apiserver + etcd, and their
    ratios ``<impl>/<first impl>`` and ``<impl>/floor``. {} when no run measured CPU."""
    own_s, server_s = cpu_samples(results, floor, workers, scaling_size)
    own = {who: _cpu_of(v) for who, v in own_s.items()}
    server = {who: _cpu_of(v) for who, v in server_s.items()}
    if not any(own.values()):
        return {}
    impls = list(results)
    ratios: dict[str, Any] = {}
    for impl in impls[1:]:
        ratios[f"{impl}/{impls[0]}"] = _ratio_of(own[impl], own[impls[0]])
    if "floor" in own:
        for impl in impls:
            ratios[f"{impl}/floor"] = _ratio_of(own[impl], own["floor"])
    waits = {
        who: _cpu_of(v)
        for who, v in cpu_samples(results, (), workers, scaling_size, "operator_runqueue_s")[
            0
        ].items()
    }
    out = {"ms_per_object": own, "server_ms_per_object": server, "ratios": ratios}
    if any(waits.values()):
        # the operator's threads' time runnable but not on a core (schedstat), per object
        out["runqueue_ms_per_object"] = waits
        for impl in impls[1:]:
            ratios[f"runqueue {impl}/{impls[0]}"] = _ratio_of(waits[impl], waits[impls[0]])
    return out
