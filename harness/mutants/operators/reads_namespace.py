"""reads-namespace: reads its Namespace on every reconcile, a right it was never given.

Anti-pattern: before reconciling, the operator GETs the Namespace the ModelService lives in,
to skip namespaces that are terminating. Namespaces are cluster-scoped, and a RoleBinding in
the watch namespace cannot grant them, so every such read is refused with 403 Forbidden; the
operator shrugs (a failed check counts as "not terminating") and carries on, so nothing
looks broken, except that it asks for more than least privilege every single time, and works
correctly only where someone granted it cluster-wide rights.

Why people write it: creating children in a terminating namespace fails with a Forbidden
error that looks alarming in the logs, so authors check first; the Helm chart binds a
ClusterRole cluster-wide, where the read succeeds, and nobody sees the 403s.

What the correct operator does: it uses only the rights in config/rbac/, in the one
namespace it watches, and treats a refused create in a terminating namespace as one more
error to requeue: the namespace's deletion removes the ModelService anyway.
"""

from __future__ import annotations

import os
from typing import Any

from kubernetes import client as k8s

from harness import mutants
from python_operator import __main__ as operator_main
from python_operator import controller
from python_operator.runtime.reconcile import Request, Result


class ReadsNamespaceReconciler(controller.ModelServiceReconciler):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        kubeconfig = os.environ.get("KUBECONFIG")
        self._core: Any = (
            k8s.CoreV1Api(operator_main.new_api_client(kubeconfig)) if kubeconfig else None
        )

    def reconcile(self, req: Request) -> Result:
        if self.namespace_terminating(req.namespace):
            return Result()
        return super().reconcile(req)

    def namespace_terminating(self, namespace: str) -> bool:
        """The mutant: a cluster-scoped read; any failure counts as "not terminating"."""
        try:
            ns = self._core.read_namespace(namespace, _request_timeout=10)
        except Exception:
            return False
        return bool(ns.status and ns.status.phase == "Terminating")


PATCHES = (mutants.Patch(controller, "ModelServiceReconciler", ReadsNamespaceReconciler),)

if __name__ == "__main__":
    mutants.main(PATCHES)
