"""A small REST client for the checks: plain dicts in, plain dicts out.

The checks read and write ModelServices, Deployments, Services, Leases and namespaces as JSON
objects, exactly as the API server returns them, through the official ``kubernetes`` client's
``ApiClient`` (TLS, kubeconfig, retries). Nothing here is an operator: it is the hand of the
person running the experiment, and every call shows up in the audit log under that user.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from harness.verdicts import PremiseFailed

T = TypeVar("T")

#: The User-Agent of every request the harness makes (``harness.audit.Request.by_harness``).
USER_AGENT = "modeldock-harness"

#: resource -> (API path prefix, namespaced)
RESOURCES: dict[str, tuple[str, bool]] = {
    "modelservices": ("/apis/modeldock.io/v1alpha1", True),
    "deployments": ("/apis/apps/v1", True),
    "services": ("/api/v1", True),
    "configmaps": ("/api/v1", True),
    "secrets": ("/api/v1", True),
    "leases": ("/apis/coordination.k8s.io/v1", True),
    "rolebindings": ("/apis/rbac.authorization.k8s.io/v1", True),
    "roles": ("/apis/rbac.authorization.k8s.io/v1", True),
    "clusterroles": ("/apis/rbac.authorization.k8s.io/v1", False),
    "events": ("/api/v1", True),
    "namespaces": ("/api/v1", False),
    "pods": ("/api/v1", True),
    "replicasets": ("/apis/apps/v1", True),
    "resourcequotas": ("/api/v1", True),
    "nodes": ("/api/v1", False),
    "validatingadmissionpolicies": ("/apis/admissionregistration.k8s.io/v1", False),
    "validatingadmissionpolicybindings": ("/apis/admissionregistration.k8s.io/v1", False),
}

KIND_TO_RESOURCE = {
    "ModelService": "modelservices",
    "Deployment": "deployments",
    "Service": "services",
    "ConfigMap": "configmaps",
    "Lease": "leases",
    "RoleBinding": "rolebindings",
    "Namespace": "namespaces",
}


class Kube:
    """REST access as one kubeconfig user. ``Kube(path)``; methods raise ``ApiException``
    (with ``.status``) for any non-2xx answer except where they say otherwise."""

    def __init__(self, kubeconfig: Path | str) -> None:
        self.kubeconfig = Path(kubeconfig)
        cfg = client.Configuration()
        config.load_kube_config(
            config_file=str(kubeconfig),  # type: ignore[no-untyped-call]
            client_configuration=cfg,
        )
        cfg.retries = 3
        self.api = client.ApiClient(cfg)
        # The audit log tells the harness's own requests (probes made as the operator's user)
        # from the operator's, whose client may be this same library.
        self.api.user_agent = USER_AGENT

    def close(self) -> None:
        self.api.close()  # type: ignore[no-untyped-call]

    @staticmethod
    def path(
        resource: str,
        namespace: str | None = None,
        name: str | None = None,
        subresource: str | None = None,
    ) -> str:
        prefix, namespaced = RESOURCES[resource]
        p = prefix
        if namespaced and namespace:
            p += f"/namespaces/{namespace}"
        p += f"/{resource}"
        if name:
            p += f"/{name}"
        if subresource:
            p += f"/{subresource}"
        return p

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: list[tuple[str, Any]] | None = None,
        content_type: str = "application/json",
    ) -> Any:
        """One HTTP request; returns the decoded JSON body (a dict). Raises ApiException
        (``.status``, ``.body``) for any non-2xx answer."""
        method, url, headers, payload, post = self.api.param_serialize(
            method,
            path,
            query_params=[(k, v) for k, v in (query or [])],
            body=body,
            header_params={"Accept": "application/json", "Content-Type": content_type},
            auth_settings=["BearerToken"],
        )
        resp = self.api.call_api(
            method, url, header_params=headers, body=payload, post_params=post, _request_timeout=30
        )
        resp.read()  # type: ignore[no-untyped-call]
        if not 200 <= resp.status < 300:
            raise ApiException(http_resp=resp)
        return json.loads(resp.data) if resp.data else {}

    # -------------------------------------------------------------- verbs
    def get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        """The object, or None if it does not exist (404)."""
        try:
            return self.request("GET", self.path(resource, namespace, name))  # type: ignore[no-any-return]
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def list(
        self, resource: str, namespace: str | None = None, label_selector: str | None = None
    ) -> list[dict[str, Any]]:
        query = [("labelSelector", label_selector)] if label_selector else []
        out = self.request("GET", self.path(resource, namespace), query=query)
        return list(out.get("items") or [])

    def create(self, resource: str, namespace: str | None, body: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", self.path(resource, namespace), body)  # type: ignore[no-any-return]

    def update(
        self, resource: str, body: dict[str, Any], subresource: str | None = None
    ) -> dict[str, Any]:
        """PUT ``body`` as it is (its metadata.resourceVersion is the precondition: a stale one
        gets 409 Conflict)."""
        meta = body["metadata"]
        return self.request(  # type: ignore[no-any-return]
            "PUT",
            self.path(
                resource,
                meta.get("namespace"),
                meta["name"],
                subresource,
            ),
            body,
        )

    def patch(
        self,
        resource: str,
        namespace: str | None,
        name: str,
        patch: dict[str, Any],
        subresource: str | None = None,
    ) -> dict[str, Any]:
        """JSON merge patch (RFC 7386)."""
        return self.request(  # type: ignore[no-any-return]
            "PATCH",
            self.path(resource, namespace, name, subresource),
            patch,
            content_type="application/merge-patch+json",
        )

    def delete(
        self,
        resource: str,
        namespace: str | None,
        name: str,
        uid: str | None = None,
        missing_ok: bool = True,
        propagation_policy: str = "Background",
    ) -> bool:
        """Delete; with ``uid``, only that incarnation (a precondition). ``propagation_policy``
        is DeleteOptions.propagationPolicy: ``Background`` (kubectl's default), ``Foreground``
        or ``Orphan`` (``kubectl delete --cascade=foreground|orphan``). Returns False if the
        object was already gone (404) and ``missing_ok``."""
        body: dict[str, Any] = {"propagationPolicy": propagation_policy}
        if uid:
            body["preconditions"] = {"uid": uid}
        try:
            self.request("DELETE", self.path(resource, namespace, name), body)
            return True
        except ApiException as exc:
            if exc.status == 404 and missing_ok:
                return False
            raise

    def can_i(self, verb: str, resource: str, namespace: str | None, group: str = "") -> bool:
        """SelfSubjectAccessReview: may this user do ``verb`` on ``resource`` (which may be
        ``resource/subresource``) in ``namespace`` (None: cluster scope)?"""
        res, _, sub = resource.partition("/")
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {
                "resourceAttributes": {
                    "verb": verb,
                    "resource": res,
                    "subresource": sub,
                    "group": group,
                    "namespace": namespace or "",
                }
            },
        }
        out = self.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review)
        return bool(out["status"].get("allowed"))


#: The longest gap between two polls of ``wait_for`` (seconds), and the factor each gap grows
#: by up to it, as client-go's wait.Backoff grows its steps.
MAX_POLL_INTERVAL = 0.5
POLL_BACKOFF = 1.5


def bind_refusing_policy(
    kube: Kube,
    name: str,
    namespace: str,
    operations: Sequence[str],
    expression: str,
    message: str,
    *,
    group: str = "apps",
    resource: str = "deployments",
) -> None:
    """Create a ValidatingAdmissionPolicy ``name`` that refuses (403 Forbidden, ``message``)
    the requests of ``operations`` (``CREATE``, ``UPDATE``) on ``resource`` of API ``group``
    (Deployments by default; ``modelservices/status`` of ``modeldock.io``: a subresource) in
    ``namespace`` whose object fails the CEL ``expression`` (``"false"``: every one), and its
    binding of the same name (``Deny``, matched by the namespace's name label). The API
    server applies it a moment later: the caller waits for a dry run to be refused. Raises
    ApiException as ``create`` does (409 when ``name`` exists)."""
    kube.create(
        "validatingadmissionpolicies",
        None,
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [group],
                            "apiVersions": ["*"],
                            "operations": list(operations),
                            "resources": [resource],
                        }
                    ]
                },
                "validations": [
                    {"expression": expression, "message": message, "reason": "Forbidden"}
                ],
            },
        },
    )
    kube.create(
        "validatingadmissionpolicybindings",
        None,
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": {
                "policyName": name,
                "validationActions": ["Deny"],
                "matchResources": {
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}
                },
            },
        },
    )


#: The label that exempts an admin probe from the refusing policies the checks and the
#: generator bind (their CEL expressions name it), so a dry run can tell when one applies.
PROBE_LABEL = "modeldock.io/refuse-probe"


def probe_deployment() -> dict[str, Any]:
    """A minimal Deployment ``probe`` labelled PROBE_LABEL, for dry runs and staged deletes
    against a refusing policy."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "probe", "labels": {PROBE_LABEL: "1"}},
        "spec": {
            "selector": {"matchLabels": {"probe": "1"}},
            "template": {
                "metadata": {"labels": {"probe": "1"}},
                "spec": {"containers": [{"name": "c", "image": "srv:1"}]},
            },
        },
    }


def dry_run_create(kube: Kube, resource: str, namespace: str, body: dict[str, Any]) -> int:
    """The HTTP code of an admin dry-run create of ``body`` as ``resource`` in ``namespace``
    (``dryRun=All``: admission runs, nothing is stored): 201, or the refusal's code (403
    while a refusing policy applies)."""
    try:
        kube.request("POST", kube.path(resource, namespace), body, query=[("dryRun", "All")])
    except ApiException as exc:
        return int(exc.status)
    return 201


def dry_run_update(
    kube: Kube, resource: str, namespace: str, name: str, subresource: str = ""
) -> int:
    """The HTTP code of an admin dry-run update (PUT, ``dryRun=All``) of ``name`` as stored,
    or of its ``subresource`` (``status``): 200, or the refusal's code (403 while a refusing
    policy applies; 409 when the object moved between the read and the write: ask again).
    Raises LookupError when the object is not there: a probe with nothing to update."""
    try:
        current = kube.get(resource, namespace, name)
        if current is None:
            raise LookupError(f"{resource} {namespace}/{name}: nothing to dry-run update")
        path = kube.path(resource, namespace, name, subresource or None)
        kube.request("PUT", path, current, query=[("dryRun", "All")])
    except ApiException as exc:
        return int(exc.status)
    return 200


def unbind_refusing_policy(kube: Kube, name: str) -> None:
    """Remove the binding and the ValidatingAdmissionPolicy ``name`` that
    ``bind_refusing_policy`` made, binding first (so no request meets a binding without its
    policy); either already gone is no error. The API server stops applying it a moment
    later: the caller waits for a dry run to be admitted."""
    for resource in ("validatingadmissionpolicybindings", "validatingadmissionpolicies"):
        kube.delete(resource, None, name, missing_ok=True)


def wait_for(
    fetch: Callable[[], T | None],
    predicate: Callable[[T], bool],
    timeout: float,
    what: str,
    interval: float = 0.1,
    *,
    premise: bool = False,
) -> T:
    """Poll ``fetch()`` until ``predicate(value)`` holds; return that value. The first gap is
    ``interval`` seconds, each next one POLL_BACKOFF times longer, up to MAX_POLL_INTERVAL
    (or ``interval``, if that is longer): what happens quickly is seen quickly, and a long
    wait asks the API server twice a second instead of ten times. Many checks wait side by
    side on two cores, and at a fixed 0.1 s their polls, answered by the API server, etcd
    and the kubernetes client, took CPU from the operators they waited for.

    After ``timeout`` seconds it raises, so a failed check shows what it expected and what it
    last observed, and says whose failure it was (harness/verdicts.py):

    - ``AssertionError`` with ``what`` and the last value seen: the operator did not bring
      about what the check waited for (the check's verdict ``fail``);
    - ``PremiseFailed`` instead, with ``premise=True``: a set-up wait, about the experiment
      rather than the operator (verdict ``error``);
    - the last ``ApiException``, when every poll failed with one (the harness's own requests
      were refused or the API server was down): never the operator's failure.
    """
    deadline = time.monotonic() + timeout
    last: T | None = None
    last_exc: ApiException | None = None
    answered = False
    gap = interval
    while True:
        try:
            last = fetch()
            answered = True
            if last is not None and predicate(last):
                return last
        except ApiException as exc:
            last_exc = exc
        if time.monotonic() > deadline:
            if not answered and last_exc is not None:
                raise last_exc
            detail = f"; last error: {last_exc.status} {last_exc.reason}" if last_exc else ""
            message = (
                f"timed out after {timeout:.0f}s waiting for {what}{detail}\n"
                f"last observed: {_short(last)}"
            )
            if premise:
                raise PremiseFailed.because(message)
            raise AssertionError(message)
        time.sleep(gap)
        gap = min(gap * POLL_BACKOFF, max(interval, MAX_POLL_INTERVAL))


def _short(obj: Any) -> str:
    import yaml

    if obj is None:
        return "nothing (object absent)"
    if isinstance(obj, dict):
        obj = {k: v for k, v in obj.items() if k != "metadata"} | {
            "metadata": {
                k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"
            }
        }
    text = yaml.safe_dump(obj, sort_keys=False)
    return text if len(text) < 4000 else text[:4000] + "\n..."
