"""The comparison report's model: dataclasses, and the readers that fill them.

``build(junit_files)`` reads ``reports/junit-<impl>.xml`` with junitparser into a ``Report``:
for each check (by id, in ``harness.checks.CHECK_ORDER``: docs/design.md, "The checks"), what
it proves ("why"), and per implementation the outcome, time, failure message and evidence (the
JUnit properties the check recorded). The evidence the harness adds to every check from the
operator's API proxies' request logs (``api_requests``, ``writes_ok``, ``writes_failed``,
``conflicts_409``, ``write_order``, ``timeline``) is read back through ``Result.calls`` and
``Result.request_counts``; ``align`` lines up the implementations' write sequences so that
differences stand out.

The optional sections are fields of ``Report`` too, filled before it is written
(``harness.report.sections.with_sections``), each from the dict of its JSON file
(``load_json``): ``bench.json`` (``bench_model``: the rows of a ratio table, the series of its
plots, the floor and worker scaling, the spread over runs), ``mutants.json`` (``kill_matrix``:
which check caught which deliberately broken implementation), ``rbac-ablation.json``
(``rbac_ablation``: which right of the operator's role each check needs), ``explore.json``
(``harness.report.exploration``) and ``mutation-score.json``
(``harness.report.mutation_score``).

The writers (``harness.report.markdown``, ``harness.report.html``) import this module and take
only a finished ``Report``; this module imports neither and knows nothing of Markdown or HTML,
as the writers know nothing of JUnit or of the JSON files.
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import junit
from harness.audit import WRITE_VERBS
from harness.checks import check_sort_key
from harness.junit import PREMISES
from harness.report.bench_scaling import Scaling, Spread, scaling_model, spread_model
from harness.report.matrices import (
    Ablation,
    KillMatrix,
)
from harness.report.matrices import as_number as _number

if TYPE_CHECKING:
    from harness.report.exploration import Exploration
    from harness.report.mutation_score import MutationScore

#: Properties that describe the check rather than being evidence.
_META = {"check", "implementation", "why", "teaches", "artifacts"}

#: ``PREMISES`` (from harness.junit): the property naming the evidence keys that are premises
#: of the check, not the operator's proof (``Evidence.premise``), a JSON list.

#: Evidence the harness records for every check from its API proxies' request logs
#: (``account_requests`` in harness/plugin/evidence.py), as opposed to the evidence a check
#: records itself.
AUDIT_EVIDENCE = (
    "api_requests",
    "writes_ok",
    "writes_failed",
    "conflicts_409",
    "write_order",
    "timeline",
    "harness_acts",
)


@dataclass(frozen=True)
class Call:
    """One API request an implementation made during a check: an entry of the ``timeline``
    evidence, ``[seconds since its first request, verb, resource[/subresource], name, code]``."""

    t: float
    verb: str
    target: str
    name: str
    code: int

    @property
    def is_write(self) -> bool:
        """A create, update, patch or delete (``harness.audit.WRITE_VERBS``)."""
        return self.verb in WRITE_VERBS

    @property
    def failed(self) -> bool:
        """The API server refused it (any code outside 2xx, e.g. 409 Conflict)."""
        return not 200 <= self.code < 300

    def label(self) -> str:
        """``verb resource[/subresource] [name] code``, e.g. ``update modelservices/status web 409``."""
        return " ".join(p for p in (self.verb, self.target, self.name, str(self.code)) if p)

    @property
    def expected_absence(self) -> bool:
        """A 404 on a lookup or a delete: the object is already gone, which the caller
        expects (a child not created yet, a delete repeated after it succeeded). Not a refusal."""
        return self.code == 404 and self.verb in ("get", "delete", "list")

    @property
    def refused(self) -> bool:
        """The API server refused it: ``failed`` and not an ``expected_absence``."""
        return self.failed and not self.expected_absence

    @property
    def is_event(self) -> bool:
        """A request on Event objects (core ``events`` or ``events.k8s.io``)."""
        return self.target.split("/")[0] == "events"

    def normalised_label(self) -> str:
        """``label()`` with an Event's generated name reduced to the object it is about:
        client-go names an Event ``<object>.<unique hex>`` and so does the Python recorder, so
        two correct implementations never share an Event name (``web.18a3f0c2`` becomes
        ``web.*``)."""
        if not self.is_event or "." not in self.name:
            return self.label()
        name = self.name.rsplit(".", 1)[0] + ".*"
        return " ".join(p for p in (self.verb, self.target, name, str(self.code)) if p)


@dataclass
class Result:
    """One check's outcome for one implementation."""

    outcome: str  # "passed", "failed", "error", "skipped", "xfailed" or "missing"
    time_s: float = 0.0
    message: str = ""
    evidence: dict[str, str] = field(default_factory=dict)
    #: the full failure text (pytest's traceback and sections), "" unless failed
    details: str = ""

    @property
    def calls(self) -> list[Call]:
        """The ``timeline`` evidence as Calls in time order; [] if none was recorded."""
        try:
            rows = json.loads(self.evidence.get("timeline", "[]"))
            return sorted(
                (Call(float(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4])) for r in rows),
                key=lambda c: c.t,
            )
        except (ValueError, TypeError, IndexError):
            return []

    @property
    def acts(self) -> list[tuple[float, str]]:
        """The ``harness_acts`` evidence: what the harness did during the check (a signal to
        the operator, its own edit of a child), ``[(seconds on the timeline's clock, act),
        ...]``; [] if none was recorded."""
        try:
            rows = json.loads(self.evidence.get("harness_acts", "[]"))
            return [(float(r[0]), str(r[1])) for r in rows]
        except (ValueError, TypeError, IndexError):
            return []

    @property
    def request_counts(self) -> dict[str, int]:
        """The ``api_requests`` evidence: ``{"verb resource code": count}``; {} if none."""
        try:
            counts = json.loads(self.evidence.get("api_requests", "{}"))
            return {str(k): int(v) for k, v in counts.items()}
        except (ValueError, TypeError, AttributeError):
            return {}

    @property
    def write_sequence(self) -> list[str]:
        """The writes in order, as ``verb resource name code`` (failed ones included) from the
        timeline, else from the ``write_order`` evidence (successful writes only)."""
        calls = self.calls
        if calls:
            return [c.label() for c in calls if c.is_write]
        try:
            return [str(w) for w in json.loads(self.evidence.get("write_order", "[]"))]
        except ValueError:
            return []

    @property
    def premise_keys(self) -> list[str]:
        """The evidence keys the check recorded as premises (the ``premises`` property): what
        the experiment established, such as the API server refusing a stale write, rather
        than what the operator did."""
        try:
            keys = json.loads(self.evidence.get(PREMISES, "[]"))
            return [str(k) for k in keys] if isinstance(keys, list) else []
        except ValueError:
            return []

    @property
    def check_evidence(self) -> dict[str, str]:
        """The evidence the check recorded itself about the operator (without the harness's
        request accounting, ``AUDIT_EVIDENCE``, and without its premises)."""
        hidden = {*AUDIT_EVIDENCE, PREMISES, *self.premise_keys}
        return {k: v for k, v in self.evidence.items() if k not in hidden}

    @property
    def premise_evidence(self) -> dict[str, str]:
        """The evidence of the check's premises, in recorded order."""
        return {k: self.evidence[k] for k in self.premise_keys if k in self.evidence}

    @property
    def artifacts(self) -> str:
        """Where the harness saved the operator logs and objects of a failed check, or ""."""
        marker = "saved in "
        for line in reversed(self.details.splitlines()):
            if marker in line:
                return line.split(marker, 1)[1].strip()
        return ""


