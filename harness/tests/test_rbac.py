"""The role as rule units: cutting, removing one unit, what a refusal is explained by. No API
server."""

from __future__ import annotations

from typing import Any

import pytest

from harness.rbac import role as rbac

ROLE: dict[str, Any] = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "modeldock-operator", "labels": {"team": "ml"}},
    "rules": [
        {
            "apiGroups": ["modeldock.io"],
            "resources": ["modelservices"],
            "verbs": ["list", "watch", "update"],
        },
        {
            "apiGroups": ["modeldock.io"],
            "resources": ["modelservices/finalizers"],
            "verbs": ["update"],
        },
        {
            "apiGroups": ["apps"],
            "resources": ["deployments", "replicasets"],
            "verbs": ["get", "delete"],
        },
        {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create"]},
    ],
}


def atoms(role: dict[str, Any]) -> set[rbac.Unit]:
    return set(rbac.units(role))


def test_units_in_role_order() -> None:
    assert [u.id for u in rbac.units(ROLE)] == [
        "modeldock.io/modelservices:list",
        "modeldock.io/modelservices:watch",
        "modeldock.io/modelservices:update",
        "modeldock.io/modelservices/finalizers:update",
        "apps/deployments:get",
        "apps/deployments:delete",
        "apps/replicasets:get",
        "apps/replicasets:delete",
        "core/events:create",
        "events.k8s.io/events:create",
    ]


@pytest.mark.parametrize("unit", rbac.units(ROLE), ids=lambda u: u.id)
def test_without_removes_exactly_one_unit(unit: rbac.Unit) -> None:
    """Whatever rule holds the unit (one verb of many, one resource of two, one group of
    two), the reduced role grants every other unit and not that one."""
    reduced = rbac.without(ROLE, unit)
    assert atoms(reduced) == atoms(ROLE) - {unit}
    assert reduced["metadata"]["name"] == f"modeldock-operator-without-{unit.slug}"
    assert reduced["metadata"]["labels"] == {"team": "ml", "modeldock.io/ablated": unit.slug}
    assert ROLE["metadata"]["name"] == "modeldock-operator"  # the original is untouched
    assert all(
        rule["verbs"] and rule["resources"] and rule["apiGroups"] for rule in reduced["rules"]
    )


def test_without_a_unit_the_role_lacks_is_an_error() -> None:
    with pytest.raises(rbac.RoleError, match="does not grant apps/deployments:create"):
        rbac.without(ROLE, rbac.Unit("apps", "deployments", "create"))


def test_wildcards_cannot_be_cut() -> None:
    role = {**ROLE, "rules": [{"apiGroups": ["apps"], "resources": ["*"], "verbs": ["get"]}]}
    with pytest.raises(rbac.RoleError, match="wildcard"):
        rbac.units(role)


def test_ids_parse_back_and_slugs_are_label_values() -> None:
    for unit in rbac.units(ROLE):
        assert rbac.Unit.parse(unit.id) == unit
        assert len(unit.slug) <= 63 and unit.slug[0].isalnum() and unit.slug[-1].isalnum()
    assert rbac.Unit.parse("core/services:get") == rbac.Unit("", "services", "get")
    with pytest.raises(rbac.RoleError):
        rbac.Unit.parse("services get")


def test_grants() -> None:
    assert rbac.grants(ROLE, "update", "modelservices/finalizers", "modeldock.io")
    assert not rbac.grants(ROLE, "patch", "modelservices", "modeldock.io")
    assert rbac.grants(ROLE, "create", "events", "")


def test_which_unit_explains_a_refusal() -> None:
    finalizers = rbac.Unit("modeldock.io", "modelservices/finalizers", "update")
    create = rbac.Unit("apps", "deployments", "create")
    delete = rbac.Unit("apps", "deployments", "delete")
    assert create.explains("apps/deployments:create")
    assert not finalizers.explains("apps/deployments:create")
    blocked = (
        "apps/deployments:create [admission: cannot set blockOwnerDeletion if an "
        "ownerReference refers to a resource you can't set finalizers on]"
    )
    assert finalizers.explains(blocked) and not create.explains(blocked)
    reowned = (
        "apps/deployments:update [admission: cannot set an ownerRef on a resource you can't delete]"
    )
    assert delete.explains(reowned) and not create.explains(reowned)
