"""ignores-held-port: the metrics and probe addresses are not tried at start.

Anti-pattern: the operator checks that METRICS_BIND_ADDRESS and HEALTH_PROBE_BIND_ADDRESS
parse as host:port, and leaves binding them to the servers that start with the manager. When
another process holds the port (a second operator run by hand beside the first, both on the
default ``:8080``), the process has already talked to the API server, and it fails later,
with exit code 1 and a line about a socket, not the variable.

Why people write it: parsing is a pure function and easy to unit-test; trying a port looks
like a side effect that belongs to the server that will use it, and the window between trying
and binding makes the try look useless.

What the correct operator does: it tries each address that is not ``0`` before its first
request and refuses one it cannot listen on with exit code 2 and a line naming the variable
and the fix (CONTRACT.md, "Process"); config-refused holds a port and gives it as
METRICS_BIND_ADDRESS.
"""

from __future__ import annotations

from harness import mutants
from python_operator import __main__ as operator_main


def never_tried(cfg: operator_main.Config) -> None:
    """The mutant: no address is tried (the manager's servers bind them later)."""


PATCHES = (mutants.Patch(operator_main, "addresses_free", never_tried),)

if __name__ == "__main__":
    mutants.main(PATCHES)
