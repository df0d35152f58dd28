"""The RBAC ablation: every right in config/rbac/role.yaml must be needed by some check.

``python -m harness.rbac.ablation`` (``make rbac-ablation``) cuts the operator's ClusterRole
into rule units (one API group, resource and verb: ``harness.rbac.role``), and for each unit runs a
targeted set of checks with the operator's user bound to the role minus that unit
(``--operator-role``, read by the pytest plugin). A unit is *needed* when, for some
implementation, a check fails and the audit log shows the operator refused (403) for want of
exactly that unit; a check that fails for another reason does not count (it is listed as
unexplained). Before the variants, each implementation runs the same checks with the whole
role: they must pass with no 403, or the role misses something (a need no rule covers).

It writes:

- ``reports/rbac-ablation/<impl>/<unit slug>.xml`` (JUnit, with each check's ``forbidden``
  evidence: the 403s of the operator's user from the audit log) and ``.log`` (pytest output);
  ``reports/rbac-ablation/roles/<unit slug>.yaml``, the reduced roles;
- ``reports/rbac-ablation.json``::

    {"units": {"apps/deployments:create": {
         "needed_by": {"rbac-least-privilege": ["go", "python"], ...},
         "refusals": ["apps/deployments:create"],  # the 403s it explains, from the audit log
         "status": "needed" | "pending" | "unneeded",
         "runs": {"go": {"checks": [...], "failed": {"<check>": {"message": "...",
                  "forbidden": [...], "explained": true}}, "seconds": 12.3}}, ...}, ...},
     "baseline": {"go": {"checks": [...], "failed": {...}, "forbidden": [...]}},
     "verdict": {"ok": true, "unneeded": [], "uncovered": [], ...}}

and, when ``reports/junit-*.xml`` are there, ``comparison.md``/``.html`` again with the
ablation table. Exit 1 if a unit nothing needs is in the role (not marked pending in
``harness/rbac/ablation.toml``) or the whole role is not enough; 2 on bad input.

``--ci`` is the subset ``make test`` runs: each non-pending unit against only its
``shown_by`` checks (rbac-least-privilege fails at the operator's first 403, so a run takes a
few seconds); both implementations unless ``--impl`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import exitcodes, junit, report, runs, say
from harness.checks import check_functions, check_sort_key, converge_timeout_override
from harness.envtest import binaries
from harness.envtest.controlplane import ControlPlane, ControlPlaneError
from harness.operators import ImplementationError, load_implementations
from harness.paths import CONFORMANCE_DIR, REPO_ROOT, REPORTS_DIR
from harness.rbac import role as rbac
from harness.runs import write_text_atomic

DEFAULT_REPORTS = REPORTS_DIR
CONFIG_FILE = Path(__file__).resolve().parent / "ablation.toml"
#: The name of the baseline run (the whole role) among the units' runs.
BASELINE = "(whole role)"


#: Checks that fail at the first refused request, within seconds: a run of only these is
#: short, and the runs with any other check start first.
FAST_CHECKS = ("rbac-least-privilege", "events-recorded")


_say = say.to("rbac-ablation")


# --------------------------------------------------------------------------- configuration
@dataclass
class Plan:
    """What to run: the role's units, the targeted checks, and per unit its expected
    checks (``shown_by``) or why it is pending."""

    role: dict[str, Any]
    units: list[rbac.Unit]
    checks: list[str]
    shown_by: dict[rbac.Unit, list[str]] = field(default_factory=dict)
    pending: dict[rbac.Unit, str] = field(default_factory=dict)

    def checks_for(self, unit: rbac.Unit | None, ci: bool) -> list[str]:
        """The checks one run executes: in CI a unit's ``shown_by`` (the baseline: all of
        them together); otherwise the targeted set plus the unit's ``shown_by``."""
        if ci:
            chosen = (
                self.shown_by.get(unit, [])
                if unit is not None
                else [c for u in self.units for c in self.shown_by.get(u, [])]
            )
        else:
            chosen = [*self.checks, *(self.shown_by.get(unit, []) if unit else [])]
        return sorted(set(chosen), key=check_sort_key)


