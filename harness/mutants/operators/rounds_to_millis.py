"""rounds-to-millis: writes a quantity it rounds in millis (1e-4 as 1m), not in the spelling's format.

Anti-pattern: the operator rounds every resource quantity up to a thousandth, as the API
server will, but writes a rounded value as a number of millis ("1m") whatever the spelling
was. The API server keeps an exponent spelling an exponent when it rounds it (given 1e-4 it
stores 1e-3), so the Deployment this operator leaves differs in its bytes from the one the
API server, or the Go reference, writes for the same ModelService: equal by value, so no
write loop, but two implementations of one contract disagree on the object they leave.

Why people write it: millis are the natural unit for a value rounded to a thousandth, the
client library's parse_quantity gives a number and no format, and rounding is the part the
API server's defaulting is documented for; that the format survives it is only visible in
apimachinery's Quantity code (RoundUp keeps Format) or on a live API server.

What the correct operator does: it applies apimachinery's rules whole (python_operator's
runtime/quantity.py: parse, round up keeping the format, then the canonical text), so each
quantity is written as the text the API server stores for the user's spelling, the bytes the
Go reference writes (conformance/quantity-spellings.json).
"""

from __future__ import annotations

import dataclasses

from harness import mutants
from python_operator import controller
from python_operator.runtime import informer, quantity


def millis_resources(resources: controller.Obj) -> controller.Obj:
    # The mutant: rounded as the API server rounds, but a rounded value is written in millis.
    result = informer.copy_obj(resources)
    for field in ("limits", "requests"):
        values = result.get(field)
        if isinstance(values, dict):
            for name, spelled in values.items():
                try:
                    parsed = quantity.parse_quantity(spelled)
                except ValueError:
                    continue
                rounded = parsed.round_up(quantity.MILLI)
                if rounded.compare(parsed) != 0:
                    rounded = dataclasses.replace(rounded, format=quantity.Format.DECIMAL_SI)
                values[name] = rounded.string()
    return result


PATCHES = (mutants.Patch(controller, "default_resources", millis_resources),)

if __name__ == "__main__":
    mutants.main(PATCHES)
