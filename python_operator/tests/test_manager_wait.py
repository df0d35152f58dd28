"""The manager's wait for a resource not served yet (a CRD installed after the operator):
CONTRACT.md, "Process". Go: crdwait_unit_test.go."""

from __future__ import annotations

import threading
from unittest import mock

import pytest

from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import manager


def test_served_retry_delay_doubles_to_its_cap() -> None:
    want = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]
    assert [manager.served_retry_delay(n) for n in range(len(want))] == pytest.approx(want)
    assert manager.served_retry_delay(10_000) == manager.SERVED_RETRY_CAP


def _manager(served: mock.Mock) -> manager.Manager:
    client = mock.Mock(spec=client_.Client)
    client.served = served
    return manager.Manager(
        client=client, namespace="ns", metrics_bind_address="0", health_probe_bind_address="0"
    )


def test_wait_asks_again_after_each_delay_until_served(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[int] = []

    def no_wait(attempt: int) -> float:
        delays.append(attempt)
        return 0.0

    monkeypatch.setattr(manager, "served_retry_delay", no_wait)
    # not served, no answer, not served, served
    served = mock.Mock(side_effect=[False, OSError("refused"), False, True])
    mgr = _manager(served)
    assert mgr._wait_until_served(controller.MODELSERVICES) is True
    assert served.call_count == 4
    assert delays == [0, 1, 2]


def test_wait_ends_on_stop_without_exiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manager, "served_retry_delay", lambda n: 0.01)
    mgr = _manager(mock.Mock(return_value=False))
    result: list[bool] = []
    waiter = threading.Thread(
        target=lambda: result.append(mgr._wait_until_served(controller.MODELSERVICES))
    )
    waiter.start()
    mgr.stop()
    waiter.join(timeout=30)
    assert result == [False]


def test_served_reads_discovery() -> None:
    api = mock.Mock()
    c = client_.Client(api)
    with mock.patch.object(
        c, "_json", return_value={"resources": [{"name": "modelservices"}]}
    ) as j:
        assert c.served(controller.MODELSERVICES) is True
        j.assert_called_once_with("GET", "/apis/modeldock.io/v1alpha1")
    with mock.patch.object(c, "_json", return_value={"resources": [{"name": "other"}]}):
        assert c.served(controller.MODELSERVICES) is False
    with mock.patch.object(c, "_json", side_effect=client_.ApiError(404, "NotFound", "")):
        assert c.served(controller.MODELSERVICES) is False
    refused = client_.ApiError(403, "Forbidden", "")
    with mock.patch.object(c, "_json", side_effect=refused), pytest.raises(client_.ApiError):
        c.served(controller.MODELSERVICES)
