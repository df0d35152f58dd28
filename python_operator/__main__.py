"""python -m python_operator: the Python ModelDock operator, a manager that runs one
controller, "modelservice", for the ModelService custom resource.

Go twin: go_reference/main.go. The wiring here (cache, client, leader election, metrics,
probes, signals) is what controller-runtime gives Go for free; the pieces live in
python_operator/runtime/.

The process contract (environment variables, defaults, exit codes) is conformance/CONTRACT.md,
section "Process". Every knob is an environment variable, not a flag, because the harness
starts every implementation the same way.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import socket
import sys
import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta
from types import FrameType

from kubernetes import client as k8s
from kubernetes import config as k8s_config

from python_operator import catalog as catalog_
from python_operator import controller
from python_operator.runtime import client as client_
from python_operator.runtime import httpserver, manager
from python_operator.runtime import log as log_

# LEADER_ELECTION_ID is the name of the Lease the instances compete for.
LEADER_ELECTION_ID = "modeldock.lab"

# EVENT_COMPONENT is the source of the Events the controller records (CONTRACT.md, "Events").
EVENT_COMPONENT = "modelservice-controller"

# EXIT_BAD_CONFIG is the exit code for an environment value that cannot be used.
EXIT_BAD_CONFIG = 2

# DEFAULT_WORKERS is MAX_CONCURRENT_RECONCILES when unset: 4, not controller-runtime's 1, so
# that one ModelService whose reconcile is slow (a write held by an admission webhook, a
# request waiting out its timeout) leaves other workers to every other ModelService
# (CONTRACT.md, "Process"; the reconcile-isolated check).
DEFAULT_WORKERS = 4


@dataclasses.dataclass(frozen=True)
class Config:
    """The process configuration, read once from the environment."""

    kubeconfig: str
    watch_namespace: str
    leader_election: bool
    leader_election_namespace: str
    lease_duration: timedelta
    renew_deadline: timedelta
    retry_period: timedelta
    metrics_bind_address: str
    health_probe_bind_address: str
    max_concurrent_reconciles: int
    #: seconds each non-watch request may take in total (REQUEST_TIMEOUT_SECONDS); None: none
    request_timeout: float | None = client_.REQUEST_TIMEOUT
    #: (idle, ping) seconds from HTTP2_READ_IDLE_TIMEOUT_SECONDS / HTTP2_PING_TIMEOUT_SECONDS,
    #: or None when the first is unset (the informer's defaults)
    watch_silence: tuple[float, float] | None = None


class ConfigError(ValueError):
    """One or more environment values cannot be used; the message names each and its fix."""


def config_from_env(env: Mapping[str, str]) -> Config:
    """Read the configuration. An error names the variable, the value and the fix, so that a
    typo in a harness file is found from the first line the process prints. main calls it
    through this module's global, a seam: mutant single-worker replaces it."""

    def get(name: str, default: str) -> str:
        value = env.get(name, "").strip()
        return value or default

    errors: list[str] = []
    kubeconfig = get("KUBECONFIG", "")
    if not kubeconfig:
        errors.append("KUBECONFIG is not set: set it to the operator's kubeconfig file")
    elif not os.path.isfile(kubeconfig.split(os.pathsep)[0]):
        errors.append(
            f"KUBECONFIG={kubeconfig!r}: no such file; set it to the operator's kubeconfig file"
        )

    watch_namespace = get("WATCH_NAMESPACE", "modeldock-lab")

    leader_election = False
    raw = get("LEADER_ELECTION", "false").lower()
    if raw in ("true", "false"):
        leader_election = raw == "true"
    else:
        errors.append(
            f"LEADER_ELECTION={env.get('LEADER_ELECTION')!r}: must be true or false; "
            "unset it to run without leader election"
        )

    def seconds(name: str, default: float) -> timedelta:
        raw = get(name, "")
        if not raw:
            return timedelta(seconds=default)
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (value > 0 and math.isfinite(value)):
            errors.append(
                f"{name}={raw!r}: must be a positive number of seconds (fractions allowed), "
                f"e.g. {name}={default:g}; unset it for the default {default:g}"
            )
            return timedelta(0)
        return timedelta(seconds=value)

    # client-go's own variables: how long a connection may stay silent before the Go operator
    # pings it, and how long it waits for the answer. Without HTTP/2 the Python operator uses
    # them as its watch deadline (CONTRACT.md, "Watches").
    watch_silence = None
    if get("HTTP2_READ_IDLE_TIMEOUT_SECONDS", ""):
        watch_silence = (
            seconds("HTTP2_READ_IDLE_TIMEOUT_SECONDS", 30).total_seconds(),
            seconds("HTTP2_PING_TIMEOUT_SECONDS", 15).total_seconds(),
        )

    lease_duration = seconds("LEASE_DURATION", 15)
    renew_deadline = seconds("RENEW_DEADLINE", 10)
    retry_period = seconds("RETRY_PERIOD", 2)
    if leader_election and min(lease_duration, renew_deadline, retry_period) > timedelta(0):
        # The leader elector refuses these too, but later and less clearly.
        if lease_duration <= renew_deadline:
            errors.append(
                f"LEASE_DURATION={lease_duration.total_seconds():g}s must be greater than "
                f"RENEW_DEADLINE={renew_deadline.total_seconds():g}s: a leader must renew "
                "before its lease can be taken"
            )
        if renew_deadline.total_seconds() <= 1.2 * retry_period.total_seconds():
            errors.append(
                f"RENEW_DEADLINE={renew_deadline.total_seconds():g}s must be greater than "
                f"1.2 x RETRY_PERIOD={retry_period.total_seconds():g}s: the leader needs more "
                "than one retry to renew"
            )

    addresses = {}
    for name, default in (
        ("METRICS_BIND_ADDRESS", ":8080"),
        ("HEALTH_PROBE_BIND_ADDRESS", ":8081"),
    ):
        address = addresses[name] = get(name, default)
        if address != "0":
            try:
                httpserver.parse_address(address)
            except ValueError:
                errors.append(
                    f"{name}={address!r}: must be host:port (e.g. 127.0.0.1{default}) or 0 to "
                    "turn it off"
                )

    raw = get("MAX_CONCURRENT_RECONCILES", str(DEFAULT_WORKERS))
    workers = int(raw) if raw.isdigit() else 0
    if workers < 1:
        errors.append(
            f"MAX_CONCURRENT_RECONCILES={raw!r}: must be a whole number of workers, at least 1; "
            f"unset it for the default {DEFAULT_WORKERS}"
        )
    request_timeout = seconds("REQUEST_TIMEOUT_SECONDS", client_.REQUEST_TIMEOUT).total_seconds()

    if errors:
        raise ConfigError("; ".join(errors))
    return Config(
        kubeconfig=kubeconfig,
        watch_namespace=watch_namespace,
        leader_election=leader_election,
        leader_election_namespace=get("LEADER_ELECTION_NAMESPACE", watch_namespace),
        lease_duration=lease_duration,
        renew_deadline=renew_deadline,
        retry_period=retry_period,
        metrics_bind_address=addresses["METRICS_BIND_ADDRESS"],
        health_probe_bind_address=addresses["HEALTH_PROBE_BIND_ADDRESS"],
        max_concurrent_reconciles=workers,
        request_timeout=request_timeout,
        watch_silence=watch_silence,
    )


