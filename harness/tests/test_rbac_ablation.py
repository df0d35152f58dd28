"""The RBAC ablation without an API server: the plan against the role, the checks each run
selects, JUnit files to judged runs, the report and its verdict, the comparison section; and
the real role.yaml agrees with harness/rbac/ablation.toml and the least-privilege probes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from harness import checks, report
from harness.rbac import ablation as rbac_ablation
from harness.rbac import role as rbac
from harness.report import html as report_html
from harness.tests.test_report import model

ROLE: dict[str, Any] = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "modeldock-operator"},
    "rules": [
        {
            "apiGroups": ["modeldock.io"],
            "resources": ["modelservices/finalizers"],
            "verbs": ["update"],
        },
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "patch"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
    ],
}
CONFIG: dict[str, Any] = {
    "checks": ["rbac-least-privilege", "create-converges"],
    "modeldock.io/modelservices/finalizers:update": {"shown_by": ["rbac-least-privilege"]},
    "apps/deployments:create": {"shown_by": ["create-converges", "rbac-least-privilege"]},
    "apps/deployments:patch": {"shown_by": ["child-repaired"]},
    "core/events:create": {"pending": "events branch"},
}
FINALIZERS = rbac.Unit("modeldock.io", "modelservices/finalizers", "update")
CREATE = rbac.Unit("apps", "deployments", "create")
PATCH = rbac.Unit("apps", "deployments", "patch")
EVENTS = rbac.Unit("", "events", "create")
BLOCKED = (
    "apps/deployments:create [admission: cannot set blockOwnerDeletion if an "
    "ownerReference refers to a resource you can't set finalizers on]"
)


def case(name: str, failed: str = "", forbidden: list[str] | None = None) -> str:
    props = f'<property name="check" value="{name}"/>'
    if forbidden:
        value = json.dumps(forbidden).replace('"', "&quot;")
        props += f'<property name="forbidden" value="{value}"/>'
    body = f"<properties>{props}</properties>"
    if failed:
        body += f'<failure message="AssertionError: {failed}">long text</failure>'
    return f'<testcase classname="conformance.x" name="{name}" time="1.0">{body}</testcase>'


def junit(path: Path, *cases: str) -> Path:
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" '
        f'tests="{len(cases)}">{"".join(cases)}</testsuite></testsuites>'
    )
    return path


def test_plan_matches_the_role() -> None:
    plan = rbac_ablation.load_plan(ROLE, CONFIG)
    assert plan.units == [FINALIZERS, CREATE, PATCH, EVENTS]
    assert plan.pending == {EVENTS: "events branch"}
    assert plan.checks_for(CREATE, ci=True) == ["create-converges", "rbac-least-privilege"]
    assert plan.checks_for(PATCH, ci=False) == [
        "create-converges",
        "child-repaired",
        "rbac-least-privilege",
    ]
    assert plan.checks_for(None, ci=True) == [
        "create-converges",
        "child-repaired",
        "rbac-least-privilege",
    ]


def test_plan_refuses_a_table_that_does_not_match_the_role() -> None:
    config = {k: v for k, v in CONFIG.items() if k != "apps/deployments:patch"}
    config["apps/deployments:delete"] = {"shown_by": ["finalizer-ordered-delete"]}
    config["core/events:create"] = {"pending": "x", "shown_by": ["parity"]}
    with pytest.raises(rbac.RoleError) as exc:
        rbac_ablation.load_plan(ROLE, config)
    text = str(exc.value)
    assert "'apps/deployments:delete'] is not a unit of the role" in text
    assert "unit apps/deployments:patch of the role has no" in text
    assert "'core/events:create'] needs exactly one of shown_by and pending" in text


def test_plan_refuses_unknown_keys_naming_them() -> None:
    config = {**CONFIG, "check": ["parity"]}
    config["apps/deployments:delete"] = {"shown_by": ["parity"], "shownby": ["x"]}
    with pytest.raises(rbac.RoleError) as exc:
        rbac_ablation.load_plan(ROLE, config)
    text = str(exc.value)
    assert "unknown top-level key 'check'" in text
    assert "['apps/deployments:delete'] has unknown key 'shownby'" in text


def test_exact_functions_tell_a_check_from_its_cases() -> None:
    functions = {
        "leader-failover": ["test_a", "test_b"],
        "leader-failover[partitioned-leader]": ["test_b"],
        "create-converges": ["test_c"],
    }
    assert rbac_ablation.exact_functions(["leader-failover"], functions) == ["test_a"]
    assert rbac_ablation.exact_functions(["leader-failover[partitioned-leader]"], functions) == [
        "test_b"
    ]
    with pytest.raises(Exception, match="no conformance check 'nope'"):
        rbac_ablation.exact_functions(["nope"], functions)


def test_a_failure_counts_only_with_a_403_the_missing_unit_explains(tmp_path: Path) -> None:
    path = junit(
        tmp_path / "f.xml",
        case("rbac-least-privilege", "the operator needed rights", [BLOCKED]),
        case("create-converges", "timed out", ["core/secrets:list"]),
        case("child-repaired"),
    )
    run = rbac_ablation.judge_run(FINALIZERS, rbac_ablation.read_run(path))
    assert run["checks"] == ["create-converges", "child-repaired", "rbac-least-privilege"]
    assert run["needed_by"] == ["rbac-least-privilege"]
    assert run["unexplained"] == ["create-converges"]
    assert run["forbidden"] == [BLOCKED, "core/secrets:list"]
    assert run["failed"]["rbac-least-privilege"]["message"].startswith("AssertionError: the")


def runs(tmp_path: Path, baseline_forbidden: list[str] | None = None) -> dict[str, Any]:
    """go: finalizers and create needed, patch needed by nothing (a failure it does not
    explain), events pending; python: only create was run."""

    def judged(unit: rbac.Unit | None, *cases: str) -> dict[str, Any]:
        path = junit(tmp_path / f"{unit.slug if unit else 'base'}.xml", *cases)
        return rbac_ablation.judge_run(unit, rbac_ablation.read_run(path)) | {"seconds": 2.0}

    go = {
        rbac_ablation.BASELINE: judged(
            None, case("rbac-least-privilege", forbidden=baseline_forbidden)
        ),
        FINALIZERS.id: judged(FINALIZERS, case("rbac-least-privilege", "refused", [BLOCKED])),
        CREATE.id: judged(
            CREATE,
            case("rbac-least-privilege", "refused", [CREATE.id]),
            case("create-converges", "timed out", [CREATE.id]),
        ),
        PATCH.id: judged(PATCH, case("rbac-least-privilege"), case("create-converges", "flaky")),
        EVENTS.id: judged(EVENTS, case("rbac-least-privilege")),
    }
    python = {CREATE.id: judged(CREATE, case("create-converges", "timed out", [CREATE.id]))}
    return {"go": go, "python": python}


def test_report_per_unit_and_verdict(tmp_path: Path) -> None:
    plan = rbac_ablation.load_plan(ROLE, CONFIG)
    data = rbac_ablation.build_report(plan, runs(tmp_path), {"subset": "full", "seconds": 9.0})
    units = data["units"]
    assert units[CREATE.id]["needed_by"] == {
        "create-converges": ["go", "python"],
        "rbac-least-privilege": ["go"],
    }
    assert units[CREATE.id]["refusals"] == [CREATE.id]
    assert units[FINALIZERS.id]["status"] == "needed"
    assert units[FINALIZERS.id]["refusals"] == [BLOCKED]
    assert units[PATCH.id]["status"] == "unneeded"
    assert units[PATCH.id]["missed"] == ["child-repaired"]
    assert units[EVENTS.id]["status"] == "pending"
    v = data["verdict"]
    assert v["ok"] is False and v["unneeded"] == [PATCH.id] and v["uncovered"] == []
    assert v["unexplained"] == {PATCH.id: {"go": ["create-converges"]}}
    text = rbac_ablation.format_table(data)
    assert "apps/deployments:create" in text and "create-converges (go, python)" in text
    assert (
        "verdict: FAIL: rights nothing needs (remove them from role.yaml): "
        "apps/deployments:patch" in text
    )
    json.dumps(data)  # what is written to reports/rbac-ablation.json


def test_a_403_with_the_whole_role_is_a_need_no_rule_covers(tmp_path: Path) -> None:
    plan = rbac_ablation.load_plan(ROLE, {**CONFIG, "apps/deployments:patch": {"pending": "x"}})
    data = rbac_ablation.build_report(plan, runs(tmp_path, ["core/secrets:list"]))
    assert data["verdict"]["unneeded"] == []
    assert data["verdict"]["uncovered"] == ["go: refused core/secrets:list"]
    assert not data["verdict"]["ok"]
    assert "a need no rule covers: go: refused core/secrets:list" in rbac_ablation.format_table(
        data
    )


def test_comparison_report_section(tmp_path: Path) -> None:
    plan = rbac_ablation.load_plan(ROLE, CONFIG)
    data = rbac_ablation.build_report(plan, runs(tmp_path), {"subset": "ci", "seconds": 9.0})
    ablation = report.rbac_ablation(data)
    assert [r.unit for r in ablation.rights] == [u.id for u in plan.units]
    assert ablation.unneeded == [PATCH.id] and ablation.subset == "ci"
    md = report.render_markdown(report.with_sections(model(), ablation=data))
    assert "## RBAC ablation" in md
    assert (
        "| `apps/deployments:create` | `create-converges` (go, python)<br>"
        "`rbac-least-privilege` (go) | `apps/deployments:create` |"
    ) in md
    assert "| `core/events:create` | pending: events branch |  |" in md
    assert "Needed by nothing (to remove from role.yaml): `apps/deployments:patch`." in md
    html = report_html.render_html(report.with_sections(model(), ablation=data))
    assert 'id="rbac-ablation"' in html and 'href="#rbac-ablation"' in html
    assert "Needed by nothing, to remove from role.yaml" in html
    assert 'id="rbac-ablation"' not in report_html.render_html(model())
    assert "RBAC ablation" not in report.render_markdown(model())


# ----------------------------------------------------------------------------- the real role
def test_role_yaml_and_the_ablation_table_agree() -> None:
    """Every unit of config/rbac/role.yaml has a table in harness/rbac/ablation.toml saying
    which checks show it needed (or why it is pending), and no table names a unit the role
    does not grant."""
    plan = rbac_ablation.load_plan(rbac.load_role(), rbac_ablation.read_config())
    assert set(plan.shown_by) | set(plan.pending) == set(plan.units)
    known = checks.check_functions()
    for check in itertools.chain(plan.checks, *plan.shown_by.values()):
        assert check in known, f"no conformance check {check}"


def test_least_privilege_probes_agree_with_role_yaml() -> None:
    """conformance/test_rbac.py's "allowed" column is what role.yaml grants, so the check
    cannot drift from the role (it compares the role in force with the same column)."""
    from conformance.test_rbac import PROBES

    role = rbac.load_role()
    for verb, resource, group, where, allowed in PROBES:
        if where == "<own>":
            assert rbac.grants(role, verb, resource, group) == allowed, (verb, resource)


def test_the_ci_subset_runs_each_unit_against_one_implementation_in_turn() -> None:
    from harness.rbac.ablation import unit_impls

    impls = ["go", "python"]
    assert [unit_impls(impls, i, ci=True) for i in range(4)] == [
        ["go"],
        ["python"],
        ["go"],
        ["python"],
    ]
    assert unit_impls(impls, 3, ci=False) == impls
    assert unit_impls(["go"], 1, ci=True) == ["go"]
