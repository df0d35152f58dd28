"""The ModelService operator as kopf handlers.

kopf's model, not a reconcile loop: kopf calls a handler for what happened to a ModelService
(``create``, ``update`` of its essence, ``resume`` when the operator starts and finds it,
``delete``), keeps what it has handled in annotations on the object (the last handled
configuration, the progress of retries), adds and removes its own finalizer around the
``delete`` handler, and applies the handler's ``patch`` (status included) as merge patches.
Children are created with ``kopf.adopt`` (controller ownerReference, name, namespace). The
children are known through kopf indices (in-memory, fed by watches): the "cache" the
contract's reads come from. A child's own changes call no ModelService handler.

The desired objects, the mutate functions and the status/condition arithmetic are the
contract's, taken as pure functions from ``python_operator.controller`` so that what differs
between this and the other two implementations is the framework, not the ModelService logic.
"""

from __future__ import annotations

import copy
import datetime
import importlib.metadata
import json
import logging
from collections.abc import Mapping
from typing import Any

import aiohttp
import kopf
from kubernetes import __version__ as k8s_version
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from kopf_operator import glue
from python_operator import controller as contract

GROUP, VERSION, PLURAL = "modeldock.io", "v1alpha1", "modelservices"
FINALIZER = contract.FINALIZER_NAME
EVENT_COMPONENT = "modelservice-controller"
CONFLICT_DELAY = 5.0
DELETION_DELAY = 1.0

METRICS = glue.Metrics()
log = logging.getLogger("modelservice")


class Requeue(kopf.TemporaryError):
    """Not an error: come back after ``delay`` (a foreign child, children still deleting)."""


def _classify(exc: BaseException) -> str:
    return "requeue_after" if isinstance(exc, Requeue) else "error"


def _log_error(logger: Any, exc: BaseException) -> None:
    (logger or log).error("Reconciler error", extra={"fields": {"error": str(exc)}})


counted = glue.counted(METRICS, _classify, _log_error)


def plain(obj: Any) -> dict[str, Any]:
    """A deep, plain-dict copy of a kopf body (or view)."""
    return json.loads(json.dumps(obj, default=dict))  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- settings
@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    """kopf's settings for the contract: our finalizer name, events from our component, no
    cluster-wide scanning (the role grants nothing at cluster scope), progress and the
    last-handled configuration in annotations (the CRD's structural schema would prune
    status.kopf), and a server-side timeout on every watch."""
    settings.persistence.finalizer = FINALIZER
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage()
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage()
    settings.posting.reporting_component = EVENT_COMPONENT
    settings.posting.level = logging.INFO
    settings.scanning.disabled = True
    settings.watching.server_timeout = 60
    settings.watching.client_timeout = 90
    settings.execution.max_workers = max(1, OPTIONS.get("workers", 4))
    settings.peering.standalone = True


#: filled in by __main__ before kopf starts
OPTIONS: dict[str, Any] = {}

#: The User-Agent of every request, kopf's own and the handlers' (CONTRACT.md, "It names
#: itself"): the product "modeldock-kopf" becomes the field manager of the writes, where the
#: libraries' defaults would say kopf/<version> for kopf's patches and OpenAPI-Generator for
#: the children's writes.
KOPF_VERSION = importlib.metadata.version("kopf")
USER_AGENT = f"modeldock-kopf/0.1 (kopf/{KOPF_VERSION}; kubernetes-client/{k8s_version})"


@kopf.on.login()
async def login(**kwargs: Any) -> kopf.AiohttpSession | None:
    """Log in as kopf does by default with the official client installed
    (``kopf.login_via_client``: the same KUBECONFIG), but through an aiohttp session of our
    own whose User-Agent is ``USER_AGENT`` (kopf only sets its own when a session has none).
    Returns None, as kopf's handler does, when the client finds no credentials."""
    info = kopf.login_via_client(**kwargs)
    if info is None:
        return None
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, ssl=info.as_ssl_context()),
        headers={**info.as_http_headers(), "User-Agent": USER_AGENT},
    )
    return kopf.AiohttpSession(
        server=info.server,
        default_namespace=info.default_namespace,
        aiohttp_session=session,
    )


_CLIENT: list[k8s.ApiClient] = []


def api_client() -> k8s.ApiClient:
    """The handlers' ApiClient (the default configuration ``__main__`` loaded), made once,
    with ``USER_AGENT`` instead of the client's default OpenAPI-Generator."""
    if not _CLIENT:
        client = k8s.ApiClient()
        client.user_agent = USER_AGENT
        _CLIENT.append(client)
    return _CLIENT[0]


