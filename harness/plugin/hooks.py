"""The plugin's pytest hooks, registered only in a session that asked for ModelDock
(``harness.plugin.options``): set-up of a run (``activate``), verdicts and artifacts of
checks, and the JUnit testcase names.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from harness import junit, panics, runs, say
from harness.envtest import binaries
from harness.existing.cluster import is_existing_state, read_state, run_scope
from harness.lab.namespaces import Namespaces
from harness.operators import ImplementationError, build_for_suite, get_implementation
from harness.paths import REPO_ROOT
from harness.plugin import console, expected, options
from harness.plugin.evidence import Evidence, account_item, labs_of
from harness.plugin.markers import check_id, check_texts, junit_name, needs
from harness.plugin.watchdog import _SessionWatchdog
from harness.process import identity_alive, set_death_signal
from harness.rbac import role as rbac
from harness.verdicts import VERDICT_ERROR, VERDICT_FAIL, PremiseFailed

#: Where the run's tier and what it offers are kept on the config (``run_tier``).
_TIER_KEY = pytest.StashKey[tuple[str, frozenset[str], str]]()

#: How this session makes its namespaces (``lab_namespaces``), set by ``activate``.
_NAMESPACES_KEY = pytest.StashKey[Namespaces]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the checks ``--modeldock-check`` chose, skip those the tier cannot judge
    (``modeldock_needs``), then mark the ones the implementation under test declares it fails
    (``harness.plugin.expected``)."""
    console.select(config, items)
    console.long_first(items)
    console.skip_slow(config, items)
    skip_unmet_needs(config, items)
    expected.mark(config, items)


def activate(config: pytest.Config) -> None:
    """Set up a session that asked for ModelDock (``harness.plugin.options.asked``), once its
    hooks and fixtures are registered: choose the operator role and an existing cluster's run
    scope for the session's namespaces (``lab_namespaces``), make SIGTERM unwind like Ctrl-C, claim the run and reap dead runs (the
    controlling process) or die with the run's owner (a pytest-xdist worker), and register the
    control-plane watchdog. Called once, from ``harness.plugin.pytest_configure``."""
    console.configure(config)
    chosen = options.value(config, "operator-role")
    # --modeldock-operator-role (the RBAC ablation), else the role the implementation
    # declares, else config/rbac/role.yaml
    role = Path(chosen) if chosen else expected.declared(config).role
    state = options.value(config, "control-plane-state")
    # on an existing cluster: namespaces labelled with the run, users bound as ServiceAccounts
    scope = run_scope(read_state(state)) if state and is_existing_state(state) else None
    config.stash[_NAMESPACES_KEY] = Namespaces(role.resolve() if role else rbac.ROLE_FILE, scope)
    # SIGTERM unwinds like Ctrl-C: pytest then runs fixture teardown (operators stopped,
    # control plane stopped, temp dirs removed).
    runs.unwind_on_sigterm()
    if hasattr(config, "workerinput"):
        _die_with_run_owner()
    else:
        runs.own(say.line)
    config.pluginmanager.register(_SessionWatchdog(config), "modeldock-watchdog")


def _die_with_run_owner() -> None:
    """In a pytest-xdist worker: die (SIGKILL) when the controlling process dies. execnet starts
    workers without PR_SET_PDEATHSIG, so a worker arms it for itself; the controller is the
    run's owner (``harness.runs.claim`` in its ``activate``). If the owner is already
    gone, the worker kills itself now."""
    owner = runs.owner()
    if owner is None:
        return  # not started by a ModelDock controller: nothing to tie to
    if int(owner.split(":")[0]) == os.getppid():
        set_death_signal(signal.SIGKILL)
    if not identity_alive(owner):  # died before the signal was armed: it will never come
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.hookimpl(tryfirst=True, specname="pytest_sessionfinish")
def ignore_sigterm_once_finishing(session: pytest.Session) -> None:
    """From the end of the session on, SIGTERM is ignored: the checks are done, and a
    KeyboardInterrupt raised in sessionfinish or unconfigure escapes pytest as a traceback
    on the harness's terminal (seen: the harness stopped a suite that was already ending
    because the control plane was lost). Whoever sent it kills the process group if the end
    takes long (``harness.process.run_group``, ``harness.suite.run_together``)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Build the implementation under test (and the parity reference) once, in the controlling
    process, before any pytest-xdist worker starts an operator (``operators.build_for_suite``);
    not when ``--modeldock-built`` says the run that started the session built them."""
    config = session.config
    if hasattr(config, "workerinput") or config.getoption("--collect-only"):
        return
    if not options.collects_conformance(config):
        return  # a session that asked but runs no checks: no operator to build
    if options.value(config, "built"):
        return  # built once by the run that started this session (harness.suite)
    try:
        build_for_suite(options.value(config, "impl"), options.value(config, "impl-file"))
    except ImplementationError as exc:
        pytest.exit(str(exc), returncode=4)


