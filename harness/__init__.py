"""ModelDock harness: control plane, operator processes, request accounting, reports.

The packages follow a run's data flow (docs/design.md, "Architecture"): ``envtest`` (binaries,
the control plane, processes; or ``existing``, a cluster the harness does not own) -> ``faults`` (proxies between operator and API server) ->
``plugin`` (the pytest plugin: fixtures, labs, evidence) -> ``report``; beside them ``mutants``,
``rbac`` (ablation), ``bench``, ``explore``. ``accounting`` reads the operators' requests
from the audit log or their API proxies' logs. ``cli`` is the one command line.
"""
