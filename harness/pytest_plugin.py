"""pytest plugin of the ModelDock harness (registered through the ``pytest11`` entry point).

Options: ``--impl`` (which implementation the suite checks), ``--cluster`` (control-plane
tier), ``--control-plane-state`` (use a running control plane), ``--impl-file`` (declare more
implementations), ``--artifacts-dir``, ``--operator-role`` (the ClusterRole the operator's user
is bound to: ``config/rbac/role.yaml`` unless the RBAC ablation passes a reduced copy).

Fixtures, in thin layers a user can override:

- ``control_plane`` (session): the running ``ControlPlane`` (attached from a state file, or
  started for this session and stopped afterwards, like pytest-django's ``live_server``).
- ``impl`` (session): the ``Implementation`` under test; ``impl_kubeconfig`` its user's
  kubeconfig; ``admin`` a ``Kube`` client as cluster admin; ``audit`` the ``AuditLog``.
- ``namespace`` (function): a fresh namespace, with the operator ClusterRole (the one in force,
  ``operator_role()``) bound to the implementation's user there only.
- ``operators`` (function): starts operator processes in that namespace and stops them after
  the test; on failure their logs, the namespace's objects and its audit events are saved under
  ``<artifacts-dir>/<impl>/<check>/`` and the failure message points there.
- ``evidence`` (function): records a check's evidence as JUnit properties.

Markers: ``check(id)`` names the conformance check (it becomes the JUnit testcase name),
``tier(name)`` the lowest tier a check needs. The checks the implementation under test declares
in ``expected_failures`` get a strict ``xfail`` with the declared reason (not strict where
declared ``strict = false``: a failure that depends on a race); what actually failed
is kept as the ``xfail_failure`` property. An implementation that declares a ``role`` is bound
to it (unless ``--operator-role`` is given).

A run that loses its control plane stops at once: ``ControlPlaneWatchdog`` polls it (in the
controlling process for ``--control-plane-state``, else where the plane was started) and ends
the session with one line, ``control plane lost: ...``, and exit code ``CONTROL_PLANE_LOST``,
instead of letting every remaining check time out against a dead API server.

Nothing a session starts outlives it: the controlling process owns the run
(``harness.runs.claim``) and cleans up after dead runs at start (``harness.runs.reap``);
pytest-xdist workers (started by execnet, not by ``harness.process``) arm
``PR_SET_PDEATHSIG`` themselves, so they die with the controlling process, and their operators
and private control planes with them.
"""

from __future__ import annotations

import datetime
import inspect
import json
import os
import shutil
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from junitparser import JUnitXml
from kubernetes.client.exceptions import ApiException

from harness import rbac, runs
from harness.audit import AuditLog, Request, instance_group, select, summarize
from harness.controlplane import RBAC_DIR, ControlPlane, ControlPlaneError, state_lost
from harness.kube import Kube
from harness.operators import (
    Implementation,
    ImplementationError,
    OperatorProcess,
    get_implementation,
)
from harness.process import identity_alive, set_death_signal
from harness.report import PREMISES
from harness.verdicts import VERDICT_ERROR, VERDICT_FAIL, PremiseFailed

REPO_ROOT = Path(__file__).resolve().parent.parent
TIERS = ("envtest", "sim", "kind", "existing")

