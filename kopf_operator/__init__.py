"""kopf_operator: the ModelService operator written with kopf (https://kopf.readthedocs.io).

Run: ``python -m kopf_operator``; declared to the harness in ``implementation.toml`` (id
``kopf``). ``handlers`` is the operator, ``glue`` the contract's process plumbing.
"""
