"""Least privilege: the operator does its whole job with only the rights in config/rbac/."""

from __future__ import annotations

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.support import create_modelservice, premise, wait_converged, wait_gone
from harness.audit import select
from harness.kube import Kube

#: (verb, resource, API group, namespace or "<own>"/"<other>"/"" for cluster scope, allowed?)
PROBES = [
    ("watch", "modelservices", "modeldock.io", "<own>", True),
    ("update", "modelservices/status", "modeldock.io", "<own>", True),
    ("create", "deployments", "apps", "<own>", True),
    ("delete", "services", "", "<own>", True),
    ("create", "leases", "coordination.k8s.io", "<own>", True),
    ("list", "secrets", "", "<own>", False),
    ("get", "configmaps", "", "<own>", False),
    ("create", "pods", "", "<own>", False),
    ("delete", "modelservices", "modeldock.io", "<own>", False),
    ("create", "deployments", "apps", "<other>", False),
    ("list", "modelservices", "modeldock.io", "", False),
    ("delete", "namespaces", "", "", False),
    ("create", "clusterrolebindings", "rbac.authorization.k8s.io", "", False),
]


@pytest.mark.check("rbac-least-privilege")
def test_rbac_least_privilege(admin, namespace, operators, audit, impl_kubeconfig, evidence,
                              impl):
    """Every check runs the operator as its own user, bound only to the ClusterRole in
    config/rbac/ through a RoleBinding in its namespace; that is enough for the whole job and
    nothing more.

    An operator is a long-lived process holding credentials: what it may do is what an
    attacker who takes it over may do. Granting only what the reconcile loop needs (its own
    resource, status and finalizers; its children; Leases; Events) in the one namespace it
    watches bounds that damage. Here the user is probed for rights it must and must not have
    (Secrets, other namespaces, cluster scope), a refused request is made for real, and a
    full create-converge-delete cycle runs with no request of the operator refused (no 403
    in the audit log for its user). The probes test the Role the harness binds, premises of
    the check; the operator's part is the cycle: all its work done, nothing refused.
    """
    user = Kube(impl_kubeconfig)
    try:
        results = {}
        wrong = []
        for verb, resource, group, where, allowed in PROBES:
            ns = {"<own>": namespace, "<other>": "default", "": None}[where]
            got = user.can_i(verb, resource, ns, group)
            results[f"{verb} {resource} in {where or 'cluster'}"] = got
            if got != allowed:
                wrong.append(f"{verb} {resource} ({where or 'cluster scope'}): "
                             f"{'allowed' if got else 'refused'}, must be "
                             f"{'allowed' if allowed else 'refused'}")
        evidence.premise("access_review", results)
        try:
            user.list("secrets", namespace)
            status = 200
        except ApiException as exc:
            status = exc.status
        evidence.premise("list_secrets_status", status)
        premise(status == 403, f"listing Secrets as the operator's user must be refused (403), "
                               f"got {status}")
        premise(not wrong, "the Role bound to the operator's user is not least privilege:\n  "
                + "\n  ".join(wrong))
    finally:
        user.close()

    start = audit.sync(admin)
    operators.start()
    create_modelservice(admin, namespace, "web")
    wait_converged(admin, namespace, "web")
    admin.delete("modelservices", namespace, "web")
    wait_gone(admin, "modelservices", namespace, "web")
    end = audit.sync(admin)
    mine = select(audit.requests(start, end), user=impl.user)
    forbidden = sorted({f"{r.verb} {r.target} ns={r.namespace or '-'}" for r in mine
                        if r.code == 403})
    evidence.record("operator_requests", len(mine))
    evidence.record("operator_forbidden", forbidden)
    assert mine, f"no request by {impl.user} in the audit log: the operator did not run as its user"
    assert not forbidden, f"the operator needed rights it was not given: {forbidden}"
