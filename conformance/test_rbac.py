"""Least privilege: the operator does its whole job with only the rights in config/rbac/."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.support import (
    APISERVER_SYNC_TIMEOUT,
    CONVERGE_TIMEOUT,
    GROUP_VERSION,
    OPERATOR_START_TIMEOUT,
    create_modelservice,
    get_present,
    is_converged,
    leader_timeout,
    premise,
    refused_requests,
    status_of,
    wait_unrefused,
)
from harness.accounting import Accounting
from harness.audit import select
from harness.envtest.controlplane import ControlPlane
from harness.faults.apiproxy.records import RequestLog, seconds
from harness.kube import Kube, wait_for
from harness.lab.namespaces import Namespaces
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence
from harness.rbac import role as rbac

#: (verb, resource, API group, namespace or "<own>"/"<other>"/"" for cluster scope, allowed?)
#: "allowed" is what config/rbac/role.yaml grants; under a reduced role (the RBAC ablation) a
#: right the role in force lacks must be refused instead.
PROBES = [
    ("watch", "modelservices", "modeldock.io", "<own>", True),
    ("update", "modelservices/status", "modeldock.io", "<own>", True),
    ("update", "modelservices/finalizers", "modeldock.io", "<own>", True),
    ("create", "deployments", "apps", "<own>", True),
    ("delete", "services", "", "<own>", True),
    ("create", "leases", "coordination.k8s.io", "<own>", True),
    ("list", "secrets", "", "<own>", False),
    ("get", "configmaps", "", "<own>", False),
    ("create", "pods", "", "<own>", False),
    ("delete", "modelservices", "modeldock.io", "<own>", False),
    ("patch", "modelservices", "modeldock.io", "<own>", False),
    ("list", "leases", "coordination.k8s.io", "<own>", False),
    ("create", "deployments", "apps", "<other>", False),
    ("list", "modelservices", "modeldock.io", "", False),
    ("delete", "namespaces", "", "", False),
    ("create", "clusterrolebindings", "rbac.authorization.k8s.io", "", False),
]

LEASE_NAME = "modeldock.lab"

#: A user with no right on modelservices/finalizers, for the admission probe.
PROBE_USER = "modeldock-probe:no-finalizers"

#: Leader election for the operator's cycle: the Lease is part of its job. A 1 s retry period
#: renews the Lease several times during the cycle.
LEASE = (15.0, 10.0, 1.0)


def until(
    what: str,
    done: Callable[[], bool],
    audit: Accounting,
    start: int,
    user: str,
    namespace: str,
    timeout: float = CONVERGE_TIMEOUT,
) -> None:
    """Wait until ``done()``; fail at once, naming the refused requests, as soon as the audit
    log shows the operator refused anything (a missing right never heals by waiting)."""
    wait_unrefused(
        done, bool, timeout, what, audit=audit, start=start, user=user, namespace=namespace
    )


def block_owner_deletion_refused(
    admin: Kube, control_plane: ControlPlane, namespace: str
) -> dict[str, object]:
    """The control plane's OwnerReferencesPermissionEnforcement at work: a user who may create
    ConfigMaps but has no right on modelservices/finalizers may give one a ModelService owner,
    but not with blockOwnerDeletion. Returns what each attempt got."""
    admin.create(
        "roles",
        namespace,
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "probe-no-finalizers"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}],
        },
    )
    admin.create(
        "rolebindings",
        namespace,
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "probe-no-finalizers"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": "probe-no-finalizers",
            },
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": PROBE_USER}
            ],
        },
    )
    owner = create_modelservice(admin, namespace, "owner-probe")
    ref = {
        "apiVersion": GROUP_VERSION,
        "kind": "ModelService",
        "name": "owner-probe",
        "uid": owner["metadata"]["uid"],
    }
    probe = Kube(control_plane.kubeconfig_for(PROBE_USER))
    try:
        # RBAC sees a new binding a moment after it is written: retry the plain create.
        wait_for(
            lambda: probe.create(
                "configmaps",
                namespace,
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "owned", "ownerReferences": [ref]},
                },
            ),
            bool,
            APISERVER_SYNC_TIMEOUT,
            f"{PROBE_USER} to create a ConfigMap owned by a ModelService",
            premise=True,
        )
        with pytest.raises(ApiException) as blocked:
            probe.create(
                "configmaps",
                namespace,
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {
                        "name": "owned-blocking",
                        "ownerReferences": [ref | {"blockOwnerDeletion": True}],
                    },
                },
            )
    finally:
        probe.close()
        admin.delete("modelservices", namespace, "owner-probe")  # no finalizer yet: gone now
    premise(
        blocked.value.status == 403 and "blockOwnerDeletion" in (blocked.value.body or ""),
        "the control plane must refuse blockOwnerDeletion to a user without update on "
        "modelservices/finalizers (OwnerReferencesPermissionEnforcement); got "
        f"{blocked.value.status}: {blocked.value.body}",
    )
    return {
        "without_blockOwnerDeletion": "created",
        "with_blockOwnerDeletion": blocked.value.status,
    }


@pytest.mark.modeldock_needs("audit-log")
@pytest.mark.modeldock_check("rbac-least-privilege")
def test_rbac_least_privilege(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    impl_kubeconfig: Path,
    evidence: Evidence,
    impl: Implementation,
    control_plane: ControlPlane,
    lab_namespaces: Namespaces,
) -> None:
    """Every check runs the operator as its own user, bound only to the ClusterRole in
    config/rbac/ through a RoleBinding in its namespace; that is enough for the whole job and
    nothing more.

    An operator is a long-lived process holding credentials: what it may do is what an
    attacker who takes it over may do. Granting only what the reconcile loop needs (its own
    resource, status and finalizers; its children; Leases; Events) in the one namespace it
    watches bounds that damage. Here the user is probed for rights it must and must not have
    (Secrets, other namespaces, cluster scope), a refused request is made for real, the
    control plane is shown to refuse blockOwnerDeletion to a user without the owner's
    finalizers right (the OwnerReferencesPermissionEnforcement admission plugin, which is what
    that right is for), and a full cycle runs (take the Lease, create, converge, repair
    hand-edited children, delete, renew the Lease), with no request of the operator refused (no 403 in the
    audit log for its user; the check fails at the first one, which makes it the quick
    witness of the RBAC ablation). The probes test the Role the harness binds and the
    control plane, premises of the check; the operator's part is the cycle: all its work done,
    nothing refused.
    """
    role = lab_namespaces.role()
    evidence.record("role", role["metadata"]["name"])
    user = Kube(impl_kubeconfig)
    try:
        # RBAC sees the namespace's RoleBinding a moment after it is written (its authorizer
        # reads informers): wait until a right the Role gives here is allowed, or the first
        # probes can read as refused (seen: "watch modelservices (<own>): refused").
        granted = [
            (v, r, g)
            for v, r, g, where, listed in PROBES
            if where == "<own>" and listed and rbac.grants(role, v, r, g)
        ]
        premise(
            bool(granted),
            f"the Role {role['metadata']['name']} grants none of the rights probed in the "
            "operator's namespace: nothing to wait for",
        )
        verb, resource, group = granted[0]
        wait_for(
            lambda: user.can_i(verb, resource, namespace, group),
            bool,
            APISERVER_SYNC_TIMEOUT,
            f"the RoleBinding to give the operator's user {verb} {resource} in its namespace",
            premise=True,
        )
        results = {}
        wrong = []
        for verb, resource, group, where, in_role_yaml in PROBES:
            allowed = in_role_yaml and rbac.grants(role, verb, resource, group)
            ns = {"<own>": namespace, "<other>": "default", "": None}[where]
            got = user.can_i(verb, resource, ns, group)
            results[f"{verb} {resource} in {where or 'cluster'}"] = got
            if got != allowed:
                wrong.append(
                    f"{verb} {resource} ({where or 'cluster scope'}): "
                    f"{'allowed' if got else 'refused'}, must be "
                    f"{'allowed' if allowed else 'refused'}"
                )
        evidence.premise("access_review", results)
        status = status_of(lambda: user.list("secrets", namespace))
        evidence.premise("list_secrets_status", status)
        premise(
            status == 403,
            f"listing Secrets as the operator's user must be refused (403), got {status}",
        )
        premise(
            not wrong,
            "the Role bound to the operator's user is not least privilege:\n  "
            + "\n  ".join(wrong),
        )
    finally:
        user.close()
    evidence.premise(
        "block_owner_deletion_probe", block_owner_deletion_refused(admin, control_plane, namespace)
    )

    start = audit.sync(admin)
    op = operators.start(wait_ready=False, leader_election=True, lease=LEASE)

    def ready() -> bool:
        if not op.running():
            raise AssertionError(f"the operator exited with code {op.returncode()}")
        return op.ready()

    until(
        "the operator to be ready",
        ready,
        audit,
        start,
        impl.user,
        namespace,
        timeout=OPERATOR_START_TIMEOUT,  # not CONVERGE_TIMEOUT, which CI shortens to 20 s
    )

    def lease() -> dict[str, Any]:
        return (admin.get("leases", namespace, LEASE_NAME) or {}).get("spec") or {}

    until(
        f"the operator to take Lease {LEASE_NAME}",
        lambda: bool(lease().get("holderIdentity")),
        audit,
        start,
        impl.user,
        namespace,
        timeout=leader_timeout(LEASE),
    )
    taken = lease().get("renewTime")
    create_modelservice(admin, namespace, "web")
    until(
        "ModelService web to converge",
        lambda: is_converged(admin, namespace, "web") is not None,
        audit,
        start,
        impl.user,
        namespace,
    )
    # Repairs: the operator updates its children back to the spec.
    spec = get_present(admin, "modelservices", namespace, "web")["spec"]
    port, replicas = spec["port"], spec["replicas"]
    admin.patch("deployments", namespace, "web", {"spec": {"replicas": replicas + 4}})
    admin.patch(
        "services",
        namespace,
        "web",
        {
            "spec": {
                "ports": [
                    {"name": "http", "port": port + 1, "targetPort": "http", "protocol": "TCP"}
                ]
            }
        },
    )

    def repaired() -> bool:
        dep = admin.get("deployments", namespace, "web") or {}
        svc = admin.get("services", namespace, "web") or {}
        return (dep.get("spec") or {}).get("replicas") == replicas and [
            p["port"] for p in (svc.get("spec") or {}).get("ports") or []
        ] == [port]

    until(
        "the edited Deployment and Service to be repaired",
        repaired,
        audit,
        start,
        impl.user,
        namespace,
    )
    admin.delete("modelservices", namespace, "web")
    until(
        "ModelService web to be deleted",
        lambda: admin.get("modelservices", namespace, "web") is None,
        audit,
        start,
        impl.user,
        namespace,
    )
    until(
        f"the operator to renew Lease {LEASE_NAME}",
        lambda: lease().get("renewTime") != taken,
        audit,
        start,
        impl.user,
        namespace,
        timeout=leader_timeout(LEASE),
    )
    end = audit.sync(admin)
    mine = [
        r
        for r in select(audit.requests(start, end), user=impl.user)
        if r.namespace in (namespace, "")
    ]
    forbidden = refused_requests(audit, start, impl.user, namespace)
    evidence.record("operator_requests", len(mine))
    evidence.record("operator_rights_used", sorted({r.right for r in mine if r.ok and r.resource}))
    evidence.record("operator_forbidden", forbidden)
    assert mine, f"no request by {impl.user} in the audit log: the operator did not run as its user"
    assert not forbidden, f"the operator needed rights it was not given: {forbidden}"


#: How long an operator whose lists are all refused may take to exit after SIGTERM: it has
#: started nothing (no worker, no Lease), so it has nothing to wait for.
REFUSED_STOP_S = 10.0


def without_rights(role: dict[str, Any]) -> dict[str, Any]:
    """``role`` (a ClusterRole as a dict) with no rule at all and ``-none`` added to its name;
    the input is not changed. Bound in a namespace, it grants the operator's user nothing
    there."""
    return {
        **role,
        "metadata": {**role["metadata"], "name": f"{role['metadata']['name']}-none"},
        "rules": [],
    }


@pytest.mark.modeldock_check("rbac-least-privilege", case="stops-while-refused")
def test_stops_while_refused(
    operators: OperatorPool,
    evidence: Evidence,
    lab_namespaces: Namespaces,
    role_namespace: Callable[[dict[str, Any]], str],
) -> None:
    """rbac-least-privilege[stops-while-refused]: an operator whose every list is refused
    (403) still stops on SIGTERM, at once and with exit code 0.

    A RoleBinding in the wrong namespace, or a CRD not installed yet, is the usual first
    deployment: the operator's informers list, get 403 (or 404), and retry with backoff for
    ever, and the process waits for caches that never sync. It must still obey a SIGTERM:
    the rollout that fixes the binding, or `kubectl delete`, sends one, and an operator that
    ignores it is SIGKILLed after the grace period, every time. controller-runtime v0.22's
    manager goes on waiting for its caches after the signal; the Go operator stops by itself
    then. Here the operator watches a namespace of its own where its user has no right (a
    role with no rule is bound there), and is SIGTERMed once its API proxy has seen a list
    refused.
    """
    # Named after the check, as every check's namespace is (the mutation score's coverage
    # finds a process's check by its WATCH_NAMESPACE: in namespace default this case was
    # credited with no line, and pastCacheWait's ticker was never judged by it).
    ns = role_namespace(without_rights(lab_namespaces.role()))
    code = refused_then_stopped(operators, ns, evidence)
    assert code == 0, (
        "after SIGTERM the operator, whose lists were all refused, "
        + (
            f"did not exit within {REFUSED_STOP_S:.0f} s and was SIGKILLed"
            if code == -9
            else f"exited with code {code}"
        )
        + ": waiting for caches that cannot sync must not outlast a stop request; exit 0 at once"
    )


def refused_then_stopped(operators: OperatorPool, namespace: str, evidence: Evidence) -> int | None:
    """Start an operator watching ``namespace``, wait (a premise, OPERATOR_START_TIMEOUT) for
    its API proxy to see a list refused with 403, SIGTERM it and return its exit code (-9 when
    it was SIGKILLed after REFUSED_STOP_S; None if it never ended); the code and the seconds
    from the signal to the exit are recorded in ``evidence``."""
    op = operators.start(namespace=namespace, wait_ready=False)
    proxy = operators.proxy_of(op)
    refused = wait_for(
        lambda: [
            f"{r.verb} {r.resource} {r.code}"
            for r in RequestLog(proxy.request_log).records()
            if r.verb == "list" and r.code == 403
        ],
        bool,
        # The process starts, then lists: its first request, not an API server catching up
        # (a Python operator's start took 7 s of this beside a loaded make test, and once
        # more than 10 s, the APISERVER_SYNC_TIMEOUT this used to be).
        OPERATOR_START_TIMEOUT,
        f"the operator's first list in namespace {namespace} to be refused (403)",
        premise=True,
    )
    evidence.record("refused_before_sigterm", sorted(set(refused)))
    started = time.monotonic()
    code = op.terminate(timeout=REFUSED_STOP_S)
    took = round(time.monotonic() - started, 2)
    evidence.record("sigterm_exit", {"code": code, "seconds": took})
    return code


#: The informers' backoff after a failed list or watch start (CONTRACT.md, "Watches"): the
#: n-th refusal in a row of one resource's watch is followed by at least
#: WATCH_BACKOFF_BASE_S * 2**(n-1) of quiet before the next watch of it (client-go's reflector:
#: 0.8 s doubling up to 30 s, times a jitter factor in [1, 2); Python: in [1, 1.2)).
WATCH_BACKOFF_BASE_S = 0.8
#: How many refused watches of each resource the case waits for: three gaps, 0.8 s, 1.6 s and
#: 3.2 s at least (5.6 s), at most twice that with client-go's jitter.
WATCH_REFUSALS = 4
#: Slack under each bound: the proxy's timestamps are cut to microseconds and a timer never
#: fires early; a watch sent again at once, or after a fixed 50 ms, is far below it.
WATCH_BACKOFF_GRACE_S = 0.02
#: How long the case waits for those refusals beyond the operator's start, seconds: twice the
#: longest backoff they can take (client-go's jitter doubles a delay at most).
WATCH_REFUSALS_WAIT_S = 2 * WATCH_BACKOFF_BASE_S * 2**WATCH_REFUSALS
#: The resources the operator's informers watch in its namespace.
WATCHED = ("modelservices", "deployments", "services")


def without_watch(role: dict[str, Any]) -> dict[str, Any]:
    """``role`` (a ClusterRole as a dict) with the verb ``watch`` taken from every rule and
    ``-nowatch`` added to its name; the input is not changed."""
    rules = [
        {**rule, "verbs": [v for v in rule.get("verbs") or [] if v != "watch"]}
        for rule in role.get("rules") or []
    ]
    meta = {**role["metadata"], "name": f"{role['metadata']['name']}-nowatch"}
    return {**role, "metadata": meta, "rules": rules}


@pytest.mark.modeldock_check("rbac-least-privilege", case="watch-refused")
def test_refused_watches_back_off(
    operators: OperatorPool,
    evidence: Evidence,
    lab_namespaces: Namespaces,
    role_namespace: Callable[[dict[str, Any]], str],
) -> None:
    """rbac-least-privilege[watch-refused]: an operator that may list but not watch retries
    its refused watches with backoff. In a namespace whose role is the operator's own minus
    every ``watch``, each informer lists, then its watch is refused (403); the next watch of
    that resource must reach the operator's API proxy no sooner than 0.8 s after the first
    refusal was answered, 1.6 s after the second, 3.2 s after the third (the reflector's
    backoff, doubling per failure in a row; the proxy's clock).

    A missing verb is a deployment mistake that only a person fixes, and fixing it takes
    minutes; an informer that sends its watch again at once meanwhile makes hundreds of
    refused requests a second, each one authorized, audited and logged by an API server
    that every other client shares. client-go's reflector waits 0.8 s after the first
    failure of a list or a watch, doubling up to 30 s (with a random factor up to 2); the
    Go operator relists before each watch, the Python one watches again from the list's
    resourceVersion, and both must wait.
    """
    # Named after the check, as every check's namespace is (the mutation score's coverage
    # finds a process's check by its WATCH_NAMESPACE).
    ns = role_namespace(without_watch(lab_namespaces.role()))
    op = operators.start(namespace=ns, wait_ready=False)
    proxy = operators.proxy_of(op)

    def refused() -> dict[str, list[tuple[float, float]]]:
        by: dict[str, list[tuple[float, float]]] = {r: [] for r in WATCHED}
        for r in RequestLog(proxy.request_log).records():
            if r.verb == "watch" and r.code == 403 and r.resource in by:
                by[r.resource].append((seconds(r.start), seconds(r.end or r.start)))
        return {r: sorted(times) for r, times in by.items()}

    seen = wait_for(
        refused,
        lambda by: all(len(times) >= WATCH_REFUSALS for times in by.values()),
        OPERATOR_START_TIMEOUT + WATCH_REFUSALS_WAIT_S,
        f"{WATCH_REFUSALS} refused watches (403) of each of {', '.join(WATCHED)}: a "
        "refused watch is retried with backoff for as long as the process runs",
    )
    op.terminate(timeout=REFUSED_STOP_S)
    early = []
    gaps: dict[str, list[dict[str, float]]] = {}
    for resource, times in seen.items():
        origin = times[0][0]
        for n in range(1, WATCH_REFUSALS):
            gap = times[n][0] - times[n - 1][1]
            bound = WATCH_BACKOFF_BASE_S * 2 ** (n - 1)
            gaps.setdefault(resource, []).append(
                {"after_refusal": n, "at_s": round(times[n][0] - origin, 3), "gap_s": round(gap, 3)}
            )
            if gap < bound - WATCH_BACKOFF_GRACE_S:
                early.append(f"{resource}: {gap:.3f} s after refusal {n}, at least {bound:g} s")
    evidence.record("refused_watch_gaps", gaps)
    assert not early, (
        f"the operator sent its refused watches again too soon: {'; '.join(early)}. A failed "
        "list or watch start is retried after 0.8 s, doubling per failure in a row up to 30 s "
        '(client-go\'s reflector backoff; CONTRACT.md, "Watches")'
    )
