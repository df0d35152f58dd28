"""runtime.client's retry of answers that carry Retry-After (CONTRACT.md "Errors"), against
client-go's rules (rest/with_retry.go and rest/request.go, v0.34): which answers, how many
times, within which time. The transport is a stand-in for the kubernetes ApiClient that
answers from a script; nothing here talks to an API server."""

from __future__ import annotations

import json
import time
import types
from typing import Any

import pytest
import urllib3
from kubernetes import client as k8s

from python_operator.runtime import client as client_
from python_operator.runtime.client import (
    DEPLOYMENTS,
    MAX_RETRIES,
    ApiError,
    Client,
    retry_after_seconds,
)


@pytest.mark.parametrize(
    ("status", "header", "expected"),
    [
        (429, "3", 3),
        (500, "2", 2),
        (503, "1", 1),
        (504, "0", 0),
        (429, "+4", 4),
        (429, "-1", 0),  # Go: a negative duration's timer fires at once
        (429, None, None),  # no header: no retry here, the work queue's backoff
        (500, None, None),
        (503, "", None),
        (429, "1.5", None),  # strconv.Atoi: whole seconds only
        (429, " 2", None),
        (429, "Wed, 21 Oct 2026 07:28:00 GMT", None),  # the HTTP-date form is not read
        (409, "1", None),  # only 429 and 5xx
        (403, "1", None),
        (404, "1", None),
    ],
)
def test_retry_after_seconds_follows_client_go_check_wait(
    status: int, header: str | None, expected: int | None
) -> None:
    headers = urllib3.HTTPHeaderDict()
    if header is not None:
        headers["retry-after"] = header  # case-insensitive, as the answer's headers are
    assert retry_after_seconds(status, headers) == expected


def _answer(status: int, headers: dict[str, str], body: dict[str, Any]) -> urllib3.HTTPResponse:
    """What the pool's ``urlopen`` returns: the urllib3 response."""
    return urllib3.HTTPResponse(
        body=json.dumps(body).encode(),
        status=status,
        headers=headers,
        preload_content=True,
    )


class _ScriptedApi:
    """A stand-in for ``kubernetes.client.ApiClient`` (its configuration's host, default headers,
    auth and urllib3 pool): each request is answered by the next (status, headers) of the
    script, the last one for ever after; records when each came and its timeout."""

    def __init__(self, script: list[tuple[int, dict[str, str]]]) -> None:
        self.script = script
        self.calls: list[float] = []
        self.timeouts: list[Any] = []
        self.default_headers = {"User-Agent": "test"}
        self.configuration = types.SimpleNamespace(host="https://api")
        api = self

        class _Pool:
            def clear(self) -> None:
                pass

            def urlopen(self, method: str, url: str, **kw: Any) -> urllib3.HTTPResponse:
                return api.answer(kw.get("timeout"))

        class _Rest:
            pool_manager = _Pool()

        self.rest_client = _Rest()

    def update_params_for_auth(self, headers: dict[str, str], *args: Any) -> None:
        headers["authorization"] = "Bearer t"

    def answer(self, timeout: urllib3.Timeout | None) -> urllib3.HTTPResponse:
        self.calls.append(time.monotonic())
        self.timeouts.append(None if timeout is None else timeout.total)
        status, headers = self.script[min(len(self.calls) - 1, len(self.script) - 1)]
        if 200 <= status <= 299:
            return _answer(status, headers, {"kind": "Deployment", "metadata": {"name": "web"}})
        return _answer(
            status, headers, {"kind": "Status", "reason": "TooManyRequests", "message": f"{status}"}
        )


_OBJ = {"metadata": {"namespace": "ns", "name": "web"}}


def test_an_answer_with_retry_after_is_sent_again_until_it_succeeds() -> None:
    api = _ScriptedApi([(429, {"Retry-After": "0"}), (503, {"Retry-After": "0"}), (201, {})])
    created = Client(api, timeout=5).create(DEPLOYMENTS, _OBJ)  # type: ignore[arg-type]
    assert created["metadata"]["name"] == "web"
    assert len(api.calls) == 3


def test_a_5xx_without_retry_after_is_the_callers_error_at_once() -> None:
    api = _ScriptedApi([(500, {}), (201, {})])
    with pytest.raises(ApiError) as err:
        Client(api, timeout=5).create(DEPLOYMENTS, _OBJ)  # type: ignore[arg-type]
    assert err.value.status == 500
    assert len(api.calls) == 1


def test_at_most_max_retries_then_the_last_answer_is_the_error() -> None:
    api = _ScriptedApi([(429, {"Retry-After": "0"})])
    with pytest.raises(ApiError) as err:
        Client(api, timeout=5).create(DEPLOYMENTS, _OBJ)  # type: ignore[arg-type]
    assert err.value.status == 429
    assert len(api.calls) == MAX_RETRIES + 1 == 11


