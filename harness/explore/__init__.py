"""Exploration: every write boundary of every scenario, for any implementation.

Sieve (OSDI '22) and Acto (SOSP '23) found most of their operator bugs without a line of code
in the operator: they perturb what the controller sees and when it dies. This package does that
through the harness's API proxy (``harness.faults.apiproxy``), so it needs no crash point in
the operator (``MODELDOCK_CRASH_AT`` is never set):

- ``scenarios``: the situations (create, scale, spec change, children deleted by hand, delete,
  delete racing create, a foreign child, a restart with changes pending);
- ``case``: one run of a scenario, clean or perturbed (a SIGKILL right after the k-th write
  with its response withheld or delivered, a 409 for the k-th write, a stale view, coalesced
  events), judged by the oracle;
- ``state``: the normalised end state and the invariants (no child duplicated or left behind,
  no finalizer lost or left);
- ``run``: the clean runs, then every boundary; ``results``: JUnit, ``explore.json``, the
  matrix; ``cli``: ``python -m harness explore`` (``make explore``, ``make explore-ci``).
"""
