"""The CRD's (``crds/``) rules for ``spec.resources``, read from the file the API server is
given: every quantity spelling both operators are held to (conformance/quantity-spellings.json)
stays admitted unless it is negative, and resource names follow Kubernetes' qualified-name
rule. The API server's own verdict on the same specs is the check ``invalid-rejected``; these
tests only keep the patterns honest between runs. Python's ``re`` reads these two patterns as
RE2 (the API server's engine) does: no construct they use differs between the two."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from harness.paths import CRDS_DIR, REPO_ROOT

CRD = yaml.safe_load((CRDS_DIR / "modeldock.io_modelservices.yaml").read_text())
RESOURCES = CRD["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
    "properties"
]["resources"]["properties"]
SPELLINGS = json.loads((REPO_ROOT / "conformance" / "quantity-spellings.json").read_text())


def admitted(quantity: dict[str, Any], value: str) -> bool:
    """Whether a string ``value`` passes the quantity schema's ``pattern`` and ``maxLength``."""
    return bool(re.fullmatch(quantity["pattern"], value)) and len(value) <= quantity["maxLength"]


def test_every_spelling_of_the_table_is_admitted_unless_negative() -> None:
    for field in ("limits", "requests"):
        quantity = RESOURCES[field]["additionalProperties"]
        assert quantity["minimum"] == 0  # an integer quantity: no sign either
        for row in SPELLINGS["spellings"]:
            spelling = row["spelling"]
            assert admitted(quantity, spelling) is not spelling.startswith("-"), spelling
        assert not admitted(quantity, "1" * 33)  # longer than any spelling a user means
        assert admitted(quantity, "99999999999999999999999Ei")  # capped, not refused
        # The exponent has at most two digits (CONTRACT.md, "Desired Deployment"): a longer
        # one makes apimachinery compute a power of ten with that many digits.
        for spelling in ("1e99", "1e-99", "1E+99", "1.5e-10"):
            assert admitted(quantity, spelling), spelling
        for spelling in ("1e100", "1e-100", "1e999999999", "1e-999999999", "1E+100"):
            assert not admitted(quantity, spelling), spelling


def test_resource_names_follow_the_qualified_name_rule() -> None:
    for field in ("limits", "requests"):
        (rule,) = RESOURCES[field]["x-kubernetes-validations"]
        pattern = re.search(r"k\.matches\('([^']*)'\)", rule["rule"])
        assert pattern, rule["rule"]
        name = re.compile(pattern.group(1))
        for ok in (
            "cpu",
            "memory",
            "ephemeral-storage",
            "hugepages-2Mi",
            "nvidia.com/gpu",
            "a" * 63,
        ):
            assert name.fullmatch(ok), ok
        for bad in (
            "foo bar",
            "",
            "-cpu",
            "cpu-",
            "a" * 64,
            "Example.com/gpu",
            "nvidia.com/",
            "/gpu",
        ):
            assert not name.fullmatch(bad), bad
        assert RESOURCES[field]["maxProperties"] > 0  # bounds the rule's cost (CEL budget)
