"""deletion-policy[switched-to-orphan]: a deletion policy switched to orphan while the cleanup
is under way is honoured, though the operator's cache has not heard of the switch: the
children are kept. deletion-policy[gone-unseen] and [replaced-unseen]: a ModelService gone, or
replaced by another of its name, while its cleanup is under way, though the cache still shows
it deleting, ends the cleanup with nothing done.

A DELETE of an object that is already deleting sets the garbage collector's finalizers anew
(the API server's updateForGracefulDeletionAndFinalizers), so `kubectl delete` followed by
`kubectl delete --cascade=orphan` puts `orphan` on the ModelService: the user's last word is
"keep the children". Judged from the API server alone: the stored children and their UIDs,
the ModelService's finalizers, and the operator's deletes in the audit log; the two cases of a
ModelService gone judge the operator's requests in its API proxy's log.
"""

from __future__ import annotations

import signal
import time
from typing import Any

import pytest

from conformance.support import (
    CHILDREN,
    FINALIZER,
    REACT_TIMEOUT,
    create_modelservice,
    first_convergence,
    get_present,
    operator_writes,
    premise,
    refused_deletes,
    retry_owed,
    wait_refused,
    wait_settled,
)
from harness.accounting import Accounting
from harness.faults.apiproxy.records import RequestLog, seconds
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence
from harness.tiers import Tier


@pytest.mark.modeldock_check("deletion-policy", case="switched-to-orphan")
def test_policy_switched_to_orphan(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    tier: Tier,
) -> None:
    """deletion-policy[switched-to-orphan]: `kubectl delete`, then `kubectl delete
    --cascade=orphan` before the cleanup has deleted anything, keeps the children, even when
    the operator's cache still shows the first delete.

    An operator that reads the policy from its cache deletes the workload the user has just
    asked to keep, for as long as the cache lags the second request; a child's own delete
    (its UID precondition) knows nothing of its owner's policy. The garbage collector reads an
    owner live before acting on its dependents (kube v1.34 GarbageCollector.isDangling), and
    so must the cleanup before it deletes a child. Staged with certainty: an admission policy
    refuses the operator's Deployment deletes, so the cleanup of the first (Background) delete
    is under way and stuck; then the operator's API proxy holds every watch event of
    ModelServices, and the ModelService is deleted again with `Orphan`; then the refusal is
    lifted. On the cache's stale word the next cleanup pass would delete both children. The
    operator must instead take the orphan path (remove its finalizer, no child deleted): the
    children keep their UIDs, and no delete of a child by the operator was admitted (audit
    log). On envtest the ModelService then stays with only `orphan` (no garbage collector);
    where one runs it strips the children's references and the ModelService goes.
    """
    op, created = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    proxy = operators.proxy_of(op)
    uid = created["metadata"]["uid"]
    kept = {res: get_present(admin, res, namespace, "web")["metadata"]["uid"] for res in CHILDREN}
    evidence.record("children_before", kept)
    start = audit.sync(admin)
    with refused_deletes(admin, namespace, user):
        admin.delete("modelservices", namespace, "web")
        wait_refused(
            lambda: operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            ),
            "a refused delete of Deployment web: the cleanup of the first delete under way",
            attempts=1,
        )
        # From here the operator's cache hears nothing more of the ModelService.
        proxy.hold(["modelservices"])
        admin.delete("modelservices", namespace, "web", propagation_policy="Orphan")
        switched = admin.get("modelservices", namespace, "web") or {}
        finalizers = (switched.get("metadata") or {}).get("finalizers") or []
        evidence.record("finalizers_after_the_orphan_delete", finalizers)
        # (the operator may already have taken the orphan path: its finalizer is not asked
        # for; where a garbage collector runs, `orphan` may be gone already too)
        premise(
            "orphan" in finalizers or tier.offers("garbage-collector"),
            "a second delete with propagationPolicy Orphan should put `orphan` on the "
            f"ModelService already deleting: {finalizers}",
        )
    failures = sum(
        1
        for r in operator_writes(audit, admin, start, user, namespace, CHILDREN, "delete", "web")
        if not r.ok
    )
    bound, why = retry_owed(failures)

    # The refusal is lifted (no event the operator watches): its owed retry is the next pass.
    def reaction() -> dict[str, Any]:
        m = admin.get("modelservices", namespace, "web")
        ours = m is not None and FINALIZER in m["metadata"].get("finalizers", [])
        admitted = [
            r.describe()
            for r in operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            )
            if r.ok
        ]
        return {"finalizer_removed": not ours, "admitted_deletes": admitted}

    seen = wait_for(
        reaction,
        lambda r: r["finalizer_removed"] or bool(r["admitted_deletes"]),
        bound,
        f"the operator's next cleanup pass once the refusal is lifted ({why})",
    )
    evidence.record("reaction", seen)
    held = proxy.release(["modelservices"])
    evidence.record("modelservice_events_held", held)
    premise(
        held.get("modelservices", 0) > 0,
        "the proxy should have held the ModelService's watch events (the second delete's), "
        f"so that the operator's cache kept the first delete's view: {held}",
    )
    if tier.offers("garbage-collector"):
        wait_for(
            lambda: admin.get("modelservices", namespace, "web") or {},
            lambda m: not m or m["metadata"]["uid"] != uid,
            bound,
            "the garbage collector to orphan the children and the ModelService to go",
        )
    now = {res: admin.get(res, namespace, "web") for res in CHILDREN}
    after = {res: None if obj is None else obj["metadata"]["uid"] for res, obj in now.items()}
    evidence.record("children_after", after)
    admitted = [
        r.describe()
        for r in operator_writes(audit, admin, start, user, namespace, CHILDREN, "delete", "web")
        if r.ok
    ]
    evidence.record("operator_child_deletes_admitted", admitted)
    assert after == kept and not admitted, (
        "the deletion policy was switched to orphan before the cleanup deleted anything, yet "
        f"the operator deleted children (UIDs before {kept}, after {after}; its admitted "
        f"deletes: {admitted}): the cleanup decides on the policy the API server holds, read "
        "live, not on its cache's copy of the ModelService"
    )


