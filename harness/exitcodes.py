"""The exit codes of ``python -m harness`` (and so of ``make conformance``): the README's table
("Exit codes") lists exactly these. A signal's code is 128 + its number, as a shell reports it.
"""

from __future__ import annotations

import signal

#: Every check passed (or the command did what it was asked).
OK = 0
#: A check failed (or a mutant survived, a report found a failure).
FAILED = 1
#: A bad argument or setting: the message names it and the fix.
BAD_ARGUMENT = 2
#: The control plane or cluster failed: it did not start, was lost, does not answer, or its
#: kubeconfig is missing.
CLUSTER = 3
#: The Kubernetes binaries could not be found or built (harness.envtest.binaries.BinaryError):
#: a missing Go toolchain, a failed go build, a K8S_VERSION this harness does not build.
BINARIES = 4
#: No verdict: a case never ran or did not finish (a harness error, an operator process that
#: could not start), so what it should judge (a mutant of ``explore``) was neither killed nor
#: survived.
NO_VERDICT = 5
#: A pytest worker lost its control plane (etcd or kube-apiserver died under it).
CONTROL_PLANE_LOST = 6
#: Ctrl-C (SIGINT): processes stopped, temp dirs removed.
SIGINT = 128 + signal.SIGINT
#: SIGTERM: the same unwinding as Ctrl-C.
SIGTERM = 128 + signal.SIGTERM


def for_interrupt(exc: KeyboardInterrupt) -> int:
    """The exit code of an interrupt: SIGTERM (raised by harness.runs as ``KeyboardInterrupt
    ("signal 15")``) gives 143, anything else (Ctrl-C) 130."""
    return SIGTERM if exc.args == (f"signal {int(signal.SIGTERM)}",) else SIGINT
