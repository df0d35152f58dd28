"""pytest plugin of the ModelDock harness (registered through the ``pytest11`` entry point).

It stays quiet until asked (``harness.plugin.options``): in every session it adds its options,
its ini key and its markers, and nothing else; only a session that gives a ``--modeldock-*``
option, sets the ini key ``modeldock = true`` or collects ``conformance/`` gets the rest
(``pytest_configure``, ``hooks.activate``): the hooks, the fixtures, SIGTERM unwinding, the run claim and reaping,
the watchdog, and the skip of ``modeldock_slow`` tests without ``--modeldock-full``.

Modules: ``options`` (the options, the ini key, ``asked``), ``hooks`` (run set-up, verdicts,
artifacts, JUnit names), ``fixtures``,
(the labs, operator pools and namespaces they use are ``harness.lab``'s),
``evidence`` (recording and request accounting), ``markers`` (the ``modeldock_*`` markers),
``watchdog`` (stop the run when the control plane is lost), ``console`` (progress lines,
``--modeldock-check``, keep and pause on failure). This module holds only the two hooks every
session gets, ``pytest_addoption`` and ``pytest_configure``; a session that asked gets
``hooks``, ``console`` and ``fixtures`` registered as plugins, which is how pytest finds their
hooks and fixtures.

Options (each ``--modeldock-<name>``): ``impl`` (which implementation the suite checks),
``cluster`` (control-plane tier), ``control-plane-state`` (use a running control plane),
``impl-file`` (declare more implementations), ``artifacts-dir``, ``operator-role`` (the
ClusterRole the operator's user is bound to: ``config/rbac/role.yaml`` unless the RBAC
ablation passes a reduced copy), ``request-accounting``, ``progress``, ``check``,
``keep-on-failure``, ``full``, ``pause-on-failure``, ``built`` (the implementations are
built already: ``python -m harness conformance`` builds them once).

Fixtures, in thin layers a user can override:

- ``control_plane`` (session): the running ``ControlPlane`` (attached from a state file, or
  started for this session and stopped afterwards, like pytest-django's ``live_server``).
- ``impl`` (session): the ``Implementation`` under test; ``impl_kubeconfig`` its user's
  kubeconfig; ``admin`` a ``Kube`` client as cluster admin; ``audit_log`` the ``AuditLog``
  (None where the tier has none).
- ``audit`` (function): the request accounting (``harness.accounting``): the audit log where
  the tier has one, else the request logs of the API proxies this test's operators run behind.
- ``lab_namespaces`` (session): how the session makes namespaces
  (``harness.lab.namespaces.Namespaces``: the operator role in force, an existing cluster's
  run scope).
- ``namespace`` (function): a fresh namespace, with the operator ClusterRole (the one in force)
  bound to the implementation's user there only.
- ``operators`` (function): starts operator processes in that namespace, each behind an API
  proxy of its own (``OperatorPool``), and stops them after the test; on failure their logs, the namespace's objects and its audit events are saved under
  ``<artifacts-dir>/<impl>/<check>/`` and the failure message points there.
- ``evidence`` (function): records a check's evidence as JUnit properties.

Markers: ``modeldock_check(id)`` names the conformance check (it becomes the JUnit testcase
name), ``modeldock_needs(*capabilities)`` what it needs from the cluster (``harness.tiers``): a check whose
needs the run's tier does not offer is skipped with the reason. The ``tier`` fixture tells a
check which tier it runs on.

A run that loses its control plane stops at once: ``ControlPlaneWatchdog`` polls it (in the
controlling process for ``--modeldock-control-plane-state``, else where the plane was started) and ends
the session with one line, ``control plane lost: ...``, and exit code ``CONTROL_PLANE_LOST``,
instead of letting every remaining check time out against a dead API server.

Nothing a session starts outlives it: the controlling process owns the run
(``harness.runs.claim``) and cleans up after dead runs at start (``harness.runs.reap``);
pytest-xdist workers (started by execnet, not by ``harness.process``) arm
``PR_SET_PDEATHSIG`` themselves, so they die with the controlling process, and their operators
and private control planes with them.
"""

from __future__ import annotations

import pytest

from harness.plugin.options import pytest_addoption


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers (``pytest --markers`` lists them in every session); only in a
    session that asked for it (``options.asked``), register ``hooks``, ``console`` and
    ``fixtures`` as plugins (their hooks and fixtures) and set the run up
    (``hooks.activate``)."""
    from harness.plugin import options
    from harness.plugin.markers import MARKERS

    for line in MARKERS:
        config.addinivalue_line("markers", line)
    if options.asked(config):
        from harness.plugin import console, fixtures, hooks

        for name, plugin in (
            ("modeldock-hooks", hooks),
            ("modeldock-console", console),
            ("modeldock-fixtures", fixtures),
        ):
            config.pluginmanager.register(plugin, name)
        hooks.activate(config)


__all__ = ["pytest_addoption", "pytest_configure"]
