"""The differential oracle's view of two worlds (``oracles.without_residue``): what only the
timing of the path decides is left out the same way in both, and nothing else. Pure; the two
failures it answers are in docs/design.md, "Generated workloads" (seed 4242)."""

from __future__ import annotations

from typing import Any

from harness.generate.oracles import without_residue, world_diff


def _world(reason: str | None, replicas: int = 1, service: bool = True) -> dict[str, Any]:
    """A normalised world: a ModelService whose Ready condition has ``reason`` (none when
    None), its Deployment with ``replicas``, its Service when ``service``."""
    meta = {"name": "gen", "labels": {"app.kubernetes.io/managed-by": "modeldock"}}
    children: dict[str, Any] = {
        "deployments": {"gen": {"metadata": dict(meta), "spec": {"replicas": replicas}}},
        "services": {"gen": {"metadata": dict(meta), "spec": {"ports": [80]}}} if service else {},
    }
    if reason is None:
        return {"modelservices": {}, **children}
    ready = {"type": "Ready", "status": "False", "reason": reason, "message": "refused"}
    ms = {"metadata": {"name": "gen"}, "status": {"conditions": {"Ready": ready}}}
    return {"modelservices": {"gen": ms}, **children}


def test_a_refusal_both_lanes_report_compares_the_reports_not_the_children() -> None:
    # seed 4243: one lane kept its Service, the other could not re-create it
    a, b = _world("FailedUpdate"), _world("FailedUpdate", replicas=9, service=False)
    assert world_diff(a, b) and not world_diff(*without_residue(a, b))
    # the reports still compared (the verb aside: test_..._leaves_the_verb_out)
    other = _world("FailedUpdate", service=False)
    other["modelservices"]["gen"]["status"]["conditions"]["Ready"]["message"] = "another cause"
    assert world_diff(*without_residue(a, other))


def test_a_refusal_one_lane_only_reports_compares_everything() -> None:
    a, b = _world("FailedUpdate"), _world("RolloutComplete", service=False)
    assert world_diff(*without_residue(a, b)) == world_diff(a, b)
    assert any(line.startswith("services.gen") for line in world_diff(*without_residue(a, b)))


def test_orphans_compare_by_metadata_and_presence_not_spec() -> None:
    # seed 4242: the Orphan delete came before python set replicas 7 back to 1
    a, b = _world(None, replicas=1), _world(None, replicas=7)
    assert world_diff(a, b) and not world_diff(*without_residue(a, b))
    # never-adopts: an orphan left behind where the other lane has none is still a difference
    assert world_diff(*without_residue(a, _world(None, service=False)))
    relabelled = _world(None)
    relabelled["services"]["gen"]["metadata"]["labels"] = {"team": "x"}
    assert world_diff(*without_residue(a, relabelled))


def test_live_worlds_are_compared_whole_and_never_changed() -> None:
    a, b = _world("RolloutComplete"), _world("RolloutComplete", replicas=3)
    before = repr(a)
    assert world_diff(*without_residue(a, b)) == world_diff(a, b) != []
    assert repr(a) == before


def test_a_refusal_both_lanes_report_leaves_the_copied_counts_out() -> None:
    """Case python-eb3e67b23a (stop 45's nightly): a rollout played on an orphan the refused
    operators could not adopt, whose events reach no owner: go's status counted 2 replicas,
    python's 3, then the other way round, each as of its last retry. The counts are left
    out where both report a refusal; the conditions are still compared, and the counts
    where one lane does not report one."""
    a, b = _world("FailedUpdate"), _world("FailedUpdate")
    a["modelservices"]["gen"]["status"].update(replicas=2, readyReplicas=2, availableReplicas=2)
    b["modelservices"]["gen"]["status"].update(replicas=3, readyReplicas=3, availableReplicas=3)
    assert world_diff(a, b) and not world_diff(*without_residue(a, b))
    assert "replicas" in a["modelservices"]["gen"]["status"]  # the worlds are not changed
    live = _world("RolloutComplete")
    live["modelservices"]["gen"]["status"]["replicas"] = 3
    assert any("status.replicas" in d for d in world_diff(*without_residue(a, live)))


def test_a_refusal_both_lanes_report_leaves_the_verb_out() -> None:
    """Case refused-create-or-update-after-crash.yaml: a spec edit the Deployment's
    validation refuses came right after the create, after one lane's first Deployment
    create and before the other's; one reported FailedUpdate (its Deployment kept), the
    other FailedCreate. Whether the Deployment exists is the children left out; the cause
    is still compared."""
    a, b = _world("FailedUpdate"), _world("FailedCreate", service=False)
    a["modelservices"]["gen"]["status"]["conditions"]["Ready"]["message"] = (
        'Failed to update Deployment "gen": 422 limits required'
    )
    b["modelservices"]["gen"]["status"]["conditions"]["Ready"]["message"] = (
        'Failed to create Deployment "gen": 422 limits required'
    )
    assert world_diff(a, b) and not world_diff(*without_residue(a, b))
    other = _world("FailedCreate", service=False)
    other["modelservices"]["gen"]["status"]["conditions"]["Ready"]["message"] = (
        'Failed to create Deployment "gen": 403 policy'
    )
    assert world_diff(*without_residue(a, other))  # another cause: still a difference
    assert a["modelservices"]["gen"]["status"]["conditions"]["Ready"]["reason"] == "FailedUpdate"