# --------------------------------------------------------------------------- the "cache"
@kopf.index("apps", "v1", "deployments")
def deployment_cache(name: str, body: kopf.Body, **_: Any) -> dict[str, dict[str, Any]]:
    return {name: plain(body)}


@kopf.index("", "v1", "services")
def service_cache(name: str, body: kopf.Body, **_: Any) -> dict[str, dict[str, Any]]:
    return {name: plain(body)}


def cached(index: kopf.Index[str, dict[str, Any]], name: str) -> dict[str, Any] | None:
    store = index.get(name)
    return copy.deepcopy(next(iter(store), None)) if store else None


# --------------------------------------------------------------------------- helpers
def desired(kind: str, ms: dict[str, Any], body: kopf.Body) -> dict[str, Any]:
    """The contract's desired child, owned the kopf way: ``kopf.adopt``."""
    spec = contract.read_spec(ms)
    obj = (contract.desired_deployment if kind == "Deployment" else contract.desired_service)(
        ms, spec
    )
    obj["metadata"].pop("ownerReferences", None)
    kopf.adopt(obj, owner=body)
    return obj


def _api(kind: str) -> tuple[Any, str]:
    if kind == "Deployment":
        return k8s.AppsV1Api(api_client()), "namespaced_deployment"
    return k8s.CoreV1Api(api_client()), "namespaced_service"


def _error_text(exc: Exception) -> str:
    if isinstance(exc, ApiException):
        try:
            return str(json.loads(exc.body or "{}").get("message") or exc.reason)
        except ValueError:
            return str(exc.reason)
    return str(exc)


def ensure_child(
    kind: str, ms: dict[str, Any], body: kopf.Body, live: dict[str, Any] | None, logger: kopf.Logger
) -> str:
    """Create or update one child; return the conflict message when a same-named child is not
    ours (nothing written then)."""
    name, ns = ms["metadata"]["name"], ms["metadata"]["namespace"]
    want = desired(kind, ms, body)
    api, suffix = _api(kind)
    if live is None:
        try:
            getattr(api, f"create_{suffix}")(ns, want)
        except ApiException as exc:
            if exc.status != 409:
                kopf.event(
                    body,
                    type="Warning",
                    reason="FailedCreate",
                    message=f'Failed to create {kind} "{name}": {_error_text(exc)}',
                )
            raise
        logger.info(f"Created {kind}", extra={"fields": {"child": f"{kind}/{name}"}})
        kopf.event(body, type="Normal", reason=f"Created{kind}", message=f'Created {kind} "{name}"')
        glue.crash_point("after-deployment" if kind == "Deployment" else "after-service")
        return ""
    if not contract.controlled_by(live, ms):
        logger.info("Child conflict", extra={"fields": {"child": f"{kind}/{name}"}})
        return f'{kind} "{name}" exists and is not controlled by this ModelService'
    updated = copy.deepcopy(live)
    (contract.mutate_deployment if kind == "Deployment" else contract.mutate_service)(updated, want)
    if updated == live:
        return ""
    try:
        getattr(api, f"replace_{suffix}")(name, ns, updated)
    except ApiException as exc:
        if exc.status != 409:
            kopf.event(
                body,
                type="Warning",
                reason="FailedUpdate",
                message=f'Failed to update {kind} "{name}": {_error_text(exc)}',
            )
        raise
    logger.info(f"Updated {kind}", extra={"fields": {"child": f"{kind}/{name}"}})
    kopf.event(body, type="Normal", reason=f"Updated{kind}", message=f'Updated {kind} "{name}"')
    glue.crash_point("after-deployment" if kind == "Deployment" else "after-service")
    return ""


