"""pytest plugin of the ModelDock harness (registered through the ``pytest11`` entry point).

Modules: ``hooks`` (options, run set-up, verdicts, artifacts, JUnit names), ``fixtures``,
``lab`` (labs, operator pools, namespaces: the surface the bench and mutant runner use),
``evidence`` (recording and request accounting), ``markers`` (the ``check`` marker),
``watchdog`` (stop the run when the control plane is lost), ``console`` (progress lines,
``--check``, keep and pause on failure). This module re-exports the hooks
and fixtures, which is how pytest finds them.

Options: ``--impl`` (which implementation the suite checks), ``--cluster`` (control-plane
tier), ``--control-plane-state`` (use a running control plane), ``--impl-file`` (declare more
implementations), ``--artifacts-dir``, ``--operator-role`` (the ClusterRole the operator's user
is bound to: ``config/rbac/role.yaml`` unless the RBAC ablation passes a reduced copy).

Fixtures, in thin layers a user can override:

- ``control_plane`` (session): the running ``ControlPlane`` (attached from a state file, or
  started for this session and stopped afterwards, like pytest-django's ``live_server``).
- ``impl`` (session): the ``Implementation`` under test; ``impl_kubeconfig`` its user's
  kubeconfig; ``admin`` a ``Kube`` client as cluster admin; ``audit_log`` the ``AuditLog``
  (None where the tier has none).
- ``audit`` (function): the request accounting (``harness.accounting``): the audit log where
  the tier has one, else the request logs of the API proxies this test's operators run behind.
- ``namespace`` (function): a fresh namespace, with the operator ClusterRole (the one in force,
  ``operator_role()``) bound to the implementation's user there only.
- ``operators`` (function): starts operator processes in that namespace, each behind an API
  proxy of its own (``OperatorPool``), and stops them after the test; on failure their logs, the namespace's objects and its audit events are saved under
  ``<artifacts-dir>/<impl>/<check>/`` and the failure message points there.
- ``evidence`` (function): records a check's evidence as JUnit properties.

Markers: ``check(id)`` names the conformance check (it becomes the JUnit testcase name),
``needs(*capabilities)`` what it needs from the cluster (``harness.tiers``): a check whose
needs the run's tier does not offer is skipped with the reason. The ``tier`` fixture tells a
check which tier it runs on.

A run that loses its control plane stops at once: ``ControlPlaneWatchdog`` polls it (in the
controlling process for ``--control-plane-state``, else where the plane was started) and ends
the session with one line, ``control plane lost: ...``, and exit code ``CONTROL_PLANE_LOST``,
instead of letting every remaining check time out against a dead API server.

Nothing a session starts outlives it: the controlling process owns the run
(``harness.runs.claim``) and cleans up after dead runs at start (``harness.runs.reap``);
pytest-xdist workers (started by execnet, not by ``harness.envtest.process``) arm
``PR_SET_PDEATHSIG`` themselves, so they die with the controlling process, and their operators
and private control planes with them.
"""

from harness.junit import PREMISES
from harness.plugin.console import pytest_runtest_logreport
from harness.plugin.evidence import Evidence, account_requests
from harness.plugin.fixtures import (
    admin,
    audit,
    audit_log,
    control_plane,
    evidence,
    impl,
    impl_kubeconfig,
    isolated,
    namespace,
    operators,
    reference_impl,
    tier,
)
from harness.plugin.hooks import (
    TIERS,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_makereport,
    pytest_runtest_teardown,
    pytest_sessionfinish,
    pytest_sessionstart,
    verdict_of,
)
from harness.plugin.lab import (
    Isolated,
    Lab,
    OperatorPool,
    bind_operator_role,
    create_namespace,
    ensure_cluster_role,
    operator_role,
    parity_reference_id,
)
from harness.plugin.markers import check_id, junit_name
from harness.plugin.watchdog import CONTROL_PLANE_LOST, ControlPlaneWatchdog

__all__ = [
    "CONTROL_PLANE_LOST",
    "PREMISES",
    "TIERS",
    "ControlPlaneWatchdog",
    "Evidence",
    "Isolated",
    "Lab",
    "OperatorPool",
    "account_requests",
    "admin",
    "audit",
    "audit_log",
    "bind_operator_role",
    "check_id",
    "control_plane",
    "create_namespace",
    "ensure_cluster_role",
    "evidence",
    "impl",
    "impl_kubeconfig",
    "isolated",
    "junit_name",
    "namespace",
    "operator_role",
    "operators",
    "parity_reference_id",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_runtest_logreport",
    "pytest_runtest_makereport",
    "pytest_runtest_teardown",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "reference_impl",
    "tier",
    "verdict_of",
]
