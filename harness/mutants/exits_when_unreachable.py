"""exits-when-unreachable: exits when the API server refuses connections, counting on a restart.

Anti-pattern: when a list or a watch cannot even connect (connection refused: nothing listens
on the API server's port), the operator logs a fatal error and exits, so that "the kubelet
restarts it with a clean state". Every API server restart or rollout then kills it: it sits
out a crash-loop backoff that grows with each outage, and when it comes back it relists
everything at once, together with every other controller written the same way, against an
API server that has just started.

Why people write it: crash-only looks simple and safe ("no half-broken state"), a pod is
restarted anyway, and during development the API server never goes away under a running
controller. A network fault (a reset, a timeout) does not trigger it, so it survives most
fault tests.

What the correct operator does: an unreachable API server is an ordinary failure of a list
or a watch: retry with backoff (client-go's reflector; the Python informer backs off from
0.8 s to 30 s) and resume where it left off, relisting only if its resourceVersion is gone.
The process survives the outage and repairs what changed meanwhile.
"""

from __future__ import annotations

import os

from harness import mutants
from python_operator.runtime import informer

#: The exit code of the mutant's fatal error.
EXIT_CODE = 1


def _refused(err: BaseException | None) -> bool:
    """Whether err (or what caused it) is a refused connection."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, ConnectionRefusedError) or "Connection refused" in str(err):
            return True
        err = err.__cause__ or err.__context__ or getattr(err, "reason", None)
        seen += 1
    return False


class ExitingInformer(informer.Informer):
    def _check(self, err: Exception) -> None:
        if _refused(err):
            # The mutant: an unreachable API server is fatal.
            self._log.error("API server unreachable, exiting", error=str(err)[:300])
            os._exit(EXIT_CODE)

    def _list(self) -> None:
        try:
            super()._list()
        except Exception as err:
            self._check(err)
            raise

    def _watch(self) -> None:
        try:
            super()._watch()
        except Exception as err:
            self._check(err)
            raise


PATCHES = (mutants.Patch(informer, "Informer", ExitingInformer),)

if __name__ == "__main__":
    mutants.main(PATCHES)
