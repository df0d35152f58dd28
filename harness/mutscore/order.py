"""Which checks judge a tool mutant, and in what order (``harness.mutscore.score`` runs
them): the default judging set ``JUDGE_CHECKS``, what ``--checks all`` leaves out
(``NOT_JUDGING``), the checks that executed a mutant's line ordered by what earlier reports
say (``judging_checks``, ``prior_kills``)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.checks import base_check, case_functions, check_functions
from harness.mutants import plan
from harness.mutscore import cover
from harness.mutscore.generate import ToolMutant
from harness.mutscore.tally import concept

#: The checks that judge by default: the envtest checks whose real-operator run is short,
#: one per behaviour the operators' code serves (convergence, no-op writes, status, repair,
#: deletion, events, foreign fields and conditions, the catalog). The slow fault checks
#: (watch-recovers, apiserver restarts, leader-failover) are left out of the default: a full
#: run names them with --checks.
JUDGE_CHECKS: tuple[str, ...] = (
    "create-converges",
    "noop-stable",
    "progressing-without-kubelet",
    "foreign-conditions-kept",
    "status-rebuilt",
    "child-repaired",
    "foreign-fields-kept",
    "finalizer-ordered-delete",
    "replaced-child-kept",
    "events-recorded",
    "status-follows-rollout",
    "user-object-kept",
    # added after the baseline: it kills a catalog mutant the others cannot see
    "external-effect-once",
    # issue 25's gaps: start-up with a configuration the operator must refuse (configFromEnv),
    # and the replica counts copied from a Deployment status the check writes (computeStatus)
    "config-refused",
    "status-rebuilt[deployment-status]",
    # the Go run's survivors these cases kill (docs/mutation-score.md): a child of another
    # ModelService, a child of a vanished one, a refused child write reaching the status,
    "child-conflict[other-modelservice]",
    "vanished-owner[dead-owner-child]",
    "refused-write-reported[invalid-update]",
    # the Lease's release on SIGTERM (only config-refused's leader executes it otherwise): its
    # base case took 27 s against each of the two Go mutants it killed (docs/mutation-score.md)
    "leader-failover",
    # the Python gaps of issue 25 they kill (--mutant runs, harness/mutants/prior-kills.json):
    # the crash points' exit code 86, and a relist's new objects
    "restart-reconverges[after-finalizer]",
    "watch-recovers[compaction-410]",
    # the Go gaps in status and error messages (stop 39, docs/mutation-score.md): a 409 on a
    # child write, a bare 503, a webhook's refusal of exactly the condition's maxLength
    "stale-update-conflict[child-409]",
    "errors-retried[server-error]",
    "refused-write-reported[webhook-answer]",
    # the Python gaps of stop 40 (quantities, messages): an equal respelling, three causes
    "noop-stable[respelled]",
    "refused-write-reported[three-causes]",
    # Go errorMessage `<`->`<=`: two causes, always in the unsorted order
    "refused-write-reported[two-causes-reversed]",
)


#: ``--checks all`` (the nightly run): every check and case of the suite except these. The
#: sim tier's checks and deletion-policy's base case need a garbage collector or kubelets the
#: envtest control plane of a mutation run lacks; parity judges two implementations, not one;
#: the long quiet windows wait minutes for what noop-stable's base case already judges.
NOT_JUDGING: frozenset[str] = frozenset(
    {"garbage-collected", "ready-with-kwok", "namespace-deleted", "deletion-policy", "parity"}
    | {"noop-stable[long-quiet]", "noop-stable[long-quiet-minutes]"}
)


def judging_checks(
    m: ToolMutant,
    coverage: Mapping[str, Mapping[str, Iterable[int]]],
    most: int,
    checks: Sequence[str],
    prior: Mapping[str, Mapping[str, int]] | None = None,
) -> list[str]:
    """The judging ``checks`` (ids, or ``id[case]``) whose run executed the mutant's line
    (``coverage``: ``cover.lines_by_check``, keyed by check id: a namespace names the check,
    not the case), at most ``most``, in the order to try them (``prior``: ``prior_kills`` of
    earlier reports): first the check that killed this very mutant there, then those that
    killed most mutants of the same file and function, then of the same concept in either
    language (``prior_kills``), then by expected cost per kill:
    ``plan.CHECK_SECONDS`` of the check's functions divided by its kill rate among the
    mutants of the language it ran against there, (kills + 1) / (runs + 2) (Laplace's rule,
    so without history all rates are 1/2 and the cheapest goes first). With first kill, trying
    checks in increasing cost / probability is the order of least expected time (the
    classical rule for testing independent alternatives in sequence: Simon and Kadane 1975,
    "Optimal satisficing search"). Every line of configFromEnv runs in every check, and only
    config-refused gives it a value to refuse: the earlier kills find it."""
    functions = {**check_functions(), **case_functions()}
    found = set(cover.checks_at(coverage, m.file, m.line))
    mine = [c for c in checks if base_check(c) in found]
    prior = prior or {}
    mine_before = prior.get(f"id:{m.id}", {})
    kills = prior.get(f"{m.lang}:{m.file}:{m.function}", {})
    killed, ran = prior.get(f"killed:{m.lang}", {}), prior.get(f"ran:{m.lang}", {})
    same_concept = prior.get(f"concept:{concept(m.function)}", {})

    def per_kill(c: str) -> float:
        rate = (killed.get(c, 0) + 1) / (ran.get(c, 0) + 2)
        return plan.entry_seconds([c], functions) / rate

    def order(c: str) -> tuple[int, int, int, float, str]:
        return (-mine_before.get(c, 0), -kills.get(c, 0), -same_concept.get(c, 0), per_kill(c), c)

    return sorted(mine, key=order)[:most]


def judged_as(check: str) -> str:
    """The entry of JUDGE_CHECKS a kill reported as ``check`` was judged under: itself, or,
    for a case (``status-follows-rollout[played-rollout]``) of a check judged whole, that
    check; a name judged under neither comes back as it is."""
    base = check.split("[", 1)[0]
    return base if check not in JUDGE_CHECKS and base in JUDGE_CHECKS else check


def prior_kills(data: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """What an earlier ``reports/mutation-score.json`` (``data``) says about the order to try
    checks in (``judging_checks``): ``lang:file:function`` -> check -> how many of that
    function's mutants the check killed; ``id:<mutant id>`` -> its killer -> 1;
    ``killed:<lang>`` and ``ran:<lang>`` -> check -> how many mutants of the language it
    killed, and ran against (``ran``, or ``checks`` in reports older than it). A kill by a
    case counts under the case and under ``judged_as`` of it, so it orders both a ``--checks
    all`` run (which judges the case) and a default one (which judges the whole check);
    ``concept:<name>`` -> check -> kills among the mutants of the function of that concept
    (``tally.concept``) in either language, so Go's kills in ``computeStatus`` order the
    checks tried on Python's ``compute_status``."""
    out: dict[str, dict[str, int]] = {}

    def add(key: str, check: str) -> None:
        # under its own name (a --checks all run judges the case itself) and, when it
        # differs, under the JUDGE_CHECKS entry it was judged as (a default run)
        per = out.setdefault(key, {})
        for name in {check, judged_as(check)}:
            per[name] = per.get(name, 0) + 1

    for i, r in (data.get("mutants") or {}).items():
        if r.get("status") not in ("killed", "survived"):
            continue
        for c in r.get("ran") or r.get("checks") or ():
            add(f"ran:{r['lang']}", c)
        for c in r.get("killed_by") or () if r["status"] == "killed" else ():
            add(f"{r['lang']}:{r['file']}:{r['function']}", c)
            add(f"id:{i}", c)
            add(f"killed:{r['lang']}", c)
            add(f"concept:{concept(r['function'])}", c)
    return out


def interleaved(mutants: Sequence[ToolMutant]) -> list[ToolMutant]:
    """``mutants`` in the order to judge them: the languages in turn, Go first (each in its
    given order). A Go mutant is a ``go build`` (seconds of CPU) before its checks, a Python
    one a copied file: taken in turn, the builds spread over the run instead of queuing at
    its end, and the longer jobs start first (longest first, the classical rule for
    scheduling jobs on parallel workers)."""
    by_lang = [[m for m in mutants if m.lang == lang] for lang in ("go", "python")]
    rest = [m for m in mutants if m.lang not in ("go", "python")]
    out = [m for pair in itertools.zip_longest(*by_lang) for m in pair if m is not None]
    return out + rest
