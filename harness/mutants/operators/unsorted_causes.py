"""unsorted-causes: a refusal's causes in the order of the answer, drawn anew per try: a status write per retry.

Anti-pattern: the condition message of a refused child write is the API server's message as
it came. When the server finds two or more causes (two resources whose values it refuses) it
lists them in the order its validation met them, which ranges over a Go map, so the order is
drawn anew on each try; every retry that meets another order computes another message and
writes the status again, and two operators end with different messages for one refusal. The
real server repeats one order most of the time, so a copy of its order would be caught only
on some runs: the mutant puts the causes in sorted order on one refusal and in reverse
sorted order on the next, in turn, the worst draw on every retry.

Why people write it: the message looks like a constant of the refusal, and a test with one
invalid field, or a few tries that happen to draw the same order, never shows otherwise.

What the correct operator does: it lists the causes of such a message in sorted order, so the
same refusal gives the same bytes on every retry and in every operator, and writes the status
once while the refusal lasts (CONTRACT.md, "A refused child write").
"""

from __future__ import annotations

import itertools

from harness import mutants
from python_operator import controller

_turns = itertools.count()
_sorted_message = controller.error_message  # the correct text, taken before the patch


def alternating_order(err: Exception) -> str:
    message = _sorted_message(err)
    causes = sorted({f"{field}: {text}" for field, text in getattr(err, "causes", ())})
    in_order = "[" + ", ".join(causes) + "]"
    if next(_turns) % 2 == 0 or len(causes) < 2 or not message.endswith(in_order):
        return message
    # The mutant: every other refusal lists its causes in reverse sorted order.
    return message[: -len(in_order)] + "[" + ", ".join(reversed(causes)) + "]"


PATCHES = (mutants.Patch(controller, "error_message", alternating_order),)

if __name__ == "__main__":
    mutants.main(PATCHES)
