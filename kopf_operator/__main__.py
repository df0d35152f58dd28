"""python -m kopf_operator: the ModelService operator on kopf, run with the contract's
environment (conformance/CONTRACT.md, "Process")."""

from __future__ import annotations

import logging
import os
import sys
import threading

import kopf
from kubernetes import config as k8s_config

from kopf_operator import glue, handlers

EXIT_BAD_CONFIG = 2


def main() -> int:
    glue.configure_logging()
    log = logging.getLogger("modeldock")
    try:
        cfg = glue.config_from_env(os.environ)
        metrics_at = glue.split_address(cfg.metrics_bind_address)
        health_at = glue.split_address(cfg.health_probe_bind_address)
    except glue.ConfigError as exc:
        log.error("invalid configuration", extra={"fields": {"error": str(exc)}})
        return EXIT_BAD_CONFIG
    # The handlers write children with the official client; kopf logs in by itself (it reads
    # the same KUBECONFIG).
    k8s_config.load_kube_config(config_file=cfg.kubeconfig)  # type: ignore[no-untyped-call]
    handlers.OPTIONS["workers"] = cfg.max_concurrent_reconciles
    if cfg.leader_election:
        log.info("LEADER_ELECTION=true: kopf has no Lease election; running standalone")
    ready = threading.Event()
    if metrics_at:
        glue.serve(metrics_at, glue.metrics_routes(handlers.METRICS))
    if health_at:
        glue.serve(health_at, glue.health_routes(ready))
    log.info(
        "starting kopf",
        extra={
            "fields": {
                "namespace": cfg.watch_namespace,
                "kopf": kopf.__version__ if hasattr(kopf, "__version__") else "",
            }
        },
    )
    kopf.run(namespaces=[cfg.watch_namespace], standalone=True, ready_flag=ready)
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
