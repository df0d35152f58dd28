"""The envtest control plane, for real: starts, authenticates users, authorizes by RBAC, logs
audit events, restarts on the same port, compacts etcd, is shared through its state file, and
leaves nothing behind. Needs the Kubernetes binaries (built on first use)."""

from __future__ import annotations

import base64
import time
import urllib.error
from pathlib import Path

import pytest
from kubernetes.client.exceptions import ApiException

from harness.audit import AuditLog, instance_group, select
from harness.envtest.controlplane import ControlPlane
from harness.kube import Kube
from harness.process import pid_alive


def test_users_are_authenticated_and_bound_by_rbac(cp: ControlPlane) -> None:
    user = Kube(cp.kubeconfig_for("modeldock:test"))
    try:
        with pytest.raises(ApiException) as exc:
            user.list("modelservices", "default")
        assert exc.value.status == 403
        assert "modeldock:test" in (exc.value.body or "")
    finally:
        user.close()


def test_block_owner_deletion_needs_the_owners_finalizers_right(cp: ControlPlane) -> None:
    """OwnerReferencesPermissionEnforcement is on: a user who may create ConfigMaps may give
    one a ModelService owner, but setting blockOwnerDeletion needs update on
    modelservices/finalizers, and with that right it is allowed."""
    admin = Kube(cp.admin_kubeconfig)
    ns = "owner-refs"
    rbac_v1 = "rbac.authorization.k8s.io"
    try:
        admin.create("namespaces", None, {"metadata": {"name": ns}})
        owner = admin.create(
            "modelservices",
            ns,
            {
                "apiVersion": "modeldock.io/v1alpha1",
                "kind": "ModelService",
                "metadata": {"name": "owner"},
                "spec": {"model": "m", "image": "i:1"},
            },
        )
        ref = {
            "apiVersion": "modeldock.io/v1alpha1",
            "kind": "ModelService",
            "name": "owner",
            "uid": owner["metadata"]["uid"],
            "blockOwnerDeletion": True,
        }
        for user, rules in (
            (
                "modeldock:no-finalizers",
                [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}],
            ),
            (
                "modeldock:finalizers",
                [
                    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
                    {
                        "apiGroups": ["modeldock.io"],
                        "resources": ["modelservices/finalizers"],
                        "verbs": ["update"],
                    },
                ],
            ),
        ):
            name = user.split(":")[1]
            admin.create("roles", ns, {"metadata": {"name": name}, "rules": rules})
            admin.create(
                "rolebindings",
                ns,
                {
                    "metadata": {"name": name},
                    "roleRef": {"apiGroup": rbac_v1, "kind": "Role", "name": name},
                    "subjects": [{"apiGroup": rbac_v1, "kind": "User", "name": user}],
                },
            )
        time.sleep(1)  # RBAC sees new bindings a moment after they are written
        without = Kube(cp.kubeconfig_for("modeldock:no-finalizers"))
        with_right = Kube(cp.kubeconfig_for("modeldock:finalizers"))
        try:
            with pytest.raises(ApiException) as refused:
                without.create(
                    "configmaps", ns, {"metadata": {"name": "a", "ownerReferences": [ref]}}
                )
            assert refused.value.status == 403
            assert "cannot set blockOwnerDeletion" in (refused.value.body or "")
            ref.pop("blockOwnerDeletion")
            without.create("configmaps", ns, {"metadata": {"name": "b", "ownerReferences": [ref]}})
            ref["blockOwnerDeletion"] = True
            with_right.create(
                "configmaps", ns, {"metadata": {"name": "c", "ownerReferences": [ref]}}
            )
        finally:
            without.close()
            with_right.close()
    finally:
        admin.close()


def test_crd_installed_with_short_name(cp: ControlPlane) -> None:
    out = cp.kubectl("api-resources", "--api-group=modeldock.io", "-o", "name")
    assert "modelservices.modeldock.io" in out


