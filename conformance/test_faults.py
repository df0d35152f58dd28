"""watch-recovers: the operator's view of the world survives broken connections.

An informer is a list followed by a watch that resumes from the last resourceVersion it saw.
Each case below breaks that chain in a different place, changes the world while the operator
cannot see it (a Service deleted, replicas changed), and requires the operator to notice and
repair within a stated bound. Each case gets a private control plane, so restarting the API
server or compacting etcd disturbs no other check.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conformance.support import create_modelservice, wait_converged, wait_settled
from harness.audit import select
from harness.faultproxy import FaultProxy, with_server
from harness.kube import Kube, wait_for

#: Bound for recovery after a cut, a restart or a 410, on a loaded 2-core machine.
RECOVERY_BOUND_S = 60.0
#: Bound for noticing a stalled connection: client-go's HTTP/2 health check needs 30 s of
#: silence plus a 15 s ping timeout; the bound leaves room for a reconnect and the repair.
STALL_BOUND_S = 120.0


def _break_world(admin: Kube, ns: str) -> None:
    """Changes the operator must repair: delete its Service, scale the ModelService to 3."""
    admin.delete("services", ns, "web")
    admin.patch("modelservices", ns, "web", {"spec": {"replicas": 3}})


def _repaired(admin: Kube, ns: str, bound: float, what: str) -> float:
    """Wait until the Service is back and the Deployment has 3 replicas; return seconds taken."""
    started = time.monotonic()
    wait_for(lambda: admin.get("deployments", ns, "web"), lambda d: d["spec"]["replicas"] == 3,
             bound, f"{what}: Deployment replicas to follow the change made meanwhile (3)")
    left = max(1.0, bound - (time.monotonic() - started))
    wait_for(lambda: admin.get("services", ns, "web"), lambda _s: True, left,
             f"{what}: the Service deleted meanwhile to be recreated")
    wait_converged(admin, ns, "web", timeout=left)
    return time.monotonic() - started


def _converged(lab, kubeconfig: Path | None = None):
    """Start the operator (through ``kubeconfig`` if given), create ModelService ``web`` with
    one replica, and wait until it converged and the operator settled; return the operator."""
    op = lab.operators.start(**({"kubeconfig": kubeconfig} if kubeconfig else {}))
    create_modelservice(lab.admin, lab.namespace, "web", replicas=1)
    wait_converged(lab.admin, lab.namespace, "web")
    wait_settled(op)
    return op


def _proxied(lab, tmp_path: Path) -> tuple[FaultProxy, Path]:
    state = lab.control_plane.state
    proxy = FaultProxy(("127.0.0.1", state.apiserver_port)).start()
    try:
        kubeconfig = with_server(lab.operators.kubeconfig,
                                 tmp_path / f"proxied-{proxy.port}.kubeconfig", proxy.address)
    except BaseException:
        proxy.stop()
        raise
    return proxy, kubeconfig


@pytest.mark.check("watch-recovers", case="apiserver-restart")
def test_apiserver_restart(isolated, evidence):
    """watch-recovers[apiserver-restart]: kube-apiserver stops and comes back on the same port;
    every watch breaks at once. Changes made as soon as it is back (while the operator is still
    reconnecting) must be repaired: the informers re-watch (or re-list) and the events reach
    Reconcile."""
    lab = isolated.new()
    op = _converged(lab)
    lab.control_plane.stop_apiserver()
    lab.control_plane.start_apiserver()
    _break_world(lab.admin, lab.namespace)
    took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after an API server restart")
    evidence.record("recovery_s", round(took, 2))
    evidence.record("bound_s", RECOVERY_BOUND_S)
    assert op.running(), "the operator must survive an API server restart, not exit"


@pytest.mark.check("watch-recovers", case="connection-cut")
def test_connection_cut(isolated, tmp_path, evidence):
    """watch-recovers[connection-cut]: every connection between operator and API server is cut
    and new ones are refused for a while; the world changes meanwhile. When connections are
    possible again the operator must resume its watches and repair."""
    lab = isolated.new()
    proxy, kubeconfig = _proxied(lab, tmp_path)
    try:
        _converged(lab, kubeconfig)
        proxy.refuse(True)
        evidence.record("connections_cut", proxy.cut())
        _break_world(lab.admin, lab.namespace)
        accepted = proxy.stats()["accepted"]
        wait_for(lambda: proxy.stats()["accepted"], lambda n: n > accepted, 30,
                 "the operator to try to reconnect")
        proxy.refuse(False)
        took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after a cut")
        evidence.record("recovery_s", round(took, 2))
        evidence.record("bound_s", RECOVERY_BOUND_S)
    finally:
        proxy.stop()


@pytest.mark.check("watch-recovers", case="connection-stall")
def test_connection_stall(isolated, tmp_path, evidence):
    """watch-recovers[connection-stall]: the open connections stay up but go silent: bytes are
    accepted and none are forwarded, as with a dead NAT entry or a hung load balancer. A watch
    that trusts an open socket is blind forever. The operator must notice the silence (an HTTP/2
    ping, a read timeout, a watch timeout) and reconnect, then repair what changed."""
    lab = isolated.new()
    proxy, kubeconfig = _proxied(lab, tmp_path)
    try:
        _converged(lab, kubeconfig)
        evidence.record("connections_stalled", proxy.stall_existing())
        _break_world(lab.admin, lab.namespace)
        took = _repaired(lab.admin, lab.namespace, STALL_BOUND_S, "after a stall")
        evidence.record("recovery_s", round(took, 2))
        evidence.record("bound_s", STALL_BOUND_S)
        evidence.record("proxy", proxy.stats())
    finally:
        proxy.stop()


@pytest.mark.check("watch-recovers", case="compaction-410")
def test_watch_expired_after_compaction(isolated, tmp_path, evidence, impl):
    """watch-recovers[compaction-410]: while the operator is cut off, the world changes and etcd
    is compacted at its current revision, with the API server's watch cache off. The watch the
    operator resumes from its last resourceVersion is answered 410 Gone (expired). Resuming is
    impossible: the informer must re-list, compare with its cache, and deliver what it missed,
    including the deletion of a Service it never saw an event for."""
    lab = isolated.new(watch_cache=False)
    proxy, kubeconfig = _proxied(lab, tmp_path)
    try:
        _converged(lab, kubeconfig)
        proxy.refuse(True)
        proxy.cut()
        _break_world(lab.admin, lab.namespace)
        revision = lab.control_plane.compact_etcd()
        evidence.record("compacted_at_revision", revision)
        start = lab.audit.sync(lab.admin)
        proxy.refuse(False)
        took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after a 410")
        end = lab.audit.sync(lab.admin)
        relists = sorted({r.resource for r in select(lab.audit.requests(start, end),
                                                     user=impl.user, namespace=lab.namespace)
                          if r.verb == "list"})
        evidence.record("relisted", relists)
        evidence.record("recovery_s", round(took, 2))
        evidence.record("bound_s", RECOVERY_BOUND_S)
        assert "services" in relists, \
            f"after 410 Gone the operator must re-list; it listed only {relists}"
    finally:
        proxy.stop()