def addresses_free(cfg: Config, listen: Callable[[str], None] = httpserver.try_listen) -> None:
    """Try to listen on the metrics and health probe addresses of ``cfg`` (``listen``: closed
    at once; ``"0"``, off, is not tried). Raises ConfigError naming each address that cannot be
    listened on, its variable and the fix. It runs before any request, so that a port another
    process holds (a second operator run by hand beside the first, both on the default
    ``:8080``) is refused with exit code 2 and named by its variable, not found when the
    manager starts. Go twin: addressesFree, same wording."""
    errors = []
    for name, address, example in (
        ("METRICS_BIND_ADDRESS", cfg.metrics_bind_address, "127.0.0.1:18080"),
        ("HEALTH_PROBE_BIND_ADDRESS", cfg.health_probe_bind_address, "127.0.0.1:18081"),
    ):
        if address in ("", "0"):
            continue
        try:
            listen(address)
        except OSError as err:
            errors.append(
                f"{name}={address} cannot be listened on ({err}): must be a host:port no "
                f"other process holds, e.g. {name}={example}, or 0 to turn it off"
            )
    if errors:
        raise ConfigError("\n".join(errors))


#: The User-Agent of every request, hence the field manager "modeldock-python" (the part
#: before "/"); the Go reference sends "modeldock-go/...".
USER_AGENT = f"modeldock-python/0.1 (kubernetes-client/{k8s.__version__})"


def new_api_client(kubeconfig: str) -> k8s.ApiClient:
    """An ApiClient for the kubeconfig's current context. urllib3 retries are off: a failed
    request goes back to whoever made it (the work queue, the informer, the elector), which
    decides when to try again; a write is never silently sent twice."""
    configuration = k8s.Configuration()
    # A KUBECONFIG list (a:b) is merged by the library when it is given no single file.
    single = kubeconfig if os.pathsep not in kubeconfig else None
    k8s_config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=single, client_configuration=configuration
    )
    configuration.retries = False
    api = k8s.ApiClient(configuration)
    # Named like every implementation, "modeldock-<language>/<version> (...)": the API server
    # takes the part before "/" as the field manager of updates that name none, so
    # managedFields and the audit log say who wrote (the client's default is OpenAPI-Generator).
    api.user_agent = USER_AGENT
    return api


