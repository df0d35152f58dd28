"""Read the API server's audit log: who made which request, in what order, with what answer.

The control plane logs every request (but its own) at Metadata level once complete
(``harness.envtest.controlplane.AUDIT_POLICY``). Each line is an ``audit.k8s.io/v1`` Event;
the fields used here are ``user.username``, ``user.groups``, ``verb``, ``objectRef`` (resource,
subresource, namespace, name), ``responseStatus`` (code; for a failure, reason and message)
and ``requestReceivedTimestamp``. Because each implementation runs as its own user and each
check in its own namespace, "the writes the operator made during this check" is a filter, not
a guess; where several instances of one operator run, each has its own group
(``instance_group``), so "which instance wrote" is a filter too.

A window is a byte offset in the log: ``AuditLog.sync()`` makes a marker request and waits
until it is written, so every request that completed before the call is in the log before the
offset it returns.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes.client.exceptions import ApiException

#: Group prefix of an operator instance's own identity (``instance_group``).
INSTANCE_GROUP_PREFIX = "modeldock:instance:"


def instance_group(name: str) -> str:
    """The group that names one operator instance in its client certificate, so the audit log
    attributes every request to one instance even where several share the operator's user."""
    return f"{INSTANCE_GROUP_PREFIX}{name}"


#: Verbs that change state.
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})


@dataclass(frozen=True)
class Request:
    """One audited request (the fields the checks use)."""

    user: str
    verb: str
    resource: str
    subresource: str
    namespace: str
    name: str
    code: int
    time: str
    audit_id: str
    #: the request body where the policy logs one (deletes: DeleteOptions), else None
    request_object: dict[str, Any] | None = None
    #: the user's groups as the API server authenticated them (client certificate O entries,
    #: plus ``system:authenticated``)
    groups: tuple[str, ...] = ()
    #: the API group ("" for the core group)
    group: str = ""
    #: of a failed request, the API server's Status: its reason (``Conflict``) and message
    reason: str = ""
    message: str = ""
    #: the authorizer's decision (``allow``, ``forbid``; annotation
    #: ``authorization.k8s.io/decision``): a 403 with ``allow`` was refused by admission
    decision: str = ""
    #: the client's User-Agent
    user_agent: str = ""

    @classmethod
    def from_event(cls, ev: dict[str, Any]) -> Request:
        ref = ev.get("objectRef") or {}
        return cls(
            user=(ev.get("user") or {}).get("username", ""),
            verb=ev.get("verb", ""),
            resource=ref.get("resource", ""),
            subresource=ref.get("subresource", ""),
            namespace=ref.get("namespace", ""),
            name=ref.get("name", ""),
            code=int((ev.get("responseStatus") or {}).get("code", 0)),
            time=ev.get("requestReceivedTimestamp", ""),
            audit_id=ev.get("auditID", ""),
            request_object=ev.get("requestObject"),
            groups=tuple((ev.get("user") or {}).get("groups") or ()),
            group=ref.get("apiGroup", ""),
            reason=str((ev.get("responseStatus") or {}).get("reason") or ""),
            message=str((ev.get("responseStatus") or {}).get("message") or ""),
            decision=str((ev.get("annotations") or {}).get("authorization.k8s.io/decision", "")),
            user_agent=str(ev.get("userAgent") or ""),
        )

    @property
    def instance(self) -> str:
        """The operator instance that made the request: ``<name>`` of its
        ``modeldock:instance:<name>`` group (``instance_group``), or "" if it has none."""
        for group in self.groups:
            if group.startswith(INSTANCE_GROUP_PREFIX):
                return group[len(INSTANCE_GROUP_PREFIX) :]
        return ""

    @property
    def precondition_uid(self) -> str | None:
        """For a delete: the ``preconditions.uid`` it carried, else None."""
        return ((self.request_object or {}).get("preconditions") or {}).get("uid")

    @property
    def is_write(self) -> bool:
        return self.verb in WRITE_VERBS

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 300

    @property
    def target(self) -> str:
        """``resource[/subresource]``, e.g. ``modelservices/status``."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource

    @property
    def right(self) -> str:
        """The RBAC right the request needed, as a rule unit id (``harness.rbac.Unit.id``):
        ``apps/deployments:create``, ``core/services:delete``."""
        return f"{self.group or 'core'}/{self.target}:{self.verb}"

    @property
    def by_harness(self) -> bool:
        """Made by the harness's own client (``harness.kube``), e.g. a check probing the
        operator's rights as the operator's user, not by the operator."""
        return self.user_agent.startswith("modeldock-harness")

    @property
    def refusal(self) -> str | None:
        """For a 403, what was refused: the right (``apps/deployments:create``) when RBAC
        refused it; when RBAC allowed it and admission refused it (the
        OwnerReferencesPermissionEnforcement plugin asks for other rights than the request's
        own), the right and why: ``apps/deployments:create [admission: cannot set
        blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers
        on]``. None for any other answer, and for a ResourceQuota's refusal (403 "exceeded
        quota"): that is the namespace's budget, not a right."""
        if self.code != 403:
            return None
        if self.decision != "allow":
            return self.right
        if "exceeded quota" in self.message:
            return None
        why = self.message.split("is forbidden: ", 1)[-1].strip()
        why = why.removesuffix("<nil>").strip().rstrip(",: ").strip()
        return f"{self.right} [admission: {why}]"

    def describe(self) -> str:
        """One line, e.g. ``update deployments web -> 409``."""
        return f"{self.verb} {self.target} {self.name} -> {self.code}".replace("  ", " ")


