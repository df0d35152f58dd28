"""Generated workloads (issue 26): sequences of steps drawn from the CRD's schema and from the
cluster's other actors, applied to every implementation side by side, judged by oracles that
need no expected value, a failing sequence shrunk by hypothesis to a replayable case file.

- ``schema``: strategies read from ``crds/`` (every spelling the schema admits, and edits it
  refuses);
- ``world``: the lanes (one implementation each: namespace, API proxy, operator), the steps,
  and the oracles (invariants, status, quiet, budget, differential, level-triggered);
- ``machine``: the hypothesis ``RuleBasedStateMachine``, the run, case files and replay;
- ``cli``: ``python -m harness generate`` (``make generate``; ``--jobs``, ``--cluster sim``,
  ``--operator-root``) and ``replay`` (``python -m harness replay FILE``).

docs/design.md, "Generated workloads", says why each oracle needs no expected value.
"""