def load_plan(role: Mapping[str, Any], config: Mapping[str, Any]) -> Plan:
    """Check the config against the role (every unit has a table, every table a unit, each
    either ``shown_by`` or ``pending``) and return the plan. Raises rbac.RoleError listing
    every problem."""
    units = rbac.units(role)
    problems: list[str] = []
    checks = [str(c) for c in config.get("checks") or []]
    if not checks:
        problems.append("no targeted `checks`")
    problems += [
        f"unknown top-level key {k!r} (the file has `checks` and one table per unit)"
        for k, v in config.items()
        if k != "checks" and not isinstance(v, dict)
    ]
    tables = {k: v for k, v in config.items() if isinstance(v, dict)}
    problems += [
        f"[{k!r}] has unknown key {u!r}; a unit's keys are shown_by and pending"
        for k, table in tables.items()
        for u in sorted(set(table) - {"shown_by", "pending"})
    ]
    plan = Plan(role=dict(role), units=units, checks=checks)
    by_id = {u.id: u for u in units}
    for key, table in tables.items():
        unit = by_id.get(key)
        if unit is None:
            problems.append(
                f"[{key!r}] is not a unit of the role (removed from role.yaml? delete the table)"
            )
            continue
        shown, pending = list(table.get("shown_by") or []), str(table.get("pending") or "")
        if bool(shown) == bool(pending):
            problems.append(f"[{key!r}] needs exactly one of shown_by and pending")
        if shown:
            plan.shown_by[unit] = [str(c) for c in shown]
        if pending:
            plan.pending[unit] = pending
    for unit in units:
        if unit.id not in tables:
            problems.append(
                f"unit {unit.id} of the role has no [{unit.id!r}] table: say which "
                "check needs it (shown_by) or why it is pending"
            )
    if problems:
        raise rbac.RoleError(
            f"{CONFIG_FILE.name} does not match the role:\n  " + "\n  ".join(problems)
        )
    return plan


def read_config(path: Path = CONFIG_FILE) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


def exact_functions(
    check_ids: Iterable[str], functions: Mapping[str, list[str]] | None = None
) -> list[str]:
    """The test functions of exactly these checks: ``leader-failover`` is its plain case
    only, ``leader-failover[partitioned-leader]`` that case. Raises ImplementationError for
    an unknown check."""
    functions = functions if functions is not None else check_functions()
    names: set[str] = set()
    for check in check_ids:
        if check not in functions:
            raise ImplementationError(
                f"no conformance check {check!r} (known: {', '.join(sorted(functions))})"
            )
        found = set(functions[check])
        if "[" not in check:
            for other, funcs in functions.items():
                if other.startswith(f"{check}["):
                    found -= set(funcs)
        names |= found or set(functions[check])
    return sorted(names)


# --------------------------------------------------------------------------- results
@dataclass
class CheckOutcome:
    """One check of one run: passed, failed (or errored), and what the operator was refused."""

    name: str
    outcome: str
    message: str = ""
    forbidden: list[str] = field(default_factory=list)


def read_run(path: Path) -> dict[str, CheckOutcome]:
    """The checks of one JUnit file (testcase names are check ids), with each one's
    ``forbidden`` property (the operator's 403s, see harness/plugin/evidence.py)."""
    out: dict[str, CheckOutcome] = {}
    for case in junit.read_cases(path):
        forbidden: set[str] = set()
        for value in case.properties.get("forbidden", []):
            try:
                forbidden |= set(json.loads(value))
            except ValueError:
                pass
        out[case.name] = CheckOutcome(case.name, case.outcome, case.summary, sorted(forbidden))
    return out