@dataclass
class Check:
    """One check (a JUnit testcase name; parametrised cases keep their ``[...]`` suffix)."""

    id: str
    why: str = ""
    teaches: str = ""
    results: dict[str, Result] = field(default_factory=dict)

    def result(self, impl: str) -> Result:
        """This check's result for ``impl``; outcome "missing" if it has none."""
        return self.results.get(impl, Result("missing"))


@dataclass
class Run:
    """One implementation's JUnit run: when, where, how long."""

    timestamp: str = ""
    hostname: str = ""
    time_s: float = 0.0


@dataclass
class Report:
    """The comparison: the implementations in run order, their titles (from
    implementations.toml), every check with its results, and each implementation's run."""

    implementations: list[str]
    titles: dict[str, str]
    checks: list[Check]
    #: per implementation, the JUnit suite's timestamp, host and duration (absent if no file)
    runs: dict[str, Run] = field(default_factory=dict)
    #: the language of the teaching text (``harness.i18n.LANGS``; ``harness.i18n.localise``
    #: translates a Report) and where the lesson is, relative to the page ("" when it is not
    #: made: ``write_all`` links it only when the file is there, the writers then say how)
    lang: str = "en"
    lesson_href: str = "lesson.html"
    #: the optional sections (``with_sections``), None when their file is absent or empty
    bench: Bench | None = None
    mutants: KillMatrix | None = None
    ablation: Ablation | None = None
    exploration: Exploration | None = None
    mutation_score: MutationScore | None = None
    #: the generated workloads' section as a plain dict (``harness.report.generated.section``)
    generated: dict[str, Any] | None = None
    #: the generator against the mutants the suite misses (``harness.report.generated.judged``),
    #: a line of the generated workloads' section when both are there
    generated_mutants: dict[str, Any] | None = None

    @property
    def all_passed(self) -> bool:
        """True if every check passed (or was skipped, or failed as its implementation
        declared: xfailed) for every implementation."""
        return bool(self.checks) and all(
            c.results.get(i, Result("missing")).outcome in ("passed", "skipped", "xfailed")
            for c in self.checks
            for i in self.implementations
        )

    def title(self, impl: str) -> str:
        """The implementation's title, or its id if it has none."""
        return self.titles.get(impl, impl)