#: pytest's exit code when the session stopped because its control plane was lost (pytest
#: itself uses 0-5).
CONTROL_PLANE_LOST = 6


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("modeldock", "ModelDock conformance harness")
    group.addoption("--impl", default=os.environ.get("MODELDOCK_IMPL", "go"),
                    help="implementation under test, an id from harness/implementations.toml "
                         "or an --impl-file (default: go)")
    group.addoption("--cluster", default="envtest", choices=TIERS,
                    help="control-plane tier: envtest (etcd + kube-apiserver, default), sim "
                         "(+ controller-manager, scheduler, kwok), kind, existing (KUBECONFIG)")
    group.addoption("--control-plane-state", default=os.environ.get("MODELDOCK_CONTROL_PLANE"),
                    help="state.json of a running control plane (from `python -m harness up`); "
                         "default: start one for this session")
    group.addoption("--impl-file", action="append", default=[],
                    help="a TOML file declaring more implementations (see "
                         "harness/implementations.toml)")
    group.addoption("--artifacts-dir", default=str(REPO_ROOT / "reports" / "artifacts"),
                    help="where logs, objects and audit events of failed checks are saved")
    group.addoption("--operator-role", default=os.environ.get("MODELDOCK_OPERATOR_ROLE"),
                    help="a ClusterRole YAML file to bind the operator's user to instead of "
                         "config/rbac/role.yaml (the RBAC ablation passes the role minus one "
                         "right); default: $MODELDOCK_OPERATOR_ROLE, else config/rbac/role.yaml")


#: The ClusterRole file every namespace binds (``--operator-role``), set in pytest_configure.
_ROLE_FILE: Path = rbac.ROLE_FILE


def operator_role() -> dict[str, Any]:
    """The ClusterRole in force for this session: ``config/rbac/role.yaml``, or the file given
    with ``--operator-role`` (an RBAC ablation variant)."""
    return rbac.load_role(_ROLE_FILE)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "check(id, case=None): the conformance check id "
                            "(DESIGN.md section 7) and, for a check made of several cases, which")
    config.addinivalue_line("markers", "tier(name): lowest control-plane tier the check needs")
    global _ROLE_FILE
    chosen = config.getoption("--operator-role", None)
    _ROLE_FILE = Path(chosen).resolve() if chosen else (_declared(config).role or rbac.ROLE_FILE)
    # SIGTERM unwinds like Ctrl-C: pytest then runs fixture teardown (operators stopped,
    # control plane stopped, temp dirs removed).
    signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    if hasattr(config, "workerinput"):
        _die_with_run_owner()
    else:
        runs.claim()
        reaped = runs.reap()
        if reaped:
            print(f"[modeldock] {reaped.describe()}", file=sys.stderr, flush=True)
    config.pluginmanager.register(_SessionWatchdog(config), "modeldock-watchdog")


def _declared(config: pytest.Config) -> Implementation:
    """The implementation under test as declared (an unknown id: one with nothing declared;
    the ``impl`` fixture reports it)."""
    impl_id = config.getoption("--impl", "go")
    try:
        return get_implementation(impl_id, config.getoption("--impl-file", []) or [])
    except ImplementationError:
        return Implementation(id=impl_id, title=impl_id, command=("false",))


def expected_failure(item: pytest.Item, expected: Mapping[str, str]) -> str | None:
    """Why the implementation is declared to fail this check: its ``expected_failures`` entry
    for ``id[case]``, else for the bare check id; None when it is not declared."""
    key = _declared_key(item, expected)
    return expected[key] if key else None