def status_changes(stored: Mapping[str, Any] | None, computed: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``computed`` that differ from ``stored`` (a merge patch of the status)."""
    stored = stored or {}
    return {k: v for k, v in computed.items() if stored.get(k) != v}


def reconcile(
    body: kopf.Body,
    patch: kopf.Patch,
    logger: kopf.Logger,
    deployment_cache: kopf.Index[str, dict[str, Any]],
    service_cache: kopf.Index[str, dict[str, Any]],
) -> None:
    """Steps 4 to 6 of the contract, for create, update and resume alike."""
    ms = plain(body)
    name = ms["metadata"]["name"]
    logger.debug("Reconciling ModelService")
    spec = contract.read_spec(ms)
    conflict = ensure_child("Deployment", ms, body, cached(deployment_cache, name), logger)
    if not conflict:
        conflict = ensure_child("Service", ms, body, cached(service_cache, name), logger)
    dep = cached(deployment_cache, name)
    status = contract.compute_status(ms, spec, dep, conflict, datetime.datetime.now(datetime.UTC))
    changes = status_changes(ms.get("status"), status)
    if changes:
        glue.crash_point("before-status")
        for key, value in changes.items():
            patch.status[key] = value
        logger.info("Updated status")
    if conflict:
        kopf.event(body, type="Warning", reason="ChildConflict", message=conflict)
        raise Requeue(conflict, delay=CONFLICT_DELAY)


# --------------------------------------------------------------------------- handlers
# kopf injects the indices by parameter name, which its ChangingFn protocol does not model.
@kopf.on.create(GROUP, VERSION, PLURAL)  # type: ignore[arg-type]
@counted
def on_create(
    body: kopf.Body,
    patch: kopf.Patch,
    logger: kopf.Logger,
    deployment_cache: kopf.Index[str, dict[str, Any]],
    service_cache: kopf.Index[str, dict[str, Any]],
    **_: Any,
) -> None:
    # kopf stored its finalizer in a patch of its own before calling this handler: the
    # contract's "after-finalizer" point is the first moment a handler runs after it.
    if FINALIZER in (body.metadata.get("finalizers") or []):
        glue.crash_point("after-finalizer")
    reconcile(body, patch, logger, deployment_cache, service_cache)


# kopf injects the indices by parameter name, which its ChangingFn protocol does not model.
@kopf.on.update(GROUP, VERSION, PLURAL)  # type: ignore[arg-type]
@counted
def on_update(
    body: kopf.Body,
    patch: kopf.Patch,
    logger: kopf.Logger,
    deployment_cache: kopf.Index[str, dict[str, Any]],
    service_cache: kopf.Index[str, dict[str, Any]],
    **_: Any,
) -> None:
    reconcile(body, patch, logger, deployment_cache, service_cache)


# kopf injects the indices by parameter name, which its ChangingFn protocol does not model.
@kopf.on.resume(GROUP, VERSION, PLURAL)  # type: ignore[arg-type]
@counted
def on_resume(
    body: kopf.Body,
    patch: kopf.Patch,
    logger: kopf.Logger,
    deployment_cache: kopf.Index[str, dict[str, Any]],
    service_cache: kopf.Index[str, dict[str, Any]],
    **_: Any,
) -> None:
    reconcile(body, patch, logger, deployment_cache, service_cache)


@kopf.on.delete(GROUP, VERSION, PLURAL)
@counted
def on_delete(body: kopf.Body, logger: kopf.Logger, **_: Any) -> None:
    """Deletion (step 2): delete our children (read live), wait until they are gone; kopf
    removes its finalizer when this handler succeeds."""
    ms = plain(body)
    name, ns = ms["metadata"]["name"], ms["metadata"]["namespace"]
    if contract.orphans_children(ms):
        logger.info("Orphaned children", extra={"fields": {"propagationPolicy": "Orphan"}})
        return
    waiting = False
    for kind in ("Deployment", "Service"):
        api, suffix = _api(kind)
        try:
            live = getattr(api, f"read_{suffix}")(name, ns)
        except ApiException as exc:
            if exc.status == 404:
                continue
            raise
        live_d = k8s.ApiClient().sanitize_for_serialization(live)  # type: ignore[no-untyped-call]
        if not contract.controlled_by(live_d, ms):
            continue
        waiting = True
        if live_d["metadata"].get("deletionTimestamp"):
            continue
        try:
            getattr(api, f"delete_{suffix}")(
                name,
                ns,
                body=k8s.V1DeleteOptions(
                    preconditions=k8s.V1Preconditions(uid=live_d["metadata"]["uid"]),
                    propagation_policy="Background",
                ),
            )
        except ApiException as exc:
            if exc.status in (404, 409):
                continue
            kopf.event(
                body,
                type="Warning",
                reason="FailedDelete",
                message=f'Failed to delete {kind} "{name}": {_error_text(exc)}',
            )
            raise
        logger.info("Deleted child", extra={"fields": {"child": f"{kind}/{name}"}})
        kopf.event(body, type="Normal", reason=f"Deleted{kind}", message=f'Deleted {kind} "{name}"')
        glue.crash_point("after-child-delete")
    if waiting:
        raise Requeue("children still exist", delay=DELETION_DELAY)
    logger.info("Removed finalizer")
    kopf.event(
        body, type="Normal", reason="RemovedFinalizer", message=f'Removed finalizer "{FINALIZER}"'
    )
