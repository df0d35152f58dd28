"""A stalled connection on either side of the API proxy, for real: the Go operator, the API
proxy, the TCP fault proxy and a real kube-apiserver (the first case also with the Python
operator). Needs the Kubernetes binaries and Go.

HTTP/2 PINGs are hop by hop. The operator runs with the short watch deadline of
``watch-recovers[connection-stall]`` (``HTTP2_READ_IDLE_TIMEOUT_SECONDS=5``,
``HTTP2_PING_TIMEOUT_SECONDS=3``, read by client-go), but its PINGs reach only the API proxy,
whose own HTTP/2 server answers them. So:

- operator -> API proxy -> TCP fault proxy (stalled) -> kube-apiserver: only the proxy's own
  upstream health check can notice. Given the operator's two variables (``ApiProxy(
  operator_env=...)``, ``health.go``) it does within 8 s, closes the connection, the
  operator's watch streams through it fail, the operator re-watches and repairs what changed
  meanwhile. With the proxy's defaults (30 s + 15 s) the operator stays blind past the bound:
  the control that shows the test can fail.
- operator -> TCP fault proxy (stalled) -> API proxy -> kube-apiserver: the operator's own
  PING goes unanswered; it drops the connection and dials a new one (the fault proxy accepts
  it), and repairs.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conformance.support import create_modelservice, wait_converged
from harness.envtest.controlplane import ControlPlane
from harness.envtest.kubeconfig import with_server
from harness.faults.apiproxy import ApiProxy
from harness.faults.tcpproxy import FaultProxy
from harness.kube import Kube, wait_for
from harness.lab.namespaces import create_namespace
from harness.operators import Implementation, OperatorProcess, get_implementation

#: The operator's watch deadline, as in watch-recovers[connection-stall].
SHORT = {"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5", "HTTP2_PING_TIMEOUT_SECONDS": "3"}
#: Seconds from the stall to the repair: the 5 + 3 s deadline, then a re-watch and one
#: reconcile with room for a loaded machine. The proxy's defaults need 30 + 15 s to notice.
BOUND_S = 25.0
#: Seconds for set-up waits (start, converge); never a measurement.
WAIT_S = 60.0


@pytest.fixture(scope="module")
def go() -> Implementation:
    impl = get_implementation("go")
    impl.run_build()
    return impl


@pytest.fixture(scope="module", params=["go", "python"])
def any_impl(request: pytest.FixtureRequest, go: Implementation) -> Implementation:
    return go if request.param == "go" else get_implementation(request.param)


def _converge(
    admin: Kube, impl: Implementation, kubeconfig: Path, tmp_path: Path
) -> tuple[str, OperatorProcess]:
    """Start the operator through ``kubeconfig`` with the short deadline, converge ModelService
    ``web`` (1 replica) in a new namespace; return (namespace, operator)."""
    ns = create_namespace(admin, "apiproxy-stall", impl.user)
    op = OperatorProcess(
        impl=impl,
        kubeconfig=kubeconfig,
        namespace=ns,
        log_path=tmp_path / "operator.log",
        env=dict(SHORT),
    )
    op.start(timeout=WAIT_S)
    create_modelservice(admin, ns, "web", replicas=1)
    wait_converged(admin, ns, "web", timeout=WAIT_S)
    return ns, op


def _change_and_wait(admin: Kube, ns: str, bound: float) -> float:
    """Delete the Service, scale to 3; wait up to ``bound`` s for both to be repaired; return
    the seconds taken. AssertionError (wait_for) when not repaired in time."""
    started = time.monotonic()
    admin.delete("services", ns, "web")
    admin.patch("modelservices", ns, "web", {"spec": {"replicas": 3}})
    wait_for(
        lambda: admin.get("deployments", ns, "web"),
        lambda d: d["spec"]["replicas"] == 3,
        bound,
        "the Deployment to follow the change made after the stall (3 replicas)",
    )
    wait_for(
        lambda: admin.get("services", ns, "web"),
        lambda _s: True,
        max(0.5, bound - (time.monotonic() - started)),
        "the Service deleted after the stall to be recreated",
    )
    return time.monotonic() - started


def _behind_the_proxy(
    cp: ControlPlane, admin: Kube, go: Implementation, tmp_path: Path, health: bool
) -> tuple[FaultProxy, ApiProxy, OperatorProcess, str]:
    tcp = FaultProxy(("127.0.0.1", cp.apiserver_port)).start()
    proxy = ApiProxy.for_user(
        cp,
        go.user,
        workdir=tmp_path,
        operator_env=SHORT if health else None,
        upstream=f"https://{tcp.address}",
    ).start()
    ns, op = _converge(admin, go, proxy.kubeconfig, tmp_path)
    return tcp, proxy, op, ns


def test_a_stall_behind_the_api_proxy_is_noticed_by_the_proxy_with_the_operators_deadline(
    cp: ControlPlane, admin: Kube, any_impl: Implementation, tmp_path: Path
) -> None:
    """Go: its watches share one HTTP/2 connection to the proxy, whose streams the proxy
    resets. Python (HTTP/1.1, its own 5 s watch and 8 s socket deadline): its new requests
    would wait on the stalled upstream connection until the proxy gives it up."""
    tcp, proxy, op, ns = _behind_the_proxy(cp, admin, any_impl, tmp_path, health=True)
    try:
        assert proxy.health_env == SHORT
        stalled = tcp.stall_existing()
        assert stalled > 0, "the API proxy should have had a connection to the API server"
        accepted = tcp.stats()["accepted"]
        took = _change_and_wait(admin, ns, BOUND_S)
        wait_converged(admin, ns, "web", timeout=WAIT_S)
        redialed = tcp.stats()["accepted"] - accepted
        print(
            f"\n{any_impl.id} behind the proxy, proxy health 5/3: repaired in {took:.1f}s; "
            f"{stalled} stalled, the proxy dialed {redialed} new"
        )
        assert redialed >= 1, "the proxy should have given up its stalled connection"
        assert op.running()
    finally:
        op.terminate()
        proxy.stop()
        tcp.stop()


def test_without_the_operators_deadline_the_proxy_leaves_the_operator_blind(
    cp: ControlPlane, admin: Kube, go: Implementation, tmp_path: Path
) -> None:
    """The control: the same stall with the proxy on its defaults (30 s + 15 s) is not
    repaired within the bound, although the operator has the short deadline: its PINGs are
    answered by the proxy."""
    tcp, proxy, op, ns = _behind_the_proxy(cp, admin, go, tmp_path, health=False)
    try:
        assert proxy.health_env == {}
        assert tcp.stall_existing() > 0
        with pytest.raises(AssertionError, match="3 replicas"):
            _change_and_wait(admin, ns, BOUND_S)
        print(f"\nbehind the proxy, proxy defaults: not repaired within {BOUND_S:.0f}s")
    finally:
        op.terminate()
        proxy.stop()
        tcp.stop()


def test_a_stall_in_front_of_the_api_proxy_is_noticed_by_the_operators_own_ping(
    cp: ControlPlane, admin: Kube, go: Implementation, tmp_path: Path
) -> None:
    proxy = ApiProxy.for_user(cp, go.user, workdir=tmp_path, operator_env=SHORT).start()
    tcp = FaultProxy(("127.0.0.1", int(proxy.address.rsplit(":", 1)[1]))).start()
    op: OperatorProcess | None = None
    try:
        kubeconfig = with_server(proxy.kubeconfig, tmp_path / "via-tcp.kubeconfig", tcp.address)
        ns, op = _converge(admin, go, kubeconfig, tmp_path)
        stalled = tcp.stall_existing()
        assert stalled > 0, "the operator should have had a connection to the API proxy"
        accepted = tcp.stats()["accepted"]
        took = _change_and_wait(admin, ns, BOUND_S)
        wait_converged(admin, ns, "web", timeout=WAIT_S)
        redialed = tcp.stats()["accepted"] - accepted
        print(
            f"\nin front of the proxy: repaired in {took:.1f}s; the operator dialed {redialed} new"
        )
        assert redialed >= 1, "the operator should have given up its stalled connection"
        assert op.running()
    finally:
        if op is not None:
            op.terminate()
        tcp.stop()
        proxy.stop()
