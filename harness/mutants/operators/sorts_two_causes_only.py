"""sorts-two-causes-only: puts a refusal's causes in order only when there are two: three or more stay as the answer drew them.

Anti-pattern: the causes at the end of a refusal's message are sorted only when there are
exactly two (the case that was seen and fixed); with three or more the message keeps the
answer's order, which the API server draws anew on each try from a Go map. The same refusal
then gives other bytes on other tries, the status is written again per order, and two
operators report it differently.

Why people write it: the refusal that showed the problem had two causes, and the fix was
tested on it alone; a comparison against 2 reads as "two or more" at a glance.

What the correct operator does: it lists the causes of such a message in sorted order
whenever there are two or more (CONTRACT.md, "A refused child write";
refused-write-reported[three-causes]).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_error_message = controller.error_message


def sorted_when_two(err: Exception) -> str:
    causes = {f"{field}: {text}" for field, text in getattr(err, "causes", ())}
    if len(causes) > 2:
        # The mutant: three causes or more are left in the answer's order.
        return str(err)
    return _error_message(err)


PATCHES = (mutants.Patch(controller, "error_message", sorted_when_two),)

if __name__ == "__main__":
    mutants.main(PATCHES)
