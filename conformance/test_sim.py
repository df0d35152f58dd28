"""Checks that need a cluster's controllers: Pods that become Ready, the garbage collector, the
namespace controller (the ``sim`` tier: kube-controller-manager, kube-scheduler and kwok fake
nodes; docs/design.md, "Tiers").

On envtest each of these is skipped with its reason: there no Pod ever runs, nothing collects
garbage and a namespace never finishes deleting, so none of them could fail there.
"""

from __future__ import annotations

import itertools
import json
import signal
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CHILDREN,
    CONVERGE_TIMEOUT,
    FINALIZER,
    REACT_TIMEOUT,
    ROLLOUT_TIMEOUT,
    condition,
    controller_ref,
    create_modelservice,
    get_present,
    premise,
    present,
    wait_converged,
)
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.plugin.evidence import Evidence
from harness.verdicts import PremiseFailed

#: The garbage collector or the namespace controller finishing a deletion on sim: their
#: work queues and resyncs put this above a plain convergence, as for a rollout.
CONTROLLER_TIMEOUT = 1.5 * CONVERGE_TIMEOUT


# --------------------------------------------------------------------------- helpers
def _conds(msvc: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """``{type: (status, reason, lastTransitionTime)}`` of Ready and Progressing."""
    out = {}
    for ctype in ("Ready", "Progressing"):
        c = condition(msvc, ctype) or {}
        out[ctype] = (str(c.get("status")), str(c.get("reason")), str(c.get("lastTransitionTime")))
    return out


def _is_ready(msvc: dict[str, Any], replicas: int) -> bool:
    """The contract's "rolled out" status for ``replicas``: observedGeneration caught up,
    Ready=True ReplicasAvailable, Progressing=False RolloutComplete, counts = replicas."""
    status = msvc.get("status") or {}
    c = _conds(msvc)
    return (
        status.get("observedGeneration") == msvc["metadata"].get("generation")
        and msvc["spec"]["replicas"] == replicas
        and c["Ready"][:2] == ("True", "ReplicasAvailable")
        and c["Progressing"][:2] == ("False", "RolloutComplete")
        and status.get("availableReplicas") == replicas
        and status.get("readyReplicas") == replicas
    )


def _wait_ready(admin: Kube, namespace: str, name: str, replicas: int) -> dict[str, Any]:
    return wait_for(
        lambda: admin.get("modelservices", namespace, name),
        lambda m: _is_ready(m, replicas),
        ROLLOUT_TIMEOUT,
        f"ModelService {name} to report {replicas} available replicas: Ready=True "
        f"ReplicasAvailable, Progressing=False RolloutComplete",
    )


def _ready_pods(admin: Kube, namespace: str, name: str) -> list[dict[str, Any]]:
    """The ModelService's Pods that are not deleting, with Ready=True."""
    pods = admin.list("pods", namespace, label_selector=f"modeldock.io/modelservice={name}")
    return [
        p
        for p in pods
        if not p["metadata"].get("deletionTimestamp")
        and any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in (p.get("status") or {}).get("conditions") or []
        )
    ]


def _pods_premise(
    admin: Kube, namespace: str, name: str, replicas: int, image: str, evidence: Any, key: str
) -> None:
    """Premise: the tier really made ``replicas`` Pods with ``image`` Ready (kwok did its job)."""
    pods = wait_for(
        lambda: _ready_pods(admin, namespace, name),
        lambda ps: (
            len(ps) == replicas and all(p["spec"]["containers"][0]["image"] == image for p in ps)
        ),
        ROLLOUT_TIMEOUT,
        f"{replicas} Ready Pods of {name} with image {image}",
        premise=True,
    )
    evidence.premise(
        key, sorted(f"{p['metadata']['name']}@{p['spec'].get('nodeName')}" for p in pods)
    )


