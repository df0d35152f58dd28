"""What the checks do differently by tier (docs/design.md, "Tiers"), in one place.

On a tier whose Pods become Ready (``sim``), a Deployment's status keeps changing for a
moment after every create, scale or generation bump, and the operator rightly copies each
change into the ModelService's status. Checks that watch for "no write" first let that
settle.
"""

from __future__ import annotations

from typing import Any

from conformance.support import ROLLOUT_TIMEOUT
from harness.kube import Kube, wait_for
from harness.modelservice import condition
from harness.tiers import Tier


def wait_rolled_out(admin: Kube, namespace: str, name: str, tier: Tier) -> dict[str, Any] | None:
    """Where Pods become Ready: wait until the ModelService says Ready=True (its rollout is
    over and its status will not move by itself), a premise of the check that calls it;
    return it. Elsewhere return None at once."""
    if not tier.offers("pods-ready"):
        return None
    return wait_for(
        lambda: admin.get("modelservices", namespace, name),
        lambda m: (condition(m, "Ready") or {}).get("status") == "True",
        ROLLOUT_TIMEOUT,
        f"ModelService {name}'s rollout to complete (Ready=True) before the check's quiet window",
        premise=True,
    )


def unrelated_metadata(tier: Tier) -> str:
    """Where an unrelated note goes on a Deployment: ``annotations`` on envtest, ``labels``
    where a deployment controller runs, since there a changed annotation bumps a Deployment's
    generation (the apps API's update strategy) and so is a rollout the status must report."""
    return "labels" if tier.offers("deployment-controller") else "annotations"
