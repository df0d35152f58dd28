"""Expected failures an implementation declares (``expected_failures`` in its implementation
file): each becomes an ``xfail`` of that check with the declared reason, strict unless declared
``strict = false`` (a failure that depends on a race the implementation's model leaves open).
A strict xfail that passes fails the run, so a declaration that no longer holds shows. A
declaration of a bare check id covers its every case; a case declared ``{ passes = true,
reason = "..." }`` is left out of it (it must pass).

The harness never bends a check for an implementation: the check runs as it is, and only its
outcome is read as "failed as declared". What actually failed is kept as the testcase's
``xfail_failure`` property, next to the reason.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pytest

from harness.operators import Implementation, ImplementationError, get_implementation
from harness.plugin import options
from harness.plugin.markers import junit_name


def declared(config: pytest.Config) -> Implementation:
    """The implementation under test as declared (``--modeldock-impl``, ``--modeldock-impl-file``); an unknown id
    gives one with nothing declared (the ``impl`` fixture then reports the unknown id)."""
    impl_id = options.value(config, "impl")
    try:
        return get_implementation(impl_id, options.value(config, "impl-file") or [])
    except ImplementationError:
        return Implementation(id=impl_id, title=impl_id, command=("false",))


def declared_key(
    item: pytest.Item, expected: Mapping[str, str], passing: Collection[str] = ()
) -> str | None:
    """The key of ``expected`` that covers this test: its ``id[case]``, else its bare check id;
    None when neither is declared (or the test is not a check), or when its ``id[case]`` is
    one of ``passing`` (declared ``passes = true``: the bare id does not cover it)."""
    name = junit_name(item)
    if name is None or name in passing:
        return None
    return next((k for k in (name, name.split("[")[0]) if k in expected), None)


def mark(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the ``xfail`` mark with the declared reason to every check the implementation
    under test declares it fails."""
    impl = declared(config)
    for item in items:
        key = declared_key(item, impl.expected_failures, impl.passing_cases)
        if key:
            item.add_marker(
                pytest.mark.xfail(
                    strict=key not in impl.unstrict_failures, reason=impl.expected_failures[key]
                )
            )
