"""Tiers and capabilities: the one registry of tiers, what each offers, what each check needs.

A *tier* is the kind of cluster a run uses (docs/design.md, "Tiers"). ``TIERS`` is the
registry every choice and branch reads (the command lines' ``--cluster`` choices, the
plugin's ``--modeldock-cluster``, ``ControlPlane``, ``up``, the suite): per tier whether the
harness starts its control plane, the Kubernetes binaries it needs here, what it offers, and
how it runs (``TierSpec``). A *capability* is one
thing a check may need from it. A check declares its needs with
``@pytest.mark.modeldock_needs("pods-ready", ...)``; some needs follow from the fixtures it takes
(``FIXTURE_NEEDS``). Before the run the plugin skips every check whose needs its tier does not
offer, with the reason (``skip_reason``): JUnit ``skipped`` with a message, shown in the report.
A check is never run, and so never passes, on a tier where it could not have failed.

No pytest here: the runner, the report and unit tests import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: The tier a run uses unless told otherwise.
DEFAULT = "envtest"

#: Every capability, with what it means.
CAPABILITIES: dict[str, str] = {
    "no-kubelet": "no Pod ever runs, so a Deployment never has an available replica "
    "(envtest: the status contract's 'not Ready yet' side)",
    "pods-ready": "Pods are scheduled and become Ready (sim: kube-scheduler and kwok fake "
    "nodes), so a Deployment's status counts available replicas",
    "garbage-collector": "kube-controller-manager's garbage collector deletes the dependents of "
    "a vanished owner and completes orphan and foreground deletions",
    "no-garbage-collector": "nothing deletes an object whose ownerReference names a UID that "
    "does not exist (a check that stages such an object)",
    "namespace-controller": "a deleted namespace is emptied and goes away",
    "deployment-controller": "Deployments get ReplicaSets and a status written by the "
    "deployment controller",
    "no-deployment-controller": "nothing but the check writes a Deployment's status (a check "
    "that plays the deployment controller's status writes)",
    "audit-log": "the harness reads the API server's audit log: every user's requests (the "
    "harness's own, the controller-manager's), request bodies, the authorizer's decision",
    "request-accounting": "the harness accounts the operator's own requests (who wrote what, in "
    "which order, with what answer): every operator process runs behind an API proxy that logs "
    "them (harness.accounting)",
    "client-certificates": "the harness can issue client certificates the API server trusts "
    "(one identity per operator instance)",
    "private-control-plane": "the harness starts private control planes of its own for a "
    "check (disruptive checks; the tier's own cluster is untouched)",
    "apiserver-restart": "the harness can stop and restart kube-apiserver under a running operator",
    "etcd-compaction": "the harness can compact etcd so a resumed watch gets 410 Gone",
    "owner-references-permission-enforcement": "the OwnerReferencesPermissionEnforcement "
    "admission plugin is enabled",
}

_HARNESS_OWNED = frozenset(
    {
        "audit-log",
        "client-certificates",
        "private-control-plane",
        "apiserver-restart",
        "etcd-compaction",
        "owner-references-permission-enforcement",
    }
)
_CONTROLLERS = frozenset({"garbage-collector", "namespace-controller", "deployment-controller"})
#: Offered by every tier: the operators' API proxies run wherever the operators do.
_EVERYWHERE = frozenset({"request-accounting"})

#: The Kubernetes binaries of a control plane the harness starts (etcd, kube-apiserver and the
#: kubectl the checks' helpers call); the sim tier's on top.
CONTROL_PLANE_BINARIES = ("etcd", "kube-apiserver", "kubectl")
SIM_BINARIES = ("kube-controller-manager", "kube-scheduler", "kwok")


@dataclass(frozen=True)
class TierSpec:
    """One tier of the registry (``TIERS``): what it is and how a run uses it."""

    name: str
    #: one line, for a ``--help`` text and docs
    summary: str
    #: the harness starts its control plane (``harness.envtest.controlplane.ControlPlane``,
    #: also ``python -m harness up`` and the pytest plugin on their own); else it runs on a
    #: cluster it does not own, set up by ``python -m harness conformance`` around pytest
    harness_starts: bool
    #: the Kubernetes binaries this machine needs for it (``harness.envtest.binaries.ensure``)
    binaries: tuple[str, ...]
    #: what it offers (``CAPABILITIES``); a cluster the harness does not own is asked as well
    #: (``existing_offers``, at the start of the run)
    offers: frozenset[str]
    #: the tier the pytest session runs as (``--modeldock-cluster``, the state file's ``tier``):
    #: the tier itself, except ``kind``, a cluster the harness makes and then runs the
    #: ``existing`` tier on
    session: str
    #: the harness creates the cluster with a container engine (kind), then runs ``session``
    creates_cluster: bool = False
    #: beside its control plane the harness starts kube-controller-manager, kube-scheduler and
    #: kwok fake nodes (``harness.envtest.sim``)
    starts_controllers: bool = False


#: The tier registry, in the order the command lines list them. ``existing`` is a cluster the
#: harness does not own: no audit log to read, no CA to issue identities with, nothing to
#: restart; it is assumed to run a controller-manager, and offers ``pods-ready`` only where its
#: nodes are kwok's (``existing_offers``), since the checks' image ``srv:1`` runs on no real
#: kubelet. ``kind`` runs as ``existing`` on the cluster it makes (``session``).
TIERS: dict[str, TierSpec] = {
    t.name: t
    for t in (
        TierSpec(
            "envtest",
            "etcd + kube-apiserver, started by the harness",
            harness_starts=True,
            binaries=CONTROL_PLANE_BINARIES,
            offers=_EVERYWHERE
            | _HARNESS_OWNED
            | {"no-kubelet", "no-garbage-collector", "no-deployment-controller"},
            session="envtest",
        ),
        TierSpec(
            "sim",
            "envtest + kube-controller-manager, kube-scheduler and kwok fake nodes",
            harness_starts=True,
            binaries=CONTROL_PLANE_BINARIES + SIM_BINARIES,
            offers=_EVERYWHERE | _HARNESS_OWNED | _CONTROLLERS | {"pods-ready"},
            session="sim",
            starts_controllers=True,
        ),
        TierSpec(
            "existing",
            "the cluster of KUBECONFIG (--context), not the harness's",
            harness_starts=False,
            binaries=("kubectl",),
            offers=_EVERYWHERE | _CONTROLLERS,
            session="existing",
        ),
        TierSpec(
            "kind",
            "a kind cluster the harness makes (a container engine), run as existing",
            harness_starts=False,
            binaries=("kubectl",),
            offers=_EVERYWHERE | _CONTROLLERS,
            session="existing",
            creates_cluster=True,
        ),
    )
}

#: What each tier a pytest session runs as offers (``TierSpec.session``; ``kind`` runs as
#: ``existing`` and has no entry of its own).
OFFERS: dict[str, frozenset[str]] = {n: t.offers for n, t in TIERS.items() if t.session == n}


def names(*, started: bool | None = None) -> tuple[str, ...]:
    """The tiers' names in registry order; ``started=True``: only those whose control plane
    the harness starts (envtest, sim), ``False``: only the others."""
    return tuple(n for n, t in TIERS.items() if started is None or t.harness_starts == started)


def spec(name: str) -> TierSpec:
    """The registry's entry for ``name``. Raises ValueError naming the tiers there are."""
    try:
        return TIERS[name]
    except KeyError:
        raise ValueError(f"no tier {name!r}: one of {', '.join(TIERS)}") from None


