"""single-worker: one worker by default and no bound on a request: one slow ModelService holds every other.

Anti-pattern: the operator keeps its framework's defaults: controller-runtime's one worker
(``MaxConcurrentReconciles: 1``) and a client with no request timeout. Every reconcile waits
for the one in front of it, so a single ModelService whose Deployment write an admission
webhook holds for 15 s holds every other ModelService in the namespace for those 15 s, again
at each retry; and a request whose answer never comes holds the only worker for ever.

Why people write it: the defaults are what the scaffolding generates, and on a test cluster
every write is answered in milliseconds, so one worker is never the bottleneck and a timeout
never fires. The slow webhook, the lost answer and the many objects only meet in production,
where they look like "the operator is slow" rather than like a bug.

What the correct operator does: chooses its defaults on purpose (CONTRACT.md, "Process"):
4 workers, so three slow objects at once still leave one for the rest (the workqueue never
hands one key to two workers), and a 35 s bound on each non-watch request, the longest an
admission webhook may take plus 5 s, so a slow but working webhook is waited for and an
answer that never comes frees its worker as an error, requeued with backoff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from harness import mutants
from python_operator import __main__ as operator_main

real_config_from_env = operator_main.config_from_env


def framework_defaults(env: Mapping[str, str]) -> operator_main.Config:
    """The mutant: controller-runtime's one worker where MAX_CONCURRENT_RECONCILES is unset,
    and no request timeout, whatever REQUEST_TIMEOUT_SECONDS says."""
    cfg = real_config_from_env(env)
    workers = cfg.max_concurrent_reconciles if env.get("MAX_CONCURRENT_RECONCILES") else 1
    return dataclasses.replace(cfg, max_concurrent_reconciles=workers, request_timeout=None)


PATCHES = (mutants.Patch(operator_main, "config_from_env", framework_defaults),)

if __name__ == "__main__":
    mutants.main(PATCHES)
