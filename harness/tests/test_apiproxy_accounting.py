"""Two accountings of one operator's requests agree: the API server's audit log and the API
proxy's request log (``harness.faults.apiproxy.records``), request for request, for a real
operator doing a real create, scale, spec change and delete, for both implementations. The
proxy's log is what request accounting uses where there is no audit log (a cluster the harness
does not own); this test is why it can be trusted there. Needs the Kubernetes binaries and Go.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from conformance.support import create_modelservice, wait_converged, wait_gone, wait_observed
from harness.audit import AuditLog, select
from harness.envtest.controlplane import ControlPlane
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import RequestLog, compare
from harness.kube import Kube
from harness.lab.namespaces import create_namespace
from harness.operators import OperatorProcess, get_implementation


@pytest.mark.parametrize("impl_id", ["go", "python"])
def test_proxy_accounting_equals_audit_accounting(
    cp: ControlPlane, admin: Kube, tmp_path: Path, impl_id: str
) -> None:
    impl = get_implementation(impl_id)
    impl.run_build()
    ns = create_namespace(admin, f"accounting-{impl_id}", impl.user)
    audit = AuditLog(cp.audit_log)
    with ApiProxy.for_user(cp, impl.user, workdir=tmp_path) as proxy:
        op = OperatorProcess(
            impl=impl, kubeconfig=proxy.kubeconfig, namespace=ns, log_path=tmp_path / "operator.log"
        )
        try:
            op.start(timeout=60)
            create_modelservice(admin, ns, "demo")
            wait_converged(admin, ns, "demo")
            for spec in ({"replicas": 2}, {"image": "example/server:2"}):
                msvc = admin.patch("modelservices", ns, "demo", {"spec": spec})
                wait_observed(admin, ns, "demo", msvc["metadata"]["generation"])
            admin.delete("modelservices", ns, "demo")
            wait_gone(admin, "modelservices", ns, "demo")
        finally:
            op.terminate()  # its watches end: both logs then hold every request complete
        log = RequestLog(proxy.request_log)
        # The audit log writes a request once it completes; a watch ends a moment after the
        # operator did. Compare until both agree (or the time is up and the differences show).
        deadline = time.monotonic() + 20
        while True:
            audit.sync(admin)
            audited = select(audit.requests(), user=impl.user)
            proxied = log.requests(impl.user, completed_only=True)
            result = compare(audited, proxied)
            if result.equal or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    kinds = Counter(f"{r.verb} {r.target}" for r in proxied)
    print(f"\n{impl_id}: {result.matched} requests compared, equal: {result.equal}; {dict(kinds)}")
    assert result.equal, "\n".join(result.differences[:40])
    writes = [r for r in proxied if r.is_write and r.resource != "events"]
    assert result.matched >= 20 and len(writes) >= 8, (result.matched, writes)
    # Watch events delivered are in the proxy's log too, with the object's resourceVersion.
    events = [e for rec in log.records() for e in rec.events if e.kind == "Deployment"]
    assert any(e.type == "ADDED" and e.name == "demo" and e.resource_version for e in events), (
        events
    )