def test_the_wait_is_the_retry_after_seconds() -> None:
    api = _ScriptedApi([(429, {"Retry-After": "1"}), (201, {})])
    Client(api, timeout=5).create(DEPLOYMENTS, _OBJ)  # type: ignore[arg-type]
    assert len(api.calls) == 2
    assert api.calls[1] - api.calls[0] >= 1.0


def test_the_waits_count_in_the_request_timeout() -> None:
    """client-go: the client's Timeout is the request's context deadline, retries included.
    A wait that would pass it ends at the deadline with a timeout, not another attempt; each
    attempt is given only what is left of the timeout."""
    api = _ScriptedApi([(429, {"Retry-After": "30"}), (201, {})])
    started = time.monotonic()
    with pytest.raises(TimeoutError) as err:
        Client(api, timeout=0.3).create(DEPLOYMENTS, _OBJ)  # type: ignore[arg-type]
    took = time.monotonic() - started
    assert len(api.calls) == 1
    assert 0.3 <= took < 5
    assert isinstance(err.value.__cause__, ApiError)
    assert err.value.__cause__.status == 429
    assert api.timeouts[0] <= 0.3


def test_stop_waiting_ends_a_wait_with_the_last_answer() -> None:
    api = _ScriptedApi([(503, {"Retry-After": "30"}), (201, {})])
    c = Client(api, timeout=60)  # type: ignore[arg-type]
    c.stop_waiting()
    started = time.monotonic()
    with pytest.raises(ApiError) as err:
        c.create(DEPLOYMENTS, _OBJ)
    assert err.value.status == 503
    assert time.monotonic() - started < 5
    assert len(api.calls) == 1


def test_max_retries_is_client_go_s() -> None:
    assert client_.MAX_RETRIES == 10


class _RecordingPool:
    """A urllib3 pool manager that answers 200 {} and records each request as (method, url,
    body, headers, timeout), whether it came through ``request`` (the ApiClient's own path)
    or ``urlopen`` (runtime.client's)."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def _record(self, method: str, url: str, body: Any, headers: Any, timeout: Any) -> Any:
        body = body.encode() if isinstance(body, str) else body
        self.sent.append((method, url, body, dict(headers), timeout.total))
        return urllib3.HTTPResponse(body=b"{}", status=200, preload_content=False)

    def request(self, method: str, url: str, **kw: Any) -> Any:
        return self._record(method, url, kw.get("body"), kw["headers"], kw["timeout"])

    def urlopen(self, method: str, url: str, **kw: Any) -> Any:
        return self._record(method, url, kw.get("body"), kw["headers"], kw["timeout"])

    def clear(self) -> None:
        pass


@pytest.mark.parametrize(
    ("method", "query", "body", "content_type"),
    [
        ("GET", [("watch", "true"), ("resourceVersion", "12"), ("x", "a b/c")], None, None),
        ("POST", None, {"metadata": {"name": "web", "labels": {"a": "b"}}, "n": [1, 2.5]}, None),
        ("PATCH", None, {"count": 2}, "application/strategic-merge-patch+json"),
        ("DELETE", None, {"apiVersion": "v1", "kind": "DeleteOptions"}, None),
    ],
)
def test_requests_are_the_ones_the_api_client_would_send(
    method: str, query: Any, body: Any, content_type: str | None
) -> None:
    """Sent straight to the pool, a request has the URL, headers (the kubeconfig's token, the
    User-Agent), body and timeout that ``param_serialize`` + ``call_api`` would give it."""
    configuration = k8s.Configuration(host="https://api:6443")
    configuration.api_key = {"authorization": "t0ken"}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    api = k8s.ApiClient(configuration)
    api.user_agent = "modeldock-test/1"
    pool = _RecordingPool()
    api.rest_client.pool_manager = pool  # type: ignore[assignment]
    path = "/api/v1/namespaces/ns/services"
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = content_type or "application/json"
    m, url, header_params, serialized, post = api.param_serialize(
        method=method,
        resource_path=path,
        query_params=query or [],
        header_params=headers,
        body=body,
        auth_settings=["BearerToken"],
    )
    api.call_api(
        m, url, header_params=header_params, body=serialized, post_params=post, _request_timeout=5.0
    )
    Client(api, timeout=5.0)._call(
        method, path, query=query, body=body, content_type=content_type or "application/json"
    ).release_conn()
    (old, new) = pool.sent
    assert new[:4] == old[:4]
    assert old[4] == 5.0 and 4.9 < new[4] <= 5.0