def _declared_key(item: pytest.Item, expected: Mapping[str, str]) -> str | None:
    name = junit_name(item)
    if name is None:
        return None
    return next((k for k in (name, name.split("[")[0]) if k in expected), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each check the implementation under test declares in ``expected_failures`` as a
    strict xfail with the declared reason: it must fail, and an unexpected pass fails."""
    impl = _declared(config)
    for item in items:
        key = _declared_key(item, impl.expected_failures)
        if key:
            item.add_marker(pytest.mark.xfail(strict=key not in impl.unstrict_failures,
                                              reason=impl.expected_failures[key]))


def _die_with_run_owner() -> None:
    """In a pytest-xdist worker: die (SIGKILL) when the controlling process dies. execnet starts
    workers without PR_SET_PDEATHSIG, so a worker arms it for itself; the controller is the
    run's owner (``harness.runs.claim`` in its ``pytest_configure``). If the owner is already
    gone, the worker kills itself now."""
    owner = runs.owner()
    if owner is None:
        return  # not started by a ModelDock controller: nothing to tie to
    if int(owner.split(":")[0]) == os.getppid():
        set_death_signal(signal.SIGKILL)
    if not identity_alive(owner):  # died before the signal was armed: it will never come
        os.kill(os.getpid(), signal.SIGKILL)


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def check_id(item: pytest.Item) -> str | None:
    """The check id from the item's ``check`` marker, or None."""
    marker = item.get_closest_marker("check")
    return str(marker.args[0]) if marker else None


def junit_name(item: pytest.Item) -> str | None:
    """``<check id>`` or ``<check id>[<case>]`` (the marker's ``case``, else the item's
    parametrisation), or None for a test that is not a check."""
    marker = item.get_closest_marker("check")
    if marker is None:
        return None
    if marker.kwargs.get("case"):
        return f"{marker.args[0]}[{marker.kwargs['case']}]"
    suffix = item.name[item.name.index("["):] if "[" in item.name else ""
    return f"{marker.args[0]}{suffix}"


#: Harness modules whose AssertionError is an oracle's on purpose: ``wait_for`` and the API
#: proxy's ``wait_stats`` time out waiting for what the operator must do. An AssertionError
#: raised anywhere else in harness/ is an internal invariant, a harness error.
ORACLE_MODULES = (Path(__file__).parent / "kube.py", Path(__file__).parent / "apiproxy")


def verdict_of(excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    """``fail`` when the check raised AssertionError from its own code (its oracle: an
    ``assert`` in conformance/, or a ``wait_for`` that timed out waiting for what the operator
    must do), else ``error``: a ``PremiseFailed``, an API error of the harness's own requests,
    an AssertionError of an internal invariant of the harness, any other exception."""
    if excinfo is None or not excinfo.errisinstance(AssertionError) \
            or excinfo.errisinstance(PremiseFailed):
        return VERDICT_ERROR
    raised_in = Path(str(excinfo.traceback[-1].path)).resolve()
    harness_dir = Path(__file__).resolve().parent
    if raised_in.is_relative_to(harness_dir) and not any(
            raised_in == m.resolve() or raised_in.is_relative_to(m.resolve())
            for m in ORACLE_MODULES):
        return VERDICT_ERROR
    return VERDICT_FAIL


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and check_id(item) and not any(k == "verdict" for k, _ in item.user_properties):
        # junitxml writes item.user_properties with the teardown report: record it once, for
        # the first phase that failed (a set-up failure is always an error).
        verdict = verdict_of(call.excinfo) if rep.when == "call" else VERDICT_ERROR
        item.user_properties.append(("verdict", verdict))
    if rep.when == "call" and hasattr(rep, "wasxfail") and call.excinfo is not None \
            and check_id(item):
        # a declared expected failure: keep what actually failed next to the declared reason
        item.user_properties.append(("xfail_failure", str(call.excinfo.value)[:2000]))
    if rep.when == "call" and rep.failed and check_id(item):
        try:
            where = _save_artifacts(item)
        except Exception as exc:
            where = f"(saving artifacts failed: {exc})"
        if hasattr(rep.longrepr, "addsection"):
            rep.longrepr.addsection("modeldock artifacts", f"operator logs, objects and audit "
                                                           f"events saved in {where}")
        rep.sections.append(("modeldock artifacts", str(where)))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Name each JUnit testcase after its check (the ``check`` property), once pytest's junitxml
    has written the file: with pytest-xdist the report's nodeid cannot be changed, so the
    file is rewritten here, in the controlling process."""
    path = session.config.getoption("xmlpath", None)
    if not path or hasattr(session.config, "workerinput") or not Path(path).exists():
        return
    rename_junit_cases(Path(path))


def rename_junit_cases(path: Path) -> int:
    """Set every testcase's name to its ``check`` property in the JUnit file at ``path``;
    return how many were renamed."""
    xml = JUnitXml.fromfile(str(path))
    renamed = 0
    for suite in (xml if isinstance(xml, JUnitXml) else [xml]):
        for case in suite:
            for prop in case._elem.iter("property"):
                if prop.get("name") == "check":
                    case.name = prop.get("value")
                    renamed += 1
    xml.write(str(path))
    return renamed


def _artifacts_dir(item: pytest.Item) -> Path:
    impl = item.config.getoption("--impl")
    name = (junit_name(item) or item.name).replace("/", "_")
    return Path(item.config.getoption("--artifacts-dir")) / impl / name


def _save_artifacts(item: pytest.Item) -> Path:
    """Save the operator logs, the namespaces' objects (YAML) and their audit events, for the
    shared lab and every private one the test made."""
    dest = _artifacts_dir(item)
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for i, lab in enumerate(labs_of(item)):
        lab.save_artifacts(dest / f"lab-{i}" if i else dest)
    return dest


def labs_of(item: pytest.Item) -> list[Lab]:
    """The labs a test used: the shared one (if it asked for ``operators``) and its private ones."""
    funcargs = getattr(item, "funcargs", {})
    labs: list[Lab] = []
    if funcargs.get("operators") is not None and funcargs.get("admin") is not None:
        pool = funcargs["operators"]
        labs.append(Lab(None, funcargs["admin"], pool.audit, funcargs["namespace"], pool))
    isolated = funcargs.get("isolated")
    if isolated is not None:
        labs.extend(isolated.labs)
    return labs


def account_requests(item: pytest.Item, user: str, ev: Evidence) -> None:
    """Record the API requests ``user`` made in the test's namespaces, from the audit log:
    counts by verb, resource and code; successful and failed writes; 409s; the order of the
    successful writes; what the operator was refused (``forbidden``: ``Request.refusal`` of
    each 403 not made by the harness's own client, only when there were any); and a timeline
    ``[[seconds since the first, verb, resource, name, code], ...]`` (at most 400 entries) for
    the report's sequence diagrams."""
    reqs: list[Request] = []
    for lab in labs_of(item):
        if lab.audit is not None:
            reqs += select(lab.audit.requests(), user=user, namespace=lab.namespace)
    if not reqs:
        return
    reqs.sort(key=lambda r: r.time)
    writes = [r for r in reqs if r.is_write]
    ev.record("api_requests", summarize(reqs))
    ev.record("writes_ok", sum(1 for r in writes if r.ok))
    ev.record("writes_failed", sum(1 for r in writes if not r.ok))
    ev.record("conflicts_409", sum(1 for r in writes if r.code == 409))
    ev.record("write_order", [f"{r.verb} {r.target} {r.name}" for r in writes if r.ok][:60])
    forbidden = sorted({r.refusal for r in reqs if r.refusal and not r.by_harness})
    if forbidden:
        ev.record("forbidden", forbidden)
    t0 = _seconds(reqs[0].time)
    ev.record("timeline", [[round(_seconds(r.time) - t0, 3), r.verb, r.target, r.name, r.code]
                           for r in reqs[:400]])


def _seconds(stamp: str) -> float:
    """RFC 3339 audit timestamp (microseconds, Z) to epoch seconds."""
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


class Lab:
    """One place a check runs: a control plane, an admin client, its audit log, a namespace
    where the implementation's user holds the operator role, and the operators started there."""

    def __init__(self, control_plane: ControlPlane | None, admin: Kube, audit: AuditLog | None,
                 namespace: str, operators: OperatorPool) -> None:
        self.control_plane = control_plane
        self.admin = admin
        self.audit = audit
        self.namespace = namespace
        self.operators = operators

    def save_artifacts(self, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for i, op in enumerate(self.operators.started):
            if op.log_path.exists():
                shutil.copy(op.log_path, dest / f"operator-{i}.log")
        objects = {res: self.admin.list(res, self.namespace)
                   for res in ("modelservices", "deployments", "services", "leases")}
        for items in objects.values():
            for obj in items:
                obj.get("metadata", {}).pop("managedFields", None)
        (dest / "objects.yaml").write_text(yaml.safe_dump(objects, sort_keys=False))
        if self.audit is not None:
            reqs = select(self.audit.requests(), namespace=self.namespace)
            (dest / "audit.jsonl").write_text(
                "".join(json.dumps(r.__dict__) + "\n" for r in reqs))


# --------------------------------------------------------------------------- fixtures
def pytest_sessionstart(session: pytest.Session) -> None:
    """Build the implementation under test (and the parity reference) once, in the controlling
    process, before any pytest-xdist worker starts an operator."""
    config = session.config
    if hasattr(config, "workerinput") or config.getoption("--collect-only"):
        return
    if not any("conformance" in str(arg) for arg in config.args):
        return  # unit tests: no operator to build
    files = config.getoption("--impl-file")
    impl_id = config.getoption("--impl")
    try:
        get_implementation(impl_id, files).run_build()
        get_implementation(parity_reference_id(impl_id), files).run_build()
    except ImplementationError as exc:
        pytest.exit(str(exc), returncode=4)


class ControlPlaneWatchdog:
    """Stops the pytest session at once, with one line, when its control plane is gone.

    A daemon thread calls ``probe()`` every ``interval`` seconds (``ControlPlane.lost`` or
    ``controlplane.state_lost``: a reason string, or None while the plane runs). On the first
    reason it: SIGTERMs this process's children, the pytest-xdist workers, if ``workers``
    (they unwind: operators and private control planes stopped); in a worker, sets
    ``session.shouldstop`` (its controller then stops the whole run); and raises
    ``pytest.exit("control plane lost: <reason>; stopping the run", CONTROL_PLANE_LOST)`` in
    the main thread, through SIGUSR1 so that a sleep or a blocking read there is cut short
    too. pytest prints that as the session's last line.

    ``start()`` and ``stop()`` must be called from the main thread (they set and restore the
    SIGUSR1 handler); ``stop()`` before the plane is stopped on purpose.
    """

    def __init__(self, probe: Callable[[], str | None], session: pytest.Session, *,
                 workers: bool = False, interval: float = 1.0) -> None:
        self.probe = probe
        self.session = session
        self.workers = workers
        self.interval = interval
        self.reason: str | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._previous: Any = None

    def start(self) -> ControlPlaneWatchdog:
        self._previous = signal.signal(signal.SIGUSR1, self._raise_exit)
        self._thread = threading.Thread(target=self._run, name="modeldock-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            signal.signal(signal.SIGUSR1, self._previous)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                reason = self.probe()
            except Exception:
                continue
            if reason is None:
                continue
            with self._lock:
                if self._stop.is_set():
                    return
                self.reason = reason
                if hasattr(self.session.config, "workerinput"):  # the controller stops the run
                    self.session.shouldstop = f"control plane lost: {reason}"
                if self.workers:
                    for pid in _children():
                        try:
                            os.kill(pid, signal.SIGTERM)
                        except OSError:
                            pass
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)
            return

    def _raise_exit(self, signum: int, frame: Any) -> None:
        if self.reason is not None and not self._stop.is_set():
            self._stop.set()
            pytest.exit(f"control plane lost: {self.reason}; stopping the run",
                        returncode=CONTROL_PLANE_LOST)


def _children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``, Linux ≥ 3.5)."""
    pids: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


class _SessionWatchdog:
    """Runs a ``ControlPlaneWatchdog`` on the ``--control-plane-state`` plane in the controlling
    process (or the only one), from session start to session finish."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.watchdog: ControlPlaneWatchdog | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        state = self.config.getoption("--control-plane-state")
        if (not state or not Path(state).exists() or hasattr(self.config, "workerinput")
                or self.config.getoption("--collect-only")):
            return
        self.watchdog = ControlPlaneWatchdog(
            lambda: state_lost(state), session,
            workers=self.config.pluginmanager.has_plugin("dsession")).start()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
            self.watchdog = None


def parity_reference_id(impl_id: str) -> str:
    """The implementation a parity check compares against: the Go reference, or for the Go
    reference itself its Python twin."""
    return "python" if impl_id == "go" else "go"


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test (``--impl``)."""
    return get_implementation(pytestconfig.getoption("--impl"),
                              pytestconfig.getoption("--impl-file"))


@pytest.fixture(scope="session")
def reference_impl(pytestconfig: pytest.Config, impl: Implementation) -> Implementation:
    """The implementation the parity check compares ``impl`` with."""
    return get_implementation(parity_reference_id(impl.id), pytestconfig.getoption("--impl-file"))


@pytest.fixture(scope="session")
def control_plane(request: pytest.FixtureRequest,
                  pytestconfig: pytest.Config) -> Iterator[ControlPlane]:
    """The control plane the suite runs against.

    With ``--control-plane-state`` it attaches to a running one (left running afterwards,
    watched by the controlling process); otherwise it starts an envtest control plane for the
    session, watches it (``ControlPlaneWatchdog``) and stops it at the end.
    """
    state = pytestconfig.getoption("--control-plane-state")
    tier = pytestconfig.getoption("--cluster")
    if state:
        yield ControlPlane.attach(state)
        return
    if tier == "kind":
        pytest.exit("--cluster=kind needs a container engine (docker or podman) and kind node "
                    "images; neither is available here. Use --cluster=envtest, or create a kind "
                    "cluster elsewhere and run with --cluster=existing", returncode=4)
    if tier not in ("envtest",):
        pytest.exit(f"--cluster={tier} is not available from the pytest plugin alone yet: start it "
                    f"with `python -m harness up --cluster {tier}` and pass "
                    f"--control-plane-state", returncode=4)
    try:
        cp = ControlPlane().start()
    except ControlPlaneError as exc:
        pytest.exit(f"control plane failed to start: {exc}", returncode=3)
    watchdog = ControlPlaneWatchdog(cp.lost, request.session).start()
    try:
        yield cp
    finally:
        watchdog.stop()
        cp.stop()


@pytest.fixture(scope="session")
def admin(control_plane: ControlPlane) -> Iterator[Kube]:
    """A ``Kube`` client as the cluster admin (``system:masters``)."""
    kube = Kube(control_plane.admin_kubeconfig)
    yield kube
    kube.close()


@pytest.fixture(scope="session")
def audit(control_plane: ControlPlane) -> AuditLog:
    """The control plane's audit log."""
    return AuditLog(control_plane.audit_log)


@pytest.fixture(scope="session")
def impl_kubeconfig(control_plane: ControlPlane, impl: Implementation) -> Path:
    """The kubeconfig of the implementation's own user (``modeldock:<impl>``)."""
    return control_plane.kubeconfig_for(impl.user)


def ensure_cluster_role(admin: Kube, role: dict[str, Any]) -> None:
    """Create the ClusterRole, or update its rules if they differ from ``role``'s (a control
    plane left up while role.yaml changed; an ablation variant on a private control plane)."""
    name = role["metadata"]["name"]
    for _ in range(3):
        live = admin.get("clusterroles", None, name)
        try:
            if live is None:
                admin.create("clusterroles", None, role)
            elif live.get("rules") != role.get("rules"):
                admin.update("clusterroles", {**live, "rules": role.get("rules")})
            return
        except ApiException as exc:
            if exc.status != 409:  # another xdist worker wrote it meanwhile: look again
                raise
    raise ControlPlaneError(f"ClusterRole {name} kept changing under us")


def bind_operator_role(admin: Kube, namespace: str, user: str,
                       role: dict[str, Any] | None = None) -> None:
    """Apply ``config/rbac/role_binding.yaml`` in ``namespace`` for ``user`` only, bound to
    ``role`` (default: the role in force, ``operator_role()``), which is created if absent."""
    role = role or operator_role()
    ensure_cluster_role(admin, role)
    binding = yaml.safe_load((RBAC_DIR / "role_binding.yaml").read_text())
    binding["metadata"]["namespace"] = namespace
    binding["roleRef"]["name"] = role["metadata"]["name"]
    binding["subjects"] = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]
    admin.create("rolebindings", namespace, binding)


@pytest.fixture
def namespace(request: pytest.FixtureRequest, admin: Kube, impl: Implementation) -> Iterator[str]:
    """A fresh namespace for one test, named after its check, where the implementation's user
    holds the operator role. Deleted afterwards without waiting (in envtest namespaces never
    finish terminating: there is no namespace controller)."""
    name = create_namespace(admin, check_id(request.node) or "test", impl.user)
    yield name
    admin.delete("namespaces", None, name)


def create_namespace(admin: Kube, label: str, user: str,
                     role: dict[str, Any] | None = None) -> str:
    """Create ``md-<label>-<random>`` with ``role`` (default: the operator role in force)
    bound to ``user``; return its name. Labels: ``modeldock.io/check`` (``label``) and, under a
    reduced role of the RBAC ablation, ``modeldock.io/ablated`` (the right it lacks, as the
    role's label says)."""
    role = role or operator_role()
    name = f"md-{label[:30]}-{uuid.uuid4().hex[:6]}".replace("_", "-")
    labels = {"modeldock.io/check": label}
    ablated = (role["metadata"].get("labels") or {}).get("modeldock.io/ablated")
    if ablated:
        labels["modeldock.io/ablated"] = str(ablated)[:63]
    admin.create("namespaces", None, {"apiVersion": "v1", "kind": "Namespace",
                                      "metadata": {"name": name, "labels": labels}})
    bind_operator_role(admin, name, user, role)
    return name


class OperatorPool:
    """Starts operator instances for one test and stops them all afterwards."""

    def __init__(self, impl: Implementation, kubeconfig: Path, namespace: str, logs: Path,
                 audit: AuditLog | None = None,
                 issue: Callable[[tuple[str, ...]], Path] | None = None) -> None:
        self.impl = impl
        self.audit = audit
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.logs = logs
        self.started: list[OperatorProcess] = []
        #: issues a kubeconfig of the implementation's user in the given groups
        self._issue = issue

    def instance_kubeconfig(self, instance: str) -> Path:
        """A kubeconfig of the implementation's user (same CN, so the same RBAC binding) whose
        certificate also names group ``modeldock:instance:<instance>``: the audit log then
        attributes each request to this one instance."""
        if self._issue is None:
            raise RuntimeError("this operator pool cannot issue instance identities")
        return self._issue((instance_group(instance),))

    def new(self, **options: Any) -> OperatorProcess:
        """An ``OperatorProcess`` for this namespace, not started (options as its fields).
        With ``instance="<name>"`` and no ``kubeconfig``, it runs with that instance's own
        identity (``instance_kubeconfig``)."""
        if options.get("instance") and "kubeconfig" not in options:
            options["kubeconfig"] = self.instance_kubeconfig(options["instance"])
        options.setdefault("kubeconfig", self.kubeconfig)
        options.setdefault("namespace", self.namespace)
        options.setdefault("impl", self.impl)
        op = OperatorProcess(
                             log_path=self.logs / f"operator-{len(self.started)}.log", **options)
        self.started.append(op)
        return op

    def start(self, crash_at: str | None = None, wait_ready: bool = True,
              **options: Any) -> OperatorProcess:
        """Start an instance and (by default) wait until it is ready."""
        return self.new(**options).start(crash_at=crash_at, wait_ready=wait_ready)

    def stop_all(self) -> None:
        for op in self.started:
            op.terminate(timeout=10)


@pytest.fixture
def operators(request: pytest.FixtureRequest, impl: Implementation, impl_kubeconfig: Path,
              namespace: str, audit: AuditLog, tmp_path: Path,
              control_plane: ControlPlane) -> Iterator[OperatorPool]:
    """Operator processes for this test's namespace; all stopped after the test."""
    pool = OperatorPool(impl, impl_kubeconfig, namespace, tmp_path, audit,
                        issue=lambda groups: control_plane.kubeconfig_for(impl.user, groups))
    yield pool
    pool.stop_all()


class Isolated:
    """Factory of private labs: each ``new()`` starts its own control plane, for checks that
    restart the API server, compact etcd or turn the watch cache off, so that other checks
    (and pytest-xdist workers) on the shared control plane are not disturbed."""

    def __init__(self, impl: Implementation, check: str, tmp_path: Path) -> None:
        self.impl = impl
        self.check = check
        self.tmp_path = tmp_path
        self.labs: list[Lab] = []
        self._planes: list[ControlPlane] = []

    def new(self, *, watch_cache: bool = True) -> Lab:
        """Start a private control plane (``watch_cache=False``: kube-apiserver
        ``--watch-cache=false``), make a namespace there and return the Lab."""
        cp = ControlPlane(watch_cache=watch_cache).start()
        self._planes.append(cp)
        admin = Kube(cp.admin_kubeconfig)
        ns = create_namespace(admin, self.check, self.impl.user)
        logs = self.tmp_path / f"lab-{len(self.labs)}"
        logs.mkdir()
        audit = AuditLog(cp.audit_log)
        user = self.impl.user
        pool = OperatorPool(self.impl, cp.kubeconfig_for(user), ns, logs, audit,
                            issue=lambda groups: cp.kubeconfig_for(user, groups))
        lab = Lab(cp, admin, audit, ns, pool)
        self.labs.append(lab)
        return lab

    def close(self) -> None:
        for lab in self.labs:
            lab.operators.stop_all()
            lab.admin.close()
        for cp in self._planes:
            cp.stop()


@pytest.fixture
def isolated(request: pytest.FixtureRequest, impl: Implementation,
             tmp_path: Path) -> Iterator[Isolated]:
    """Private control planes for disruptive checks: ``lab = isolated.new(watch_cache=False)``.
    Everything is stopped and removed after the test."""
    factory = Isolated(impl, check_id(request.node) or "test", tmp_path)
    yield factory
    factory.close()


class Evidence:
    """A check's evidence, recorded as JUnit properties (``record_property``).

    ``record(key, value)``: value is stored as JSON if it is not a string. ``values`` keeps
    what was recorded, for failure messages.
    """

    def __init__(self, record_property: Any) -> None:
        self._record = record_property
        self.values: dict[str, Any] = {}
        #: the keys recorded with ``premise``, in order
        self.premise_keys: list[str] = []

    def record(self, key: str, value: Any) -> Any:
        self.values[key] = value
        self._record(key, value if isinstance(value, str) else json.dumps(value, sort_keys=True))
        return value

    def premise(self, key: str, value: Any) -> Any:
        """Record ``value`` like ``record``, as evidence of a premise: what the experiment
        established (the API server refused a stale write, the CRD refused a bad spec), not
        what the operator did. After the check the keys are listed in the ``premises``
        property, so the reports label them and never present them as the operator's proof.
        Pair it with ``conformance.support.premise`` to stop the check when it does not hold."""
        if key not in self.premise_keys:
            self.premise_keys.append(key)
        return self.record(key, value)


@pytest.fixture
def evidence(request: pytest.FixtureRequest, record_property: Any,
             impl: Implementation) -> Iterator[Evidence]:
    """Records a check's evidence as JUnit properties, starting with the check id, the
    implementation, and the check's "why" (its docstring's first paragraph) and the rest of
    its docstring ("teaches"), which the comparison report shows. After the test, the
    implementation's API requests in the test's namespaces are accounted (``account_requests``)."""
    ev = Evidence(record_property)
    cid = check_id(request.node)
    if cid:
        ev.record("check", junit_name(request.node) or cid)
        doc = inspect.getdoc(getattr(request.node, "function", None)) or ""
        paragraphs = doc.split("\n\n")
        ev.record("why", " ".join(paragraphs[0].split()))
        ev.record("teaches", " ".join(" ".join(paragraphs[1:]).split()))
    ev.record("implementation", impl.id)
    yield ev
    if ev.premise_keys:
        ev.record(PREMISES, ev.premise_keys)
    if cid:
        try:
            account_requests(request.node, impl.user, ev)
        except Exception as exc:
            ev.record("accounting_error", str(exc))
