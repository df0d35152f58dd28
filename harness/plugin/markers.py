"""The ``modeldock_check``, ``modeldock_needs`` and ``modeldock_slow`` markers (prefixed, as
the options are: a project's own ``check`` or ``slow`` marker is not ModelDock's; names in
``harness.checks``).

``@pytest.mark.modeldock_check("watch-recovers", case="connection-cut")`` on a test in
``conformance/`` names the check it implements (ids: ``harness.checks.CHECK_ORDER``). The
JUnit testcase and the artifacts folder are named from it.

``@pytest.mark.modeldock_needs("pods-ready", "garbage-collector")`` says what the check needs from the
cluster (capabilities: ``harness.tiers.CAPABILITIES``; docs/design.md, "Tiers"). The fixtures
``audit`` and ``isolated`` add their own needs (``harness.tiers.FIXTURE_NEEDS``). A check whose
needs the run's tier does not offer is skipped before it starts, with the reason.

``@pytest.mark.modeldock_slow``: the test runs only with ``--modeldock-full``.
"""

from __future__ import annotations

import inspect

import pytest

from harness.checks import CHECK_MARKER as CHECK
from harness.checks import NEEDS_MARKER as NEEDS
from harness.checks import SLOW_MARKER as SLOW

#: The ``markers`` ini lines the plugin registers (``pytest --markers`` shows them).
MARKERS = (
    f"{CHECK}(id, case=None): the conformance check id (harness/checks.py, docs/design.md "
    '"The checks") and, for a check made of several cases, which',
    f"{NEEDS}(*capabilities): what the check needs from the cluster (harness/tiers.py); "
    "skipped with the reason on a tier that does not offer it",
    f"{SLOW}: runs only with --modeldock-full (it waits for minutes: a client's default deadline, a five-minute quiet window)",
)


def check_id(item: pytest.Item) -> str | None:
    """The check id from the item's ``modeldock_check`` marker, or None."""
    marker = item.get_closest_marker(CHECK)
    return str(marker.args[0]) if marker else None


def junit_name(item: pytest.Item) -> str | None:
    """``<check id>`` or ``<check id>[<case>]`` (the marker's ``case``, else the item's
    parametrisation), or None for a test that is not a check."""
    marker = item.get_closest_marker(CHECK)
    if marker is None:
        return None
    if marker.kwargs.get("case"):
        return f"{marker.args[0]}[{marker.kwargs['case']}]"
    suffix = item.name[item.name.index("[") :] if "[" in item.name else ""
    return f"{marker.args[0]}{suffix}"


def needs(item: pytest.Item) -> list[str]:
    """Every capability the item needs: its ``modeldock_needs`` markers' arguments, then those of the
    fixtures it takes (``harness.tiers.FIXTURE_NEEDS``), without repeats."""
    from harness.tiers import FIXTURE_NEEDS

    out: list[str] = []
    for marker in item.iter_markers(NEEDS):
        out += [str(a) for a in marker.args]
    for fixture in getattr(item, "fixturenames", ()):
        out += FIXTURE_NEEDS.get(fixture, ())
    return list(dict.fromkeys(out))


def check_texts(item: pytest.Item) -> tuple[str, str]:
    """(why, teaches) of a check: its test function's docstring, the first paragraph and the
    rest, each on one line; ("", "") without a docstring. The report shows both, for a
    skipped check too."""
    doc = inspect.getdoc(getattr(item, "function", None)) or ""
    paragraphs = doc.split("\n\n")
    return " ".join(paragraphs[0].split()), " ".join(" ".join(paragraphs[1:]).split())
