"""Resource quantities as apimachinery reads and writes them: the twin of
k8s.io/apimachinery/pkg/api/resource (v0.34.3: ``ParseQuantity``, ``Quantity.RoundUp``,
``Quantity.String``), only what the operator uses.

Why the operator needs it: the API server does not store a Deployment's quantity as the
client spelled it. It parses it into a ``resource.Quantity``, rounds it up to a whole number
of thousandths (``SetDefaults_ResourceList``, k8s.io/kubernetes pkg/apis/core/v1), and writes
it back with ``Quantity.String``. The Go operator holds ``resource.Quantity`` values and so
writes exactly those bytes; to write the same bytes (CONTRACT.md, "Desired Deployment"), the
Python operator applies the same three rules. The client library's
``kubernetes.utils.parse_quantity`` gives a value, never a spelling, so it cannot.

The rules, as apimachinery applies them (the table both operators are tested against is
``conformance/quantity-spellings.json``, its values produced by Go):

1. **Parse** (``parse_quantity``): a sign, digits with at most one ``.``, then a suffix. The
   suffix decides the *format*: none or one of ``n u m k M G T P E`` is DecimalSI,
   ``Ki Mi Gi Ti Pi Ei`` is BinarySI, ``e``/``E`` and a signed integer is DecimalExponent.
   A value with more digits than an int64 holds, or finer than a nano (``1e-10``), or a
   binary one with a fraction (``0.5Gi``), takes apimachinery's slow path: rounded up, away
   from zero, to a whole number of nanos; a binary value above the int64 maximum is capped
   there, and a binary value between 0 and 1 becomes DecimalSI.
2. **Keep the spelling when it is already canonical.** On the fast path apimachinery keeps
   the input string itself as the quantity's text when the digits (leading zeros dropped)
   neither start with 0 nor end in ``000`` and the decimal exponent is a multiple of 3
   (binary: the suffix is ``Ki``...``Ei`` and the digits are not a multiple of 8). So ``1E3``,
   ``+1``, ``1e+3`` and ``010`` are stored as written, ``1000`` is not.
3. **Round up to milli** (``Quantity.round_up``, Go ``RoundUp(resource.Milli)``): a value with
   a fraction of a thousandth is rounded away from zero and loses its kept spelling; the
   format stays (``1e-4`` becomes ``1e-3``, not ``1m``).
4. **Canonical text** (``Quantity.string``, Go ``String`` / ``CanonicalizeBytes``) when no
   spelling is kept: zero is ``0``; a BinarySI value below 1024 in magnitude or not whole is
   written as DecimalSI; otherwise the digits without trailing zeros and an exponent moved
   down to a multiple of 3 (``12e-1`` is ``1200e-3``, ``1.5`` is ``1500m``), or for BinarySI
   the whole value without factors of 1024 (``2048Ki`` is ``2Mi``). The suffix is the format's
   for that exponent; a DecimalSI exponent with no suffix (above 18) gets none, as Go does.

Where Python differs: ``Quantity`` is immutable, so ``round_up`` returns a new one; values are
exact integers (``unscaled`` times ten to ``exponent``), where Go keeps an int64 and scale or
an ``inf.Dec``; errors raise ``ValueError`` with apimachinery's message. One deliberate
difference, shared with the Go reference: an ``e``/``E`` exponent beyond ``MAX_EXPONENT`` in
magnitude is refused (``ERR_EXPONENT``), where apimachinery computes ten to it for minutes.
"""

from __future__ import annotations

import dataclasses
import enum

#: Go resource.Milli: the scale ``round_up`` rounds to (10**-3).
MILLI = -3

#: Go resource.Nano: the finest scale a parsed quantity keeps (10**-9).
NANO = -9

#: apimachinery's maxInt64Factors: the decimal digits the fast path accepts (fewer than int64's).
_MAX_INT64_FACTORS = 18

_INT64_MAX = (1 << 63) - 1

#: Go's errors, with their messages (resource.ErrFormatWrong, ErrNumeric, ErrSuffix).
ERR_FORMAT_WRONG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

#: The largest magnitude of the power of ten written after ``e``/``E`` that is parsed (ModelDock's
#: bound, not apimachinery's; Go: quantityMaxExponent). apimachinery reads any exponent that
#: fits an int64 (then cut to int32) and computes ten to it: ``1e-999999999`` makes it round an
#: ``inf.Dec`` of scale 999999999 to a nano, a power of ten with a billion digits (minutes of
#: CPU; this module's ``round_up`` did the same). Two digits keep every spelling of
#: conformance/quantity-spellings.json (the longest exponent there is ``-10``), and any
#: mantissa of at most 32 characters (the CRD's maxLength) shifted by 99 places is still far
#: outside the range a quantity holds (2^63-1 units down to a nano). The CRD's pattern admits
#: at most two exponent digits (CONTRACT.md, "Desired Deployment").
MAX_EXPONENT = 99

