"""harness/mutants/prior-kills.json, the verified kills ``make mutation-score`` passes as
``--prior``: each is kept within a mutant's judging checks, whatever the checks cost."""

from __future__ import annotations

import functools
import json

import pytest

from harness import checks
from harness.checks import base_check
from harness.mutscore import order
from harness.mutscore.generate import ToolMutant
from harness.paths import REPO_ROOT

PRIOR = REPO_ROOT / "harness" / "mutants" / "prior-kills.json"


def _load() -> dict[str, dict[str, object]]:
    data = json.loads(PRIOR.read_text())
    mutants: dict[str, dict[str, object]] = data["mutants"]
    return mutants


def test_every_prior_killer_is_a_judging_check() -> None:
    """A kill recorded by a check the runs that read this file do not judge with would order
    nothing. ``make mutation-score`` and the nightly judge with ``--checks all`` (every check
    and case but ``order.NOT_JUDGING``, which names a check's base case or a case, never a
    whole check), so every killer must be one of those, by its own id: a case judges when it
    is not excluded itself, even where its check's base case is (deletion-policy's needs a
    garbage collector; its envtest cases gone-unseen and replaced-unseen judge)."""
    judging = {c for c in checks.check_functions() if c not in order.NOT_JUDGING}
    for mutant_id, r in _load().items():
        assert r["status"] == "killed", mutant_id
        killers = r["killed_by"]
        assert isinstance(killers, list) and killers, mutant_id
        assert {str(k) for k in killers} <= judging, (mutant_id, killers)


def test_a_verified_killer_stays_among_the_checks_of_a_line_every_check_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The four Python kills of progressing-without-kubelet (docs/mutation-score.md) are on
    lines every judging check executes; ordered by cost alone (plan.CHECK_SECONDS: it takes
    15 s, behind create-converges, events-recorded and others) it would fall out of the three.
    With the file as --prior each function's verified killer is tried first."""
    # judging_checks reads the check functions on every call (about 1 s each): once here
    monkeypatch.setattr(order, "check_functions", functools.cache(checks.check_functions))
    monkeypatch.setattr(order, "case_functions", functools.cache(checks.case_functions))
    data = json.loads(PRIOR.read_text())
    prior = order.prior_kills(data)
    for mutant_id, r in _load().items():
        killers = r["killed_by"]
        assert isinstance(killers, list)
        if not set(killers) & set(order.JUDGE_CHECKS):
            continue  # a case of a judged check: not ordered by the prior (see above)
        # The mutant itself, rebuilt from its id: a run orders its own recorded killer first
        # (``id:<mutant id>`` in the prior), before the function's most frequent killers, so
        # a function killed by more than three checks (computeStatus) keeps each one's.
        operator, change = mutant_id.split(":")[3:5]
        original, rest = change.split("->", 1)
        replacement, occurrence = rest.rsplit("#", 1)
        m = ToolMutant(
            lang=str(r["lang"]),
            file=str(r["file"]),
            function=str(r["function"]),
            operator=operator,
            original=original,
            replacement=replacement,
            occurrence=int(occurrence),
            line=7,
        )
        assert m.id == mutant_id, (m.id, mutant_id)
        everywhere = {base_check(c): {m.file: [7]} for c in order.JUDGE_CHECKS}
        chosen = order.judging_checks(m, everywhere, 3, order.JUDGE_CHECKS, prior)
        assert set(killers) & set(chosen), (mutant_id, chosen)
    by_cost = order.judging_checks(
        ToolMutant("python", "python_operator/controller.py", "judge_rollout", "o", "a", "b", 0, 7),
        {base_check(c): {"python_operator/controller.py": [7]} for c in order.JUDGE_CHECKS},
        3,
        order.JUDGE_CHECKS,
    )
    assert "progressing-without-kubelet" not in by_cost, (
        "progressing-without-kubelet is among the three cheapest again: the prior is not "
        f"needed for it, and this test's premise is stale ({by_cost})"
    )


SAMPLE_KILLS = REPO_ROOT / "harness" / "mutscore" / "sample-kills.json"


def test_every_sample_kill_is_of_a_sampled_mutant_by_a_sample_check() -> None:
    """harness/mutscore/sample-kills.json (make mutation-score-sample's --prior) holds kills of
    ids of harness/mutscore/sample.toml only, each by one of the step's judging checks
    (MUTSCORE_SAMPLE_CHECKS in the Makefile): another check's kill would order nothing, and a
    kill of an id no longer sampled is stale."""
    from harness.mutscore.sample import SAMPLE_FILE, load_sample

    sampled = {i for ids in load_sample(SAMPLE_FILE).values() for i in ids}
    makefile = (REPO_ROOT / "Makefile").read_text()
    line = next(x for x in makefile.splitlines() if x.startswith("MUTSCORE_SAMPLE_CHECKS :="))
    checks = set(line.split(":=", 1)[1].strip().split(","))
    kills = json.loads(SAMPLE_KILLS.read_text())["mutants"]
    assert kills
    for mutant_id, r in kills.items():
        assert mutant_id in sampled, mutant_id
        assert r["status"] == "killed" and set(r["killed_by"]) <= checks, (mutant_id, r)
    prior = order.prior_kills(json.loads(SAMPLE_KILLS.read_text()))
    assert all(f"id:{i}" in prior for i in kills)
