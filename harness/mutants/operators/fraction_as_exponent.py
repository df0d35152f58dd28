"""fraction-as-exponent: judges the digits after a '.' as an exponent, so 0.125 is refused as beyond 99.

Anti-pattern: the guard against a giant exponent (CONTRACT.md, "A quantity's exponent has at
most two digits") looks at the digits a quantity ends in and bounds them, but it asks only
whether they follow something other than a plain ``e``, not whether they follow ``e`` or
``E`` at all. The fraction of ``0.125`` (three digits after the '.') is then read as an
exponent of 125, and reading the spec fails on every attempt: the ModelService never
converges, though the CRD admitted its spelling and a Deployment takes it.

Why people write it: every test quantity has a short fraction (``0.5``, ``1.5``) or trims to
one (``0.001`` is one digit after its zeros), and two digits pass the bound anyway.

What the correct operator does: it bounds only the digits after ``e`` or ``E`` and an
optional sign (quantity.check_exponent, Go: checkQuantityExponent); any other text passes,
and ``0.125`` becomes ``125m``.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import quantity

_check_exponent = quantity.check_exponent  # the correct check, taken before the patch


def fraction_as_exponent(text: str) -> None:
    _check_exponent(text)
    end = pos = len(text)
    while pos > 0 and text[pos - 1].isdigit():
        pos -= 1
    digits = text[pos:end].lstrip("0")
    # The mutant: digits after a '.' are bounded as if they were an exponent.
    if 0 < pos < end and text[pos - 1] == "." and len(digits) > len(str(quantity.MAX_EXPONENT)):
        raise ValueError(quantity.ERR_EXPONENT)


PATCHES = (mutants.Patch(quantity, "check_exponent", fraction_as_exponent),)

if __name__ == "__main__":
    mutants.main(PATCHES)
