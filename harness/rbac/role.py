"""The operator's ClusterRole as data: its rule units, a copy with one unit removed, and what
it grants.

``config/rbac/role.yaml`` is the one source of the operator's rights. The RBAC ablation
(``harness.rbac.ablation``) shows each right necessary by running checks with that right
taken away; this module cuts the role into those rights and builds the reduced roles. It
talks to no API server.

A *rule unit* is one (API group, resource, verb): the smallest thing RBAC authorizes. Units,
not whole rules or verb groups such as "read", because a group lets a right nothing needs ride
along with one something does (``get`` on Deployments next to ``watch``, which the informer
needs, although the operators read their children from the cache).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness.paths import RBAC_DIR

ROLE_FILE = RBAC_DIR / "role.yaml"

#: The name of the real role; a reduced role is named ``<this>-without-<unit slug>``.
ROLE_NAME = "modeldock-operator"


class RoleError(ValueError):
    """The role cannot be cut into units (a wildcard, resourceNames, a non-resource URL)."""


@dataclass(frozen=True, order=True)
class Unit:
    """One right: ``verb`` on ``resource`` (``resource/subresource``) in API group ``group``
    (``""``: the core group)."""

    group: str
    resource: str
    verb: str

    @property
    def id(self) -> str:
        """``apps/deployments:create``, ``core/services:delete``,
        ``modeldock.io/modelservices/status:update``."""
        return f"{self.group or 'core'}/{self.resource}:{self.verb}"

    @property
    def slug(self) -> str:
        """The id as a DNS label fragment: ``apps-deployments-create``."""
        return re.sub(r"[^a-z0-9]+", "-", self.id.lower()).strip("-")

    def covers(self, verb: str, group: str, resource: str, subresource: str = "") -> bool:
        """Whether a request (as the audit log names it) needs exactly this right."""
        target = f"{resource}/{subresource}" if subresource else resource
        return (verb, group, target) == (self.verb, self.group, self.resource)

    def explains(self, refusal: str) -> bool:
        """Whether taking this right away explains a refusal as the audit log tells it
        (``harness.audit.Request.refusal``): RBAC refused exactly this right, or admission
        (OwnerReferencesPermissionEnforcement) refused a request RBAC allowed for want of it:
        ``update`` on an owner's ``finalizers`` for blockOwnerDeletion, ``delete`` on the
        object for a change of its ownerReferences. The admission message does not name the
        owner's resource, so any ``*/finalizers`` update unit explains the first."""
        right, _, why = refusal.partition(" [admission: ")
        if not why:
            return right == self.id
        if "can't set finalizers on" in why:
            return self.verb == "update" and self.resource.endswith("/finalizers")
        if "can't delete" in why:
            return right.rsplit(":", 1)[0] + ":delete" == self.id
        return False

    @classmethod
    def parse(cls, unit_id: str) -> Unit:
        """The inverse of ``id``. Raises RoleError for a malformed id."""
        m = re.fullmatch(r"([^/:]+)/([^:]+):([a-z]+)", unit_id)
        if not m:
            raise RoleError(
                f"not a rule unit id: {unit_id!r} (shape: <group or core>/"
                "<resource>[/<subresource>]:<verb>)"
            )
        group = "" if m.group(1) == "core" else m.group(1)
        return cls(group, m.group(2), m.group(3))


def load_role(path: Path = ROLE_FILE) -> dict[str, Any]:
    """The ClusterRole in ``path``."""
    role = yaml.safe_load(Path(path).read_text())
    if not isinstance(role, dict) or role.get("kind") != "ClusterRole":
        raise RoleError(f"{path}: not a ClusterRole")
    return role


def _rules(role: Mapping[str, Any]) -> list[dict[str, Any]]:
    rules = list(role.get("rules") or [])
    for i, rule in enumerate(rules):
        if rule.get("nonResourceURLs") or rule.get("resourceNames"):
            raise RoleError(f"rule {i}: nonResourceURLs and resourceNames are not supported")
        for key in ("apiGroups", "resources", "verbs"):
            if "*" in (rule.get(key) or []):
                raise RoleError(
                    f"rule {i}: a wildcard in {key} cannot be cut into units; "
                    "list what the operator needs"
                )
    return rules


def units(role: Mapping[str, Any]) -> list[Unit]:
    """Every unit the role grants, in the role's order (rule, group, resource, verb), once."""
    out: dict[Unit, None] = {}
    for rule in _rules(role):
        for group in rule.get("apiGroups") or [""]:
            for resource in rule.get("resources") or []:
                for verb in rule.get("verbs") or []:
                    out[Unit(group, resource, verb)] = None
    return list(out)


def grants(role: Mapping[str, Any], verb: str, resource: str, group: str = "") -> bool:
    """Whether the role grants ``verb`` on ``resource`` (``resource/subresource``) in ``group``."""
    return Unit(group, resource, verb) in set(units(role))


def variant_name(unit: Unit) -> str:
    return f"{ROLE_NAME}-without-{unit.slug}"


def without(role: Mapping[str, Any], unit: Unit) -> dict[str, Any]:
    """A copy of ``role`` named ``variant_name(unit)`` that grants every unit of ``role`` but
    ``unit``. A rule holding the unit is split: the same rule for its other resources, for
    its other groups, and for the unit's group and resource with the remaining verbs (each
    only if not empty). Comments are lost; labels and annotations are kept. Raises RoleError
    if the role does not grant ``unit``."""
    rules = _rules(role)
    if unit not in set(units(role)):
        raise RoleError(f"the role does not grant {unit.id}")
    out_rules: list[dict[str, Any]] = []
    for rule in rules:
        groups = list(rule.get("apiGroups") or [""])
        resources = list(rule.get("resources") or [])
        verbs = list(rule.get("verbs") or [])
        if unit.group not in groups or unit.resource not in resources or unit.verb not in verbs:
            out_rules.append(copy.deepcopy(rule))
            continue
        others = [r for r in resources if r != unit.resource]
        if others:
            out_rules.append({"apiGroups": groups, "resources": others, "verbs": verbs})
        other_groups = [g for g in groups if g != unit.group]
        if other_groups:
            out_rules.append(
                {"apiGroups": other_groups, "resources": [unit.resource], "verbs": verbs}
            )
        rest = [v for v in verbs if v != unit.verb]
        if rest:
            out_rules.append(
                {"apiGroups": [unit.group], "resources": [unit.resource], "verbs": rest}
            )
    out = copy.deepcopy(dict(role))
    meta = dict(out.get("metadata") or {})
    meta["name"] = variant_name(unit)
    meta["labels"] = {
        **(meta.get("labels") or {}),
        "modeldock.io/ablated": unit.slug[:63].rstrip("-"),
    }
    out["metadata"] = meta
    out["rules"] = out_rules
    return out


def variants(
    role: Mapping[str, Any], chosen: Iterable[Unit] | None = None
) -> dict[Unit, dict[str, Any]]:
    """``without(role, unit)`` for every unit of the role (or the ``chosen`` ones)."""
    return {u: without(role, u) for u in (list(chosen) if chosen is not None else units(role))}


def write_role(role: Mapping[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(dict(role), sort_keys=False))
    return path
