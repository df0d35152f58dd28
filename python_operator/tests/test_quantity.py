"""Quantity spellings: python_operator.runtime.quantity and the operator's desired resources
against the table both operators are held to, conformance/quantity-spellings.json, whose values
Go computed (go_reference/quantity_unit_test.go, TestQuantitySpellings, reads the same file).

Per row: ``parsed`` is apimachinery's ``resource.MustParse(spelling).String()``, ``stored``
what the operator writes into the Deployment for a ModelService quantity spelled so, which is
what the API server stores (CONTRACT.md, "Desired Deployment")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from python_operator import controller
from python_operator.runtime import quantity

TABLE = Path(__file__).resolve().parents[2] / "conformance" / "quantity-spellings.json"
ROWS: list[dict[str, str]] = json.loads(TABLE.read_text())["spellings"]


def test_the_table_has_the_spellings_of_issue_26() -> None:
    # The spellings the table must keep whatever else is added or removed.
    required = [
        "1e-4",
        "1.5m",
        "0.1",
        "100m",
        "1e3",
        "1E3",
        "1Ki",
        "1.5Gi",
        "1000Mi",
        "0.0001",
        "12e-1",
        "+1",
        "1e+3",
        "1.5",
        "0.5Gi",
        "1500m",
        "2048Ki",
        "1e-9",
        "1n",
        "1u",
    ]
    assert set(required) <= {row["spelling"] for row in ROWS}


@pytest.mark.parametrize("row", ROWS, ids=[row["spelling"] for row in ROWS])
def test_parse_quantity_string_is_go_string(row: dict[str, str]) -> None:
    assert quantity.parse_quantity(row["spelling"]).string() == row["parsed"]


@pytest.mark.parametrize("row", ROWS, ids=[row["spelling"] for row in ROWS])
def test_default_resources_writes_what_go_writes(row: dict[str, str]) -> None:
    resources: dict[str, Any] = {"requests": {"cpu": row["spelling"]}}
    assert controller.default_resources(resources) == {"requests": {"cpu": row["stored"]}}


def test_round_up_keeps_the_format() -> None:
    # 1e-4 is DecimalExponent: rounded, it stays one (Go RoundUp never changes Format).
    q = quantity.parse_quantity("1e-4")
    assert q.format is quantity.Format.DECIMAL_EXPONENT
    assert q.round_up(quantity.MILLI).string() == "1e-3"


def test_round_up_keeps_a_canonical_spelling_it_does_not_change() -> None:
    q = quantity.parse_quantity("1E3")
    assert q.round_up(quantity.MILLI) is q


@pytest.mark.parametrize(
    "text, error",
    [
        ("", quantity.ERR_FORMAT_WRONG),
        ("1x", quantity.ERR_FORMAT_WRONG),
        ("1.5.5", quantity.ERR_FORMAT_WRONG),
        ("1e+-3", quantity.ERR_FORMAT_WRONG),
        ("1e", quantity.ERR_SUFFIX),
        ("1Ki3", quantity.ERR_SUFFIX),
        ("1m3", quantity.ERR_SUFFIX),
        ("1ee3", quantity.ERR_SUFFIX),
        ("not-a-quantity", quantity.ERR_FORMAT_WRONG),
    ],
)
def test_parse_quantity_refuses_what_go_refuses(text: str, error: str) -> None:
    with pytest.raises(ValueError) as raised:
        quantity.parse_quantity(text)
    assert str(raised.value) == error


@pytest.mark.parametrize(
    "a, b, order",
    [("1000m", "1", 0), ("1Gi", "1073741824", 0), ("1", "1001m", -1), ("1Ki", "1k", 1)],
)
def test_compare_is_by_value(a: str, b: str, order: int) -> None:
    assert quantity.parse_quantity(a).compare(quantity.parse_quantity(b)) == order


@pytest.mark.parametrize(
    "text",
    ["1e-999999999", "1e999999999", "1E+100", "1e-100", "5.5e-0000100", "1e99999999999999999999"],
)
def test_parse_quantity_refuses_an_exponent_beyond_the_bound(text: str) -> None:
    # Before the bound, "1e-999999999" hung here computing 10**999999990 (round_up to a nano).
    with pytest.raises(ValueError) as raised:
        quantity.parse_quantity(text)
    assert str(raised.value) == quantity.ERR_EXPONENT
    assert str(raised.value) == "quantity's exponent must be between -99 and 99"


@pytest.mark.parametrize("text", ["1e99", "1e-99", "1E+099", "1e-0099", "99", "1Ki", "1.5"])
def test_parse_quantity_takes_an_exponent_within_the_bound(text: str) -> None:
    quantity.check_exponent(text)
    quantity.parse_quantity(text).round_up(quantity.MILLI).string()


def test_read_spec_refuses_an_exponent_beyond_the_bound() -> None:
    ms = {
        "metadata": {"namespace": "lab", "name": "opt"},
        "spec": {"model": "m", "image": "i", "resources": {"limits": {"cpu": "1e-999999999"}}},
    }
    with pytest.raises(ValueError) as raised:
        controller.read_spec(ms)
    assert str(raised.value) == (
        "reading spec of ModelService lab/opt: spec.resources.limits.cpu: "
        "quantity's exponent must be between -99 and 99"
    )