#: The write verbs of the operator's requests the two cases judge (with the GET of the
#: ModelService: its cache lists and watches, so a GET is a pass's live read).
_ACTS = ("create", "update", "patch", "delete")

#: Seconds a frozen operator's requests already sent are given to be answered before the
#: ModelService goes (``[replaced-unseen]``).
_IN_FLIGHT = 0.5


def _cleanup_behind_the_cache(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    *,
    successor: bool,
) -> None:
    """The staging and the verdict of ``[gone-unseen]`` (``successor`` False) and
    ``[replaced-unseen]`` (True): a cleanup stuck on refused Deployment deletes, the watch
    events of the ModelService and its children held at the operator's API proxy, the
    ModelService's finalizers stripped so it goes, and, with ``successor``, a ModelService of
    the same name created and given our finalizer (as an earlier leader would) while the
    operator is frozen (``OperatorProcess.freeze``; what it had sent is answered first), so
    that its next pass begins with the successor there. The first live read of the
    ModelService that shows the change (answered 404 after the strip; with ``successor``, the
    first to arrive after the thaw) must be the last request of the operator's about it or
    its children: no write after it, refused ones included.
    PremiseFailed when the staging does not hold; AssertionError on the operator's write or
    when no pass reads the ModelService live within the backoff owed."""
    op, created = first_convergence(operators, admin, namespace, image="srv:1")
    user = op.impl.user
    proxy = operators.proxy_of(op)
    uid = created["metadata"]["uid"]
    start = audit.sync(admin)
    with refused_deletes(admin, namespace, user):
        admin.delete("modelservices", namespace, "web")
        wait_refused(
            lambda: operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            ),
            "a refused delete of Deployment web: the cleanup of the delete under way",
            attempts=1,
        )
        # From here the operator's cache hears nothing more of the ModelService, nor of its
        # children: where a garbage collector runs, its deletes of the gone one's children
        # would bring a pass of their own at once, before the successor stands (seen on sim).
        proxy.hold(["modelservices", *CHILDREN])
        if successor:
            op.freeze()
            time.sleep(_IN_FLIGHT)
        try:
            stripped = time.time()
            admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
            gone = admin.get("modelservices", namespace, "web")
            premise(
                gone is None or gone["metadata"]["uid"] != uid,
                "with its finalizers stripped, the deleting ModelService should be gone: "
                f"{(gone or {}).get('metadata', {}).get('finalizers')}",
            )
            if successor:
                new = create_modelservice(admin, namespace, "web", image="srv:1")
                admin.patch(
                    "modelservices", namespace, "web", {"metadata": {"finalizers": [FINALIZER]}}
                )
                evidence.record("successor_uid", new["metadata"]["uid"])
            # The pass the verdict starts from: the first live read answered 404 (gone), or
            # the first that arrives from now on (replaced: a pass begun with the successor).
            since = time.time()
        finally:
            if successor:
                op.signal(signal.SIGCONT)
        held = wait_for(
            lambda: proxy.stats()["resources"].get("modelservices", {}).get("held", 0),
            lambda n: n > 0,
            REACT_TIMEOUT,
            "the proxy to hold the ModelService's watch events (the strip, the delete), so "
            "that the operator's cache still shows it deleting",
            premise=True,
        )
        evidence.record("modelservice_events_held", held)
        if successor:
            between = [
                r.code
                for r in RequestLog(proxy.request_log).records()
                if (r.resource, r.verb, r.name) == ("modelservices", "get", "web")
                and r.start
                and stripped <= seconds(r.start) <= since
            ]
            premise(
                not between,
                "the operator was frozen while the successor was put in place, yet its proxy "
                f"logged a live read of the ModelService meanwhile (answers {between})",
            )
        failures = sum(
            1
            for r in operator_writes(
                audit, admin, start, user, namespace, CHILDREN, "delete", "web"
            )
            if not r.ok
        )
        bound, why = retry_owed(failures)
        answer = "another UID" if successor else "404"

        def from_the_live_read() -> list[str] | None:
            """The operator's requests about web from the first live read of the ModelService
            that shows the change (None before it): a pass that read it before may still end
            after, with its refused delete."""
            records = RequestLog(proxy.request_log).records()
            for i, r in enumerate(records):
                # gone: any read answered 404 (only the strip makes one, and a read that
                # reached the proxy just before the strip may be answered 404 too); replaced:
                # the first read to arrive after the thaw
                if (r.resource, r.verb, r.name) == ("modelservices", "get", "web") and (
                    (bool(r.start) and seconds(r.start) > since) if successor else r.code == 404
                ):
                    return [
                        f"{q.verb} {q.resource} {q.name}: {q.code}"
                        for q in records[i:]
                        if q.name == "web"
                        and q.resource in (*CHILDREN, "modelservices")
                        and q.verb in (*_ACTS, "get")
                    ]
            return None

        # The refused delete's retry comes with backoff, on the cache's stale copy, and the
        # contract's cleanup reads the ModelService live before any child delete.
        wait_for(
            from_the_live_read,
            lambda seen: seen is not None,
            bound,
            "the operator's next cleanup pass to read the ModelService live (and find "
            f"{answer} there) before any child delete ({why})",
        )
        wait_settled(op)
        seen = from_the_live_read() or []
    evidence.record("requests_from_the_live_read_on", seen)
    proxy.release(["modelservices", *CHILDREN])
    writes = [line for line in seen if not line.startswith("get ")]
    assert not writes, (
        "the ModelService was gone while its cleanup was under way"
        + (", and a successor of its name holds our finalizer" if successor else "")
        + f", and the operator's cache still showed it deleting; its live read found {answer}, "
        f"and then it wrote: {writes} (its requests from that read on: {seen}). Gone, or "
        "another UID under the name: the cleanup ends with nothing done (the garbage collector "
        "owns the children now): no child delete, no write of a ModelService"
    )


