"""The Python operator with its crash points removed: ``controller.crash_point`` does nothing,
so ``MODELDOCK_CRASH_AT`` is ignored. Declared in ``nocrash.toml`` as ``python-nocrash``, it
shows that exploration needs no code in the operator
(``python -m harness explore --impl-file harness/explore/nocrash.toml --impl python-nocrash``).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller


def no_crash_point(name: str) -> None:
    """Crash points are ignored."""


PATCHES = (mutants.Patch(controller, "crash_point", no_crash_point),)

if __name__ == "__main__":
    mutants.main(PATCHES)
