"""Tiers side by side: one implementation's runs on several tiers, check by check.

A conformance run on a tier (``make conformance CLUSTER=sim``, ``python -m harness
conformance --cluster sim --reports reports/sim``) writes ``junit-<impl>.xml`` whose testsuite
properties name the ``tier``, its ``kubernetes_version`` and the ``capabilities`` it offers
(comma-separated, ``harness.tiers``); a check the tier cannot judge is skipped with the reason
(``needs pods-ready (...): not offered by the envtest tier, ...``). ``compare_tiers(folders)``
reads one such folder per tier into a ``TierComparison`` per implementation: for each check
(in ``CHECK_ORDER``), per tier, the ``Result`` (passed, failed, error, skipped with its reason,
or missing). The Markdown and HTML writers render it (``python -m harness report --tiers
reports/ reports/sim/``).

A folder's tier is the testsuite's ``tier`` property; a file written before it existed gives
the testcases' ``tier`` property, else the folder's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness import junit
from harness.checks import check_sort_key
from harness.report.model import Result, build

#: What the tier view teaches, above its tables (plain text, one paragraph each).
TIERS_EXPLAINED = (
    "A tier is the kind of cluster a run used: envtest is etcd and kube-apiserver alone (no "
    "Pod ever runs, nothing is garbage collected), sim adds kube-controller-manager, "
    "kube-scheduler and kwok's fake nodes. Each check declares what it needs from the cluster; "
    "on a tier that does not offer it the check is skipped with the reason, never passed: a "
    "check must not pass where it could not have failed.",
    "Read a row across: the same check, the same implementation, another cluster. Passed on "
    "one tier and failed on another points at what the tiers differ in (a controller that "
    "now deletes what the operator relied on, Pods that really become Ready); skipped on every "
    "tier means no run here could judge it.",
)


@dataclass
class TierRun:
    """One folder's run of one implementation: the ``tier`` and what its JUnit testsuite says
    of it, and ``results`` by check id. ``present``: the folder had the implementation's file."""

    folder: Path
    tier: str
    kubernetes_version: str = ""
    capabilities: list[str] = field(default_factory=list)
    harness_commit: str = ""
    timestamp: str = ""
    present: bool = True
    results: dict[str, Result] = field(default_factory=dict)

    def result(self, check: str) -> Result:
        """The check's result on this tier; outcome "missing" if the run has none."""
        return self.results.get(check, Result("missing"))

    def count(self, outcome: str) -> int:
        """How many of this run's checks ended with ``outcome`` (``passed``, ``skipped``...)."""
        return sum(1 for r in self.results.values() if r.outcome == outcome)


@dataclass
class TierComparison:
    """One implementation on every tier given: ``runs`` in the order of the folders, ``checks``
    the union of their check ids in ``CHECK_ORDER``, ``why`` each check's first docstring
    paragraph."""

    impl: str
    runs: list[TierRun]
    checks: list[str]
    why: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        """A column title per run: its tier, with the folder's name when two runs share one."""
        tiers = [r.tier for r in self.runs]
        return [
            r.tier if tiers.count(r.tier) == 1 else f"{r.tier} ({r.folder.name})" for r in self.runs
        ]

    @property
    def capabilities(self) -> list[str]:
        """Every capability any of the tiers offers, sorted."""
        return sorted({c for r in self.runs for c in r.capabilities})

    def differs(self, check: str) -> bool:
        """True when the check's outcome is not the same on every tier."""
        return len({r.result(check).outcome for r in self.runs}) > 1


def implementations_in(folders: Iterable[Path]) -> list[str]:
    """The implementations with a ``junit-<impl>.xml`` in any folder (exploration files and the
    merged ``junit.xml`` left out), in the order first seen."""
    seen: list[str] = []
    for folder in folders:
        for path in sorted(Path(folder).glob("junit-*.xml")):
            impl = junit.implementation_of(path)
            if not path.name.startswith("junit-explore-") and impl not in seen:
                seen.append(impl)
    return seen


def _run(folder: Path, impl: str) -> tuple[TierRun, dict[str, str]]:
    path = junit.suite_file(folder, impl)
    if not path.exists():
        return TierRun(folder, folder.name, present=False), {}
    suites = junit.read_suites(path)
    props = {k: v for s in suites for k, v in s.properties.items()}
    tier = props.get("tier") or next(
        (c.prop("tier") for s in suites for c in s.cases if c.prop("tier")), None
    )
    report = build([path])
    run = TierRun(
        folder=folder,
        tier=tier or folder.name,
        kubernetes_version=props.get("kubernetes_version", ""),
        capabilities=[c for c in props.get("capabilities", "").split(",") if c],
        harness_commit=props.get("harness_commit", ""),
        timestamp=suites[0].timestamp if suites else "",
        results={c.id: c.result(impl) for c in report.checks},
    )
    return run, {c.id: c.why for c in report.checks if c.why}


def compare_tiers(
    folders: Sequence[Path], impls: Sequence[str] | None = None
) -> list[TierComparison]:
    """A ``TierComparison`` per implementation (``impls``, default every one found), over the
    reports ``folders``, one per tier. A folder without the implementation's file gives a run
    whose every check is "missing". Raises junitparser's parse errors for a broken file."""
    out = []
    for impl in impls or implementations_in(folders):
        runs: list[TierRun] = []
        why: dict[str, str] = {}
        for folder in folders:
            run, w = _run(Path(folder), impl)
            runs.append(run)
            why = {**w, **why}
        checks = sorted({c for r in runs for c in r.results}, key=check_sort_key)
        out.append(TierComparison(impl, runs, checks, why))
    return out