@pytest.mark.modeldock_check("deletion-policy", case="gone-unseen")
def test_gone_before_the_cleanup_read(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """deletion-policy[gone-unseen]: a cleanup pass on a cached ModelService that the API
    server no longer holds ends with nothing done: no child delete, no write of the
    ModelService, no panic.

    The cleanup's live read of the ModelService (CONTRACT.md, "Deletion (step 2)") answers
    404 when another writer (a user's `kubectl patch` of the finalizers, a namespace's
    deletion tooling) stripped our finalizer and the object went while the operator's cache
    lags: the pass has nothing left to do, and the garbage collector owns the children now.
    An operator that goes on to judge the object it did not get (Go's `ContainsFinalizer(nil)`,
    Python's `contains_finalizer(None)`) panics; one that takes the cached copy for the live
    one deletes the children of an owner that is gone and writes a ModelService that is not
    there. Staged with certainty: an admission policy refuses the operator's Deployment
    deletes, so the cleanup of the delete is under way and retried with backoff; the
    operator's API proxy then holds every watch event of ModelServices and of its children,
    and the harness strips the finalizers, so the ModelService goes. The operator's next pass must read it live
    (answered 404) and stop there: no request of the operator's writes the ModelService or a
    child after that read (proxy log, refused writes included), and the panic oracle reads its
    log. Where a garbage collector runs it deletes the children; that is not the operator's.
    """
    _cleanup_behind_the_cache(admin, namespace, operators, audit, evidence, successor=False)


@pytest.mark.modeldock_check("deletion-policy", case="replaced-unseen")
def test_replaced_before_the_cleanup_read(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
) -> None:
    """deletion-policy[replaced-unseen]: a cleanup pass on a cached ModelService whose name
    another ModelService (another UID) holds by the time of its live read ends with nothing
    done: the successor is not cleaned up in its place.

    "The object I am cleaning up" is a UID, not a name. The live read of
    `deletion-policy[gone-unseen]` may find a successor: the ModelService went and was applied
    again while the operator's cache lagged, and another writer (an earlier leader that saw
    the successor) has already put our finalizer on it. An operator that compares names only
    takes the successor for the object it is cleaning up: it finds none of the children its
    own (they name the gone UID) and removes our finalizer from the successor, which is not
    deleting, so the successor's own cleanup will not run when it is deleted. Staged as
    `[gone-unseen]`, then, with the operator frozen (what it had sent answered first), the
    successor created and given our finalizer, so that its next pass begins with the
    successor there. That pass must read the ModelService live and stop there: no write
    of the ModelService or of a child after that read (proxy log, refused writes included).
    """
    _cleanup_behind_the_cache(admin, namespace, operators, audit, evidence, successor=True)
