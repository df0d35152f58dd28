# mypy: disable-error-code="no-untyped-call"
"""Why runtime/ exists: what kubernetes 37.0.2's own informer and leader election lack, shown on
the library itself. If one of these starts failing after an upgrade, the library has closed a
gap, and runtime/'s docstrings (and maybe runtime/ itself) should follow.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes.informer import SharedInformer
from kubernetes.leaderelection import electionconfig, leaderelection
from kubernetes.watch import Watch


class _Meta:
    resource_version = "1"


class _EmptyList:
    items: tuple[Any, ...] = ()
    metadata = _Meta()


def test_shared_informer_cannot_list_dicts() -> None:
    def list_dicts(**_: Any) -> dict[str, Any]:
        return {
            "items": [{"metadata": {"name": "a", "namespace": "ns"}}],
            "metadata": {"resourceVersion": "5"},
        }

    informer = SharedInformer(list_dicts, namespace="ns")
    # getattr(dict, "items") is dict.items, a method: iterating it fails.
    with pytest.raises(TypeError):
        informer._initial_list()


def test_watch_without_deserialize_breaks_on_error_event() -> None:
    class Response:
        status = 200

        def stream(self, amt: Any = None, decode_content: bool = False) -> Iterator[bytes]:
            yield (
                json.dumps(
                    {
                        "type": "ERROR",
                        "object": {"kind": "Status", "code": 410, "reason": "Expired"},
                    }
                )
                + "\n"
            ).encode()

        def close(self) -> None:
            pass

        def release_conn(self) -> None:
            pass

    def func(**_: Any) -> Response:
        return Response()

    # A 410 the caller could relist on comes out as a KeyError.
    with pytest.raises(KeyError, match="raw_object"):
        for _ in Watch().stream(func, namespace="ns", deserialize=False, timeout_seconds=5):
            pass


def test_shared_informer_spins_without_backoff_when_the_api_server_is_down() -> None:
    attempts = 0

    def down(watch: bool = False, **_: Any) -> Any:
        nonlocal attempts
        if not watch:
            return _EmptyList()
        attempts += 1
        if attempts >= 200:
            informer._stop_event.set()
        raise ConnectionRefusedError("API server down")

    informer = SharedInformer(down, namespace="ns")
    logging.disable(logging.CRITICAL)  # it logs a stack trace per attempt
    try:
        started = time.monotonic()
        informer._run_loop()
        took = time.monotonic() - started
    finally:
        logging.disable(logging.NOTSET)
    # client-go backs off from 800 ms; 200 attempts there would take over an hour.
    assert took < 10


def test_shared_informer_watch_has_no_timeout_without_resync() -> None:
    seen: list[dict[str, Any]] = []

    def record(watch: bool = False, **kwargs: Any) -> Any:
        if not watch:
            return _EmptyList()
        seen.append(kwargs)
        informer._stop_event.set()
        raise ConnectionRefusedError

    informer = SharedInformer(record, namespace="ns")
    logging.disable(logging.CRITICAL)
    try:
        informer._run_loop()
    finally:
        logging.disable(logging.NOTSET)
    # Neither a server-side timeout_seconds nor a client _request_timeout: a stalled TCP
    # connection blocks the informer for ever.
    assert "timeout_seconds" not in seen[0]
    assert "_request_timeout" not in seen[0]


def test_leader_election_cannot_release_or_take_fractional_seconds() -> None:
    assert not hasattr(leaderelection.LeaderElection, "release")
    with pytest.raises(SystemExit):
        electionconfig.Config(
            lock=object(),
            lease_duration=15,
            renew_deadline=10,
            retry_period=0.5,
            onstarted_leading=lambda: None,
            onstopped_leading=None,
        )
