"""What a person at a terminal sees of a run and controls in it: one progress line per
finished check, choosing checks by id, and keeping or pausing on a failure.

- ``--modeldock-progress``: the controlling process prints ``[check] <id> <impl> <RESULT> <seconds>s``
  to stderr as each check finishes (the conformance job passes it and sends pytest's own
  output to a log file).
- ``--modeldock-check ID`` (repeatable): run only these checks; ``ID`` is a check id (every case of it)
  or ``id[case]``. pytest's ``-k`` still works on test function names.
- ``--modeldock-keep-on-failure``: a failed check's namespace is not deleted; ``<artifacts>/kept.json``
  lists what was kept (namespace, kubeconfig, audit log), and the conformance job prints the
  commands to look at it.
- ``--modeldock-pause-on-failure``: at the first failed check, with its operators still running, print
  where to look and wait for Enter on the terminal (``/dev/tty``). Needs one process
  (``-n 0``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.checks import SLOW_MARKER as SLOW
from harness.plugin import options
from harness.plugin.markers import check_id, junit_name

#: The file (under ``--modeldock-artifacts-dir``) listing what ``--modeldock-keep-on-failure`` kept, one JSON
#: object per line: ``{"implementation", "check", "namespace", "kubeconfig", "audit_log"}``.
KEPT_FILE = "kept.jsonl"


def selected(name: str | None, wanted: list[str]) -> bool:
    """Whether a test whose JUnit name is ``name`` (``id`` or ``id[case]``, None: not a check)
    is chosen by ``--modeldock-check`` values ``wanted`` (empty: everything is)."""
    if not wanted:
        return True
    if name is None:
        return False
    base = name.split("[", 1)[0]
    return any(w in (name, base) for w in wanted)


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect every test ``--modeldock-check`` does not choose; a ``--modeldock-check`` value naming no check
    of the suite is a usage error that lists the known ones."""
    wanted = options.value(config, "check")
    if not wanted:
        return
    known = {n for item in items if (n := junit_name(item))}
    known |= {n.split("[", 1)[0] for n in known}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise pytest.UsageError(
            f"--modeldock-check: no check {unknown} in this suite; known: {sorted(known)}"
        )
    keep = [item for item in items if selected(junit_name(item), wanted)]
    config.hook.pytest_deselected(items=[i for i in items if i not in keep])
    items[:] = keep


def skip_slow(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ``--modeldock-full``, skip the tests marked ``modeldock_slow``, saying how to run them."""
    if options.value(config, "full"):
        return
    reason = "slow (minutes of waiting: a client's default deadline, a five-minute quiet window): run with --modeldock-full (make conformance FULL=1)"
    for item in items:
        if item.get_closest_marker(SLOW) is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
            # Named by its check id in JUnit, as a check skipped for its needs is.
            if name := junit_name(item):
                item.user_properties.append(("check", name))
                item.user_properties.append(("skip_reason", reason))


#: Checks that take tens of seconds whatever the implementation (a Lease to expire, a private
#: control plane to start and restart): run first, so pytest-xdist's workers are not left
#: waiting on one of them at the end.
LONG_CHECKS = ("leader-failover",)


def long_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: checks on a private control plane (the ``isolated``
    fixture) and ``LONG_CHECKS`` first, the rest in collection order."""

    def weight(item: pytest.Item) -> int:
        fixtures = getattr(item, "fixturenames", ())
        return 0 if "isolated" in fixtures or check_id(item) in LONG_CHECKS else 1

    items.sort(key=weight)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG.get("config")
    if config is None or not options.value(config, "progress") or hasattr(config, "workerinput"):
        return
    if not (report.when == "call" or (report.when == "setup" and not report.passed)):
        return
    name = next((str(v) for k, v in report.user_properties if k == "check"), report.nodeid)
    if hasattr(report, "wasxfail"):  # a failure the implementation declares (or its pass)
        result = "XFAIL" if report.skipped else "XPASS"
    else:
        result = (
            "SKIPPED"
            if report.skipped
            else "PASSED"
            if report.passed
            else "FAILED"
            if report.when == "call"
            else "ERROR"
        )
    impl = options.value(config, "impl")
    print(
        f"[check] {name:45} {impl:8} {result:7} {report.duration:6.1f}s",
        file=sys.stderr,
        flush=True,
    )


#: The session's config, for hooks that are not given it (set in ``configure``).
_CONFIG: dict[str, pytest.Config] = {}


def configure(config: pytest.Config) -> None:
    """Remember the config; refuse ``--modeldock-pause-on-failure`` with pytest-xdist workers."""
    _CONFIG["config"] = config
    if options.value(config, "pause-on-failure") and getattr(config.option, "numprocesses", 0):
        raise pytest.UsageError("--modeldock-pause-on-failure needs one process: add -n 0")


def failed(item: pytest.Item, when: str) -> None:
    """Called by the plugin when a phase of a check failed: mark the item (so the namespace
    fixture keeps it under ``--modeldock-keep-on-failure``) and pause if asked."""
    item.stash[FAILED] = True
    if when == "call" and options.value(item.config, "pause-on-failure"):
        _pause(item)


#: Stash key: a phase of this item failed.
FAILED = pytest.StashKey[bool]()


def keep(item: pytest.Item) -> bool:
    """Whether the item's namespace must be left in place: it failed and ``--modeldock-keep-on-failure``."""
    return bool(options.value(item.config, "keep-on-failure") and item.stash.get(FAILED, False))


def record_kept(
    item: pytest.Item, namespace: str, kubeconfig: Path | None, audit_log: Path | None
) -> Path:
    """Append what was kept for ``item`` to ``<artifacts-dir>/kept.jsonl``; return the file."""
    path = Path(options.value(item.config, "artifacts-dir")) / KEPT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {
        "implementation": options.value(item.config, "impl"),
        "check": junit_name(item) or item.name,
        "namespace": namespace,
        "kubeconfig": str(kubeconfig or ""),
        "audit_log": str(audit_log or ""),
    }
    with open(path, "a") as out:
        out.write(json.dumps(entry) + "\n")
    return path


def _pause(item: pytest.Item) -> None:
    funcargs = getattr(item, "funcargs", {})
    namespace = funcargs.get("namespace")
    kubeconfig = getattr(funcargs.get("control_plane"), "admin_kubeconfig", None)
    lines = [f"\n[modeldock] {junit_name(item) or item.name} failed; its operators still run."]
    if namespace and kubeconfig:
        lines += [
            f"  export KUBECONFIG={kubeconfig}",
            f"  kubectl get modelservices,deployments,services,leases,events -n {namespace}",
        ]
    lines.append("Press Enter to go on (teardown stops the operators).")
    try:
        with open("/dev/tty", "r+") as tty:
            tty.write("\n".join(lines) + "\n")
            tty.flush()
            tty.readline()
    except OSError:
        print(
            "[modeldock] --modeldock-pause-on-failure: no terminal to wait on; going on",
            file=sys.stderr,
            flush=True,
        )


def kept_entries(artifacts_dir: Path) -> list[dict[str, str]]:
    """What ``--modeldock-keep-on-failure`` kept in a run whose artifacts are in ``artifacts_dir``."""
    path = artifacts_dir / KEPT_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


__all__ = [
    "KEPT_FILE",
    "configure",
    "failed",
    "keep",
    "kept_entries",
    "long_first",
    "pytest_runtest_logreport",
    "record_kept",
    "select",
    "selected",
    "skip_slow",
]
