"""The relation between a ModelService's status and its Deployment that the generator's
status oracle judges (``oracles.status_follows``) and that tells whether a failed write of
the ModelService still owes a retry (``retries.owes_retry``): pure functions of objects read
from the API server, written from CONTRACT.md's status table, not from either operator."""

from __future__ import annotations

import json
from typing import Any


def controller_uid(obj: dict[str, Any]) -> str | None:
    """The UID of the ModelService that controls ``obj`` (its controller ownerReference),
    or None."""
    for r in obj["metadata"].get("ownerReferences") or []:
        if r.get("controller") and r.get("kind") == "ModelService":
            return str(r.get("uid"))
    return None


def rollout_row(dep: dict[str, Any]) -> tuple[tuple[str, str], tuple[str, str]]:
    """The ModelService's ``(Ready, Progressing)`` as ``(status, reason)`` pairs that the
    Deployment ``dep``'s spec and status call for: the rollout rows of CONTRACT.md's status
    table ("The first row that applies"), which follow ``kubectl rollout status``. Written
    from the contract's text, not from either operator."""
    in_progress = (("False", "ReplicasUnavailable"), ("True", "RolloutInProgress"))
    st = dep.get("status") or {}
    replicas = dep["spec"].get("replicas")
    want = 1 if replicas is None else int(replicas)
    if int(dep["metadata"].get("generation") or 0) > int(st.get("observedGeneration") or 0):
        return in_progress
    if any(
        c.get("type") == "Progressing" and c.get("reason") == "ProgressDeadlineExceeded"
        for c in st.get("conditions") or []
    ):
        stalled = ("False", "ProgressDeadlineExceeded")
        return stalled, stalled
    updated = int(st.get("updatedReplicas") or 0)
    if (
        updated < want
        or int(st.get("replicas") or 0) > updated
        or int(st.get("availableReplicas") or 0) < updated
    ):
        return in_progress
    return ("True", "ReplicasAvailable"), ("False", "RolloutComplete")


#: A condition message's bound (the CRD's maxLength) and what a longer one keeps (CONTRACT.md,
#: "Status": its first characters, then the marker).
MESSAGE_MAX = 32768
TRUNCATED = " ... [truncated]"


def rollout_message(dep: dict[str, Any]) -> str:
    """The message of both conditions that the Deployment ``dep`` calls for, by the row
    ``rollout_row`` chooses: the rollout rows' messages of CONTRACT.md's status table, written
    from its text (``<replicas>`` is the Deployment's spec.replicas, 1 when absent), cut to
    ``MESSAGE_MAX`` characters as the contract cuts them."""
    st = dep.get("status") or {}
    replicas = dep["spec"].get("replicas")
    want = 1 if replicas is None else int(replicas)
    what = f'Deployment "{dep["metadata"]["name"]}"'
    updated = int(st.get("updatedReplicas") or 0)
    current = int(st.get("replicas") or 0)
    available = int(st.get("availableReplicas") or 0)
    stalled = [
        c
        for c in st.get("conditions") or []
        if c.get("type") == "Progressing" and c.get("reason") == "ProgressDeadlineExceeded"
    ]
    if int(dep["metadata"].get("generation") or 0) > int(st.get("observedGeneration") or 0):
        text = f"{what} is waiting for the deployment controller to observe its latest spec"
    elif stalled:
        text = f"{what} exceeded its progress deadline: {stalled[0].get('message') or ''}"
    elif updated < want:
        text = f"{what} has {updated}/{want} updated replicas"
    elif current > updated:
        text = f"{what} has {current - updated} old replicas pending termination"
    elif available < updated:
        text = f"{what} has {available}/{updated} updated replicas available"
    else:
        text = f"{what} has {available}/{want} available replicas"
    if len(text) > MESSAGE_MAX:
        return text[: MESSAGE_MAX - len(TRUNCATED)] + TRUNCATED
    return text


def status_problems(
    m: dict[str, Any], dep: dict[str, Any] | None, messages: bool = False
) -> list[str]:
    """What of ModelService ``m``'s status does not follow its Deployment ``dep`` (None: no
    Deployment) as stored: its ``Ready`` and ``Progressing`` against ``rollout_row(dep)``, its
    replica counts against the Deployment's, and with ``messages`` both conditions' message
    against ``rollout_message(dep)`` (two rollout rows share their status and reason: only
    the message tells "waiting for the deployment controller" from "1/2 updated replicas").
    Empty when they agree, and when nothing can be said: ``m`` deleting, a ChildConflict or a
    refused write reported, no Deployment, or one that ``m`` does not control."""
    if m is None or m["metadata"].get("deletionTimestamp"):
        return []
    ready = condition_of(m, "Ready") or {}
    if ready.get("reason") == "ChildConflict" or reports_refusal(m):
        return []
    if dep is None or controller_uid(dep) != m["metadata"]["uid"]:
        return []
    problems = []
    want = dict(zip(("Ready", "Progressing"), rollout_row(dep), strict=True))
    got = {
        t: (
            str((condition_of(m, t) or {}).get("status")),
            str((condition_of(m, t) or {}).get("reason")),
        )
        for t in want
    }
    if got != want:
        problems.append(
            "conditions "
            + ", ".join(f"{t} {' '.join(v)}" for t, v in got.items())
            + " where the Deployment "
            + json.dumps(_rollout_fields(dep))
            + " calls for "
            + ", ".join(f"{t} {' '.join(v)}" for t, v in want.items())
        )
    dst, mst = dep.get("status") or {}, m.get("status") or {}
    for key in ("replicas", "readyReplicas", "availableReplicas"):
        if int(mst.get(key) or 0) != int(dst.get(key) or 0):
            problems.append(f"status.{key} {mst.get(key)} where the Deployment has {dst.get(key)}")
    if messages:
        text = rollout_message(dep)
        problems += [
            f"{t} message {(condition_of(m, t) or {}).get('message')!r} where the Deployment "
            f"calls for {text!r}"
            for t in want
            if (condition_of(m, t) or {}).get("message") != text
        ]
    return problems


def _rollout_fields(dep: dict[str, Any]) -> dict[str, Any]:
    """What of a Deployment ``rollout_row`` reads, for a message."""
    st = dep.get("status") or {}
    return {
        "generation": dep["metadata"].get("generation"),
        "spec.replicas": dep["spec"].get("replicas"),
        **{k: st.get(k) for k in ("observedGeneration", "replicas", "updatedReplicas")},
        "availableReplicas": st.get("availableReplicas"),
        "Progressing": [
            c.get("reason") for c in st.get("conditions") or [] if c.get("type") == "Progressing"
        ],
    }


def condition_of(m: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    """The condition of type ``ctype`` in ``m``'s status, or None."""
    for c in (m.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c  # type: ignore[no-any-return]
    return None


def reports_refusal(m: dict[str, Any]) -> bool:
    """The status reports a refused child write (CONTRACT.md, "A refused child write")."""
    return any(
        "Refused" in str(c.get("reason", "")) or "Failed" in str(c.get("reason", ""))
        for c in (m.get("status") or {}).get("conditions") or []
    )
