"""A dict-in, dict-out client for any resource: the twin of controller-runtime's client for
unstructured objects (and of client-go's dynamic client).

Why not the generated API classes: ``AppsV1Api`` and ``CoreV1Api`` turn every response into
generated models (slow to build, and a second object model next to the dicts the reconciler
works on), and ``CustomObjectsApi`` only reaches ``/apis/<group>/...``, not core ``/api/v1``
Services. This client sends the same requests through the official ``ApiClient``'s own parts
(its ``Configuration``'s host, default headers and BearerToken auth, its urllib3 pool with the
kubeconfig's TLS settings) and returns the JSON as dicts. ``update_status`` is the PUT to
``.../<name>/status`` that ``CustomObjectsApi.replace_namespaced_custom_object_status`` sends.

Why not ``ApiClient.param_serialize`` + ``call_api``, which build the same request: for dicts
they only add work. ``param_serialize`` walks every body through ``sanitize_for_serialization``
(a recursive copy of what is already JSON) and ``RESTClientObject.request`` matches the
Content-Type with regular expressions and then calls urllib3's ``request``, which merges the
headers again before ``urlopen``. A py-spy profile of the operator at one worker and N = 1000
(issue 28) put those layers at about a tenth of the operator's CPU; here each request is one
``json.dumps`` and one ``PoolManager.urlopen``, with the same headers, body, timeout, pool and
errors (an ``SSLError`` is raised as ``kubernetes.client.ApiException`` with status 0, as
``RESTClientObject.request`` raises it).

Every request has a timeout (``kubernetes`` sets none by default), so a stalled connection
or an answer that never comes becomes an error that the caller handles (requeue, re-watch)
instead of a worker blocked for ever: a non-watch request is bounded in total
(``REQUEST_TIMEOUT``, CONTRACT.md "Process"), a watch by its own deadlines. The ``ApiClient``
given here should have ``configuration.retries = False``: urllib3 never retries on its own.

One retry happens here, client-go's (``rest.Request``, ``withRetry``, v0.34; CONTRACT.md
"Errors"): an answer 429 or 5xx that carries ``Retry-After: <seconds>`` is the API server
asking to be asked again later, so the same request is sent again after that many seconds, up
to ``MAX_RETRIES`` times, within the request's own timeout (``retry_after_seconds`` says which
answers). Any other failed answer, a 5xx without the header included, is raised at once: the
work queue retries the reconcile with backoff.

A transport failure (a request or a watch that timed out on a silent connection, a reset)
closes every pooled connection to the API server before it is raised (``drop_connections``):
the silence that hit one connection (a dead NAT entry, a hung load balancer) has usually hit
the idle ones beside it, and the next request must not wait out the same timeout on each of
them in turn. client-go gets this from HTTP/2: one connection carries every request, and
when its health check gives up on it, all of them move to a new one.

Errors: a non-2xx answer raises ``ApiError`` with the status code and the API server's
``Status.message`` (the line Go logs); transport failures raise urllib3's exceptions.
"""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import urllib3
from kubernetes import client as k8s
from kubernetes.watch.watch import iter_resp_lines

Obj = dict[str, Any]
"""A Kubernetes object as JSON: what the API server sends and what the reconciler edits."""
ObjList = list[Obj]
Query = list[tuple[str, str]]

# Seconds to open a connection (a watch's), and the whole of a non-watch request by default
# (REQUEST_TIMEOUT_SECONDS, CONTRACT.md "Process"): the longest an admission webhook may take
# (timeoutSeconds <= 30, admissionregistration/v1) plus 5 s for the API server's own work, so a
# write that one webhook at its limit delays still gets its answer, and one that never gets an
# answer frees its worker. The Go operator's client has the same.
CONNECT_TIMEOUT = 10.0
REQUEST_TIMEOUT = 35.0


