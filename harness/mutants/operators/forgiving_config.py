"""forgiving-config: a configuration value it cannot use is replaced by its default, with a warning, and the operator runs.

Anti-pattern: the operator reads its Lease timings, request timeout and worker count, and
when one is not a positive number, or the timings contradict each other, it logs a warning and
carries on with the defaults for all of them. The Deployment that runs it says one thing, the
process does another, and the only trace is a line in a log nobody reads while every pod
reports Ready; the lease a fleet hands over with is not the one its operators wrote down.

Why people write it: a process that refuses to start looks fragile, a fallback looks robust,
and every tutorial reads an environment variable with a default. A test that starts the
operator with good values, or with none at all, cannot tell the two apart: only a bad value
shows whether it is refused or silently replaced.

What the correct operator does: it judges its whole configuration before its first request,
and a value it cannot use stops it with exit code 2 and one log line naming the variable, the
value and what it must be (CONTRACT.md, "Process"), so a typo in a manifest is a
CrashLoopBackOff with the reason in its first line, not a fleet running on timings nobody chose.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness import mutants
from python_operator import __main__ as operator_main
from python_operator.runtime import log as log_

real_config_from_env = operator_main.config_from_env

#: The variables whose values the mutant forgives, by dropping them for their defaults.
FORGIVEN = (
    "LEASE_DURATION",
    "RENEW_DEADLINE",
    "RETRY_PERIOD",
    "REQUEST_TIMEOUT_SECONDS",
    "MAX_CONCURRENT_RECONCILES",
)


def forgiving(env: Mapping[str, str]) -> operator_main.Config:
    """The mutant: the real reading; on an error, a warning and the same reading with every
    numeric variable unset (its default)."""
    try:
        return real_config_from_env(env)
    except operator_main.ConfigError as err:
        log_.get_logger("setup").info("ignoring invalid environment", error=str(err))
        return real_config_from_env({k: v for k, v in env.items() if k not in FORGIVEN})


PATCHES = (mutants.Patch(operator_main, "config_from_env", forgiving),)

if __name__ == "__main__":
    mutants.main(PATCHES)