def lab_namespaces(config: pytest.Config) -> Namespaces:
    """How this session makes its namespaces: the operator role file (``--modeldock-operator-role``,
    else the one the implementation declares, else ``config/rbac/role.yaml``) and, on an
    existing cluster, the run's scope (``activate`` chose them)."""
    return config.stash.get(_NAMESPACES_KEY, Namespaces())


def run_tier(config: pytest.Config) -> tuple[str, frozenset[str], str]:
    """(tier, capabilities it offers, Kubernetes version) of this run. The tier is the one in
    the ``--modeldock-control-plane-state`` file when given (the control plane says what it is), else
    ``--modeldock-cluster``; an ``existing`` cluster is asked what it offers (``harness.tiers``)."""
    import json

    from harness import tiers

    if _TIER_KEY in config.stash:
        return config.stash[_TIER_KEY]
    tier = options.value(config, "cluster")
    state = options.value(config, "control-plane-state")
    version = ""
    if state:
        try:
            data = json.loads(Path(state).read_text())
            tier = data.get("tier", tier)
            version = str(data.get("kubernetes_version", ""))
        except (OSError, ValueError):
            pass
    offers = tiers.OFFERS.get(tier, frozenset())
    if tier in tiers.TIERS and not tiers.spec(tier).harness_starts:
        # the run asked the cluster before pytest started (harness.existing.run.Run)
        if not state:
            raise pytest.UsageError(
                f"--modeldock-cluster={tier} is set up by `python -m harness conformance --cluster "
                f"{tier}` (KUBECONFIG, --context), which passes --modeldock-control-plane-state"
            )
        data = read_state(state)
        offers, version = frozenset(data.get("capabilities") or ()), data["kubernetes_version"]
    if not version:
        try:
            version = "v" + binaries.kubernetes_version()
        except Exception:
            version = "unknown"
    config.stash[_TIER_KEY] = (tier, frozenset(offers), version)
    return config.stash[_TIER_KEY]


