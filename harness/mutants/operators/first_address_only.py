"""first-address-only: stops checking its listen addresses at the first one it does not try or cannot listen on.

Anti-pattern: the check of the metrics and health probe addresses ends at the first address
that is off (``0``) or held by another process (a `break`, or an early return, where the loop
should go on): with the metrics server off, a held probe port is not found until the manager
meets it after its first requests and exits with another code; with both held, only the first
is named, and the user fixes one to meet the next on the following start.

Why people write it: "stop at the first problem" is the habit of input validation, and each
address alone was tested.

What the correct operator does: it tries every address that is not off and names each that
cannot be listened on, in one refusal at start, exit code 2 (CONTRACT.md, "Process";
config-refused's probe-port-held and ports-held environments).
"""

from __future__ import annotations

from harness import mutants
from python_operator import __main__ as operator_main
from python_operator.runtime import httpserver


def first_only(cfg: operator_main.Config) -> None:
    """addresses_free, but it stops at the first address that is off or cannot be listened
    on."""
    for name, address, example in (
        ("METRICS_BIND_ADDRESS", cfg.metrics_bind_address, "127.0.0.1:18080"),
        ("HEALTH_PROBE_BIND_ADDRESS", cfg.health_probe_bind_address, "127.0.0.1:18081"),
    ):
        if address in ("", "0"):
            return  # the mutant: the next address is never tried
        try:
            httpserver.try_listen(address)
        except OSError as err:
            # the mutant: the first failure ends the check, the next address is not named
            raise operator_main.ConfigError(
                f"{name}={address} cannot be listened on ({err}): must be a host:port no "
                f"other process holds, e.g. {name}={example}, or 0 to turn it off"
            ) from err


PATCHES = (mutants.Patch(operator_main, "addresses_free", first_only),)

if __name__ == "__main__":
    mutants.main(PATCHES)
