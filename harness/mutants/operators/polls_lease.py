"""polls-lease: tries the Lease four times per configured retry period, "to take over faster".

Anti-pattern: the operator divides the retry period it was given (RETRY_PERIOD) by four, so a
standby reads the Lease four times as often as its operators planned (and the leader renews
as often): every standby of every operator adds that load to the API server, for a takeover
that still waits for the lease to expire.

Why people write it: a shorter retry looks like a faster failover, and a test that only
checks that some instance takes over within a generous bound passes either way.

What the correct operator does: it waits at least a retry period between two attempts, as
client-go does (CONTRACT.md, "Process"); leader-failover[lease-record] counts a standby's
Lease reads at its API proxy against the time they span.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from harness import mutants
from python_operator import __main__ as operator_main

real_config_from_env = operator_main.config_from_env


def eager_retries(env: Mapping[str, str]) -> operator_main.Config:
    """The mutant: the configuration from the environment, with the retry period quartered."""
    cfg = real_config_from_env(env)
    return dataclasses.replace(cfg, retry_period=cfg.retry_period / 4)


PATCHES = (mutants.Patch(operator_main, "config_from_env", eager_retries),)

if __name__ == "__main__":
    mutants.main(PATCHES)