#: The error for an exponent beyond ``MAX_EXPONENT`` (Go: errQuantityExponent, same text).
ERR_EXPONENT = f"quantity's exponent must be between -{MAX_EXPONENT} and {MAX_EXPONENT}"


class Format(enum.Enum):
    """How a quantity is written (Go resource.Format): the input's suffix decides it."""

    DECIMAL_EXPONENT = "DecimalExponent"  # 12e6
    BINARY_SI = "BinarySI"  # 12Mi
    DECIMAL_SI = "DecimalSI"  # 12M


#: DecimalSI suffixes and their powers of ten (Go: the suffixer's decSuffixes).
_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_DECIMAL_SUFFIX_OF = {power: name for name, power in _DECIMAL_SUFFIXES.items()}

#: BinarySI suffixes and their powers of two (Go: binSuffixes).
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BINARY_SUFFIX_OF = {power: name for name, power in _BINARY_SUFFIXES.items()}

_DIGITS = "0123456789"


@dataclasses.dataclass(frozen=True)
class Quantity:
    """A parsed quantity (Go resource.Quantity): the exact value ``unscaled * 10**exponent``,
    its format, and ``spelling``, the input kept as its text (Go's cached string ``q.s``) or
    None when ``string`` must compute the canonical text."""

    unscaled: int
    exponent: int
    format: Format
    spelling: str | None = None

    def round_up(self, scale: int) -> Quantity:
        """This quantity rounded up, away from zero, to a whole number of ``10**scale``
        (``MILLI``: thousandths). Go: ``Quantity.RoundUp(scale)``, which keeps the format
        and drops the kept spelling only when the value had digits below the scale (Go
        clears it too on its slow path, where none is kept)."""
        if self.exponent >= scale:
            return self
        step = _pow10(scale - self.exponent)
        whole, rest = divmod(abs(self.unscaled), step)
        if rest:
            whole += 1
        unscaled = whole if self.unscaled >= 0 else -whole
        return Quantity(unscaled, scale, self.format, None)

    def string(self) -> str:
        """The text the API server stores (Go: ``Quantity.String``): the kept spelling, or the
        canonical text of rule 4 of the module docstring."""
        if self.spelling is not None:
            return self.spelling
        if self.unscaled == 0:
            return "0"
        fmt = self.format
        if fmt is Format.BINARY_SI:
            whole = self._whole()
            if whole is None or -1024 < whole < 1024:
                # Go: below 1024 in magnitude, or not whole, a binary value is written as
                # DecimalSI ("avoids rounding and hopefully confusion").
                fmt = Format.DECIMAL_SI
            else:
                digits, power = _remove_factors(whole, 1024)
                return f"{digits}{_BINARY_SUFFIX_OF.get(power * 10, '')}"
        digits, power = _remove_factors(self.unscaled, 10)
        power += self.exponent
        shift = power % 3  # Python's % is floor: the exponent moves down to a multiple of 3
        digits, power = digits * 10**shift, power - shift
        if fmt is Format.DECIMAL_EXPONENT:
            return f"{digits}e{power}" if power else str(digits)
        return f"{digits}{_DECIMAL_SUFFIX_OF.get(power, '')}"

    def compare(self, other: Quantity) -> int:
        """-1, 0 or 1 as this quantity's value is below, equal to or above ``other``'s
        (Go: ``Quantity.Cmp``); the format and spelling play no part."""
        low = min(self.exponent, other.exponent)
        a = self.unscaled * _pow10(self.exponent - low)
        b = other.unscaled * _pow10(other.exponent - low)
        return (a > b) - (a < b)

    def _whole(self) -> int | None:
        """The value as an integer when it is whole, else None (Go: ``AsScale(0)`` exact)."""
        if self.exponent >= 0:
            return self.unscaled * _pow10(self.exponent)
        whole, rest = divmod(abs(self.unscaled), _pow10(-self.exponent))
        if rest:
            return None
        return whole if self.unscaled >= 0 else -whole


