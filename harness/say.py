"""One line to the person running the harness: ``[<who>] <text>`` on stderr, flushed at once
(stdout is kept for what a command prints as its result). Every job says where it is this
way; ``who`` names the job (``modeldock``, ``mutants``, ``explore``, ...). A leaf: it imports
nothing of the harness, so any layer may say something.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable


def line(text: str, who: str = "modeldock") -> None:
    """Print ``[<who>] <text>`` on stderr and flush."""
    print(f"[{who}] {text}", file=sys.stderr, flush=True)


def to(who: str) -> Callable[[str], None]:
    """``line`` for one job: a module writes ``_say = say.to("mutants")``."""
    return functools.partial(line, who=who)
