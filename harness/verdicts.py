"""What a check's outcome means: the check's own oracle failed (``fail``, a kill in the mutant
matrix), or the check could not judge the operator (``error``: an unmet premise, a set-up or
harness failure). The pytest plugin records the verdict on each failed check's JUnit
testcase (harness/plugin/hooks.py); the kill matrix counts only ``fail`` (harness/mutants/runner.py).

This module has no imports of the harness, so that the lowest layers (the REST client's
``wait_for``) can raise ``PremiseFailed`` too.
"""

from __future__ import annotations

#: The ``verdict`` property of a check's JUnit testcase, when it did not pass.
VERDICT_FAIL = "fail"  # the check's own oracle failed: an assertion about the operator
VERDICT_ERROR = "error"  # set-up, premise or harness error: the operator was not judged


class PremiseFailed(Exception):
    """A check's set-up did not produce the situation the check is about (the fault was not
    injected, the API server did not answer as the experiment needs, a set-up wait timed
    out): the check could not judge the operator. Reported as the check's verdict ``error``,
    never as a failure of the operator. Raise it through ``conformance.support.premise``, or
    ``harness.kube.wait_for(..., premise=True)`` for a set-up wait. Not an AssertionError, on
    purpose."""

    @classmethod
    def because(cls, message: str) -> PremiseFailed:
        """A PremiseFailed whose text says the check could not judge the operator, and why."""
        return cls(f"premise not met (the check could not judge the operator): {message}")
