"""The ``verdict`` property the pytest plugin records on a check that did not pass: ``fail``
for the check's own oracle (an assertion about the operator), ``error`` for everything else
(an unmet premise, the harness's own errors, a fixture error). The kill matrix counts only
``fail`` as a kill (harness/mutants/runner.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.mutants import runner

pytest_plugins = ["pytester"]

CHECKS = """
import pytest
from harness.verdicts import PremiseFailed


@pytest.fixture
def broken():
    raise RuntimeError("set-up went wrong")


@pytest.mark.modeldock_check("oracle")
def test_oracle():
    assert 1 == 2, "the operator wrote while nothing changed"


@pytest.mark.modeldock_check("premise")
def test_premise():
    raise PremiseFailed("the fault was not injected")


@pytest.mark.modeldock_check("harness")
def test_harness_error():
    raise ConnectionRefusedError("admin client could not connect")


@pytest.mark.modeldock_check("internal")
def test_internal_invariant():
    from harness.envtest.controlplane import ControlPlane

    ControlPlane().kubeconfig_for("nobody")  # an assert of the harness's own, not an oracle


@pytest.mark.modeldock_check("timeout")
def test_oracle_wait():
    from harness.kube import wait_for

    wait_for(lambda: {"replicas": 1}, lambda d: d["replicas"] == 2, 0.2, "replicas to be 2")


@pytest.mark.modeldock_check("setup-wait")
def test_setup_wait():
    from harness.kube import wait_for

    wait_for(lambda: {"held": 0}, lambda d: d["held"] > 0, 0.2, "the proxy to hold", premise=True)


@pytest.mark.modeldock_check("setup")
def test_setup(broken):
    pass


@pytest.mark.modeldock_check("passes")
def test_passes():
    pass
"""


def test_verdicts_in_junit_and_only_the_oracle_kills(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_checks=CHECKS)
    xml = tmp_path / "junit.xml"
    # A subprocess, as the harness runs the suite (the plugin loads from its entry point); the
    # ini key asks for it, as the file is not in conformance/.
    pytester.runpytest_subprocess(
        f"--junitxml={xml}", "-p", "no:cacheprovider", "-o", "modeldock=true"
    )
    res = runner.read_junit(xml)
    # Testcases keep their function names here: no ``evidence`` fixture recorded a check id.
    assert res.failed == ["test_oracle", "test_oracle_wait"]
    assert sorted(res.errors) == [
        "test_harness_error",
        "test_internal_invariant",
        "test_premise",
        "test_setup",
        "test_setup_wait",
    ]
    assert res.passed == ["test_passes"]
    assert res.killed_by == ["test_oracle", "test_oracle_wait"]


def test_premise_helper_raises_premise_failed() -> None:
    from conformance.support import premise
    from harness.verdicts import PremiseFailed

    premise(True, "holds")
    with pytest.raises(PremiseFailed, match=r"premise not met.*no 410 was served"):
        premise(0, "no 410 was served")
    assert not issubclass(PremiseFailed, AssertionError)


PREMISE_CHECK = """
import pytest
from conformance.support import premise


@pytest.mark.modeldock_check("stale")
def test_stale(evidence):
    evidence.premise("stale_update_status", 409)
    premise(True, "the API server refused the stale write")
    evidence.record("deployment_replicas", 2)
"""


def test_premise_evidence_is_listed_in_the_premises_property(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    from harness import report

    pytester.makepyfile(test_checks=PREMISE_CHECK)
    xml = tmp_path / "junit-go.xml"
    pytester.runpytest_subprocess(
        f"--junitxml={xml}", "-p", "no:cacheprovider", "--modeldock-impl=go"
    )
    res = report.build([xml]).checks[0].result("go")
    assert res.outcome == "passed"
    assert res.premise_keys == ["stale_update_status"]
    assert res.premise_evidence == {"stale_update_status": "409"}
    assert "stale_update_status" not in res.check_evidence
    assert res.check_evidence["deployment_replicas"] == "2"


SETUP_WAIT_CHECK = """
import pytest
from conformance.premises import set_up
from harness.kube import wait_for


def never_converged():
    return wait_for(
        lambda: {"converged": False}, lambda d: d["converged"], 0.2, "ModelService ns/web to converge"
    )


@pytest.mark.modeldock_check("staged")
def test_staged():
    set_up(never_converged, "converging before the fault")


@pytest.mark.modeldock_check("judged")
def test_judged():
    never_converged()
"""


def test_a_set_up_wait_that_times_out_is_an_error_in_junit_and_no_kill(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """The same timed-out wait is the oracle's ``fail`` when it judges the operator, and an
    unmet premise (``error``) when it only stages the experiment (conformance.premises): JUnit
    then says ``<error>`` with the premise's message, and the kill matrix neither counts it
    as a kill nor lets it hold a caught_by entry."""
    from harness import junit

    pytester.makepyfile(test_checks=SETUP_WAIT_CHECK)
    xml = tmp_path / "junit-go.xml"
    pytester.runpytest_subprocess(
        f"--junitxml={xml}", "-p", "no:cacheprovider", "-o", "modeldock=true"
    )
    junit.finish(xml, "go")
    cases = {c.name: c for c in junit.read_cases(xml)}
    staged, judged = cases["test_staged"], cases["test_judged"]
    assert (staged.outcome, staged.verdict) == (junit.ERROR, "error")
    assert "premise not met" in staged.message
    assert "set-up: converging before the fault timed out" in staged.message
    assert "ModelService ns/web to converge" in staged.message  # the wait's own message
    assert (judged.outcome, judged.verdict) == (junit.FAILED, "fail")
    text = xml.read_text()
    assert text.count("<error ") == 1 and text.count("<failure ") == 1
    res = runner.read_junit(xml)
    assert res.errors == ["test_staged"] and res.killed_by == ["test_judged"]
    data = runner.build_matrix({"m": res}, {"m": {"caught_by": ["test_staged"]}})
    assert data["mutants"]["m"]["missed"] == ["test_staged"]
    only_error = runner.build_matrix({"m": runner.SuiteResult(errors=["test_staged"])})
    assert only_error["verdict"]["survivors"] == ["m"]