def judge_run(unit: rbac.Unit | None, outcomes: Mapping[str, CheckOutcome]) -> dict[str, Any]:
    """One run as reports/rbac-ablation.json keeps it: the checks that ran, the failed ones
    with their message and 403s, and whether ``unit`` explains each (None: the baseline)."""
    failed = {}
    for name in sorted(outcomes, key=check_sort_key):
        o = outcomes[name]
        if o.outcome in ("failed", "error"):
            failed[name] = {
                "message": o.message,
                "forbidden": o.forbidden,
                "explained": unit is not None and any(unit.explains(f) for f in o.forbidden),
            }
    forbidden = sorted({f for o in outcomes.values() for f in o.forbidden})
    return {
        "checks": sorted(outcomes, key=check_sort_key),
        "failed": failed,
        "needed_by": [c for c, f in failed.items() if f["explained"]],
        "unexplained": [c for c, f in failed.items() if not f["explained"]],
        "forbidden": forbidden,
    }


def build_report(
    plan: Plan,
    runs: Mapping[str, Mapping[str, Mapping[str, Any] | None]],
    info: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """reports/rbac-ablation.json from the judged runs: ``runs[impl][unit id or BASELINE]``
    is ``judge_run``'s dict (plus ``seconds``), or None when that run did not happen."""
    units: dict[str, Any] = {}
    impls = list(runs)
    for unit in plan.units:
        per_impl: dict[str, Any] = {}
        needed_by: dict[str, list[str]] = {}
        for impl in impls:
            run = runs[impl].get(unit.id)
            if run is None:
                continue
            per_impl[impl] = dict(run)
            for check in run["needed_by"]:
                needed_by.setdefault(check, []).append(impl)
        pending = plan.pending.get(unit, "")
        status = (
            "needed"
            if needed_by
            else "pending"
            if pending
            else "not run"
            if not per_impl
            else "unneeded"
        )
        expected = plan.shown_by.get(unit, [])
        refusals = sorted(
            {
                f
                for run in per_impl.values()
                for c in run["failed"].values()
                if c["explained"]
                for f in c["forbidden"]
                if unit.explains(f)
            }
        )
        units[unit.id] = {
            "group": unit.group,
            "resource": unit.resource,
            "verb": unit.verb,
            "role_variant": rbac.variant_name(unit),
            "shown_by": expected,
            "pending": pending,
            "status": status,
            "needed_by": dict(sorted(needed_by.items(), key=lambda kv: check_sort_key(kv[0]))),
            "refusals": refusals,
            "missed": [c for c in expected if per_impl and c not in needed_by],
            "runs": per_impl,
        }
    baseline = {impl: runs[impl].get(BASELINE) for impl in impls if runs[impl].get(BASELINE)}
    data: dict[str, Any] = {
        "role": str(rbac.ROLE_FILE.relative_to(REPO_ROOT)),
        "implementations": impls,
        "checks": plan.checks,
        "units": units,
        "baseline": baseline,
    }
    data["verdict"] = verdict(data)
    if info:
        data["run"] = dict(info)
    return data


def verdict(data: Mapping[str, Any]) -> dict[str, Any]:
    """``unneeded``: units no check needed (not pending), which must leave the role;
    ``uncovered``: what the operators were refused, or checks that failed, with the whole
    role (a need no rule covers); ``ok`` if both are empty. Warnings: ``pending_needed``
    (pending units something needs now), ``missed`` (shown_by checks that did not fail on
    the unit), ``unexplained`` (failures no 403 of the unit explains), ``not_run``."""
    units = data["units"]
    unneeded = [u for u, e in units.items() if e["status"] == "unneeded"]
    uncovered = []
    for impl, run in (data.get("baseline") or {}).items():
        uncovered += [f"{impl}: refused {f}" for f in run.get("forbidden", [])]
        uncovered += [
            f"{impl}: {c} failed with the whole role: {f['message'][:200]}"
            for c, f in run.get("failed", {}).items()
        ]
    return {
        "ok": not unneeded and not uncovered,
        "unneeded": unneeded,
        "uncovered": uncovered,
        "pending_needed": [u for u, e in units.items() if e["pending"] and e["needed_by"]],
        "missed": {u: e["missed"] for u, e in units.items() if e["missed"]},
        "unexplained": {
            u: {i: r["unexplained"] for i, r in e["runs"].items() if r["unexplained"]}
            for u, e in units.items()
            if any(r["unexplained"] for r in e["runs"].values())
        },
        "not_run": [u for u, e in units.items() if e["status"] == "not run"],
    }


def format_table(data: Mapping[str, Any]) -> str:
    """The per-unit table as text: unit, status, the checks that failed without it (with
    the implementations), then the verdict."""
    impls = data.get("implementations") or []
    width = max([len(u) for u in data["units"]] + [10])
    lines = [
        f"RBAC ablation ({', '.join(impls)}): the checks that failed, on a 403 the missing "
        "right explains, without each right",
        "",
    ]
    for unit, e in data["units"].items():
        if e["needed_by"]:
            shown = "; ".join(f"{c} ({', '.join(i)})" for c, i in e["needed_by"].items())
        elif e["status"] == "pending":
            shown = f"pending: {e['pending']}"
        else:
            shown = e["status"].upper()
        lines.append(f"{unit:<{width}}  {shown}")
    v = data["verdict"]
    lines.append("")
    for unit, checks in v["missed"].items():
        lines.append(f"warning: {unit}: shown_by {', '.join(checks)} did not fail on it")
    for unit, per_impl in v["unexplained"].items():
        for impl, checks in per_impl.items():
            lines.append(
                f"warning: {unit} ({impl}): {', '.join(checks)} failed with no 403 "
                "the missing right explains (not counted)"
            )
    for unit in v["pending_needed"]:
        lines.append(f"note: {unit} is marked pending but is needed now: make it shown_by")
    for unit in v["not_run"]:
        lines.append(f"note: {unit} was not run")
    if v["ok"]:
        needed = sum(1 for e in data["units"].values() if e["status"] == "needed")
        pending = sum(1 for e in data["units"].values() if e["status"] == "pending")
        lines.append(
            f"verdict: every right is needed ({needed}) or pending ({pending}), and "
            "the whole role is enough"
        )
    else:
        if v["unneeded"]:
            lines.append(
                f"verdict: FAIL: rights nothing needs (remove them from role.yaml): "
                f"{', '.join(v['unneeded'])}"
            )
        for line in v["uncovered"]:
            lines.append(f"verdict: FAIL: a need no rule covers: {line}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- running
def suite_command(
    impl_id: str,
    state_path: Path,
    junit: Path,
    role_file: Path | None,
    functions: Sequence[str],
    workers: int,
    artifacts: Path,
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        str(CONFORMANCE_DIR),
        f"--modeldock-impl={impl_id}",
        f"--modeldock-control-plane-state={state_path}",
        f"--junitxml={junit}",
        f"--modeldock-artifacts-dir={artifacts}",
        "-p",
        "no:cacheprovider",
        "-q",
        "--tb=line",
        "-k",
        " or ".join(functions),
    ]
    if role_file is not None:
        cmd.append(f"--modeldock-operator-role={role_file}")
    if workers > 1 and len(functions) > 1:
        cmd += ["-n", str(min(workers, len(functions)))]
    else:
        cmd += ["-p", "no:xdist"]
    return cmd


def run_one(
    impl_id: str,
    name: str,
    slug: str,
    role_file: Path | None,
    checks: Sequence[str],
    state_path: Path,
    out: Path,
    workers: int,
) -> tuple[dict[str, Any] | None, float]:
    """One pytest run; returns (judged run or None if it left no JUnit file, seconds)."""
    t0 = time.monotonic()
    junit = out / impl_id / f"{slug}.xml"
    junit.parent.mkdir(parents=True, exist_ok=True)
    junit.unlink(missing_ok=True)
    cmd = suite_command(
        impl_id,
        state_path,
        junit,
        role_file,
        exact_functions(checks),
        workers,
        out / "artifacts" / slug,
    )
    env = {k: v for k, v in os.environ.items() if k != "MODELDOCK_OPERATOR_ROLE"}
    with open(junit.with_suffix(".log"), "w") as log:
        subprocess.call(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    seconds = round(time.monotonic() - t0, 1)
    if not junit.exists():
        return None, seconds
    unit = None if name == BASELINE else rbac.Unit.parse(name)
    return {**judge_run(unit, read_run(junit)), "seconds": seconds}, seconds


def unit_impls(impls: Sequence[str], index: int, ci: bool) -> list[str]:
    """The implementations the ``index``-th unit is run against: all of them in the full run;
    in the CI subset one, in turn (the first unit against the first implementation, the second
    against the second, ...), while the whole role's baseline runs for all. A unit is needed
    when some implementation fails without it (``build_report``), so one implementation per
    unit still shows every unit needed; the full run shows it for each."""
    if not ci or not impls:
        return list(impls)
    return [impls[index % len(impls)]]


def run_ablation(
    impls: Sequence[str],
    reports_dir: Path,
    *,
    ci: bool,
    workers: int,
    jobs: int,
    only: Iterable[str] = (),
) -> dict[str, Any]:
    """Run the baseline for each implementation and every unit's variant for the
    implementations ``unit_impls`` gives (all; in the CI subset one per unit) on one control
    plane, ``jobs`` pytest runs at a time; write the JSON and print the table."""
    plan = load_plan(rbac.load_role(), read_config())
    wanted = [rbac.Unit.parse(u) for u in only]
    unknown = [u.id for u in wanted if u not in plan.units]
    if unknown:
        raise rbac.RoleError(f"not units of the role: {', '.join(unknown)}")
    chosen = [
        u for u in plan.units if (not wanted or u in wanted) and not (ci and u in plan.pending)
    ]
    declared = load_implementations()
    missing = [i for i in impls if i not in declared]
    if missing:
        raise ImplementationError(f"unknown implementation(s) {missing}")
    out = reports_dir / "rbac-ablation"
    shutil.rmtree(out, ignore_errors=True)
    roles_dir = out / "roles"
    files = {
        u: rbac.write_role(rbac.without(plan.role, u), roles_dir / f"{u.slug}.yaml") for u in chosen
    }
    binaries.ensure(binaries.ENVTEST_BINARIES)
    for impl in {*impls, "go", "python"}:  # the parity check's reference too
        declared[impl].run_build()
    started = time.monotonic()
    runs: dict[str, dict[str, Any]] = {i: {} for i in impls}
    tasks: list[tuple[str, str, str, Path | None, list[str]]] = [
        (impl, BASELINE, "whole-role", None, plan.checks_for(None, ci)) for impl in impls
    ]
    tasks += [
        (impl, u.id, u.slug, files[u], plan.checks_for(u, ci))
        for i, u in enumerate(chosen)
        for impl in unit_impls(impls, i, ci)
    ]
    # Longest first: a run of checks that wait out a bound without the right (the live reads
    # of cleanup: CONVERGE_TIMEOUT) starts before the many that fail at the first 403.
    tasks.sort(key=lambda t: not set(t[4]) - set(FAST_CHECKS))
    with ControlPlane() as cp:

        def go(task: tuple[str, str, str, Path | None, list[str]]) -> None:
            impl, name, slug, role_file, checks = task
            run, seconds = run_one(impl, name, slug, role_file, checks, cp.state_path, out, workers)
            runs[impl][name] = run
            if run is None:
                _say(f"{impl} {name}: no JUnit file (see {out / impl / slug}.log)")
            else:
                failed = ", ".join(run["failed"]) or "nothing failed"
                why = "; ".join(run["forbidden"])[:300]
                _say(f"{impl} {name}: {failed} ({seconds:.0f}s){'; 403: ' + why if why else ''}")

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            try:
                list(pool.map(go, tasks))
            except BaseException:  # Ctrl-C, SIGTERM: no run starts after it (those under
                # way end first: subprocess.call, no process group of their own to stop)
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    info = {
        "subset": "ci" if ci else "full",
        "workers": workers,
        "jobs": jobs,
        "impls_per_unit": "one, in turn" if ci and len(impls) > 1 else "all",
        "converge_timeout_s": converge_timeout_override() or "60 (the suite's own)",
        "seconds": round(time.monotonic() - started, 1),
        "units_run": [u.id for u in chosen],
    }
    data = build_report(plan, runs, info)
    path = reports_dir / "rbac-ablation.json"
    write_text_atomic(path, json.dumps(data, indent=2) + "\n")  # read by refreshes beside it
    print(format_table(data))
    _say(f"wrote {path} in {info['seconds']:.0f}s")
    report.refresh(reports_dir, load_implementations())  # the comparison gets the table
    return data


def main(argv: list[str] | None = None) -> int:
    """``python -m harness rbac-ablation``: exit 0 when every right of the role is needed and
    the whole role is enough, 1 when not, 2 for a bad argument or a build that failed, 3 when
    the control plane does not start, 130 after Ctrl-C and 143 after SIGTERM. It owns the run
    (``harness.runs.own``): SIGINT and SIGTERM unwind, every process and temp dir stopped or
    removed, also when it was started in the background with SIGINT ignored, once its
    arguments are known good (``--help`` and a bad argument touch nothing)."""
    try:
        return _main(argv, lambda: runs.own(_say))
    except KeyboardInterrupt as exc:
        _say("interrupted; processes stopped")
        return exitcodes.for_interrupt(exc)


def _main(argv: list[str] | None, own: Callable[[], None]) -> int:
    """``main``; ``own()`` is called once the arguments are checked, before anything starts."""
    parser = argparse.ArgumentParser(
        prog="python -m harness rbac-ablation",
        description="Show every right in config/rbac/role.yaml needed: run checks with each one "
        "removed; exit 1 if one is needed by nothing or the whole role is not enough.",
    )
    parser.add_argument(
        "--impl",
        action="append",
        default=[],
        help="implementation (repeatable; default: go and python)",
    )
    parser.add_argument(
        "--unit",
        action="append",
        default=[],
        help="only this rule unit, e.g. apps/deployments:create (repeatable)",
    )
    parser.add_argument(
        "--ci",
        action="store_true",
        help="the CI subset: each non-pending unit against its shown_by checks",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=4,
        help="pytest-xdist workers per run (runs of one check use none)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time")
    parser.add_argument("--reports", default=str(DEFAULT_REPORTS), help="reports folder")
    parser.add_argument(
        "--from-json",
        action="store_true",
        help="run nothing: print the table of reports/rbac-ablation.json",
    )
    args = parser.parse_args(argv)
    for option, value in (("--workers", args.workers), ("--jobs", args.jobs)):
        if value < 1:  # found before a control plane starts
            _say(f"{option} {value}: give a number of at least 1")
            return exitcodes.BAD_ARGUMENT
    own()
    reports = Path(args.reports)
    if args.from_json:
        data = json.loads((reports / "rbac-ablation.json").read_text())
        print(format_table(data))
        return 0 if data["verdict"]["ok"] else 1
    impls = args.impl or ["go", "python"]
    try:
        data = run_ablation(
            impls, reports, ci=args.ci, workers=args.workers, jobs=args.jobs, only=args.unit
        )
    except (rbac.RoleError, ImplementationError, binaries.BinaryError) as exc:
        _say(str(exc))
        return 2
    except ControlPlaneError as exc:
        _say(f"control plane failed: {exc}")
        return 3
    return 0 if data["verdict"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