def _properties(ordered: Iterable[tuple[str, str]]) -> dict[str, str]:
    """A testcase's properties in recorded order. A name recorded twice (a check's own
    ``write_order`` and the harness's request-accounting one) keeps both: the later becomes
    ``name (2)``; the audit evidence is always recorded last."""
    props: dict[str, str] = {}
    for name, value in ordered:
        if name in props:
            if name in AUDIT_EVIDENCE:  # the harness's accounting wins the plain name
                props = {(f"{k} (check)" if k == name else k): v for k, v in props.items()}
            else:
                n = 2
                while f"{name} ({n})" in props:
                    n += 1
                name = f"{name} ({n})"
        props[name] = value
    return props


def build(junit_files: Iterable[Path], implementations: Mapping[str, Any] | None = None) -> Report:
    """Read ``junit-<impl>.xml`` files into a Report. A missing file gives that implementation
    no results (every check "missing"), so a run that crashed is never reported as passing."""
    checks: dict[str, Check] = {}
    impls: list[str] = []
    titles: dict[str, str] = {}
    runs: dict[str, Run] = {}
    for path in junit_files:
        impl = junit.implementation_of(path)
        impls.append(impl)
        if implementations and impl in implementations:
            titles[impl] = getattr(implementations[impl], "title", impl)
        if not path.exists():
            continue
        for suite in junit.read_suites(path):
            runs[impl] = Run(
                timestamp=suite.timestamp,
                hostname=suite.hostname,
                time_s=runs.get(impl, Run()).time_s + suite.time_s,
            )
            for case in suite.cases:
                props = _properties(case.ordered)
                check = checks.setdefault(case.name, Check(id=case.name))
                check.why = check.why or props.get("why", "")
                check.teaches = check.teaches or props.get("teaches", "")
                check.results[impl] = Result(
                    outcome=case.outcome,
                    time_s=case.time_s,
                    message=case.message,
                    evidence={k: v for k, v in props.items() if k not in _META},
                    details=case.details,
                )
    ordered = sorted(checks.values(), key=lambda c: check_sort_key(c.id))
    return Report(implementations=impls, titles=titles, checks=ordered, runs=runs)


