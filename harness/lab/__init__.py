"""The lab: where a check runs, and what the plugin's fixtures, the bench, the explorer, the
mutant runner and the checks that need more than the fixtures build on.

- ``harness.lab.namespaces``: ``Namespaces`` (the run's operator role file and ``RunScope``,
  passed in, never set globally), ``create_namespace`` and ``bind_operator_role`` with the
  defaults of a harness-owned cluster.
- ``harness.lab.pool``: ``Lab``, ``IsolatedLab``, ``OperatorPool`` (operator processes, each
  behind an API proxy of its own) and ``Isolated`` (private control planes).

The lab stands below the pytest plugin and the command lines: it imports neither
(``harness/tests/test_layers.py``). This ``__init__`` imports nothing, so importing a module
of the package runs no other.
"""
