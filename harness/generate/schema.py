"""Values drawn from the CRD's own schema (``crds/``), so that a change of the schema flows into
what the generator writes.

``spec_schema()`` reads ``spec`` of the ModelService's ``openAPIV3Schema``; ``values(schema)``
turns a piece of it into a hypothesis strategy: an object's ``required`` properties always, the
others present, absent or (in an edit) ``null``; strings within ``minLength``/``maxLength``;
integers within ``minimum``/``maximum``; arrays of their ``items``; an
``x-kubernetes-int-or-string`` quantity as an integer or as one of the spellings its
``pattern`` admits (``1.5m``, ``1e-4``, ``.5``, ``1e3``, ``0.5Gi``, ``+1``: the API server
stores some of them rewritten; the pattern has no ``-`` sign, so no negative spelling is drawn).
Exponents near the pattern's bound on their digits are drawn too (``1e-99``, ``1e99``).
``invalid_edits(schema)`` draws merge patches the API server must refuse (a bound crossed, a
required field removed, a quantity outside the pattern, an exponent one past its bound).

A hand-written walker rather than hypothesis-jsonschema: 0.23.1, the last release, calls
hypothesis internals that 6.170 removed (``many.more``), and the schema's subset here (object,
string, integer, array, int-or-string) is small. Every construct the walker does not know
raises ``UnsupportedSchema`` naming its path, so a new kind of field in the CRD is noticed.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import yaml
from hypothesis import strategies as st

from harness.paths import CRDS_DIR

#: The CRD the strategies are drawn from.
CRD_FILE = CRDS_DIR / "modeldock.io_modelservices.yaml"

#: Images that are also realistic: a tag, none (the API server then defaults the Deployment's
#: imagePullPolicy to Always), ``latest`` (Always too), a digest.
REAL_IMAGES = ("srv:1", "srv:2", "srv", "srv:latest", "example/server@sha256:" + "a" * 64)

#: Quantity spellings the schema's pattern admits, some of which the API server rewrites.
QUANTITIES = (
    "1",
    "1.5m",
    "1e-4",
    "2.5m",
    "2m",
    "1000m",
    ".5",
    "0.5Gi",
    "512Mi",
    "1e3",
    "1k",
    "+1",
    "100",
)


#: The spellings the API server stores otherwise (rounded up to a thousandth, or respelled),
#: drawn as often as all the others together: a controller that compares them as written
#: writes on every pass.
REWRITTEN = ("1.5m", "1e-4", "2.5m", "0.5Gi", "1000m")
#: Those of ``REWRITTEN`` whose value the API server changes (rounded up to a thousandth):
#: drawn as often again, since only a changed value makes an operator that compares values
#: without rounding as the API server does write on every pass.
ROUNDED = ("1.5m", "1e-4", "2.5m")


#: How the CRD's quantity pattern bounds the exponent's digits: ``[0-9]{1,N}`` after ``[eE]``.
_EXPONENT_DIGITS = re.compile(r"\[eE\]\(\\\+\|-\)\?\[0-9\]\{1,(\d+)\}")


def exponent_bound(pattern: str) -> int | None:
    """The largest exponent (``99`` for ``[0-9]{1,2}``) the quantity ``pattern`` admits after
    ``e``/``E``, read from its text, or None when the pattern does not bound the exponent's
    digits that way (CONTRACT.md, "Desired Deployment": the bound keeps apimachinery from
    computing ten to a huge exponent)."""
    found = _EXPONENT_DIGITS.search(pattern)
    return 10 ** int(found.group(1)) - 1 if found else None


def exponent_spellings(pattern: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(admitted, refused): quantity spellings at the pattern's exponent bound and one past it
    (``1e-99``, ``1e99``, ``1E+99``, ``5e-98``; ``1e100``, ``1e-100``), empty when the pattern
    sets no bound. The admitted ones are values a Deployment takes (``1e-99`` is stored as
    ``1e-3``, ``1e99`` as written)."""
    bound = exponent_bound(pattern)
    if bound is None:
        return (), ()
    admitted = (f"1e-{bound}", f"1e{bound}", f"1E+{bound}", f"5e-{bound - 1}")
    return admitted, (f"1e{bound + 1}", f"1e-{bound + 1}")


class UnsupportedSchema(ValueError):
    """A construct of the CRD schema the walker does not draw from; the message names its
    path (``spec.resources.limits``)."""


@cache
def spec_schema() -> dict[str, Any]:
    """The ``spec`` property of the ModelService's ``openAPIV3Schema`` (storage version), as
    read from ``CRD_FILE``. KeyError if the CRD no longer has one."""
    crd = yaml.safe_load(CRD_FILE.read_text())
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    return schema