def align(sequences: Mapping[str, Sequence[str]]) -> list[dict[str, int | None]]:
    """Line up several sequences (per implementation, e.g. ``Result.write_sequence``) so that
    equal items share a row: ``[{impl: index into its sequence, or None}, ...]``.

    The first sequence is the reference; each further one is matched against the rows so far
    with ``difflib.SequenceMatcher`` (the longest matching blocks, like ``diff``). A row whose
    implementations disagree, or that some lack, is a difference.
    """
    impls = list(sequences)
    rows: list[dict[str, int | None]] = []
    keys: list[str] = []
    for impl in impls:
        seq = list(sequences[impl])
        if impl == impls[0]:
            rows = [{impl: i} for i in range(len(seq))]
            keys = list(seq)
            continue
        matcher = difflib.SequenceMatcher(a=keys, b=seq, autojunk=False)
        new_rows: list[dict[str, int | None]] = []
        new_keys: list[str] = []
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op == "equal":
                for a, b in zip(range(a0, a1), range(b0, b1), strict=True):
                    new_rows.append({**rows[a], impl: b})
                    new_keys.append(keys[a])
                continue
            # replace/delete/insert: pair what can be paired, the rest stand alone
            pairs = max(a1 - a0, b1 - b0) if op == "replace" else 0
            for k in range(pairs):
                a, b = a0 + k, b0 + k
                row: dict[str, int | None] = dict(rows[a]) if a < a1 else {}
                row[impl] = b if b < b1 else None
                new_rows.append(row)
                new_keys.append(keys[a] if a < a1 else seq[b])
            if op == "delete":
                for a in range(a0, a1):
                    new_rows.append({**rows[a], impl: None})
                    new_keys.append(keys[a])
            elif op == "insert":
                for b in range(b0, b1):
                    new_rows.append({impl: b})
                    new_keys.append(seq[b])
        rows, keys = new_rows, new_keys
    return [{impl: row.get(impl) for impl in impls} for row in rows]


# --------------------------------------------------------------------------- bench
#: Figures of reports/bench.json (docs/design.md, "Measurements"): key, label, unit, what is
#: ideal.
BENCH_FIGURES: list[tuple[str, str, str, str]] = [
    ("latency_p50_s", "convergence latency p50", "s", ""),
    ("latency_p95_s", "convergence latency p95", "s", ""),
    ("throughput_s", "N created at once, until all converged", "s", ""),
    ("writes_per_object", "writes per ModelService, Events included", "", ""),
    ("object_writes_per_object", "object writes per ModelService", "", "floor 4"),
    ("event_writes_per_object", "Event writes per ModelService", "", "2 promised"),
    ("failed_writes_per_object", "failed writes per ModelService", "", "floor 0"),
    ("quiet_writes", "writes in a quiet period", "", "floor 0"),
    ("reconciles_per_object", "reconciles per ModelService", "", ""),
    ("requests_per_reconcile", "API requests per reconcile", "", ""),
    ("peak_rss_mib", "peak RSS at N = 1000", "MiB", ""),
    ("restart_to_converged_s", "SIGKILL, restart, to converged", "s", ""),
]


@dataclass
class BenchRow:
    """One row of the bench table: a figure per implementation and the ratios."""

    key: str  # the bench.json key, with "[N]" for a throughput row
    label: str
    unit: str
    ideal: str  # e.g. "floor 4", or ""
    values: dict[str, float | None]  # implementation -> value
    ratios: dict[str, float | None]  # ratio name ("python/go") -> ratio


@dataclass
class Bench:
    """``reports/bench.json`` as rows and plot series."""

    machine: dict[str, Any]
    implementations: list[str]
    ratio_names: list[str]
    rows: list[BenchRow]
    #: implementation -> [(N, seconds until all N converged), ...] by N
    throughput: dict[str, list[tuple[int, float]]]
    #: implementation -> peak RSS in MiB
    rss_mib: dict[str, float]
    #: implementation -> convergence latency samples in seconds, sorted (may be empty)
    latency_samples: dict[str, list[float]]
    #: implementation -> (p50, p95) in seconds
    latency_pct: dict[str, tuple[float | None, float | None]]
    #: the floor and worker scaling, None when bench.json has neither
    scaling: Scaling | None = None
    #: the API server's write capacity and the spread of median figures over runs
    spread: Spread = field(default_factory=lambda: Spread(None, []))
    #: who (an implementation or "floor") -> "throughput_s[N]" or "workers[W]" -> (min, max)
    #: seconds of the runs whose median the figure is (bench.json's ``spread``, for the plots'
    #: bars); empty when bench.json has none
    ranges: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)


