"""sorts-three-causes-only: puts a refusal's causes in order only when there are three or more: two stay as the answer drew them.

Anti-pattern: "two or more" written as a comparison off by one (`<= 2` where `< 2` was meant):
a refusal with exactly two causes keeps the answer's order, which the API server draws anew
on each try from a Go map. Half the tries give the other order, the status is written again
for a refusal that did not change, and two operators report it differently.

Why people write it: the boundary reads the same at a glance, and a test against the API
server's own two-cause answer passes whenever the draw happens to be sorted.

What the correct operator does: it lists the causes of such a message in sorted order
whenever there are two or more (CONTRACT.md, "A refused child write";
refused-write-reported[two-causes-reversed], which always answers the unsorted order).
"""

from __future__ import annotations

from harness import mutants
from python_operator import controller

_error_message = controller.error_message


def sorted_from_three(err: Exception) -> str:
    causes = {f"{field}: {text}" for field, text in getattr(err, "causes", ())}
    if len(causes) == 2:
        # The mutant: two causes are left in the answer's order.
        return str(err)
    return _error_message(err)


PATCHES = (mutants.Patch(controller, "error_message", sorted_from_three),)

if __name__ == "__main__":
    mutants.main(PATCHES)