@dataclasses.dataclass(frozen=True)
class Resource:
    """A namespaced resource: where it lives in the API and what its objects are called."""

    group: str
    version: str
    plural: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str, name: str | None = None, subresource: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        path = f"{base}/namespaces/{namespace}/{self.plural}"
        if name is not None:
            path += f"/{name}"
        if subresource is not None:
            path += f"/{subresource}"
        return path

    def __str__(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


#: How many times one request is sent again after answers asking for it with Retry-After:
#: client-go's ``Request.maxRetries`` default (``NewRequest``, rest/request.go, v0.34), so at
#: most 11 attempts in all; the last answer is then the request's error.
MAX_RETRIES = 10

#: What Go's ``strconv.Atoi`` accepts, which client-go's ``retryAfterSeconds`` uses: an optional
#: sign and decimal digits, nothing else (no spaces, no HTTP-date form).
_ATOI = re.compile(r"[+-]?[0-9]+")


def retry_after_seconds(status: int, headers: Mapping[str, str]) -> int | None:
    """Seconds to wait before sending a request again that was answered ``status`` with
    ``headers`` (a case-insensitive mapping, as urllib3's), or None when the answer asks for
    no retry and is the request's error.

    client-go's ``checkWait`` (rest/with_retry.go, v0.34): only 429 TooManyRequests and any
    status of 500 or above, and only with a ``Retry-After`` header whose value is a whole number
    of seconds (``retryAfterSeconds``: ``strconv.Atoi``; an HTTP-date or junk is no Retry-After).
    A negative value waits 0 s (Go's timer of a negative duration fires at once). A 5xx without
    the header is no retry here: it goes back to the work queue, which backs off."""
    if status != 429 and status < 500:
        return None
    value = headers.get("Retry-After", "")
    if not value or _ATOI.fullmatch(value) is None:
        return None
    return max(0, int(value))


DEPLOYMENTS = Resource(group="apps", version="v1", plural="deployments", kind="Deployment")
SERVICES = Resource(group="", version="v1", plural="services", kind="Service")
LEASES = Resource(group="coordination.k8s.io", version="v1", plural="leases", kind="Lease")


class ApiError(Exception):
    """A non-2xx answer of the API server (apimachinery's StatusError). causes are the
    Status's ``details.causes`` as ``(field, message)`` pairs, in the order of the answer."""

    def __init__(
        self, status: int, reason: str, message: str, causes: tuple[tuple[str, str], ...] = ()
    ) -> None:
        super().__init__(message or f"{status} {reason}")
        self.status = status
        self.reason = reason
        self.message = message
        self.causes = causes


#: Every kind of error a request of this client raises (the module docstring's "Errors"): an
#: answer of the API server (``ApiError``; ``kubernetes.client.ApiException`` for a TLS failure,
#: as the official client translates it), a transport failure (urllib3's ``HTTPError``), a
#: deadline or a socket's error (``OSError``, ``TimeoutError`` among them). Go's client returns
#: all of these as an ``error``; ``controller.Controller`` takes any other exception escaping a
#: reconcile for a panic.
REQUEST_ERRORS: tuple[type[BaseException], ...] = (
    ApiError,
    k8s.ApiException,
    urllib3.exceptions.HTTPError,
    OSError,
)


def is_not_found(err: BaseException) -> bool:
    """404: the object does not exist (Go: apierrors.IsNotFound)."""
    return isinstance(err, ApiError) and err.status == 404


def is_conflict(err: BaseException) -> bool:
    """409: a stale resourceVersion, a failed precondition, or AlreadyExists (Go:
    apierrors.IsConflict or apierrors.IsAlreadyExists)."""
    return isinstance(err, ApiError) and err.status == 409


def is_gone(err: BaseException) -> bool:
    """410: the resourceVersion a watch asked for was compacted away."""
    return isinstance(err, ApiError) and err.status == 410


def _error_from_body(status: int, reason: str, body: bytes) -> ApiError:
    message = ""
    causes: tuple[tuple[str, str], ...] = ()
    try:
        decoded = json.loads(body)
        if isinstance(decoded, dict):
            message = str(decoded.get("message", ""))
            reason = str(decoded.get("reason", reason))
            details = decoded.get("details")
            listed = details.get("causes") if isinstance(details, dict) else None
            if isinstance(listed, list):
                causes = tuple(
                    (str(c.get("field", "")), str(c.get("message", "")))
                    for c in listed
                    if isinstance(c, dict)
                )
    except ValueError:
        message = body.decode("utf-8", errors="replace")[:500]
    return ApiError(status, reason, message, causes)


class WatchStream:
    """The events of one watch request, as dicts ``{"type": ..., "object": {...}}``.

    Iterate it once. ``close()`` from another thread ends the iteration promptly (it shuts the
    socket down, as ``kubernetes.watch.Watch.stop`` does).
    """

    def __init__(
        self, response: urllib3.BaseHTTPResponse, on_failure: Callable[[], None] = lambda: None
    ) -> None:
        self._response = response
        self._closed = False
        self._on_failure = on_failure

    def __iter__(self) -> Iterator[Obj]:
        try:
            for line in iter_resp_lines(self._response):  # type: ignore[no-untyped-call]
                if self._closed:
                    return
                if not line.strip():
                    continue
                event = json.loads(line)
                if isinstance(event, dict):
                    yield event
        except urllib3.exceptions.HTTPError:
            if not self._closed:  # a read timeout or a reset, not our own close()
                self._on_failure()
            raise
        finally:
            self._release()

    def close(self) -> None:
        self._closed = True
        conn = getattr(self._response, "connection", None)
        sock = getattr(conn, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _release(self) -> None:
        try:
            self._response.close()
            self._response.release_conn()
        except Exception:
            pass


class Client:
    """Reads and writes objects as dicts. Thread-safe (one urllib3 pool under the hood).
    ``timeout``: seconds each request not given its own may take in total (None: no bound)."""

    def __init__(
        self, api_client: k8s.ApiClient, *, timeout: float | None = REQUEST_TIMEOUT
    ) -> None:
        self._api = api_client
        self._timeout = timeout
        self._stop_waiting = threading.Event()

    def stop_waiting(self) -> None:
        """End every wait for a Retry-After now and from now on: a request waiting to be sent
        again raises its last answer's error at once (Go: the manager's context is cancelled on
        SIGTERM, and ``SleepWithContext`` returns). The manager calls it when it shuts down, so
        a worker waiting out a long Retry-After does not hold up the stop."""
        self._stop_waiting.set()

    # ------------------------------------------------------------------ reads
    def get(
        self, resource: Resource, namespace: str, name: str, *, timeout: float | None = None
    ) -> Obj:
        return self._json("GET", resource.path(namespace, name), timeout=timeout)

    def served(self, resource: Resource) -> bool:
        """Whether the API server serves resource: discovery of its group version
        (``GET /apis/<group>/<version>``, ``/api/v1`` for the core group; every authenticated
        user may read it, ClusterRole system:discovery) lists its plural. A 404 (the group
        version is not served: a CRD not installed yet) is False; any other failure raises
        (ApiError, or urllib3's error when there was no answer). Go: crdServed (main.go),
        ``discovery.ServerResourcesForGroupVersion``."""
        base = f"/apis/{resource.group}/{resource.version}" if resource.group else "/api/v1"
        try:
            found = self._json("GET", base)
        except ApiError as err:
            if is_not_found(err):
                return False
            raise
        return any(
            isinstance(r, dict) and r.get("name") == resource.plural
            for r in found.get("resources") or []
        )

    def list(self, resource: Resource, namespace: str) -> tuple[ObjList, str]:
        """All objects of resource in namespace, and the list's resourceVersion."""
        result = self._json("GET", resource.path(namespace))
        items = [dict(item) for item in result.get("items") or []]
        for item in items:
            # Items of a list carry neither apiVersion nor kind; a watch event's object does.
            item.setdefault("apiVersion", resource.api_version)
            item.setdefault("kind", resource.kind)
        return items, str(result.get("metadata", {}).get("resourceVersion", ""))

    def watch(
        self,
        resource: Resource,
        namespace: str,
        *,
        resource_version: str,
        timeout_seconds: int,
        read_timeout: float,
    ) -> WatchStream:
        """Start a watch from resource_version. The server ends it after timeout_seconds; a
        connection that sends nothing for read_timeout seconds raises instead of hanging."""
        query = [
            ("watch", "true"),
            ("resourceVersion", resource_version),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", str(timeout_seconds)),
        ]
        response = self._call(
            "GET", resource.path(namespace), query=query, timeout=read_timeout, stream=True
        )
        return WatchStream(response, on_failure=self.drop_connections)

    def drop_connections(self) -> None:
        """Close every pooled connection to the API server (requests in flight keep theirs
        until they end); the next request opens a new one. Called on any transport failure
        (see the module docstring)."""
        self._api.rest_client.pool_manager.clear()

    # ------------------------------------------------------------------ writes
    def create(self, resource: Resource, obj: Obj, *, timeout: float | None = None) -> Obj:
        namespace = obj["metadata"]["namespace"]
        return self._json("POST", resource.path(namespace), body=obj, timeout=timeout)

    def update(self, resource: Resource, obj: Obj, *, timeout: float | None = None) -> Obj:
        """PUT obj. Its metadata.resourceVersion makes a stale update fail with 409."""
        meta = obj["metadata"]
        return self._json(
            "PUT", resource.path(meta["namespace"], meta["name"]), body=obj, timeout=timeout
        )

    def update_status(self, resource: Resource, obj: Obj) -> Obj:
        """PUT obj to the status subresource (only .status is taken; resourceVersion checked)."""
        meta = obj["metadata"]
        return self._json("PUT", resource.path(meta["namespace"], meta["name"], "status"), body=obj)

    def patch(
        self,
        resource: Resource,
        namespace: str,
        name: str,
        patch: Obj,
        *,
        content_type: str = "application/merge-patch+json",
    ) -> Obj:
        """PATCH the named object with patch, of the given patch type (Content-Type)."""
        return self._json(
            "PATCH", resource.path(namespace, name), body=patch, content_type=content_type
        )

    def delete(
        self,
        resource: Resource,
        namespace: str,
        name: str,
        *,
        uid: str | None = None,
        resource_version: str | None = None,
        propagation_policy: str | None = None,
    ) -> None:
        """DELETE, with ``preconditions.uid`` when uid is given (409 if the object was
        replaced) and ``preconditions.resourceVersion`` when resource_version is (409 if it
        changed since it was read)."""
        options: Obj = {"apiVersion": "v1", "kind": "DeleteOptions"}
        preconditions = {"uid": uid, "resourceVersion": resource_version}
        if any(v is not None for v in preconditions.values()):
            options["preconditions"] = {k: v for k, v in preconditions.items() if v is not None}
        if propagation_policy is not None:
            options["propagationPolicy"] = propagation_policy
        self._json("DELETE", resource.path(namespace, name), body=options)

    # ------------------------------------------------------------------ transport
    def _json(
        self,
        method: str,
        path: str,
        *,
        body: Obj | None = None,
        timeout: float | None = None,
        content_type: str = "application/json",
    ) -> Obj:
        response = self._call(method, path, body=body, timeout=timeout, content_type=content_type)
        try:
            data = response.data
        finally:
            response.release_conn()
        decoded = json.loads(data) if data else {}
        if not isinstance(decoded, dict):
            raise ApiError(response.status, "InvalidResponse", f"{method} {path}: not an object")
        return decoded

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: Query | None = None,
        body: Obj | None = None,
        timeout: float | None = None,
        stream: bool = False,
        content_type: str = "application/json",
    ) -> urllib3.BaseHTTPResponse:
        """Send one request. timeout bounds the whole request (connecting, sending, the
        answer); for a stream it bounds the connect and each wait for the next bytes."""
        api = self._api
        url = api.configuration.host + path
        if query:
            # what ApiClient.parameters_to_url_query makes of a list of pairs
            url += "?" + "&".join(f"{k}={quote(str(v))}" for k, v in query)
        headers = {"Accept": "application/json", **api.default_headers}
        payload = None
        if body is not None:
            headers["Content-Type"] = content_type
            payload = json.dumps(body)
        # the kubeconfig's bearer token, refreshed by the configuration's hook when it has one
        api.update_params_for_auth(headers, None, ["BearerToken"], path, method, None)
        seconds = timeout if timeout is not None else self._timeout
        # The whole request, waits for Retry-After included, within its timeout (client-go:
        # the request's context carries the client's Timeout); a stream's timeout is per read.
        deadline = None if stream or seconds is None else time.monotonic() + seconds
        retries = 0
        while True:
            request_timeout: urllib3.Timeout | None = None
            if seconds is not None and stream:
                request_timeout = urllib3.Timeout(
                    connect=min(CONNECT_TIMEOUT, seconds), read=seconds
                )
            elif deadline is not None:
                request_timeout = urllib3.Timeout(total=max(deadline - time.monotonic(), 0.001))
            try:
                response: urllib3.BaseHTTPResponse = api.rest_client.pool_manager.urlopen(
                    method,
                    url,
                    body=payload,
                    headers=headers,
                    timeout=request_timeout,
                    preload_content=False,
                )
            except urllib3.exceptions.SSLError as exc:
                # RESTClientObject.request's own translation, kept for the callers
                raise k8s.ApiException(status=0, reason=f"{type(exc).__name__}\n{exc}") from exc
            except urllib3.exceptions.HTTPError:
                self.drop_connections()
                raise
            if 200 <= response.status <= 299:
                return response
            try:
                data = response.data
            finally:
                response.release_conn()
            error = _error_from_body(response.status, response.reason or "", data or b"")
            wait = retry_after_seconds(response.status, response.headers)
            if wait is None or retries >= MAX_RETRIES:
                raise error
            retries += 1
            self._wait_to_retry(wait, deadline, error)

    def _wait_to_retry(self, wait: float, deadline: float | None, error: ApiError) -> None:
        """Wait ``wait`` seconds before a request answered ``error`` with Retry-After is sent
        again (client-go's ``withRetry.Before``). Raises ``error`` when ``stop_waiting`` ends
        the wait, and ``TimeoutError`` (caused by ``error``) when the request's deadline (a
        ``time.monotonic()`` value) comes first: it is waited for, and the request has then
        taken its whole timeout, as client-go's context deadline ends it."""
        left = None if deadline is None else deadline - time.monotonic()
        pause = wait if left is None else max(0.0, min(wait, left))
        if self._stop_waiting.wait(pause):
            raise error
        if left is not None and wait >= left:
            raise TimeoutError(
                f"request timed out waiting {wait} s to retry (Retry-After) - error from a "
                f"previous attempt: {error}"
            ) from error


class APIReader:
    """Reads objects from the API server itself, bypassing the informer cache: a GET whose
    answer is the object as stored now, or None for 404 (Go: the manager's APIReader,
    ``mgr.GetAPIReader()``, controller-runtime v0.22). For the few decisions a lagging cache
    must not make (CONTRACT.md, "Which reads are live"). Other errors raise ``ApiError``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def get(self, resource: Resource, namespace: str, name: str) -> Obj | None:
        try:
            return self._client.get(resource, namespace, name)
        except ApiError as err:
            if is_not_found(err):
                return None
            raise