def parse_quantity(text: str) -> Quantity:
    """``text`` (a quantity string, e.g. ``"1.5Gi"``, ``"1e-4"``, ``"100m"``) as apimachinery
    parses it (Go: ``resource.ParseQuantity``, apimachinery v0.34.3 quantity.go): the value,
    the format its suffix gives, and the input kept as its spelling where Go keeps it (rules 1
    and 2 of the module docstring). Raises ValueError with Go's message for an empty string, a
    malformed one, digits that do not parse or an unknown suffix, and ValueError(ERR_EXPONENT)
    for an exponent beyond ``MAX_EXPONENT`` (``"1e-999999999"``), which Go would compute."""
    if not text:
        raise ValueError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(0, 0, Format.DECIMAL_SI, "0")
    positive, value, num, denom, suffix = _split(text)
    base, power, fmt = _interpret(suffix)

    precision = 0
    scale = 0
    mantissa = 1
    if fmt is Format.BINARY_SI:
        if power >= 0 and not denom:
            mantissa = 1 << power
            # Go computes float32(exponent)*3/10 and truncates: exact for 10, 20, ..., 60.
            precision = 15 - len(num) - (power * 3 // 10) - 1
        else:
            precision = -1
    else:
        scale = power
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))

    if precision >= 0:
        scale -= len(denom)
        if scale >= NANO:
            shifted = num + denom
            digits = int(shifted)
            result = digits * mantissa
            if result <= _INT64_MAX:
                if not positive:
                    result = -result
                if fmt is Format.BINARY_SI:
                    canonical = power % 10 == 0 and digits & 0x07 != 0
                else:
                    canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(result, scale, fmt, text if canonical else None)

    # The slow path (Go: an inf.Dec): the value exactly, then rounded up to a nano.
    unscaled, exponent = _decimal(value)
    if base == 10:
        exponent += power
    else:
        unscaled <<= power
    amount = Quantity(abs(unscaled), exponent, fmt)
    if amount.unscaled != 0:
        amount = amount.round_up(NANO)
    if fmt is Format.BINARY_SI and amount.compare(Quantity(_INT64_MAX, 0, fmt)) > 0:
        amount = Quantity(_INT64_MAX, 0, fmt)
    if fmt is Format.BINARY_SI and amount.unscaled > 0 and amount.compare(Quantity(1, 0, fmt)) < 0:
        fmt = Format.DECIMAL_SI
    sign = -1 if unscaled < 0 else 1
    return Quantity(sign * amount.unscaled, amount.exponent, fmt)


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Go's parseQuantityString: (positive, the number as written with its sign, the integer
    digits without leading zeros ("0" if none), the fraction digits, the suffix). Raises
    ValueError(ERR_FORMAT_WRONG) for characters after a suffix that are not its exponent."""
    positive = True
    pos = 0
    end = len(text)
    if text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise ValueError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """Go's suffixer.interpret: (base, power, format) of a suffix. Raises
    ValueError(ERR_SUFFIX) for a suffix that is none of the tables' nor ``e``/``E`` followed by
    an integer Go's strconv.ParseInt reads as an int64, and ValueError(ERR_EXPONENT) for an
    exponent beyond ``MAX_EXPONENT`` either way (where Go would cut it to int32 and go on)."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        unsigned = digits[1:] if digits[0] in "+-" else digits
        if unsigned and all(c in _DIGITS for c in unsigned):
            check_exponent(suffix)
            return 10, int(digits), Format.DECIMAL_EXPONENT
    raise ValueError(ERR_SUFFIX)


def check_exponent(text: str) -> None:
    """Raise ValueError(ERR_EXPONENT) when the quantity string ``text`` (``"1e-999999999"``,
    ``"3E+7"``) ends in ``e``/``E``, an optional sign and digits whose value is beyond
    ``MAX_EXPONENT`` in magnitude; any other text passes, whether it parses or not (Go:
    checkQuantityExponent). It looks at the text only (leading zeros count for nothing), so it
    costs the length of the text whatever the exponent, and it is what keeps ``parse_quantity``
    and the operator's spec reading from computing a giant power of ten."""
    end = len(text)
    pos = end
    while pos > 0 and text[pos - 1] in _DIGITS:
        pos -= 1
    if pos == end:
        return
    digits = text[pos:].lstrip("0")
    if pos > 0 and text[pos - 1] in "+-":
        pos -= 1
    if pos == 0 or text[pos - 1] not in "eE":
        return
    if len(digits) > len(str(MAX_EXPONENT)) or int(digits or "0") > MAX_EXPONENT:
        raise ValueError(ERR_EXPONENT)


def _decimal(value: str) -> tuple[int, int]:
    """Go's inf.Dec SetString for the number part of a quantity: (unscaled, exponent), the
    fraction's digits counted into the exponent. Raises ValueError(ERR_NUMERIC) when there is
    no digit."""
    sign = -1 if value.startswith("-") else 1
    body = value[1:] if value[:1] in "+-" else value
    whole, _, fraction = body.partition(".")
    digits = whole + fraction
    if not digits or not all(c in _DIGITS for c in digits):
        raise ValueError(ERR_NUMERIC)
    return sign * int(digits), -len(fraction)


def _pow10(power: int) -> int:
    """10 to the ``power`` (at least 0), typed as an int."""
    return int(10**power)


def _remove_factors(value: int, factor: int) -> tuple[int, int]:
    """(value without its factors of ``factor``, how many were removed), the sign kept (Go:
    removeInt64Factors and removeBigIntFactors). Zero is returned as it is."""
    count = 0
    magnitude = abs(value)
    while magnitude >= factor and magnitude % factor == 0:
        magnitude //= factor
        count += 1
    return (magnitude if value >= 0 else -magnitude), count
