"""deaf-while-waiting-crd: waits for its CRD in a loop that does not listen for SIGTERM.

Anti-pattern: the wait for the CRD sleeps between its attempts with a plain sleep and loops
until the CRD is served, looking at nothing else; the stop signal is wired to the manager that
starts after it. While the CRD is missing, SIGTERM changes nothing: the process stays until
the kubelet SIGKILLs it after the grace period, on every rollout and every delete.

Why people write it: the wait is added in front of a startup that already handles signals,
and a sleep is the obvious way to back off; in a test the CRD is there, so the loop runs once.

What the correct operator does: every wait during startup also ends on the stop signal (Go:
a select on the context and the timer; Python: the stop event's wait); nothing has started
yet, so the process exits 0 at once.
"""

from __future__ import annotations

import time

from harness import mutants
from python_operator.runtime import client as client_
from python_operator.runtime import manager


def sleeps_deaf(self: manager.Manager, resource: client_.Resource) -> bool:
    # The mutant: ask, sleep, ask again; the stop event is never looked at.
    attempt = 0
    while True:
        try:
            if self.client.served(resource):
                return True
        except Exception:
            pass
        time.sleep(manager.served_retry_delay(attempt))
        attempt += 1


PATCHES = (mutants.Patch(manager.Manager, "_wait_until_served", sleeps_deaf),)

if __name__ == "__main__":
    mutants.main(PATCHES)
