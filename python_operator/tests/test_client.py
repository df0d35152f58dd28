"""runtime.client's retry of answers that carry Retry-After (CONTRACT.md "Errors"), against
client-go's rules (rest/with_retry.go and rest/request.go, v0.34): which answers, how many
times, within which time. The transport is a stand-in for the kubernetes ApiClient that
answers from a script; nothing here talks to an API server."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import urllib3

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


class _Answer:
    """What ``ApiClient.call_api`` returns: ``.response`` is the urllib3 response."""

    def __init__(self, status: int, headers: dict[str, str], body: dict[str, Any]) -> None:
        self.response = urllib3.HTTPResponse(
            body=json.dumps(body).encode(),
            status=status,
            headers=headers,
            preload_content=True,
        )


class _ScriptedApi:
    """A stand-in for ``kubernetes.client.ApiClient``: each call is answered by the next
    (status, headers) of the script, the last one for ever after; records when each came."""

    def __init__(self, script: list[tuple[int, dict[str, str]]]) -> None:
        self.script = script
        self.calls: list[float] = []
        self.timeouts: list[Any] = []

        class _Pool:
            def clear(self) -> None:
                pass

        class _Rest:
            pool_manager = _Pool()

        self.rest_client = _Rest()

    def param_serialize(self, **kw: Any) -> tuple[Any, ...]:
        return (
            kw["method"],
            "https://api" + kw["resource_path"],
            kw["header_params"],
            kw["body"],
            [],
        )

    def call_api(self, method: str, url: str, **kw: Any) -> _Answer:
        self.calls.append(time.monotonic())
        self.timeouts.append(kw.get("_request_timeout"))
        status, headers = self.script[min(len(self.calls) - 1, len(self.script) - 1)]
        if 200 <= status <= 299:
            return _Answer(status, headers, {"kind": "Deployment", "metadata": {"name": "web"}})
        return _Answer(
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
