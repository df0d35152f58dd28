"""pads-lease: runs its Lease at twice the configured duration, "to be safe".

Anti-pattern: the operator doubles the lease duration it was given (``LEASE_DURATION``), as a
margin against clock skew or a slow API server. Every instance then writes and honours a Lease
twice as long as the one its operators configured, so after a crashed leader the standby waits
a whole extra lease duration, reading the Lease at every retry period, before it takes over:
the controller stays headless for twice as long as anyone planned for.

Why people write it: a longer lease looks strictly safer (fewer spurious hand-overs), the crash
of a leader is rare, and a test that only checks that *some* instance takes over within a
generous timeout passes either way.

What the correct operator does: it runs the Lease with the timings it is given, so a standby
takes an expired Lease at its first or second read after the dead leader's last renewal + the
configured lease duration (leader-failover counts those reads in the audit log).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from harness import mutants
from python_operator import __main__ as operator_main

real_config_from_env = operator_main.config_from_env


def padded_lease(env: Mapping[str, str]) -> operator_main.Config:
    """The mutant: the configuration from the environment, with the lease duration doubled."""
    cfg = real_config_from_env(env)
    return dataclasses.replace(cfg, lease_duration=cfg.lease_duration * 2)


PATCHES = (mutants.Patch(operator_main, "config_from_env", padded_lease),)

if __name__ == "__main__":
    mutants.main(PATCHES)
