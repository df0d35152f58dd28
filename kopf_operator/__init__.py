"""kopf_operator: the ModelService operator written with kopf 1.45 (https://kopf.readthedocs.io).

Run: ``python -m kopf_operator``; declared to the harness in ``implementation.toml`` (id
``kopf``), bound to ``role.yaml``. ``handlers`` is the operator, written the kopf way
(create/update/resume/delete handlers, ``kopf.adopt``, ``patch.status``, kopf's finalizer,
indices as the cache, ``kopf.event``); ``glue`` is the contract's process plumbing
(environment, JSON logs, /healthz and /readyz, crash points, metrics counted per handler call).

What kopf does differently, as the suite measured it (docs/kopf.md, "What kopf does differently"):
every write of the ModelService is a PATCH (finalizer, status; a stale optimistic write gets
422, not 409); kopf stores the last handled configuration and retry progress in annotations,
one more PATCH after each handled change; handlers run only for changes of the ModelService's
spec, labels and annotations, so a child's event or a status-only change calls none (a deleted
Service is not recreated); no Lease leader election; no Event correlation nor spam filter;
kopf's own API client retries a 403 (a refused Event is written later, a refused watch comes
back after 1, 1, 2 s), and a watch request answered 410 stops the operator's watching. The
checks it fails, and why, are declared in ``implementation.toml``.
"""
