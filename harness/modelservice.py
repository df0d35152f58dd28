"""The ModelService as the harness sees it: the one manifest builder and the one reading of
"converged" from its status, shared by the conformance checks, the bench and the mutant runner.

The API is ``modeldock.io/v1alpha1`` ``ModelService`` (``crds/modeldock.io_modelservices.yaml``);
what its status means is ``conformance/CONTRACT.md``. Pure functions on dicts: no API calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

GROUP_VERSION = "modeldock.io/v1alpha1"

#: The label every child carries with its ModelService's name (CONTRACT.md, "Children").
SELECTOR_LABEL = "modeldock.io/modelservice"


def modelservice(name: str, **spec: Any) -> dict[str, Any]:
    """A ModelService manifest named ``name``; ``spec`` fields override the defaults model
    ``m`` and image ``srv:1`` (the CRD defaults the rest, e.g. replicas 1, port 8000)."""
    body = {"model": "m", "image": "srv:1"} | spec
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "ModelService",
        "metadata": {"name": name},
        "spec": body,
    }


def condition(msvc: Mapping[str, Any], ctype: str) -> dict[str, Any] | None:
    """The status condition of type ``ctype`` (a copy), or None."""
    for c in (msvc.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == ctype:
            return dict(c)
    return None


def status_converged(msvc: Mapping[str, Any]) -> bool:
    """The ModelService's own status says the operator has caught up with its spec:
    ``status.observedGeneration`` equals ``metadata.generation``, conditions ``Ready`` and
    ``Progressing`` are both present, and ``Ready`` is not ``ChildConflict``. Says nothing of
    the children; ``conformance.support.is_converged`` also reads them."""
    meta = msvc.get("metadata") or {}
    status = msvc.get("status") or {}
    if not isinstance(status, dict) or status.get("observedGeneration") != meta.get("generation"):
        return False
    ready = condition(msvc, "Ready")
    return (
        ready is not None
        and condition(msvc, "Progressing") is not None
        and ready.get("reason") != "ChildConflict"
    )