def bench_model(data: Mapping[str, Any]) -> Bench:
    """Read the dict of ``reports/bench.json``::

        {"machine": {...}, "implementations": {"go": FIGURES, "python": FIGURES},
         "ratios": {"python/go": FIGURES}, "latency_samples_s": {"go": [s, ...], ...}}

    FIGURES maps the keys of ``BENCH_FIGURES`` to numbers, except ``throughput_s``:
    ``{"<N>": seconds}``. Samples may also sit in FIGURES as ``latency_samples_s``. Missing
    figures are None; a ratio bench.json lacks is computed from the figures."""
    figures: Mapping[str, Mapping[str, Any]] = data.get("implementations") or {}
    impls = list(figures)
    ratios: Mapping[str, Mapping[str, Any]] = data.get("ratios") or {}
    # ratios between implementations; "<impl>/floor" is the scaling model's
    ratio_names = [r for r in ratios if r.partition("/")[2] in impls] or (
        [f"{i}/{impls[0]}" for i in impls[1:]] if impls else []
    )

    def ratio(
        name: str, key: str, n: str | None, values: Mapping[str, float | None]
    ) -> float | None:
        given = (ratios.get(name) or {}).get(key)
        if n is not None:
            given = given.get(n) if isinstance(given, Mapping) else None
        if _number(given) is not None:
            return _number(given)
        num, _, den = name.partition("/")
        a, b = values.get(num), values.get(den)
        return round(a / b, 2) if a is not None and b else None

    rows: list[BenchRow] = []
    for key, label, unit, ideal in BENCH_FIGURES:
        if key == "throughput_s":
            ns = sorted({n for f in figures.values() for n in (f.get(key) or {})}, key=int)
            for n in ns:
                values = {i: _number((figures[i].get(key) or {}).get(n)) for i in impls}
                rows.append(
                    BenchRow(
                        f"{key}[{n}]",
                        f"N = {n} created at once, until all converged",
                        unit,
                        ideal,
                        values,
                        {r: ratio(r, key, n, values) for r in ratio_names},
                    )
                )
            continue
        if not any(key in f for f in figures.values()):
            continue
        values = {i: _number(figures[i].get(key)) for i in impls}
        rows.append(
            BenchRow(
                key,
                label,
                unit,
                ideal,
                values,
                {r: ratio(r, key, None, values) for r in ratio_names},
            )
        )
    throughput = {}
    for i in impls:
        points = [(int(n), _number(s)) for n, s in (figures[i].get("throughput_s") or {}).items()]
        throughput[i] = sorted((n, s) for n, s in points if s is not None)
    top_samples = data.get("latency_samples_s") or {}
    samples = {}
    for i in impls:
        raw = top_samples.get(i, figures[i].get("latency_samples_s")) or []
        samples[i] = sorted(x for x in (_number(v) for v in raw) if x is not None)
    ranges: dict[str, dict[str, tuple[float, float]]] = {}
    for who, figs in (data.get("spread") or {}).items():
        for key in ("throughput_s", "workers"):
            for at, sp in ((figs or {}).get(key) or {}).items():
                lo, hi = _number((sp or {}).get("min")), _number((sp or {}).get("max"))
                if lo is not None and hi is not None:
                    ranges.setdefault(who, {})[f"{key}[{at}]"] = (lo, hi)
    return Bench(
        machine=dict(data.get("machine") or {}),
        implementations=impls,
        ratio_names=ratio_names,
        rows=rows,
        throughput=throughput,
        rss_mib={i: v for i in impls if (v := _number(figures[i].get("peak_rss_mib"))) is not None},
        latency_samples=samples,
        latency_pct={
            i: (_number(figures[i].get("latency_p50_s")), _number(figures[i].get("latency_p95_s")))
            for i in impls
        },
        scaling=scaling_model(data, impls),
        spread=spread_model(data),
        ranges=ranges,
    )


def format_number(value: float | None, unit: str = "") -> str:
    """A figure for a table: 3 significant digits, the unit after it, "–" for None."""
    if value is None:
        return "–"
    text = f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return f"{text} {unit}".strip()


# --------------------------------------------------------------------------- mutants


def load_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or None if the file is absent or unreadable (a warning)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        warnings.warn(f"{path}: not read ({exc}); the report leaves it out", stacklevel=2)
        return None
    return data if isinstance(data, dict) else None
