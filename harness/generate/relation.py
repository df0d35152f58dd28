"""The relation between a ModelService's status and its Deployment that the generator's
status oracle judges (``oracles.status_follows``) and that tells whether a failed write of
the ModelService still owes a retry (``retries.owes_retry``): pure functions of objects read
from the API server, written from CONTRACT.md's status table, not from either operator."""

from __future__ import annotations

import json
from typing import Any, NamedTuple


def controller_uid(obj: dict[str, Any]) -> str | None:
    """The UID of the ModelService that controls ``obj`` (its controller ownerReference),
    or None."""
    for r in obj["metadata"].get("ownerReferences") or []:
        if r.get("controller") and r.get("kind") == "ModelService":
            return str(r.get("uid"))
    return None


#: A condition message's bound (the CRD's maxLength) and what a longer one keeps (CONTRACT.md,
#: "Status": its first characters, then the marker).
MESSAGE_MAX = 32768
TRUNCATED = " ... [truncated]"


class Rollout(NamedTuple):
    """The rollout row of CONTRACT.md's status table that a Deployment calls for: the
    ModelService's ``Ready`` and ``Progressing`` as ``(status, reason)`` pairs and the
    message both conditions carry."""

    ready: tuple[str, str]
    progressing: tuple[str, str]
    message: str


def rollout(dep: dict[str, Any]) -> Rollout:
    """The row of CONTRACT.md's status table ("The first row that applies", which follows
    ``kubectl rollout status``) that the Deployment ``dep``'s spec and status call for.
    ``<replicas>`` in the messages is the Deployment's spec.replicas, 1 when absent; a message
    longer than ``MESSAGE_MAX`` is cut as the contract cuts it. Written from the contract's
    text, not from either operator."""
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
    unavailable, in_progress = ("False", "ReplicasUnavailable"), ("True", "RolloutInProgress")
    if int(dep["metadata"].get("generation") or 0) > int(st.get("observedGeneration") or 0):
        row = Rollout(
            unavailable,
            in_progress,
            f"{what} is waiting for the deployment controller to observe its latest spec",
        )
    elif stalled:
        text = f"{what} exceeded its progress deadline: {stalled[0].get('message') or ''}"
        deadline = ("False", "ProgressDeadlineExceeded")
        row = Rollout(deadline, deadline, text)
    elif updated < want:
        row = Rollout(unavailable, in_progress, f"{what} has {updated}/{want} updated replicas")
    elif current > updated:
        text = f"{what} has {current - updated} old replicas pending termination"
        row = Rollout(unavailable, in_progress, text)
    elif available < updated:
        text = f"{what} has {available}/{updated} updated replicas available"
        row = Rollout(unavailable, in_progress, text)
    else:
        text = f"{what} has {available}/{want} available replicas"
        row = Rollout(("True", "ReplicasAvailable"), ("False", "RolloutComplete"), text)
    if len(row.message) > MESSAGE_MAX:
        return row._replace(message=row.message[: MESSAGE_MAX - len(TRUNCATED)] + TRUNCATED)
    return row


def status_problems(
    m: dict[str, Any], dep: dict[str, Any] | None, messages: bool = False
) -> list[str]:
    """What of ModelService ``m``'s status does not follow its Deployment ``dep`` (None: no
    Deployment) as stored: its ``Ready`` and ``Progressing`` against ``rollout(dep)``, its
    replica counts against the Deployment's, and with ``messages`` both conditions' message
    against ``rollout(dep).message`` (two rollout rows share their status and reason: only
    the message tells "waiting for the deployment controller" from "1/2 updated replicas").
    Empty when they agree, and when nothing can be said: ``m`` deleting, a ChildConflict or a
    refused write reported, no Deployment, or one that ``m`` does not control."""
    if says_nothing(m) or dep is None or controller_uid(dep) != m["metadata"]["uid"]:
        return []
    problems = []
    row = rollout(dep)
    want = {"Ready": row.ready, "Progressing": row.progressing}
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
        text = row.message
        problems += [
            f"{t} message {(condition_of(m, t) or {}).get('message')!r} where the Deployment "
            f"calls for {text!r}"
            for t in want
            if (condition_of(m, t) or {}).get("message") != text
        ]
    return problems


def _rollout_fields(dep: dict[str, Any]) -> dict[str, Any]:
    """What of a Deployment chooses ``rollout``'s row, for a message."""
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


def says_nothing(m: dict[str, Any] | None) -> bool:
    """The status of ``m`` need not follow any Deployment: no ModelService, one being
    deleted, or one whose status reports a ChildConflict or a refused write (CONTRACT.md,
    "Status"). A caller can skip reading the Deployment then."""
    if m is None or m["metadata"].get("deletionTimestamp"):
        return True
    ready = condition_of(m, "Ready") or {}
    return ready.get("reason") == "ChildConflict" or reports_refusal(m)


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