def request_timeout(cfg: Config) -> float | None:
    """Seconds each non-watch request may take in total (None: no bound): REQUEST_TIMEOUT_SECONDS,
    and no more than the watch deadline when HTTP2_READ_IDLE_TIMEOUT_SECONDS is set. A
    connection that goes silent is given up after the same deadline as a watch's: a pooled
    connection that died with the watches' (a stalled NAT entry) fails every request until
    each has timed out, where client-go's HTTP/2 ping ends them all together."""
    if cfg.watch_silence is None:
        return cfg.request_timeout
    silence = sum(cfg.watch_silence)
    return silence if cfg.request_timeout is None else min(silence, cfg.request_timeout)


def setup_with_manager(
    mgr: manager.Manager, r: controller.ModelServiceReconciler, workers: int
) -> None:
    """Register the controller: a change to a ModelService enqueues it, and a change to a
    Deployment or Service enqueues the ModelService named in the child's controller
    ownerReference. The request carries only namespace/name: reconcile works out the rest."""
    mgr.add_controller(
        name="modelservice",
        for_=controller.MODELSERVICES,
        owns=(controller.DEPLOYMENTS, controller.SERVICES),
        reconciler=r,
        max_concurrent_reconciles=workers,
        errors=controller.RECONCILE_ERRORS,
    )


def install_signal_handlers(stop: Callable[[], None]) -> None:
    """SIGTERM or SIGINT: stop gracefully. A second signal: exit at once, with code 1."""
    received: list[int] = []

    def handle(signum: int, frame: FrameType | None) -> None:
        if received:
            log_.flush()
            os._exit(1)
        received.append(signum)
        stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def main() -> int:
    """Run the operator until SIGTERM/SIGINT; return the exit code (CONTRACT.md, "Process"):
    0 after a clean stop, 1 when the manager failed or the workers did not stop in time,
    EXIT_BAD_CONFIG (2) for an environment that cannot be used. A lost Lease exits the
    process with 1 from inside the manager."""
    log_.setup()
    log = log_.get_logger("setup")

    try:
        cfg = config_from_env(os.environ)
    except ConfigError as err:
        log.error("invalid environment", error=str(err))
        return EXIT_BAD_CONFIG
    try:
        catalog = catalog_.catalog_from_env(os.environ)
        addresses_free(cfg)
    except ValueError as err:  # ConfigError too
        log.error("invalid environment", error=str(err))
        return EXIT_BAD_CONFIG
    try:
        api_client = new_api_client(cfg.kubeconfig)
    except Exception as err:
        log.error(
            "no API server to talk to: set KUBECONFIG to the operator's kubeconfig file",
            error=str(err),
        )
        return EXIT_BAD_CONFIG
    client = client_.Client(api_client, timeout=request_timeout(cfg))

    leader_election = None
    if cfg.leader_election:
        leader_election = manager.LeaderElectionOptions(
            namespace=cfg.leader_election_namespace,
            name=LEADER_ELECTION_ID,
            identity=f"{socket.gethostname()}_{uuid.uuid4()}",
            lease_duration=cfg.lease_duration,
            renew_deadline=cfg.renew_deadline,
            retry_period=cfg.retry_period,
        )
    mgr = manager.Manager(
        client=client,
        namespace=cfg.watch_namespace,
        metrics_bind_address=cfg.metrics_bind_address,
        health_probe_bind_address=cfg.health_probe_bind_address,
        leader_election=leader_election,
        watch_silence=cfg.watch_silence,
    )

    r = controller.ModelServiceReconciler(
        reader=mgr.cache,
        writer=client,
        live=client_.APIReader(client),
        recorder=mgr.get_event_recorder_for(EVENT_COMPONENT),
        catalog=catalog,
    )
    # The CRD may come after the operator (CONTRACT.md, "Process"): wait for it with backoff
    # before the informers start, never exit for it.
    mgr.wait_served(controller.MODELSERVICES)
    setup_with_manager(mgr, r, cfg.max_concurrent_reconciles)

    install_signal_handlers(mgr.stop)
    log.info(
        "starting manager",
        watchNamespace=cfg.watch_namespace,
        leaderElection=cfg.leader_election,
        workers=cfg.max_concurrent_reconciles,
        requestTimeout=cfg.request_timeout,
    )
    try:
        return mgr.start()
    except OSError as err:
        log.error("manager stopped with an error", error=str(err))
        return 1


if __name__ == "__main__":
    sys.exit(main())
