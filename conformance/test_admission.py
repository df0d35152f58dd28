"""Bad input is refused at the door, with the field's path in the message."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.support import (
    create_modelservice,
    modelservice,
    premise,
    wait_converged,
    wait_settled,
)
from harness.accounting import Accounting
from harness.audit import Request, select
from harness.kube import Kube
from harness.lab.pool import OperatorPool
from harness.operators import Implementation
from harness.plugin.evidence import Evidence

#: (case id, ModelService name, spec changes (None value: remove the key), field path the
#: message must name). Every case must be refused at admission.
REFUSED: list[tuple[str, str, dict[str, Any], str]] = [
    ("replicas-negative", "web", {"replicas": -1}, "spec.replicas"),
    ("replicas-too-many", "web", {"replicas": 1001}, "spec.replicas"),
    ("replicas-not-integer", "web", {"replicas": "three"}, "spec.replicas"),
    ("port-zero", "web", {"port": 0}, "spec.port"),
    ("port-too-high", "web", {"port": 70000}, "spec.port"),
    ("port-string", "web", {"port": "http"}, "spec.port"),
    ("image-missing", "web", {"image": None}, "spec.image"),
    ("image-empty", "web", {"image": ""}, "spec.image"),
    ("model-empty", "web", {"model": ""}, "spec.model"),
    ("model-too-long", "web", {"model": "m" * 254}, "spec.model"),
    ("model-missing", "web", {"model": None}, "spec.model"),
    ("args-not-a-list", "web", {"args": "--fast"}, "spec.args"),
    ("args-not-strings", "web", {"args": [1, 2]}, "spec.args[0]"),
    (
        "resources-bad-quantity",
        "web",
        {"resources": {"limits": {"cpu": "lots"}}},
        "spec.resources.limits.cpu",
    ),
    (
        "resources-fractional-exponent",
        "web",
        {"resources": {"requests": {"cpu": "1e1.5"}}},
        "spec.resources.requests.cpu",
    ),
    (
        "resources-negative-quantity",
        "web",
        {"resources": {"limits": {"cpu": "-1"}}},
        "spec.resources.limits.cpu",
    ),
    (
        "resources-negative-integer",
        "web",
        {"resources": {"requests": {"memory": -1}}},
        "spec.resources.requests.memory",
    ),
    (
        "resources-quantity-too-long",
        "web",
        {"resources": {"limits": {"cpu": "1" * 33}}},
        "spec.resources.limits.cpu",
    ),
    (
        "resources-huge-exponent",
        "web",
        {"resources": {"limits": {"cpu": "1e999999999"}}},
        "spec.resources.limits.cpu",
    ),
    (
        "resources-tiny-exponent",
        "web",
        {"resources": {"limits": {"cpu": "1e-999999999"}}},
        "spec.resources.limits.cpu",
    ),
    (
        "resources-name-with-space",
        "web",
        {"resources": {"requests": {"foo bar": "1"}}},
        "spec.resources.requests",
    ),
    ("name-starts-with-digit", "1web", {}, "metadata.name"),
    ("name-64-characters", "w" * 64, {}, "metadata.name"),
    ("name-with-dot", "web.v1", {}, "metadata.name"),
]


def _manifest(name: str, changes: dict[str, Any]) -> dict[str, Any]:
    body = modelservice(name)
    for key, value in changes.items():
        if value is None:
            body["spec"].pop(key, None)
        else:
            body["spec"][key] = value
    return body


def unexplained_errors(log: str, failed: list[Request]) -> list[str]:
    """The operator's error lines (``Reconciler error``, a traceback, a panic) that are not a
    409 answer of the API server. A reconcile error's status code is found from the API
    server's side: the audit events of the operator's failed requests, whose Status message
    the error text carries (both implementations log it as the error). A ``Reconciler error``
    whose message matches only 409 answers (a Conflict: optimistic concurrency at work, a cache
    that lags the operator's own writes; an AlreadyExists) is dropped; any other error line is
    kept, whatever digits its timestamps and ids contain."""
    conflicts = {r.message for r in failed if r.code == 409 and r.message}
    others = {r.message for r in failed if r.code != 409 and r.message}
    out = []
    for line in log.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if not isinstance(entry, dict):
            if "Traceback" in line or "panic" in line:
                out.append(line)
            continue
        if entry.get("msg") != "Reconciler error":
            if "Traceback" in line or "panic" in line:
                out.append(line)
            continue
        text = str(entry.get("error", ""))
        matched_409 = any(m in text for m in conflicts)
        matched_other = any(m in text for m in others)
        if matched_409 and not matched_other:
            continue
        out.append(line)
    return out


@pytest.mark.modeldock_check("invalid-rejected")
def test_invalid_rejected(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    audit: Accounting,
    evidence: Evidence,
    impl: Implementation,
) -> None:
    """Specs that cannot work are refused by the API server, with the field's path in the
    message, and the operator never sees them; unknown fields are pruned.

    Validation belongs at admission (the CRD's schema and CEL rules), not in the controller: a
    refused create tells the user at once what to fix, while a controller that finds a bad
    spec later can only report it in status, after the fact, and must not crash on it. The
    name rule matters because the Service takes the ModelService's name and Service names are
    DNS-1035 labels, stricter than what the API server accepts for a custom resource's name.
    The refusals and the pruning are the CRD's work, premises of the check; the operator's part
    is what follows: it converges the ModelServices that were admitted (one with unknown fields
    pruned, one with every optional field left out), stays up, and the API server refuses
    none of its requests but 409s (read from the audit log or its API proxy, not its log).
    """
    start = audit.sync(admin)
    op = operators.start()
    outcomes = {}
    problems = []
    for case, name, changes, field in REFUSED:
        try:
            admin.create("modelservices", namespace, _manifest(name, changes))
        except ApiException as exc:
            message = json.loads(exc.body or "{}").get("message", "") if exc.body else ""
            outcomes[case] = {"status": exc.status, "message": message[:300]}
            if exc.status not in (400, 422):
                problems.append(f"{case}: expected 422 Invalid, got {exc.status}")
            if field not in message:
                problems.append(f"{case}: message does not name {field}: {message!r}")
        else:
            outcomes[case] = {"status": 201}
            problems.append(f"{case}: accepted; must be refused (field {field})")
            admin.delete("modelservices", namespace, name)
    evidence.premise("refused", outcomes)

    pruned = _manifest("pruned", {"replicass": 3, "extra": {"x": 1}})
    stored = admin.create("modelservices", namespace, pruned)
    evidence.premise("pruned_spec_keys", sorted(stored["spec"]))
    if "replicass" in stored["spec"] or "extra" in stored["spec"]:
        problems.append(f"unknown fields were stored, not pruned: {sorted(stored['spec'])}")
    if stored["spec"].get("replicas") != 1 or stored["spec"].get("port") != 8000:
        problems.append(f"defaults not applied: {stored['spec']}")
    premise(not problems, "the CRD did not refuse or prune as it must:\n  " + "\n  ".join(problems))

    create_modelservice(admin, namespace, "web")
    wait_converged(admin, namespace, "pruned")
    wait_converged(admin, namespace, "web")
    wait_settled(op)
    end = audit.sync(admin)
    failed = [
        r
        for r in select(audit.requests(start, end), user=impl.user, namespace=namespace)
        if r.code >= 400
    ]
    # The oracle is what the API server answered the operator, not what it logged: a 409 is
    # optimistic concurrency at work (a cache that lags the operator's own writes), not an
    # error about the input; any other refused request is. Its log's error lines are
    # evidence only (the operator's own word).
    refused = [r.describe() for r in failed if r.code != 409]
    evidence.record("refused_requests", refused)
    evidence.record("operator_error_lines", unexplained_errors(op.log_text(), failed)[:5])
    assert op.running(), f"the operator exited (code {op.returncode()})"
    assert not refused, f"the API server refused the operator's requests: {refused[:5]}"
