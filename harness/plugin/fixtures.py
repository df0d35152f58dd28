"""The plugin's fixtures, in thin layers a user can override (see ``harness.plugin``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness import tiers
from harness.accounting import Accounting
from harness.audit import AuditLog
from harness.envtest.controlplane import ControlPlane, ControlPlaneError
from harness.existing.cluster import ExistingCluster, is_existing_state
from harness.junit import PREMISES
from harness.kube import Kube
from harness.lab.namespaces import Namespaces
from harness.lab.pool import Isolated, OperatorPool
from harness.operators import Implementation, get_implementation, parity_reference_id
from harness.plugin import console, options
from harness.plugin.evidence import Evidence
from harness.plugin.markers import check_id, check_texts, junit_name, needs
from harness.plugin.watchdog import ControlPlaneWatchdog
from harness.tiers import Tier


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test (``--modeldock-impl``)."""
    return get_implementation(
        options.value(pytestconfig, "impl"), options.value(pytestconfig, "impl-file")
    )


@pytest.fixture(scope="session")
def reference_impl(pytestconfig: pytest.Config, impl: Implementation) -> Implementation:
    """The implementation the parity check compares ``impl`` with."""
    return get_implementation(
        parity_reference_id(impl.id), options.value(pytestconfig, "impl-file")
    )


@pytest.fixture(scope="session")
def control_plane(
    request: pytest.FixtureRequest, pytestconfig: pytest.Config
) -> Iterator[ControlPlane]:
    """The control plane the suite runs against.

    With ``--modeldock-control-plane-state`` it attaches to a running one (left running afterwards,
    watched by the controlling process); otherwise it starts a control plane of the
    ``--modeldock-cluster`` tier (one the harness starts, ``harness.tiers``) for the session,
    watches it (``ControlPlaneWatchdog``) and stops it at the end.
    """
    state = options.value(pytestconfig, "control-plane-state")
    tier = tiers.spec(options.value(pytestconfig, "cluster"))
    if state and is_existing_state(state):
        cluster = ExistingCluster.attach(state)  # the ControlPlane surface the fixtures use
        yield cluster  # type: ignore[misc]
        cluster.stop()
        return
    if state:
        yield ControlPlane.attach(state)
        return
    if tier.creates_cluster:
        pytest.exit(
            f"--modeldock-cluster={tier.name} needs a container engine (docker or podman) and "
            f"{tier.name} node images; neither is available here. Use "
            f"--modeldock-cluster={tiers.DEFAULT}, or create a {tier.name} cluster elsewhere and "
            f"run with --modeldock-cluster={tier.session}",
            returncode=4,
        )
    if not tier.harness_starts:
        pytest.exit(
            f"--modeldock-cluster={tier.name} is a cluster the plugin does not start: run "
            f"`python -m harness conformance --cluster {tier.name}`",
            returncode=4,
        )
    try:
        cp = ControlPlane(tier=tier.name).start()
    except ControlPlaneError as exc:
        pytest.exit(f"control plane failed to start: {exc}", returncode=3)
    watchdog = ControlPlaneWatchdog(cp.lost, request.session).start()
    try:
        yield cp
    finally:
        watchdog.stop()
        cp.stop()


@pytest.fixture(scope="session")
def tier(pytestconfig: pytest.Config) -> Tier:
    """The run's tier: its name, the capabilities it offers (``harness.tiers``) and the
    Kubernetes version. A check whose outcome differs by tier asks ``tier.offers(...)``."""
    from harness.plugin.hooks import run_tier

    name, offers, version = run_tier(pytestconfig)
    return Tier(name, offers, version)


@pytest.fixture(scope="session")
def lab_namespaces(pytestconfig: pytest.Config) -> Namespaces:
    """How this session makes its namespaces (``harness.lab.namespaces.Namespaces``): the
    operator role in force (``--modeldock-operator-role``, an RBAC ablation variant, or
    ``config/rbac/role.yaml``) and, on an existing cluster, the run's scope."""
    from harness.plugin.hooks import lab_namespaces as chosen

    return chosen(pytestconfig)


@pytest.fixture(scope="session")
def admin(control_plane: ControlPlane) -> Iterator[Kube]:
    """A ``Kube`` client as the cluster admin (``system:masters``)."""
    kube = Kube(control_plane.admin_kubeconfig)
    yield kube
    kube.close()


@pytest.fixture(scope="session")
def audit_log(control_plane: ControlPlane, tier: Tier) -> AuditLog | None:
    """The control plane's audit log, or None where the tier has none (``audit-log`` not
    offered, or a control plane whose ``audit_log`` is None: a cluster the harness does not
    own)."""
    path = getattr(control_plane, "audit_log", None)
    if path is None or not tier.offers("audit-log"):
        return None
    return AuditLog(path)


