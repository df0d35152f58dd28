"""two-digit-exponent: refuses every two-digit exponent (1E99, 1e10) as beyond 99.

Anti-pattern: the guard against a giant exponent (CONTRACT.md, "A quantity's exponent has at
most two digits") bounds the number of the exponent's digits with one comparison off by one:
as many digits as the bound has counts as too many. Every exponent of two digits is then
refused, 1e10 as much as 1E99, though the CRD's pattern admits two digits and the API server
stores such a quantity in a Deployment (1E99 as spelled, 1e10 as 10e9): reading the spec
fails on every attempt and the ModelService never converges.

Why people write it: every quantity in the usual tests has a one-digit exponent (5e8, 1e-3)
or none, so the boundary is never reached.

What the correct operator does: it refuses only an exponent beyond 99 in magnitude, three
digits or more after leading zeros (quantity.check_exponent, Go: checkQuantityExponent), and
1E99 reaches the Deployment as the API server stores it (noop-stable[exponent-spelling]).
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import quantity

_check_exponent = quantity.check_exponent  # the correct check, taken before the patch


def two_digits_refused(text: str) -> None:
    _check_exponent(text)
    end = pos = len(text)
    while pos > 0 and text[pos - 1].isdigit():
        pos -= 1
    digits = text[pos:end].lstrip("0")
    if 0 < pos < end and text[pos - 1] in "+-":
        pos -= 1
    # The mutant: as many digits as MAX_EXPONENT has already count as beyond it.
    if pos > 0 and text[pos - 1] in "eE" and len(digits) >= len(str(quantity.MAX_EXPONENT)):
        raise ValueError(quantity.ERR_EXPONENT)


PATCHES = (mutants.Patch(quantity, "check_exponent", two_digits_refused),)

if __name__ == "__main__":
    mutants.main(PATCHES)
