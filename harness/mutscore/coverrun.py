"""``python -m coverage run ... -m harness.mutscore.coverrun``: the Python operator's main
(``python -m python_operator``) under coverage.py, with ``os._exit`` saving the coverage
data first.

coverage.py writes its data at interpreter exit (and on SIGTERM, ``sigterm = true``), but
``os._exit`` skips both: a process that ends there (a lost Lease, exit 1; a crash point, exit
86) left no data, so the lines it ran last, the very ones those paths exist for, counted as
executed by no check (``cover.lines_by_check``) and their mutants were never judged by the
checks that reach them (leader-failover[lost-while-busy] and Controller.stop's timeout).
Here ``os._exit(code)`` stops and saves the current coverage (``Coverage.current()``, none
outside a coverage run), then exits with ``code`` as before.
"""

from __future__ import annotations

import os
import runpy
from collections.abc import Callable
from typing import NoReturn


def saving_exit(real: Callable[[int], NoReturn]) -> Callable[[int], NoReturn]:
    """``real`` (``os._exit``) preceded by a save of the running coverage.py measurement."""
    import coverage

    def exit_(code: int) -> NoReturn:
        cov = coverage.Coverage.current()
        if cov is not None:
            cov.stop()
            cov.save()
        real(code)

    return exit_


if __name__ == "__main__":
    os._exit = saving_exit(os._exit)  # type: ignore[assignment]
    runpy.run_module("python_operator", run_name="__main__", alter_sys=True)