@pytest.fixture
def audit(
    request: pytest.FixtureRequest, audit_log: AuditLog | None, operators: OperatorPool
) -> Accounting:
    """The request accounting a check reads the operator's requests from
    (``harness.accounting.Accounting``: ``offset``, ``sync``, ``requests``): the audit log
    where the tier has one, else the request logs of the API proxies this test's operators
    run behind (``operators.accounting``); with ``--modeldock-request-accounting proxy`` the proxies
    on every tier. A check that needs the audit log itself (other users' requests, request
    bodies, the authorizer's decision) says ``@pytest.mark.modeldock_needs("audit-log")`` and gets it."""
    forced = options.value(request.config, "request-accounting") == "proxy"
    if audit_log is not None and (not forced or "audit-log" in needs(request.node)):
        return audit_log
    return operators.accounting


@pytest.fixture(scope="session")
def impl_kubeconfig(control_plane: ControlPlane, impl: Implementation) -> Path:
    """The kubeconfig of the implementation's own user (``modeldock:<impl>``)."""
    return control_plane.kubeconfig_for(impl.user)


@pytest.fixture
def namespace(
    request: pytest.FixtureRequest,
    admin: Kube,
    impl: Implementation,
    control_plane: ControlPlane,
    lab_namespaces: Namespaces,
) -> Iterator[str]:
    """A fresh namespace for one test, named after its check, where the implementation's user
    holds the operator role. Deleted afterwards without waiting (in envtest namespaces never
    finish terminating: there is no namespace controller), unless the check failed under
    ``--modeldock-keep-on-failure``: then it stays and is listed in ``<artifacts-dir>/kept.jsonl``."""
    name = lab_namespaces.create(admin, check_id(request.node) or "test", impl.user)
    yield name
    _remove_namespaces(request, admin, control_plane, [name])


@pytest.fixture
def role_namespace(
    request: pytest.FixtureRequest,
    admin: Kube,
    impl: Implementation,
    control_plane: ControlPlane,
    lab_namespaces: Namespaces,
) -> Iterator[Callable[[dict[str, Any]], str]]:
    """A factory of namespaces like ``namespace``'s but bound to another role:
    ``role_namespace(role)`` takes a ClusterRole as a dict (e.g. the role in force less some
    rules) and returns the new namespace's name, named after the check. Every namespace it
    made is deleted after the test, or kept as ``namespace``'s is when the check failed under
    ``--modeldock-keep-on-failure`` (so a failure's evidence is still there to look at)."""
    made: list[str] = []

    def make(role: dict[str, Any]) -> str:
        made.append(lab_namespaces.create(admin, check_id(request.node) or "test", impl.user, role))
        return made[-1]

    yield make
    _remove_namespaces(request, admin, control_plane, made)


def _remove_namespaces(
    request: pytest.FixtureRequest, admin: Kube, control_plane: ControlPlane, names: list[str]
) -> None:
    """Delete ``names`` without waiting, or record them as kept (``console.record_kept``) when
    the test failed under ``--modeldock-keep-on-failure``."""
    for name in names:
        if console.keep(request.node):
            console.record_kept(
                request.node, name, control_plane.admin_kubeconfig, control_plane.audit_log
            )
        else:
            admin.delete("namespaces", None, name)


@pytest.fixture
def operators(
    request: pytest.FixtureRequest,
    impl: Implementation,
    impl_kubeconfig: Path,
    namespace: str,
    audit_log: AuditLog | None,
    tmp_path: Path,
    control_plane: ControlPlane,
) -> Iterator[OperatorPool]:
    """Operator processes for this test's namespace, each behind its own API proxy
    (``OperatorPool``); all stopped after the test. The pool holds the audit log where the
    cluster has one (``audit_log``: None elsewhere, so ``operators`` runs on every tier)."""
    pool = OperatorPool(
        impl,
        impl_kubeconfig,
        namespace,
        tmp_path,
        audit_log,
        issue=lambda groups: control_plane.kubeconfig_for(impl.user, groups),
        serving_ca=getattr(control_plane, "ca", None),
    )
    yield pool
    pool.stop_all()


@pytest.fixture
def isolated(
    request: pytest.FixtureRequest,
    impl: Implementation,
    tmp_path: Path,
    lab_namespaces: Namespaces,
) -> Iterator[Isolated]:
    """Private control planes for disruptive checks: ``lab = isolated.new(watch_cache=False)``,
    their namespaces made as the session's (``lab_namespaces``). Everything is stopped and
    removed after the test."""
    factory = Isolated(impl, check_id(request.node) or "test", tmp_path, lab_namespaces)
    yield factory
    factory.close()


@pytest.fixture
def evidence(
    request: pytest.FixtureRequest, record_property: Any, impl: Implementation
) -> Iterator[Evidence]:
    """Records a check's evidence as JUnit properties, starting with the check id, the
    implementation, and the check's "why" (its docstring's first paragraph) and the rest of
    its docstring ("teaches"), which the comparison report shows. After the test, before
    fixtures are torn down, the plugin accounts the implementation's API requests in the
    test's namespaces (``harness.plugin.evidence.account_item``)."""
    ev = Evidence(record_property)
    cid = check_id(request.node)
    if cid:
        ev.record("check", junit_name(request.node) or cid)
        why, teaches = check_texts(request.node)
        ev.record("why", why)
        ev.record("teaches", teaches)
    ev.record("implementation", impl.id)
    yield ev
    if ev.premise_keys:
        ev.record(PREMISES, ev.premise_keys)