class AuditLog:
    """Reader over the audit log file at ``path``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def offset(self) -> int:
        """The current end of the log, in bytes."""
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def requests(self, start: int = 0, end: int | None = None) -> Iterator[Request]:
        """Requests logged between byte offsets ``start`` and ``end`` (None: the end now)."""
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read() if end is None else f.read(max(0, end - start))
        except FileNotFoundError:
            return
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue  # a line being written right now
            yield Request.from_event(ev)

    def sync(self, kube: Any, timeout: float = 10.0) -> int:
        """Make a marker request as ``kube``'s user and wait until the log shows it; return the
        offset just after it. Raises TimeoutError if the marker never appears."""
        marker = f"modeldock-audit-sync-{uuid.uuid4().hex[:12]}"
        start = self.offset()
        try:
            kube.get("configmaps", "default", marker)
        except ApiException:
            pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read()
            idx = data.find(marker.encode())
            if idx >= 0:
                nl = data.find(b"\n", idx)
                return start + (nl + 1 if nl >= 0 else len(data))
            time.sleep(0.05)
        raise TimeoutError(f"audit marker {marker} not written to {self.path} within {timeout}s")


def select(
    requests: Iterable[Request],
    *,
    user: str | None = None,
    namespace: str | None = None,
    writes_only: bool = False,
    ok_only: bool = False,
    resources: Iterable[str] | None = None,
    instance: str | None = None,
) -> list[Request]:
    """Filter requests by user, namespace, write verbs, success, resource and instance."""
    wanted = set(resources) if resources is not None else None
    out = []
    for r in requests:
        if user is not None and r.user != user:
            continue
        if instance is not None and r.instance != instance:
            continue
        if namespace is not None and r.namespace != namespace:
            continue
        if writes_only and not r.is_write:
            continue
        if ok_only and not r.ok:
            continue
        if wanted is not None and r.resource not in wanted:
            continue
        out.append(r)
    return out


def summarize(requests: Iterable[Request]) -> dict[str, int]:
    """Counts keyed ``"<verb> <resource[/sub]> <code>"``, e.g. ``{"update deployments 200": 1}``."""
    return dict(sorted(Counter(f"{r.verb} {r.target} {r.code}" for r in requests).items()))