def history(
    admin: Kube, resource: str, namespace: str, name: str, since: str
) -> list[dict[str, Any]]:
    """Every state of one object after resourceVersion ``since``, in order, as the API server's
    watch replays them (a watch from an old resourceVersion, ended after one second). Raises
    PremiseFailed when the API server no longer holds that history (410 Gone)."""
    path = admin.path(resource, namespace)
    query = [
        ("watch", "true"),
        ("resourceVersion", since),
        ("timeoutSeconds", "1"),
        ("fieldSelector", f"metadata.name={name}"),
        ("allowWatchBookmarks", "false"),
    ]
    method, url, headers, payload, post = admin.api.param_serialize(
        "GET",
        path,
        query_params=query,
        header_params={"Accept": "application/json"},
        auth_settings=["BearerToken"],
    )
    resp = admin.api.call_api(
        method,
        url,
        header_params=headers,
        body=payload,
        post_params=post,
        _request_timeout=REACT_TIMEOUT,
    )
    resp.read()  # type: ignore[no-untyped-call]
    states = []
    for line in (resp.data or b"").decode().splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        premise(
            event.get("type") != "ERROR",
            f"the watch history of {resource}/{name} from {since} is gone: {event}",
        )
        if event.get("type") in ("ADDED", "MODIFIED"):
            states.append(event["object"])
    return states


def _transitions_honest(states: list[dict[str, Any]]) -> list[str]:
    """Lines for each pair of consecutive states where a condition's lastTransitionTime moved
    without its status changing, or went backwards."""
    bad = []
    for a, b in itertools.pairwise(states):
        ca, cb = _conds(a), _conds(b)
        for ctype in ("Ready", "Progressing"):
            if ca[ctype][0] == cb[ctype][0] and ca[ctype][2] != cb[ctype][2]:
                bad.append(
                    f"{ctype} stayed {ca[ctype][0]} but lastTransitionTime moved "
                    f"{ca[ctype][2]} -> {cb[ctype][2]}"
                )
            if cb[ctype][2] < ca[ctype][2]:
                bad.append(f"{ctype}.lastTransitionTime went back {ca[ctype][2]} -> {cb[ctype][2]}")
    return bad


