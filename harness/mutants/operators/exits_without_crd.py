"""exits-without-crd: gives up and exits when its CRD is not installed when it starts.

Anti-pattern: at start the operator asks once whether the API server serves its custom
resource; when it does not, it logs an error and exits 1, leaving the restart to whatever runs
it. In a cluster its Pod crash-loops (CrashLoopBackOff, restarts 5 minutes apart at worst)
until someone applies the CRD, and a test that installs the CRD first never sees it.

Why people write it: "fail fast" on a broken installation reads as good practice, and the
frameworks push that way: controller-runtime cannot register an informer for a kind its
RESTMapper does not know ("failed to get restmapping"), and a controller whose caches do not sync
within CacheSyncTimeout (2 minutes) stops the whole manager. Installing the CRD before the
operator is the documented order, and a Helm chart or a GitOps sync does not always keep it.

What the correct operator does: it waits for the CRD, asking discovery with a capped
exponential backoff (0.8 s doubling to 30 s) and logging what it waits for, alive (/healthz
200) and not ready (/readyz), for as long as it runs; once the CRD is served it starts its
informers and converges without a restart.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_
from python_operator.runtime import log as log_
from python_operator.runtime import manager


def ask_once(self: manager.Manager, resource: client_.Resource) -> bool:
    # The mutant: one question, and an exit when the answer is no.
    if self.client.served(resource):
        return True
    log_.get_logger("setup").error(
        f"the {resource.kind} CRD is not served", groupVersion=resource.api_version
    )
    log_.flush()
    raise SystemExit(1)


PATCHES = (mutants.Patch(manager.Manager, "_wait_until_served", ask_once),)

if __name__ == "__main__":
    mutants.main(PATCHES)
