"""The plugin stays quiet until asked (issue 24; ``harness.plugin.options``).

The ``pytest11`` entry point loads ``harness.plugin`` into every pytest session of the
environment. A plain session (a user's own tests in a folder of their own, one of them marked
``slow``) must see none of ModelDock: SIGTERM keeps its default action, no run is claimed
(``MODELDOCK_RUN``), no dead run's temp dir is reaped, no watchdog, hooks or fixtures are
registered, the ``slow`` test runs, and its JUnit file is left as pytest wrote it. A session
that asks (a ``--modeldock-*`` option, the ini key, or collecting ``conformance/``) gets all
of it. Each session is a subprocess with ``TMPDIR`` pointing at a folder of the test's own,
where a temp dir of a dead run is planted, so the reap this test looks for touches nothing
else on the machine.

A probe plugin (``-p modeldock_probe``) writes what it sees at the end of collection to a
JSON file: the SIGTERM handler's name, ``MODELDOCK_RUN``, which ModelDock plugins are
registered, and which tests got a ``slow`` skip.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.checks import CHECK_MARKER, NEEDS_MARKER, SLOW_MARKER
from harness.paths import CONFORMANCE_DIR, REPO_ROOT
from harness.runs import OWNER_FILE, TEMP_PREFIX

#: The plugins ``harness.plugin.hooks.activate`` registers, by name.
MODELDOCK_PLUGINS = (
    "modeldock-hooks",
    "modeldock-console",
    "modeldock-fixtures",
    "modeldock-watchdog",
)

PROBE = """
import json, os, signal

import pytest

NAMES = json.loads(os.environ["PROBE_NAMES"])


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    handler = signal.getsignal(signal.SIGTERM)
    skipped = [
        item.nodeid
        for item in session.items
        for mark in item.iter_markers("skip")
        if "slow" in str(mark.kwargs.get("reason", ""))
    ]
    seen = {
        "sigterm": "SIG_DFL" if handler == signal.SIG_DFL else getattr(handler, "__name__", "?"),
        "run": os.environ.get("MODELDOCK_RUN"),
        "plugins": [n for n in NAMES if session.config.pluginmanager.has_plugin(n)],
        "slow_skipped": skipped,
        "items": len(session.items),
    }
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump(seen, out)
"""

#: A user's own tests: a ``slow`` marker and a ``check`` marker of their own.
USER_TESTS = """
import pytest


@pytest.mark.slow
def test_slow_runs():
    assert 1 + 1 == 2


@pytest.mark.check("mine")
def test_my_own_check_marker():
    assert "mine"


@pytest.mark.modeldock_slow
def test_modeldock_slow():
    assert True
"""


def _session(tmp_path: Path, args: list[str], cwd: Path) -> tuple[dict[str, Any], Path, str]:
    """Run ``python -m pytest *args`` in ``cwd`` with the probe, ``TMPDIR`` in ``tmp_path``
    and a dead run's temp dir planted there. Returns (what the probe saw, the planted dir,
    pytest's output)."""
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir(exist_ok=True)
    (probe_dir / "modeldock_probe.py").write_text(PROBE)
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    dead = tmp / f"{TEMP_PREFIX}cp-planted"
    dead.mkdir(exist_ok=True)
    # this process's pid with a start time it never had: a run that is gone
    (dead / OWNER_FILE).write_text(json.dumps({"owner": f"{os.getpid()}:1"}) + "\n")
    out = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODELDOCK_")}
    env |= {
        "PYTHONPATH": str(probe_dir),
        "PROBE_OUT": str(out),
        "PROBE_NAMES": json.dumps(MODELDOCK_PLUGINS),
        "TMPDIR": str(tmp),
        "PYTEST_ADDOPTS": "",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "modeldock_probe", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = proc.stdout + proc.stderr
    assert out.exists(), f"the probe saw no collection:\n{output}"
    return json.loads(out.read_text()), dead, output


def _user_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: mine\n    check: mine\n")
    (project / "test_mine.py").write_text(USER_TESTS)
    return project


def test_a_plain_session_sees_nothing_of_modeldock(tmp_path: Path) -> None:
    project = _user_project(tmp_path)
    junit = tmp_path / "junit.xml"
    seen, dead, output = _session(tmp_path, [f"--junitxml={junit}", "-v"], project)
    assert seen["sigterm"] == "SIG_DFL"
    assert seen["run"] is None
    assert seen["plugins"] == []
    assert seen["slow_skipped"] == []
    assert dead.exists(), "a plain session reaped a dead run's temp dir"
    # every test ran, the user's ``slow`` one and even the modeldock_slow one: no one asked
    assert "3 passed" in output, output
    xml = junit.read_text()
    assert 'name="implementation"' not in xml and "harness_commit" not in xml


def test_an_option_asks_and_the_prefixed_marker_is_the_only_one_skipped(tmp_path: Path) -> None:
    project = _user_project(tmp_path)
    seen, dead, output = _session(tmp_path, ["--modeldock-impl=go", "-v"], project)
    assert seen["sigterm"] == "_raise_interrupt"
    assert seen["run"] and seen["run"].split(":")[0].isdigit()
    assert seen["plugins"] == list(MODELDOCK_PLUGINS)
    assert seen["slow_skipped"] == ["test_mine.py::test_modeldock_slow"]
    assert not dead.exists(), "the asking session did not reap the dead run's temp dir"
    assert "2 passed, 1 skipped" in output, output


def test_a_conformance_session_still_gets_all_of_it(tmp_path: Path) -> None:
    """Collecting ``conformance/`` (no ModelDock option given) asks: the run set-up happens
    and the suite's ``modeldock_slow`` case is skipped without ``--modeldock-full``."""
    seen, dead, output = _session(
        tmp_path, [str(CONFORMANCE_DIR / "test_core.py"), "--collect-only", "-q"], REPO_ROOT
    )
    assert seen["sigterm"] == "_raise_interrupt", output
    assert seen["run"]
    assert seen["plugins"] == list(MODELDOCK_PLUGINS)
    assert seen["slow_skipped"] == ["conformance/test_core.py::test_noop_stable_long_quiet_minutes"]
    assert seen["items"] > 5
    assert not dead.exists()


def test_conformance_tests_use_only_the_prefixed_markers() -> None:
    """A test written with a bare ``@pytest.mark.check`` / ``needs`` / ``slow`` (as before
    issue 24, or on a branch older than it) would be no check at all: refuse it."""
    bare = {"check": CHECK_MARKER, "needs": NEEDS_MARKER, "slow": SLOW_MARKER}
    found = []
    for path in sorted(CONFORMANCE_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in bare
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
            ):
                found.append(
                    f"{path.name}:{node.lineno}: mark.{node.attr} -> mark.{bare[node.attr]}"
                )
    assert found == []