def test_audit_log_records_who_did_what(cp: ControlPlane) -> None:
    admin = Kube(cp.admin_kubeconfig)
    try:
        audit = AuditLog(cp.audit_log)
        start = audit.sync(admin)
        admin.create("namespaces", None, {"metadata": {"name": "audit-probe"}})
        end = audit.sync(admin)
        mine = select(audit.requests(start, end), user="admin", writes_only=True)
        assert [r.describe() for r in mine] == ["create namespaces audit-probe -> 201"]
    finally:
        admin.close()


def test_instances_of_one_user_are_told_apart_by_their_group(cp: ControlPlane) -> None:
    """Two instances of one operator: same user (same RBAC), each its own certificate with
    group modeldock:instance:<name>; the audit log attributes each request to one of them."""
    admin = Kube(cp.admin_kubeconfig)
    user = "modeldock:instances"
    kubes = {name: Kube(cp.kubeconfig_for(user, (instance_group(name),))) for name in ("a", "b")}
    try:
        assert cp.kubeconfig_for(user, (instance_group("a"),)) != cp.kubeconfig_for(user)
        audit = AuditLog(cp.audit_log)
        start = audit.sync(admin)
        for name, kube in kubes.items():
            with pytest.raises(ApiException) as exc:
                kube.get("configmaps", "default", f"probe-{name}")
            assert exc.value.status == 403  # the user, not the group, is what RBAC sees here
        end = audit.sync(admin)
        mine = select(audit.requests(start, end), user=user)
        assert [(r.instance, r.name) for r in mine] == [("a", "probe-a"), ("b", "probe-b")]
        assert [r.name for r in select(mine, instance="b")] == ["probe-b"]
    finally:
        admin.close()
        for kube in kubes.values():
            kube.close()


def test_restart_keeps_port_and_data(cp: ControlPlane) -> None:
    admin = Kube(cp.admin_kubeconfig)
    try:
        admin.create("namespaces", None, {"metadata": {"name": "survives-restart"}})
        server = cp.server
        cp.restart_apiserver()
        assert cp.server == server
        assert admin.get("namespaces", None, "survives-restart") is not None
    finally:
        admin.close()


def _etcd_read_at(cp: ControlPlane, revision: int) -> str:
    """Read a key at ``revision`` straight from etcd: "ok", or etcd's error text."""
    key = base64.b64encode(b"/registry/namespaces/default").decode()
    try:
        cp._etcd_post("/v3/kv/range", {"key": key, "revision": str(revision)})
    except urllib.error.HTTPError as exc:
        return exc.read().decode(errors="replace")
    return "ok"


def test_compaction_makes_older_revisions_unreadable(cp: ControlPlane) -> None:
    admin = Kube(cp.admin_kubeconfig)
    try:
        old = cp.etcd_revision()
        admin.create("namespaces", None, {"metadata": {"name": "compaction-probe"}})
    finally:
        admin.close()
    assert cp.etcd_revision() > old
    assert _etcd_read_at(cp, old) == "ok", "before compacting, the old revision is readable"
    compacted = cp.compact_etcd()
    assert compacted > old
    assert "compacted" in _etcd_read_at(cp, old), "the old revision must be gone"
    assert _etcd_read_at(cp, compacted) == "ok"


def test_attach_shares_the_running_plane(cp: ControlPlane) -> None:
    other = ControlPlane.attach(cp.state_path)
    assert other.server == cp.server
    other.stop()  # attached: must leave the plane running
    assert cp.apiserver is not None and cp.apiserver.running()
    assert Path(other.kubeconfig_for("modeldock:attached")).exists()


def test_stop_leaves_nothing_behind() -> None:
    plane = ControlPlane().start()
    pids = [p.pid for p in (plane.etcd, plane.apiserver) if p is not None]
    workdir = plane.workdir
    plane.stop()
    assert not workdir.exists()
    assert not any(pid_alive(pid) for pid in pids if pid)