#: Needs that follow from a fixture a check takes (or one it takes takes: pytest's closure).
#: ``audit_log`` adds none: it is None where the tier has no audit log, and ``operators``
#: takes it; a check that reads the audit log itself says ``needs("audit-log")``.
FIXTURE_NEEDS: dict[str, tuple[str, ...]] = {
    "audit": ("request-accounting",),
    "isolated": ("private-control-plane",),
}

#: What a tier lacks, said once per capability for the skip message.
_WHY_NOT: dict[str, str] = {
    "no-kubelet": "its Pods do become Ready",
    "pods-ready": "no Pod ever becomes Ready there",
    "garbage-collector": "it runs no garbage collector",
    "no-garbage-collector": "its garbage collector deletes such an object on its own",
    "namespace-controller": "it runs no namespace controller",
    "deployment-controller": "it runs no deployment controller",
    "no-deployment-controller": "its deployment controller writes the Deployments' status itself",
    "audit-log": "the harness cannot read its audit log",
    "request-accounting": "the operators do not run behind the harness's API proxies",
    "client-certificates": "the harness holds no CA it trusts",
    "private-control-plane": "the cluster under test is not the harness's to replace",
    "apiserver-restart": "the harness does not own its kube-apiserver",
    "etcd-compaction": "the harness does not own its etcd",
    "owner-references-permission-enforcement": "that admission plugin is not known to be on",
}


def unknown(needs: Iterable[str]) -> list[str]:
    """The names in ``needs`` that are not capabilities (a typo in a marker)."""
    return [n for n in needs if n not in CAPABILITIES]


def missing(offers: Iterable[str], needs: Iterable[str]) -> list[str]:
    """The needs not offered, in the order given, without repeats."""
    have = set(offers)
    out: list[str] = []
    for n in needs:
        if n not in have and n not in out:
            out.append(n)
    return out


def skip_reason(tier: str, offers: Iterable[str], needs: Iterable[str]) -> str | None:
    """The skip message for a check with ``needs`` on ``tier`` offering ``offers``, or None
    when it can run: ``needs pods-ready (Pods are scheduled ...): not offered by the envtest
    tier, no Pod ever becomes Ready there``; several missing needs are joined with ``; ``."""
    lacking = missing(offers, needs)
    if not lacking:
        return None
    return "; ".join(
        f"needs {n} ({CAPABILITIES[n]}): not offered by the {tier} tier, {_WHY_NOT[n]}"
        for n in lacking
    )


def existing_offers(nodes: list[dict[str, Any]]) -> frozenset[str]:
    """What an ``existing`` cluster offers, given its Node objects: ``OFFERS['existing']``,
    plus ``pods-ready`` when it has nodes and every one is kwok's (annotation
    ``kwok.x-k8s.io/node``), where the checks' placeholder image needs no pulling."""
    offers = set(OFFERS["existing"])
    annotated = [
        n
        for n in nodes
        if "kwok.x-k8s.io/node" in ((n.get("metadata") or {}).get("annotations") or {})
    ]
    if nodes and len(annotated) == len(nodes):
        offers.add("pods-ready")
    return frozenset(offers)


@dataclass(frozen=True)
class Tier:
    """The run's tier as the ``tier`` fixture gives it."""

    name: str
    capabilities: frozenset[str]
    kubernetes_version: str

    def offers(self, capability: str) -> bool:
        if capability not in CAPABILITIES:
            raise KeyError(f"unknown capability {capability!r}")
        return capability in self.capabilities
