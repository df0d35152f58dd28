"""refuses-metrics-off: ``METRICS_BIND_ADDRESS=0`` (metrics off) is refused with exit 2.

Anti-pattern: the check that the metrics and probe addresses can be listened on skips only an
empty value, so ``0``, the documented way to turn a server off (controller-runtime's
``--metrics-bind-address=0``), is tried as an address, cannot be listened on, and the
operator refuses to start: "invalid environment", exit 2.

Why people write it: the skip is written for the unset variable, and every test starts the
operator with real ports; nobody runs it with metrics off until a cluster without Prometheus
does.

What the correct operator does: ``0`` turns the server off and is never tried (CONTRACT.md,
"Process"); config-refused starts its operator with usable values with
METRICS_BIND_ADDRESS=0, and it must run and converge.
"""

from __future__ import annotations

from harness import mutants
from python_operator import __main__ as operator_main
from python_operator.runtime import httpserver


def zero_tried(cfg: operator_main.Config) -> None:
    """The mutant: each address but an empty one is tried, ``0`` too (and refused)."""
    for name, address in (
        ("METRICS_BIND_ADDRESS", cfg.metrics_bind_address),
        ("HEALTH_PROBE_BIND_ADDRESS", cfg.health_probe_bind_address),
    ):
        if not address:
            continue
        try:
            httpserver.try_listen(address)
        except (OSError, ValueError) as err:
            raise operator_main.ConfigError(
                f"{name}={address} cannot be listened on ({err}): must be a host:port no "
                "other process holds"
            ) from err


PATCHES = (mutants.Patch(operator_main, "addresses_free", zero_tried),)

if __name__ == "__main__":
    mutants.main(PATCHES)
