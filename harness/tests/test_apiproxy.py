"""The API proxy, for real: on a real kube-apiserver it forwards as the operator's own user,
passes watches, holds the watch events of chosen resources (and only those) until released,
and carries the Go operator over HTTP/2 to convergence. Needs the Kubernetes binaries and Go.
(The proxy's own logic, the path parser and the hold ordering are unit-tested in Go:
``go test`` in harness/faults/apiproxy.)"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from conformance.support import create_modelservice, wait_converged
from harness.audit import AuditLog, select
from harness.envtest.controlplane import ControlPlane
from harness.faults.apiproxy import ApiProxy, ApiProxyError
from harness.kube import Kube, wait_for
from harness.lab.namespaces import create_namespace
from harness.operators import OperatorProcess, get_implementation
from harness.process import free_port

USER = "modeldock:apiproxy-test"
WAIT = 30.0  # seconds: a bound for anything to arrive on a loaded machine, never a measurement


@pytest.fixture
def proxy(cp: ControlPlane, tmp_path: Path) -> Iterator[ApiProxy]:
    with ApiProxy.for_user(cp, USER, workdir=tmp_path) as p:
        yield p


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"ports": [{"port": 80}]},
    }


def deployment(name: str) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }


class Watch:
    """A raw watch through a kubeconfig's server, as JSON lines over HTTP/1.1; events land in
    ``events`` (a queue of dicts) from a reader thread."""

    def __init__(self, kubeconfig: Path, path: str) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        ctx = ssl.create_default_context(cafile=cluster["certificate-authority"])
        ctx.load_cert_chain(user["client-certificate"], user["client-key"])
        host = cluster["server"].removeprefix("https://")
        self.conn = http.client.HTTPSConnection(host, context=ctx, timeout=120)
        self.conn.request(
            "GET",
            path + "?watch=true&allowWatchBookmarks=false",
            headers={"Accept": "application/json"},
        )
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.read()
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                if line.strip():
                    self.events.put(json.loads(line))
        except Exception:  # closed by close(): http.client fails in various ways
            pass

    def names(self) -> list[str]:
        """Names of the objects in the events received so far (drains the queue)."""
        out = []
        while not self.events.empty():
            out.append(self.events.get_nowait()["object"]["metadata"]["name"])
        return out

    def wait_for_name(self, name: str, timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            if event["object"]["metadata"]["name"] == name:
                return event
        raise AssertionError(f"no watch event for {name} within {timeout:.0f}s")

    def close(self) -> None:
        # Shut the socket down first: that wakes the reader thread, which holds the response
        # buffer's lock that close() needs.
        if self.conn.sock is not None:
            with contextlib.suppress(OSError):
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def test_requests_pass_as_the_operator_user(cp: ControlPlane, admin: Kube, proxy: ApiProxy) -> None:
    ns = create_namespace(admin, "apiproxy", USER)
    audit = AuditLog(cp.audit_log)
    start = audit.sync(admin)
    user = Kube(proxy.kubeconfig)
    try:
        user.create("services", ns, service("via-proxy"))
        assert user.get("services", ns, "via-proxy") is not None
        assert [s["metadata"]["name"] for s in user.list("services", ns)] == ["via-proxy"]
        out = cp.kubectl("get", "services", "-n", ns, "-o", "name", kubeconfig=proxy.kubeconfig)
        assert out.split() == ["service/via-proxy"]
        # RBAC applies to the operator's user, not to anyone more powerful.
        with pytest.raises(ApiException) as denied:
            user.list("services", "default")
        assert denied.value.status == 403 and USER in (denied.value.body or "")
    finally:
        user.close()
    end = audit.sync(admin)
    in_ns = select(audit.requests(start, end), namespace=ns)
    assert {r.user for r in in_ns} == {USER}  # not admin, not some identity of the proxy's
    assert [r.describe() for r in in_ns if r.verb == "create"] == [
        "create services via-proxy -> 201"
    ]
    stats = proxy.stats()
    assert stats["verbs"]["create"] == 1 and stats["resources"]["services"]["requests"]["get"] >= 1
    assert any(
        r["verb"] == "list" and r["resource"] == "services" and r["code"] == 403
        for r in stats["recent"]
    )


def test_hold_keeps_back_watch_events_until_release(admin: Kube, proxy: ApiProxy) -> None:
    ns = create_namespace(admin, "apiproxy-hold", USER)
    services = Watch(proxy.kubeconfig, f"/api/v1/namespaces/{ns}/services")
    deployments = Watch(proxy.kubeconfig, f"/apis/apps/v1/namespaces/{ns}/deployments")
    user = Kube(proxy.kubeconfig)
    try:
        user.create("services", ns, service("before"))
        services.wait_for_name("before")

        assert proxy.hold(["services"]) == ["services"]
        user.create("services", ns, service("held"))
        # The proxy has the event from the API server and keeps it ...
        proxy.wait_stats(
            lambda s: s["resources"]["services"]["held"] == 1,
            WAIT,
            "the proxy to hold the ADDED event of Service held",
        )
        # ... while reads and writes pass, and other resources' watches flow.
        assert user.get("services", ns, "held") is not None
        user.create("deployments", ns, deployment("flows"))
        deployments.wait_for_name("flows")
        assert services.names() == [], "a held event reached the client"

        assert proxy.release() == {"services": 1}
        event = services.wait_for_name("held")
        assert event["type"] == "ADDED"
        svc = proxy.resource_stats("services")
        assert (svc["held"], svc["held_total"], svc["holding"]) == (0, 1, False)
        assert svc["framings"] == {"json-lines": 1}
        assert proxy.stats()["holding"] == []
    finally:
        user.close()
        services.close()
        deployments.close()


def test_delay_writes_makes_a_write_stale_and_records_versions(
    admin: Kube, proxy: ApiProxy
) -> None:
    ns = create_namespace(admin, "apiproxy-delay", USER)
    user = Kube(proxy.kubeconfig)
    try:
        created = user.create("services", ns, service("web"))
        assert proxy.delay_writes(3.0) == {"seconds": 3.0, "remaining": 1}
        stale = dict(created, metadata=dict(created["metadata"], labels={"by": "user"}))
        outcome: list[int] = []

        def update() -> None:
            try:
                user.update("services", stale)
                outcome.append(200)
            except ApiException as exc:
                outcome.append(exc.status)

        writer = threading.Thread(target=update)
        writer.start()
        proxy.wait_stats(lambda s: s["writes_holding"] == 1, WAIT, "the update to be held")
        changed = admin.patch("services", ns, "web", {"metadata": {"labels": {"by": "admin"}}})
        writer.join(WAIT)
        assert outcome == [409]
        stats = proxy.stats()
        assert (stats["writes_holding"], stats["writes_held"]) == (0, 1)
        assert stats["delay_writes"]["remaining"] == 0
        updates = [r for r in stats["recent"] if r["verb"] == "update"]
        assert [(r["code"], r["resource_version"]) for r in updates] == [
            (409, created["metadata"]["resourceVersion"])
        ]
        assert updates[0]["held_ms"] >= 2900
        assert int(changed["metadata"]["resourceVersion"]) > int(updates[0]["resource_version"])
    finally:
        user.close()


def test_end_watches_closes_the_stream_and_drops_held_events(admin: Kube, proxy: ApiProxy) -> None:
    ns = create_namespace(admin, "apiproxy-end", USER)
    user = Kube(proxy.kubeconfig)
    try:
        user.create("services", ns, service("one"))
        services = Watch(proxy.kubeconfig, f"/api/v1/namespaces/{ns}/services")
        services.wait_for_name("one")
        proxy.hold(["services"])
        user.create("services", ns, service("two"))
        proxy.wait_stats(lambda s: s["resources"]["services"]["held"] == 1, WAIT, "one held")
        assert proxy.end_watches(["services"]) == {"services": 1}
        deadline = time.monotonic() + WAIT
        while services.response.fp is not None and not services.response.isclosed():
            assert time.monotonic() < deadline, "the ended watch did not end"
            time.sleep(0.05)
        assert services.names() == []  # "two" was dropped, not delivered
        svc = proxy.resource_stats("services")
        assert (svc["ended_by_proxy"], svc["dropped"], svc["holding"]) == (1, 1, False)
        services.close()
    finally:
        user.close()


def test_unreachable_upstream_is_a_clear_error(cp: ControlPlane, tmp_path: Path) -> None:
    proxy = ApiProxy.for_user(cp, USER, workdir=tmp_path)
    proxy.upstream = f"https://127.0.0.1:{free_port()}"
    with pytest.raises(ApiProxyError, match="upstream unreachable"):
        proxy.start()
    assert not proxy.running()


@pytest.mark.parametrize(("impl_id", "protocol"), [("go", "HTTP/2.0"), ("python", "HTTP/1.1")])
def test_operator_converges_through_the_proxy_with_children_held(
    cp: ControlPlane, admin: Kube, tmp_path: Path, impl_id: str, protocol: str
) -> None:
    """The use the proxy is for: the operator's own writes of its children are held back from
    its informers, then released; it converges. Go's client-go speaks HTTP/2 to the proxy
    (one connection for everything), the Python client HTTP/1.1."""
    impl = get_implementation(impl_id)
    impl.run_build()
    ns = create_namespace(admin, f"apiproxy-{impl_id}", impl.user)
    with ApiProxy.for_user(cp, impl.user, workdir=tmp_path) as proxy:
        op = OperatorProcess(
            impl=impl, kubeconfig=proxy.kubeconfig, namespace=ns, log_path=tmp_path / "operator.log"
        )
        try:
            op.start(timeout=60)
            proxy.hold(["deployments", "services"])
            create_modelservice(admin, ns, "demo")
            wait_for(
                lambda: admin.get("services", ns, "demo"),
                lambda s: True,
                60,
                "the operator to create Service demo",
            )
            proxy.wait_stats(
                lambda s: all(s["resources"][r]["held"] >= 1 for r in ("deployments", "services")),
                WAIT,
                "held watch events of the operator's own Deployment and Service",
            )
            proxy.release()
            wait_converged(admin, ns, "demo")
            stats = proxy.stats()
        finally:
            op.terminate()
    assert set(stats["protocols"]) == {protocol}, stats["protocols"]
    for r in ("deployments", "services"):
        assert stats["resources"][r]["held_total"] >= 1
        assert stats["resources"][r]["delivered"] >= 1
    # What the client asks for on its watches, and what it wrote while blind (for the record).
    encodings = {
        r: stats["resources"][r]["content_types"]
        for r in ("deployments", "services", "modelservices")
    }
    accepts = sorted(
        {
            (r["verb"], r["resource"], r["accept"])
            for r in stats["recent"]
            if r["verb"] in ("list", "watch")
        }
    )
    writes = [
        (r["verb"], r["resource"], r["subresource"], r["code"])
        for r in stats["recent"]
        if r["verb"] in ("create", "update", "patch", "delete") and r["resource"] != "events"
    ]
    print(
        f"\n{impl_id}: watch content types {encodings}\n{impl_id}: list/watch Accept {accepts}"
        f"\n{impl_id}: writes {writes}"
    )


def test_stop_ends_the_process(cp: ControlPlane, tmp_path: Path) -> None:
    proxy = ApiProxy.for_user(cp, USER, workdir=tmp_path).start()
    assert proxy.running() and proxy.stats()["requests"] == 0
    assert proxy.stop() == 0  # SIGTERM: a clean exit
    with pytest.raises(ApiProxyError, match="failed"):
        proxy.stats()
