"""The ``existing`` tier: a cluster the harness does not own (KUBECONFIG and context).

Not built yet (issue 12, step 5). What it will do: run the operators as local processes
against the cluster, each implementation as a ServiceAccount with a TokenRequest token bound
with ``config/rbac`` in each check's namespace; install the CRD if absent and leave it as it
was found (a CRD of another version is an error, not an upgrade); label every namespace the
run creates and delete them at the end, also on Ctrl-C; account requests through the API
proxy, since there is no audit log to read.

What exists today: the capabilities such a cluster offers (``harness.tiers``: no audit log,
no client certificates, no private control planes; ``pods-ready`` only on kwok nodes), so the
plugin can already say which checks would be skipped there and why.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from harness.tiers import OFFERS

#: Exit code of ``conformance --cluster existing`` until the tier is built.
NOT_BUILT_EXIT = 2


def probe(config: pytest.Config) -> tuple[frozenset[str], str]:
    """(capabilities, Kubernetes version) of the existing cluster. Until the tier is built:
    its static offer and an unknown version."""
    return OFFERS["existing"], "unknown"


def conformance(
    chosen: list[str],
    impls: dict[str, Any],
    reports: Any,
    pytest_args: list[str],
    impl_files: list[str],
    context: str | None,
    started: float,
) -> int:
    """``conformance --cluster existing``: not built yet; says so and returns NOT_BUILT_EXIT."""
    print(
        "[modeldock] --cluster existing is not built yet (ServiceAccount identities, "
        "labelled namespaces, CRD install-if-absent are issue 12's step 5); use envtest or "
        "sim",
        file=sys.stderr,
        flush=True,
    )
    return NOT_BUILT_EXIT