# --------------------------------------------------------------------------- checks
@pytest.mark.modeldock_needs("pods-ready", "deployment-controller")
@pytest.mark.modeldock_check("ready-with-kwok")
def test_ready_with_kwok(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """When Pods really become Ready the status says so: Ready=True (ReplicasAvailable) and
    Progressing=False (RolloutComplete) once the Deployment has its replicas available; scaling
    up and down and to zero flows through; an image change rolls out with Progressing going
    True, then False; and each lastTransitionTime moves only when its condition's status does.

    `progressing-without-kubelet` shows the other half of the status contract on envtest, where
    no Pod ever runs. Here kube-scheduler binds the Pods to kwok's fake nodes and kwok marks
    them Running and Ready, the deployment controller counts them in the Deployment's status,
    and the operator must hear of that status change (an event of a child whose generation did
    not move) and copy it into the ModelService. An operator that reads only its own writes, or
    filters child events by generation, never turns Ready. The states the ModelService passed
    through are read back from the API server's watch history, so a brief Progressing=True
    during the rollout is seen even when it lasted milliseconds.
    """
    operators.start()
    create_modelservice(admin, namespace, "web", replicas=1)
    msvc = _wait_ready(admin, namespace, "web", 1)
    _pods_premise(admin, namespace, "web", 1, "srv:1", evidence, "pods_ready_1")
    evidence.record("conditions_rolled_out", _conds(msvc))

    phases = []
    for replicas in (3, 1, 0, 2):
        since = msvc["metadata"]["resourceVersion"]
        admin.patch("modelservices", namespace, "web", {"spec": {"replicas": replicas}})
        msvc = _wait_ready(admin, namespace, "web", replicas)
        _pods_premise(
            admin, namespace, "web", replicas, "srv:1", evidence, f"pods_ready_{replicas}"
        )
        states = history(admin, "modelservices", namespace, "web", since)
        bad = _transitions_honest(states)
        phases.append(
            {
                "replicas": replicas,
                "states": len(states),
                "status": {
                    k: msvc["status"].get(k)
                    for k in ("replicas", "readyReplicas", "availableReplicas")
                },
            }
        )
        assert not bad, f"scaling to {replicas}: " + "; ".join(bad)
    evidence.record("scale_phases", phases)
    dep = get_present(admin, "deployments", namespace, "web")
    assert dep["spec"]["replicas"] == 2

    # An image change: the rollout shows as Progressing=True, then False again.
    before = _conds(msvc)
    since = msvc["metadata"]["resourceVersion"]
    admin.patch("modelservices", namespace, "web", {"spec": {"image": "srv:2"}})
    msvc = wait_for(
        lambda: admin.get("modelservices", namespace, "web"),
        lambda m: (
            _is_ready(m, 2)
            and m["metadata"]["generation"] > 1
            and (admin.get("deployments", namespace, "web") or {})
            .get("status", {})
            .get("updatedReplicas")
            == 2
        ),
        ROLLOUT_TIMEOUT,
        "the image change to roll out and the status to say so",
    )
    _pods_premise(admin, namespace, "web", 2, "srv:2", evidence, "pods_ready_new_image")
    states = history(admin, "modelservices", namespace, "web", since)
    seen = [c["Progressing"][:2] for c in map(_conds, states)]
    compressed = [s for i, s in enumerate(seen) if i == 0 or s != seen[i - 1]]
    evidence.record("progressing_during_rollout", compressed)
    after = _conds(msvc)
    evidence.record("conditions_before_after_rollout", {"before": before, "after": after})
    assert ("True", "RolloutInProgress") in compressed, (
        f"Progressing never said True while the new image rolled out: {compressed}"
    )
    assert compressed[-1] == ("False", "RolloutComplete"), compressed
    bad = _transitions_honest(states)
    assert not bad, "image rollout: " + "; ".join(bad)
    assert after["Progressing"][2] >= before["Progressing"][2]


@pytest.mark.modeldock_needs("garbage-collector")
@pytest.mark.modeldock_check("garbage-collected")
def test_garbage_collected(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """A ModelService that vanished without its finalizer running leaves children the garbage
    collector removes, and a same-named successor then converges with children of its own.

    The finalizer is the operator's promise, but a cluster has a second line of defence: every
    child carries an ownerReference to its ModelService's UID, and the garbage collector deletes
    dependents whose owner no longer exists. Here the operator is stopped, someone strips the
    finalizer and deletes the ModelService (it vanishes at once), and a new ModelService of the
    same name is created, all while the operator is frozen (SIGSTOP: it keeps its memory and
    sees none of it). Thawed, it must not trust a memory of having created children called
    `web`: the garbage collector removed them, and it creates the successor's own, controlled
    by the successor's UID.
    """
    # A long Lease: a leader frozen past its renew deadline would rightly step down on thaw.
    op = operators.start(lease=(60.0, 40.0, 2.0))
    create_modelservice(admin, namespace, "web")
    old = set_up(
        lambda: wait_converged(admin, namespace, "web"),
        "the first convergence, before the experiment",
    )
    old_children = {r: get_present(admin, r, namespace, "web")["metadata"]["uid"] for r in CHILDREN}
    # Frozen, not stopped: the process keeps everything it remembers, and sees nothing.
    op.freeze()
    try:
        _vanish(admin, namespace, old["metadata"]["uid"], evidence)
        for res in CHILDREN:
            _wait_collected(admin, namespace, res, old_children[res])
        evidence.premise("vanished", {"uid": old["metadata"]["uid"], "children": old_children})
        create_modelservice(admin, namespace, "web")
    finally:
        op.signal(signal.SIGCONT)
    new = wait_converged(admin, namespace, "web")
    gone = wait_for(
        lambda: {
            r: (admin.get(r, namespace, "web") or {}).get("metadata", {}).get("uid")
            for r in CHILDREN
        },
        lambda uids: all(uids[r] != old_children[r] for r in uids),
        CONVERGE_TIMEOUT,
        "the old children to be gone (garbage collected, never adopted)",
    )
    new = wait_converged(admin, namespace, "web")
    children = {r: admin.get(r, namespace, "web") for r in CHILDREN}
    evidence.record("successor", {"uid": new["metadata"]["uid"], "children": gone})
    for res, child in children.items():
        ref = controller_ref(present(child, f"{res} web"))
        assert ref and ref["uid"] == new["metadata"]["uid"], (
            f"{res} 'web' is not controlled by the successor: {ref}"
        )
    assert FINALIZER in new["metadata"].get("finalizers", [])


def _vanish(admin: Kube, namespace: str, uid: str, evidence: Evidence) -> None:
    """Premise of garbage-collected: ModelService ``web`` of ``uid`` vanishes while its
    operator is frozen (``OperatorProcess.freeze``): its finalizers are stripped (merge patch
    ``finalizers: null``) and it is deleted (Background, precondition ``uid``). Raises
    PremiseFailed at once if a poll finds a finalizer back on it (no party of the experiment
    may put one there: the operator is stopped; the message names the managers of its
    metadata, as managedFields has them), or if it is still there after CONVERGE_TIMEOUT
    seconds. CI at ea4cc07 saw the Go operator's finalizer stay 60 s: SIGSTOP was sent, but a
    process stops only once the kernel has scheduled one of its threads to take the signal,
    and under load the operator most likely saw the strip and put its finalizer back first."""
    admin.patch("modelservices", namespace, "web", {"metadata": {"finalizers": None}})
    admin.delete("modelservices", namespace, "web", uid=uid)

    def still_there() -> dict[str, Any]:
        obj = admin.get("modelservices", namespace, "web") or {}
        meta = obj.get("metadata") or {}
        if meta.get("uid") == uid and meta.get("finalizers"):
            held = {
                "finalizers": meta["finalizers"],
                "deletionTimestamp": meta.get("deletionTimestamp"),
                "managers": [
                    (m.get("manager"), m.get("operation"), m.get("time"))
                    for m in meta.get("managedFields") or []
                ],
            }
            evidence.record("finalizer_back", held)
            raise PremiseFailed.because(
                f"a finalizer is back on the stripped, deleted ModelService web: {held}"
            )
        return obj if meta.get("uid") == uid else {}

    wait_for(
        still_there,
        lambda obj: not obj,
        CONVERGE_TIMEOUT,
        "the ModelService to vanish once its finalizers were stripped",
        premise=True,
    )


def _wait_collected(admin: Kube, namespace: str, resource: str, old_uid: str) -> None:
    """Premise: the garbage collector removed ``resource`` ``web`` of uid ``old_uid`` (it is
    absent, or another object has its name)."""
    wait_for(
        lambda: admin.get(resource, namespace, "web") or {"metadata": {}},
        lambda o: o["metadata"].get("uid") != old_uid,
        CONVERGE_TIMEOUT,
        f"the garbage collector to remove the old {resource[:-1]}",
        premise=True,
    )


@pytest.mark.modeldock_needs("namespace-controller", "garbage-collector")
@pytest.mark.modeldock_check("namespace-deleted")
def test_namespace_deleted(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """Deleting a namespace that holds live ModelServices completes: the namespace controller
    deletes them, the operator's finalizer does its cleanup in a namespace that is terminating,
    and the namespace goes away.

    A finalizer blocks a namespace's deletion until it is removed. An operator whose cleanup
    needs something a terminating namespace refuses (creating any new object there is
    forbidden) never removes it, and the namespace stays `Terminating` for ever, a classic
    support ticket. The operator's RoleBinding lives in the namespace too; the harness holds
    it with a finalizer of its own until the ModelServices are gone (as a cluster-wide binding
    would outlive the namespace), then lets it go.
    """
    op = operators.start()
    for name in ("a", "b"):
        create_modelservice(admin, namespace, name)
    for name in ("a", "b"):
        wait_converged(admin, namespace, name)
    keep = "modeldock.io/harness-keep"
    bindings = [rb["metadata"]["name"] for rb in admin.list("rolebindings", namespace)]
    for rb in bindings:
        admin.patch("rolebindings", namespace, rb, {"metadata": {"finalizers": [keep]}})
    try:
        admin.delete("namespaces", None, namespace)
        ns = admin.get("namespaces", None, namespace)
        premise(
            ns is not None and ns["metadata"].get("deletionTimestamp"),
            f"namespace {namespace} should be terminating, held by the RoleBinding: {ns}",
        )
        left = wait_for(
            lambda: admin.list("modelservices", namespace),
            lambda items: not items,
            CONTROLLER_TIMEOUT,
            "the namespace controller and the operator to delete every ModelService",
            interval=0.5,
        )
        evidence.record("modelservices_left", [m["metadata"]["name"] for m in left])
    finally:
        for rb in bindings:
            try:
                admin.patch("rolebindings", namespace, rb, {"metadata": {"finalizers": None}})
            except Exception:
                pass  # gone already
    wait_for(
        lambda: admin.get("namespaces", None, namespace) or {},
        lambda n: not n,
        CONTROLLER_TIMEOUT,
        f"namespace {namespace} to finish deleting",
        interval=0.5,
    )
    evidence.record("namespace_gone", True)
    assert op.returncode() is None or op.returncode() == 0
