"""child-conflict[owner-moved]: a child whose controller ownerReference someone moves to another
ModelService is judged again, at once, by the ModelService that lost it.

``Owns`` maps a child's update to the ModelService of its controller ownerReference; on an
update it maps the old object's too (controller-runtime's ``EnqueueRequestForOwner``), so an
owner that lost its child hears of it in the same event as the one that gained it.
"""

from __future__ import annotations

import time

import pytest

from conformance.premises import set_up
from conformance.reactions import CHILD_REACT_BOUND
from conformance.support import (
    condition,
    controller_ref,
    create_modelservice,
    get_present,
    present,
    wait_converged,
    wait_settled,
)
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence


@pytest.mark.modeldock_check("child-conflict", case="owner-moved")
def test_owner_moved(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """child-conflict[owner-moved]: a Deployment whose controller ownerReference is moved by
    someone else from its ModelService to another one is reported by the one that lost it.
    ModelServices ``web`` and ``other`` converge; then the harness rewrites Deployment
    ``web``'s ownerReferences to name ``other`` as its controller, and ModelService ``web``
    must report ChildConflict within 10 s of that edit (CHILD_REACT_BOUND).

    Nothing else brings ``web`` back: its own spec did not change, and no RequeueAfter is
    pending on a ModelService that converged. The update event of the child is the only
    news, and ``Owns`` must map it to the owner of the old object as well as the new one
    (controller-runtime's EnqueueRequestForOwner does both). An operator that maps only the
    new object tells ``other``, which has nothing to do with a child of another name, and
    ``web`` goes on saying it is fine while it controls nothing.
    """
    op = operators.start()
    web = create_modelservice(admin, namespace, "web")
    other = create_modelservice(admin, namespace, "other")
    set_up(
        lambda: (
            wait_converged(admin, namespace, "web"),
            wait_converged(admin, namespace, "other"),
        ),
        "ModelServices web and other converging",
    )
    set_up(lambda: wait_settled(op), "settling after the first convergence")
    dep = get_present(admin, "deployments", namespace, "web")
    ref = present(controller_ref(dep), "Deployment web's controller ownerReference")
    evidence.record("controller_before", ref["name"])
    dep["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "modeldock.io/v1alpha1",
            "kind": "ModelService",
            "name": "other",
            "uid": other["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    admin.update("deployments", dep)
    edited = time.monotonic()
    try:
        msvc = wait_for(
            lambda: admin.get("modelservices", namespace, "web"),
            lambda m: (condition(m or {}, "Ready") or {}).get("reason") == "ChildConflict",
            CHILD_REACT_BOUND,
            "ModelService web to report ChildConflict",
        )
    except AssertionError as err:
        raise AssertionError(
            f"Deployment web's controller ownerReference was moved from ModelService web (uid "
            f"{web['metadata']['uid']}) to ModelService other, and web did not report "
            f"ChildConflict within {CHILD_REACT_BOUND:g} s: an update of a child enqueues the "
            'owner of the old object as well as the new one (Owns; CONTRACT.md, "Reacting to '
            f"a child's change\"). {err}"
        ) from None
    evidence.record("reported_after_s", round(time.monotonic() - edited, 2))
    evidence.record("ready", condition(msvc, "Ready"))