def skip_unmet_needs(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip each check whose needs (``modeldock_needs`` markers and fixtures) the run's tier does not
    offer, with the reason; the JUnit testcase still carries its check name, the tier and the
    reason. An unknown capability name is a usage error."""
    from harness import tiers

    checks = [item for item in items if check_id(item)]
    if not checks:
        return
    tier, offers, _version = run_tier(config)
    for item in checks:
        wanted = needs(item)
        bad = tiers.unknown(wanted)
        if bad:
            raise pytest.UsageError(
                f"{item.nodeid}: unknown capability {bad} in "
                f"@pytest.mark.modeldock_needs; known: {sorted(tiers.CAPABILITIES)}"
            )
        reason = tiers.skip_reason(tier, offers, wanted)
        if reason and not any(k == "skip_reason" for k, _ in item.user_properties):
            item.add_marker(pytest.mark.skip(reason=reason))
            item.user_properties.append(("check", junit_name(item) or check_id(item)))
            item.user_properties.append(("skip_reason", reason))
            # what the check proves, so the report teaches it where it did not run
            why, teaches = check_texts(item)
            item.user_properties += [("why", why), ("teaches", teaches)]
        item.user_properties.append(("tier", tier))


#: Harness modules whose AssertionError is an oracle's on purpose: ``wait_for`` and the API
#: proxy's ``wait_stats`` time out waiting for what the operator must do; ``harness.panics``
#: fails every check whose operators logged a panic (``pytest_runtest_call``). An AssertionError
#: raised anywhere else in harness/ is an internal invariant, a harness error.
HARNESS_DIR = Path(__file__).resolve().parent.parent


ORACLE_MODULES = (
    HARNESS_DIR / "kube.py",
    HARNESS_DIR / "faults" / "apiproxy",
    HARNESS_DIR / "panics.py",
)


def verdict_of(excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    """``fail`` when the check raised AssertionError from its own code (its oracle: an
    ``assert`` in conformance/, or a ``wait_for`` that timed out waiting for what the operator
    must do), else ``error``: a ``PremiseFailed``, an API error of the harness's own requests,
    an AssertionError of an internal invariant of the harness, any other exception."""
    if (
        excinfo is None
        or not excinfo.errisinstance(AssertionError)
        or excinfo.errisinstance(PremiseFailed)
    ):
        return VERDICT_ERROR
    raised_in = Path(str(excinfo.traceback[-1].path)).resolve()
    if raised_in.is_relative_to(HARNESS_DIR) and not any(
        raised_in == m.resolve() or raised_in.is_relative_to(m.resolve()) for m in ORACLE_MODULES
    ):
        return VERDICT_ERROR
    return VERDICT_FAIL


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Around a check's body, the suite-wide oracle "a reconcile never panics"
    (``harness.panics``; CONTRACT.md, "A reconcile never panics"): once the body has ended,
    while its operators still run, the log of every operator process the check started (in
    the shared lab and in private ones) is read, and a panic logged there fails
    the check with ``fail`` (``OperatorPanicked``, raised in an oracle module), naming each
    panic's log file, line and frame; the lines are also recorded as ``operator_panics``.
    A body that failed its own oracle keeps that failure; one that passed, or ended in an
    error (a premise, a wait of the set-up), is failed by the panic instead."""
    try:
        result = yield
    except Exception as exc:
        if check_id(item) and not isinstance(exc, AssertionError):
            _judge_panics(item, cause=exc)
        elif check_id(item):
            _record_panics(item)
        raise
    if check_id(item):
        _judge_panics(item)
    return result


def _operator_logs(item: pytest.Item) -> list[tuple[str, str]]:
    """(label, text) of the log of each operator process the check started: ``operator-N.log``
    in the shared lab (the ``operators`` fixture), ``lab-I/operator-N.log`` in its I-th
    private one (``isolated``). Unlike ``labs_of`` it needs no ``admin`` fixture."""
    funcargs = getattr(item, "funcargs", {})
    pools = [("", funcargs.get("operators"))]
    isolated = funcargs.get("isolated")
    pools += [(f"lab-{i}/", lab.operators) for i, lab in enumerate(getattr(isolated, "labs", []))]
    out: list[tuple[str, str]] = []
    for prefix, pool in pools:
        for n, op in enumerate(getattr(pool, "started", [])):
            try:
                out.append(
                    (f"{prefix}operator-{n}.log", Path(op.log_path).read_text("utf-8", "replace"))
                )
            except OSError:
                continue
    return out


def _record_panics(item: pytest.Item) -> list[tuple[str, str]]:
    """Record the check's operator panics as evidence ``operator_panics`` (``<label>:<line>:
    <summary>``, at most 20) when there are any; return the logs read."""
    logs = _operator_logs(item)
    found = [f"{label}:{n}: {text}" for label, log in logs for n, text in panics.panic_lines(log)]
    ev = getattr(item, "funcargs", {}).get("evidence")
    if found and isinstance(ev, Evidence):
        ev.record("operator_panics", found[:20])
    return logs


def _judge_panics(item: pytest.Item, cause: BaseException | None = None) -> None:
    """Raise ``OperatorPanicked`` (from ``cause``, the body's own error, if any) when an
    operator of the check logged a panic."""
    logs = _record_panics(item)
    try:
        panics.assert_no_panics(logs)
    except panics.OperatorPanicked as exc:
        raise exc from cause


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    rep: pytest.TestReport = outcome.get_result()
    if rep.failed and check_id(item) and not any(k == "verdict" for k, _ in item.user_properties):
        # junitxml writes item.user_properties with the teardown report: record it once, for
        # the first phase that failed (a set-up failure is always an error).
        verdict = verdict_of(call.excinfo) if rep.when == "call" else VERDICT_ERROR
        item.user_properties.append(("verdict", verdict))
    if (
        rep.when == "call"
        and hasattr(rep, "wasxfail")
        and call.excinfo is not None
        and check_id(item)
    ):
        # a declared expected failure: keep what actually failed next to the declared reason
        item.user_properties.append(("xfail_failure", str(call.excinfo.value)[:2000]))
    if rep.failed and check_id(item):
        console.failed(item, rep.when)
    if rep.when == "call" and rep.failed and check_id(item):
        try:
            saved = _save_artifacts(item)
            where = str(saved)
            item.user_properties.append((junit.ARTIFACTS, where))
        except Exception as exc:
            where = f"(saving artifacts failed: {exc})"
        longrepr: Any = rep.longrepr
        if hasattr(longrepr, "addsection"):
            longrepr.addsection(
                "modeldock artifacts", f"operator logs, objects and audit events saved in {where}"
            )
        rep.sections.append(("modeldock artifacts", str(where)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    """Before a check's fixtures are torn down: stop its operators and account its requests
    (``harness.plugin.evidence.account_item``)."""
    if check_id(item):
        account_item(item)
    yield


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Once pytest's junitxml has written the file, in the controlling process: name each
    testcase after its check, put the implementation in every classname and the testsuite's
    name, and add the run's identity as testsuite properties (``harness.junit.finish``)."""
    config = session.config
    path = config.getoption("xmlpath", None)
    if not path or hasattr(config, "workerinput") or not Path(path).exists():
        return
    # Attachments are relative to the folder the artifacts dir is in: the reports folder,
    # where the harness puts this JUnit file too.
    base = Path(str(options.value(config, "artifacts-dir"))).parent
    junit.finish(Path(path), options.value(config, "impl"), run_properties(config), base)


def run_properties(config: pytest.Config) -> dict[str, str]:
    """What identifies a run, as JUnit testsuite properties: ``implementation``, ``title``,
    ``tier`` and ``kubernetes_version`` (``run_tier``: with pytest-xdist the workers collect,
    so the controlling process asks for itself), ``capabilities`` (what the tier offers,
    comma-separated), ``harness_commit`` (``git rev-parse HEAD`` of the repository,
    ``unknown`` outside a git checkout)."""
    impl_id = options.value(config, "impl")
    try:
        title = get_implementation(impl_id, options.value(config, "impl-file")).title
    except ImplementationError:
        title = impl_id
    tier, offers, version = run_tier(config)
    return {
        "implementation": impl_id,
        "title": title,
        "tier": tier,
        "kubernetes_version": version,
        "capabilities": ",".join(sorted(offers)),
        "harness_commit": harness_commit(),
    }


def harness_commit() -> str:
    """The repository's commit (``git rev-parse HEAD``), with ``-dirty`` when the work tree
    has changes; ``unknown`` without git or outside a checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}-dirty" if dirty.strip() else head


def _artifacts_dir(item: pytest.Item) -> Path:
    impl = options.value(item.config, "impl")
    name = (junit_name(item) or item.name).replace("/", "_")
    return Path(str(options.value(item.config, "artifacts-dir"))) / str(impl) / name


def _save_artifacts(item: pytest.Item) -> Path:
    """Save the operator logs, the namespaces' objects (YAML) and their audit events, for the
    shared lab and every private one the test made."""
    dest = _artifacts_dir(item)
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for i, lab in enumerate(labs_of(item)):
        lab.save_artifacts(dest / f"lab-{i}" if i else dest)
    return dest
