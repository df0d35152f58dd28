"""The ``check`` marker: which conformance check (and case) a test function is.

``@pytest.mark.check("watch-recovers", case="connection-cut")`` on a test in
``conformance/`` names the check it implements (ids: ``harness.checks.CHECK_ORDER``). The
JUnit testcase and the artifacts folder are named from it.
"""

from __future__ import annotations

import pytest

#: The ``markers`` ini lines the plugin registers (``pytest --markers`` shows them).
MARKERS = (
    "check(id, case=None): the conformance check id (harness/checks.py, docs/design.md "
    "\"The checks\") and, for a check made of several cases, which",
    "tier(name): lowest control-plane tier the check needs",
)


def check_id(item: pytest.Item) -> str | None:
    """The check id from the item's ``check`` marker, or None."""
    marker = item.get_closest_marker("check")
    return str(marker.args[0]) if marker else None


def junit_name(item: pytest.Item) -> str | None:
    """``<check id>`` or ``<check id>[<case>]`` (the marker's ``case``, else the item's
    parametrisation), or None for a test that is not a check."""
    marker = item.get_closest_marker("check")
    if marker is None:
        return None
    if marker.kwargs.get("case"):
        return f"{marker.args[0]}[{marker.kwargs['case']}]"
    suffix = item.name[item.name.index("["):] if "[" in item.name else ""
    return f"{marker.args[0]}{suffix}"