def _quantity(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    pattern = schema.get("pattern")
    spellings: st.SearchStrategy[Any] = st.one_of(
        st.sampled_from(REWRITTEN), st.sampled_from(QUANTITIES)
    )
    if pattern:
        # Go's regexp: $ is the end of the text; Python's fullmatch says the same.
        rx = re.compile(pattern)
        spellings = st.one_of(
            spellings, st.from_regex(rx, fullmatch=True).filter(lambda s: len(s) <= 12)
        )
        near_bound, _ = exponent_spellings(pattern)
        if near_bound:
            # The largest exponents the pattern admits: an operator that computes ten to the
            # exponent still answers at once, one that bounds it too tightly refuses them.
            spellings = st.one_of(spellings, st.sampled_from(near_bound))
    # The fixed spellings first: hypothesis prefers the first branch of a one_of, and those
    # are the ones the API server rewrites (1.5m, 1e-4: below a thousandth, rounded up).
    # one_of draws its (flattened) branches alike: the rounded spellings are one of five.
    return st.one_of(st.sampled_from(ROUNDED), spellings, st.integers(min_value=0, max_value=4096))


def values(schema: dict[str, Any], path: str = "spec") -> st.SearchStrategy[Any]:
    """A strategy of values ``schema`` admits (see the module docstring). Raises
    ``UnsupportedSchema`` for a construct it does not know."""
    if schema.get("x-kubernetes-int-or-string"):
        return _quantity(schema)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if extra:
            # cpu and memory twice as often as the others: a Deployment refuses a fraction of
            # a GPU, so a map drawn for an extended resource mostly ends in a refused write.
            names = st.sampled_from(
                ("cpu", "memory", "cpu", "memory", "nvidia.com/gpu", "ephemeral-storage")
            )
            # Mostly non-empty: an empty map is one spelling, the quantities are many.
            return st.one_of(
                st.dictionaries(names, values(extra, f"{path}.*"), min_size=1, max_size=3),
                st.just({}),
            )
        required = set(schema.get("required") or [])
        return st.fixed_dictionaries(
            {k: values(v, f"{path}.{k}") for k, v in props.items() if k in required},
            optional={k: values(v, f"{path}.{k}") for k, v in props.items() if k not in required},
        )
    if kind == "string":
        lo, hi = schema.get("minLength", 0), min(schema.get("maxLength", 40), 40)
        # utf-8: no lone surrogates, which JSON cannot carry to the API server.
        drawn = st.text(st.characters(codec="utf-8"), min_size=lo, max_size=hi)
        if path.endswith(".image"):
            return st.one_of(st.sampled_from(REAL_IMAGES), drawn)
        plain = st.text("abcdefghij-0123456789", min_size=max(lo, 1), max_size=min(hi, 12))
        return st.one_of(plain, drawn)
    if kind == "integer":
        lo, hi = schema.get("minimum", 0), schema.get("maximum", 1 << 31)
        # Small values most of the time: replicas 0..3 are what a user writes.
        return st.one_of(st.integers(lo, min(hi, lo + 3)), st.integers(lo, hi))
    if kind == "array":
        return st.lists(values(schema["items"], f"{path}[]"), max_size=3)
    raise UnsupportedSchema(f"{path}: no strategy for schema {sorted(schema)}")


def spec_values() -> st.SearchStrategy[dict[str, Any]]:
    """A whole spec the CRD admits (for a create)."""
    return values(spec_schema())


def spec_edits() -> st.SearchStrategy[dict[str, Any]]:
    """A JSON merge patch of ``spec`` the CRD admits: some fields set to new values, optional
    ones also set to ``null`` (removed: the API server defaults ``replicas`` and ``port``
    again). At least one field."""
    schema = spec_schema()
    required = set(schema.get("required") or [])
    fields = {}
    for name, sub in (schema.get("properties") or {}).items():
        value = values(sub, f"spec.{name}")
        fields[name] = value if name in required else st.one_of(value, st.none())
    return st.fixed_dictionaries({}, optional=fields).filter(bool)


def invalid_edits() -> st.SearchStrategy[dict[str, Any]]:
    """A merge patch of ``spec`` the API server must refuse (422), derived from the schema's
    own bounds: an integer one past ``minimum`` or ``maximum``, a string shorter than
    ``minLength``, a required field removed, a quantity outside the pattern."""
    schema = spec_schema()
    props = schema.get("properties") or {}
    bad: list[dict[str, Any]] = []
    for name, sub in props.items():
        if sub.get("type") == "integer":
            if "minimum" in sub:
                bad.append({name: sub["minimum"] - 1})
            if "maximum" in sub:
                bad.append({name: sub["maximum"] + 1})
            bad.append({name: "not-a-number"})
        if sub.get("type") == "string" and sub.get("minLength", 0) > 0:
            bad.append({name: ""})
    for name in schema.get("required") or []:
        bad.append({name: None})
    bad.append({"resources": {"limits": {"cpu": "one"}}})
    bad.append({"resources": {"requests": {"memory": "1Zi"}}})
    bad.append({"resources": {"limits": {"cpu": "-1"}}})  # the pattern has no "-" sign
    limits = props.get("resources", {}).get("properties", {}).get("limits", {})
    _, past_bound = exponent_spellings(limits.get("additionalProperties", {}).get("pattern", ""))
    bad.extend({"resources": {"limits": {"cpu": q}}} for q in past_bound)
    return st.sampled_from(bad)
