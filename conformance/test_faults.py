"""watch-recovers: the operator's view of the world survives broken connections.

An informer is a list followed by a watch that resumes from the last resourceVersion it saw.
Each case below breaks that chain in a different place, changes the world while the operator
cannot see it (a Service deleted, replicas changed), and requires the operator to notice and
repair within a stated bound. Each case gets a private control plane, so restarting the API
server or compacting etcd disturbs no other check.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.reactions import CHILD_REACT_BOUND
from conformance.support import (
    CONVERGE_TIMEOUT,
    QUIET_PERIOD,
    REACT_TIMEOUT,
    create_modelservice,
    is_converged,
    premise,
    wait_converged,
    wait_settled,
)
from harness.audit import select
from harness.envtest.kubeconfig import with_server
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.faults.tcpconn import SilencedConnection
from harness.faults.tcpproxy import FaultProxy
from harness.kube import Kube, wait_for
from harness.lab.pool import Isolated, IsolatedLab, OperatorPool
from harness.operators import Implementation, OperatorProcess
from harness.plugin.evidence import Evidence

#: The resources the operator watches in its namespace.
WATCHED = ("modelservices", "deployments", "services")
#: The ModelService watch-recovers[compaction-410] creates while the operator is blind.
LATE = "late"

#: Bound for recovery after a cut, a restart or a 410: once connected again, the operator
#: converges the changes made meanwhile, as it converges any change.
RECOVERY_BOUND_S = CONVERGE_TIMEOUT
#: Bound for the repair a single informer's relist brings (compaction-410's later phases),
#: seconds from the end of its watches: a relist's notification is handled at once (both
#: operators took under a second). It must stay below the shortest watch timeout of the other
#: informers (Python: 30 s): their versions were compacted too, so a watch of theirs that ends
#: by itself relists as well, and that relist's updates enqueue every owner, repairing what the
#: relist under test should have.
RELIST_REPAIR_BOUND_S = CHILD_REACT_BOUND
#: The watch deadline the connection-stall case gives the operator, through the variables
#: client-go reads itself (CONTRACT.md, "Process"): silent for 5 s, then a ping answered
#: within 3 s (the Python operator: each watch ends after 5 s, a socket silent for 8 s is
#: given up). The clients' defaults (30 s and 15 s) are the connection-stall-defaults case.
WATCH_SILENCE_ENV = {"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5", "HTTP2_PING_TIMEOUT_SECONDS": "3"}
#: Bound for noticing a stalled connection and repairing: the deadline above, then as after a
#: cut.
STALL_BOUND_S = 8.0 + RECOVERY_BOUND_S
#: The same with the clients' defaults: client-go's HTTP/2 health check needs 30 s of silence
#: plus a 15 s ping timeout; the bound leaves room for a reconnect and the repair.
STALL_DEFAULTS_BOUND_S = 120.0
#: Once the operator gave up its first silenced connection, how long bytes may still arrive in
#: another silenced one: a request that took a pooled connection a moment before the give-up
#: closed the pool writes it within milliseconds. It must stay below the earliest retry of the
#: watch that failed, which is what goes into another silenced connection when the operator
#: keeps them: client-go's reflector and the Python informer both back off 0.8 s first (and
#: a request sent there waits out a whole deadline, 8 s here, before the next try). A quarter
#: of QUIET_PERIOD (0.25 s); with the whole second, keeps-dead-connections survived a run whose
#: retries went into the silenced connections 0.94 s after the first give-up.
GIVE_UP_GRACE_S = QUIET_PERIOD / 4


def _break_world(admin: Kube, ns: str) -> None:
    """Changes the operator must repair: delete its Service, scale the ModelService to 3."""
    admin.delete("services", ns, "web")
    admin.patch("modelservices", ns, "web", {"spec": {"replicas": 3}})


def _repaired(admin: Kube, ns: str, bound: float, what: str) -> float:
    """Wait until the Service is back and the Deployment has 3 replicas; return seconds taken."""
    started = time.monotonic()
    wait_for(
        lambda: admin.get("deployments", ns, "web"),
        lambda d: d["spec"]["replicas"] == 3,
        bound,
        f"{what}: Deployment replicas to follow the change made meanwhile (3)",
    )
    left = max(1.0, bound - (time.monotonic() - started))
    wait_for(
        lambda: admin.get("services", ns, "web"),
        lambda _s: True,
        left,
        f"{what}: the Service deleted meanwhile to be recreated",
    )
    wait_converged(admin, ns, "web", timeout=left)
    return time.monotonic() - started


def _converged(
    lab: IsolatedLab,
    kubeconfig: Path | None = None,
    env: dict[str, str] | None = None,
    api_proxy: ApiProxy | None = None,
) -> OperatorProcess:
    """Start the operator behind ``api_proxy`` (default: a new one of its own), through
    ``kubeconfig`` if given (routed to that proxy), with ``env`` added to its environment;
    create ModelService ``web`` with one replica, and wait until it converged and the operator
    settled (set-up waits: their timeout is an unmet premise, verdict ``error``, since the
    fault is not staged yet); return the operator."""
    options: dict[str, Any] = {"kubeconfig": kubeconfig} if kubeconfig else {}
    if api_proxy is not None:
        options["api_proxy"] = api_proxy
    if env:
        options["env"] = dict(env)
    op = lab.operators.start(**options)
    create_modelservice(lab.admin, lab.namespace, "web", replicas=1)
    set_up(lambda: wait_converged(lab.admin, lab.namespace, "web"), "converging before the fault")
    set_up(lambda: wait_settled(op), "settling before the fault")
    return op


def _gone(proxy: ApiProxy, namespace: str) -> list[dict[str, Any]]:
    """The 410 Gone ERROR events the API proxy saw served to watches in ``namespace``."""
    return [
        e for e in proxy.stats()["watch_errors"] if e["code"] == 410 and e["namespace"] == namespace
    ]


def _delete_web_service(admin: Kube, ns: str) -> None:
    """Delete Service ``web``: a change only the Service informer's relist can bring."""
    admin.delete("services", ns, "web")


def _scale_web_to_4(admin: Kube, ns: str) -> None:
    """Scale ModelService ``web`` to 4: a change only the ModelService informer's relist can
    bring."""
    admin.patch("modelservices", ns, "web", {"spec": {"replicas": 4}})


def _expire_one(
    lab: IsolatedLab,
    op: OperatorProcess,
    proxy: ApiProxy,
    resource: str,
    what: str,
    change: Callable[[Kube, str], None],
) -> None:
    """The compaction case for one informer alone: once ``op`` settled, hold the events of
    ``resource``'s watches, make ``change``, compact etcd, end those watches (their resume is
    answered 410 Gone, a premise) and wait until the operator repaired the change from the
    relist (the Service back, or the Deployment at 4 replicas, and converged). The other
    informers' watches stay open and see no change of ``web``: the relist's own notification
    must carry it."""
    # Settled first: a reconcile of web still to come from the last phase would repair the
    # change by itself, whatever the relist says.
    set_up(lambda: wait_settled(op), f"settling before the {resource} watch expires alone")
    before = len([e for e in _gone(proxy, lab.namespace) if e["resource"] == resource])
    proxy.hold([resource])
    change(lab.admin, lab.namespace)
    lab.control_plane.compact_etcd()
    premise(
        sum(proxy.end_watches([resource]).values()) > 0,
        f"the operator should have had a watch of {resource} open to end",
    )
    wait_for(
        lambda: (
            lab.admin.get("services", lab.namespace, "web"),
            lab.admin.get("deployments", lab.namespace, "web"),
        ),
        lambda found: (
            found[0] is not None
            and (found[1] or {}).get("spec", {}).get("replicas")
            == (4 if resource == "modelservices" else 3)
        ),
        RELIST_REPAIR_BOUND_S,
        f"after a 410 of the {resource} watch alone ({what} while its events were held): "
        f"the operator to repair it from the relist of {resource}, whose difference must "
        'reach the event handlers (CONTRACT.md, "Watches")',
    )
    wait_converged(lab.admin, lab.namespace, "web", timeout=RECOVERY_BOUND_S)
    after = [e for e in _gone(proxy, lab.namespace) if e["resource"] == resource]
    premise(
        len(after) > before,
        f"the operator's resumed watch of {resource} should have been answered 410 Gone; the "
        f"API proxy saw {len(after) - before} more",
    )


def _resumed_versions(api: ApiProxy, namespace: str, cut_at: float) -> dict[str, dict[str, Any]]:
    """Per watched resource: ``last_seen``, the highest resourceVersion (an int: etcd's
    revision on this control plane) of the events the operator's watches of it delivered
    through ``api`` up to 1 s before ``cut_at`` (epoch seconds; the operator had settled, so
    nothing was in flight), and ``resumed_from``, the ``?resourceVersion=`` of its first watch
    of it in ``namespace`` that reached ``api`` after ``cut_at`` (the proxy's recent requests,
    logged when the answer starts; None if it made none)."""
    out: dict[str, dict[str, Any]] = {}
    records = RequestLog(api.request_log).records()
    recent = api.stats()["recent"]
    for resource in WATCHED:
        seen = [
            int(e.resource_version)
            for r in records
            if r.verb == "watch" and r.resource == resource
            for e in r.events
            if e.resource_version.isdigit() and seconds(e.time) < cut_at - 1.0
        ]
        first = next(
            (
                r
                for r in recent
                if r["verb"] == "watch"
                and r["resource"] == resource
                and r["namespace"] == namespace
                and seconds(r["time"]) >= cut_at
            ),
            None,
        )
        out[resource] = {
            "last_seen": max(seen, default=0),
            "resumed_from": first["resource_version"] if first else None,
        }
    return out


def _proxied(lab: IsolatedLab, tmp_path: Path) -> tuple[FaultProxy, ApiProxy, Path]:
    """A TCP fault proxy in front of a new API proxy of the lab's operator: operator -> TCP
    fault -> API proxy -> API server, so the fault is the operator's own connection (its
    HTTP/2 health check and watch deadlines meet it) and the API proxy still accounts every
    request. Returns both proxies and the operator's kubeconfig through them."""
    api = lab.operators.api_proxy()
    host, port = api.address.rsplit(":", 1)
    proxy = FaultProxy((host, int(port))).start()
    try:
        kubeconfig = with_server(
            api.kubeconfig, tmp_path / f"proxied-{proxy.port}.kubeconfig", proxy.address
        )
    except BaseException:
        proxy.stop()
        raise
    return proxy, api, kubeconfig


@pytest.mark.modeldock_check("watch-recovers", case="apiserver-restart")
def test_apiserver_restart(isolated: Isolated, evidence: Evidence) -> None:
    """watch-recovers[apiserver-restart]: kube-apiserver stops (SIGTERM: its graceful shutdown
    ends every watch stream at once, cleanly) and comes back on the same port, with a new
    watch cache, so a watch resumed from an old resourceVersion may meet 410 Gone. (A
    connection broken mid-stream is connection-cut's.) Changes made as soon as it is back
    (while the operator is still reconnecting) must be repaired: the informers re-watch (or
    re-list) and the events reach Reconcile. The operator must stay up throughout: an API
    server that refuses connections for a while is an ordinary failure, retried with backoff.
    How it recovers (a watch resumed from its resourceVersion, or a re-list) is the
    implementation's choice: the repair within RECOVERY_BOUND_S is what is judged."""
    lab = isolated.new()
    op = _converged(lab)
    cp = lab.control_plane
    before = cp.apiserver.pid if cp.apiserver else None
    cp.stop_apiserver()
    premise(
        cp.apiserver is not None and not cp.apiserver.running(),
        "kube-apiserver should have stopped",
    )
    cp.start_apiserver()
    new_pid = cp.apiserver.pid if cp.apiserver else None
    premise(
        new_pid not in (None, before),
        f"kube-apiserver should run as a new process (pid {before} -> {new_pid})",
    )
    _break_world(lab.admin, lab.namespace)
    took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after an API server restart")
    assert op.running(), (
        f"the operator must survive an API server restart, not exit (code {op.returncode()})"
    )
    evidence.record("recovery_s", round(took, 2))
    evidence.record("bound_s", RECOVERY_BOUND_S)


@pytest.mark.modeldock_check("watch-recovers", case="connection-cut")
def test_connection_cut(isolated: Isolated, tmp_path: Path, evidence: Evidence) -> None:
    """watch-recovers[connection-cut]: every connection between operator and API server is cut
    and new ones are refused for a while; the world changes meanwhile. When connections are
    possible again the operator must resume its watches and repair. Each resource's first
    watch after the cut must ask for a resourceVersion no older than the last event its watch
    delivered before the cut (both read on the operator's API proxy): a watch resumes from the
    last resourceVersion seen, or from a list made since."""
    lab = isolated.new()
    proxy, api, kubeconfig = _proxied(lab, tmp_path)
    try:
        _converged(lab, kubeconfig, api_proxy=api)
        cut_at = time.time()
        proxy.refuse(True)
        cut = proxy.cut()
        evidence.record("connections_cut", cut)
        premise(
            cut > 0,
            "the operator should have had open connections to cut (through the "
            "fault proxy); none were",
        )
        _break_world(lab.admin, lab.namespace)
        accepted = proxy.stats()["accepted"]
        wait_for(
            lambda: proxy.stats()["accepted"],
            lambda n: n > accepted,
            REACT_TIMEOUT,
            "the operator to try to reconnect",
        )
        proxy.refuse(False)
        took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after a cut")
        evidence.record("recovery_s", round(took, 2))
        evidence.record("bound_s", RECOVERY_BOUND_S)
        resumed = _resumed_versions(api, lab.namespace, cut_at)
    finally:
        proxy.stop()
    evidence.record("resumed_watches", resumed)
    premise(
        any(row["resumed_from"] is not None for row in resumed.values()),
        "the operator should have watched again after the cut by the time it repaired; the "
        f"API proxy saw no watch since: {resumed}",
    )
    stale = [
        f"{r}: from {row['resumed_from']}, after it saw {row['last_seen']}"
        for r, row in resumed.items()
        if row["resumed_from"] is not None and int(row["resumed_from"] or 0) < row["last_seen"]
    ]
    assert not stale, (
        "after the cut the operator resumed a watch from a resourceVersion older than the last "
        f"event that watch had delivered: {'; '.join(stale)}. A watch resumes from the last "
        'resourceVersion seen, or from a list made since (CONTRACT.md, "Watches"); an older '
        "one replays what was already seen, or, once compacted, costs a relist"
    )


@pytest.mark.modeldock_check("watch-recovers", case="connection-stall")
def test_connection_stall(isolated: Isolated, tmp_path: Path, evidence: Evidence) -> None:
    """watch-recovers[connection-stall]: the open connections stay up but go silent: bytes are
    accepted and none are forwarded, as with a dead NAT entry or a hung load balancer. A watch
    that trusts an open socket is blind forever. The operator must notice the silence (an HTTP/2
    ping, a read timeout, a watch timeout) and reconnect, then repair what changed.

    The operator runs with a short deadline, set through the variables client-go reads itself
    (``HTTP2_READ_IDLE_TIMEOUT_SECONDS=5``, ``HTTP2_PING_TIMEOUT_SECONDS=3``), so the check
    takes seconds; the connection-stall-defaults case (``--full``) keeps the clients' own."""
    _stall(isolated, tmp_path, evidence, WATCH_SILENCE_ENV, STALL_BOUND_S)


@pytest.mark.modeldock_slow
@pytest.mark.modeldock_check("watch-recovers", case="connection-stall-defaults")
def test_connection_stall_with_default_deadlines(
    isolated: Isolated, tmp_path: Path, evidence: Evidence
) -> None:
    """watch-recovers[connection-stall-defaults]: the connection-stall case with the clients'
    default deadlines (client-go: 30 s of silence, then a 15 s ping; the Python operator: a
    30-60 s watch and a socket read timeout 5 s above it). Slow, so it runs with ``--full``."""
    _stall(isolated, tmp_path, evidence, {}, STALL_DEFAULTS_BOUND_S)


def _stall(
    isolated: Isolated, tmp_path: Path, evidence: Evidence, env: dict[str, str], bound: float
) -> None:
    """Converge through the TCP fault proxy with ``env`` added to the operator's environment,
    silence every open connection, change the world, and wait up to ``bound`` s for repair;
    then check that once it gave up one silenced connection it wrote into no other
    (``_no_writes_into_silence``)."""
    lab = isolated.new()
    proxy, api, kubeconfig = _proxied(lab, tmp_path)
    try:
        _converged(lab, kubeconfig, env, api_proxy=api)
        evidence.record("operator_env", env or "the clients' defaults")
        stalled = proxy.stall_existing()
        evidence.record("connections_stalled", stalled)
        premise(
            stalled > 0,
            "the operator should have had open connections to stall (through "
            "the fault proxy); none were",
        )
        _break_world(lab.admin, lab.namespace)
        took = _repaired(lab.admin, lab.namespace, bound, "after a stall")
        evidence.record("recovery_s", round(took, 2))
        evidence.record("bound_s", bound)
        evidence.record("proxy", proxy.stats())
        _no_writes_into_silence(proxy.silenced(), evidence)
    finally:
        proxy.stop()


def _no_writes_into_silence(records: list[SilencedConnection], evidence: Evidence) -> None:
    """The silence that hit one connection hit every connection open beside it (they all go
    through the same dead path). Once the operator found one silent and gave it up (closed
    it), it must not send anything into the others: each request sent there waits out its own
    deadline in turn (CONTRACT.md, "Watches"). Bytes sent before that first close are fine
    (an HTTP/2 client pings the connection it is about to give up; requests sent before
    anything looked wrong). Premise: the operator closed one of them."""
    stalled_at = min((r.silenced_at for r in records), default=0.0)

    def after(t: float) -> float:
        return round(t - stalled_at, 2)

    evidence.record(
        "silenced_connections",
        [
            {
                "connection": f"#{r.number} from {r.client}",
                "closed_by_operator_s": None
                if r.client_closed_at is None
                else after(r.client_closed_at),
                "bytes_from_operator": r.bytes,
                "last_bytes_s": None if r.last_arrival is None else after(r.last_arrival),
            }
            for r in records
        ],
    )
    closes = [(r.client_closed_at, r) for r in records if r.client_closed_at is not None]
    premise(
        closes,
        f"the operator should have given up (closed) one of the {len(records)} silenced "
        "connections before it repaired; it closed none, yet recovered",
    )
    first_close, first = min(closes, key=lambda c: c[0])
    limit = first_close + GIVE_UP_GRACE_S
    evidence.record("first_given_up_s", after(first_close))
    evidence.record("grace_s", GIVE_UP_GRACE_S)
    late: list[str] = []
    for r in records:
        if r.last_arrival is None or r.last_arrival <= limit:
            continue
        # A request's chunks arrive together: one time each, to the 10 ms.
        times = list(dict.fromkeys(after(t) for t, _ in r.arrivals if t > limit))
        times = times or [after(r.last_arrival)]
        shown = ", ".join(f"{t} s" for t in times[:5]) + (" ..." if len(times) > 5 else "")
        late.append(f"#{r.number} from {r.client} got bytes at {shown}")
    assert not late, (
        f"the operator gave up silenced connection #{first.number} from {first.client} "
        f"{after(first_close)} s after the stall, yet sent bytes into other "
        f"silenced connections more than {GIVE_UP_GRACE_S} s later: {'; '.join(late)} (times "
        "after the stall). A connection found silent was given up, yet requests kept going "
        "into other silenced connections, each waiting out its own timeout: when one "
        "connection to the API server goes silent, give up the others too"
    )


@pytest.mark.modeldock_check("watch-recovers", case="compaction-410")
def test_watch_expired_after_compaction(
    isolated: Isolated, tmp_path: Path, evidence: Evidence, impl: Implementation
) -> None:
    """watch-recovers[compaction-410]: while the operator cannot see it, the world changes and
    etcd is compacted at its current revision, with the API server's watch cache off. Then its
    watches end, as a watch does at its timeout, and the operator resumes each from the last
    resourceVersion it saw: compacted away, so the API server answers 410 Gone (Expired).
    Resuming is impossible: the informer must re-list, compare with its cache, and deliver what
    it missed, including the deletion of a Service it never saw an event for and a ModelService
    (``late``) created meanwhile, which only the relist brings: it must converge too (an
    informer that notifies a relist's changes and deletions but not its new objects leaves it
    without children). Then the same for one informer alone, twice: the Service watch expires
    while Service ``web`` is deleted, then the ModelService watch while ``web`` is scaled to 4;
    each must be repaired from that relist's own deletion, or update (when every informer
    relists at once, each owner hears an update anyway, which hides a relist that drops
    either).

    The operator talks to the API server through the harness's API proxy, which holds the
    events of its watches while the world changes, then ends those watches, dropping the held
    events (``end_watches``), and records every ERROR event of a watch with its status code:
    the 410 served to this operator is shown, not assumed (premise)."""
    lab = isolated.new(watch_cache=False)
    with lab.operators.api_proxy() as proxy:
        op = _converged(lab, api_proxy=proxy)
        proxy.hold(WATCHED)
        _break_world(lab.admin, lab.namespace)
        create_modelservice(lab.admin, lab.namespace, LATE)
        revision = lab.control_plane.compact_etcd()
        evidence.record("compacted_at_revision", revision)
        start = lab.audit.sync(lab.admin)
        ended = proxy.end_watches(WATCHED)
        evidence.record("watches_ended", ended)
        premise(
            sum(ended.values()) > 0,
            f"the operator should have had watches open through "
            f"the API proxy to end; it had {ended}",
        )
        took = _repaired(lab.admin, lab.namespace, RECOVERY_BOUND_S, "after a 410")
        wait_for(
            lambda: lab.admin.get("modelservices", lab.namespace, LATE),
            lambda m: is_converged(lab.admin, lab.namespace, LATE, m) is not None,
            RECOVERY_BOUND_S,
            f"after a 410: ModelService {LATE}, created while the operator's watches were "
            "held and known to it only from the relist, to converge",
        )
        end = lab.audit.sync(lab.admin)
        gone = _gone(proxy, lab.namespace)
        # One informer at a time: a relist of every informer at once delivers each owner an
        # update of its own (or of another child), which would hide a relist that drops its
        # deletions, or its updates.
        _expire_one(lab, op, proxy, "services", "a Service deleted", _delete_web_service)
        _expire_one(lab, op, proxy, "modelservices", "replicas changed to 4", _scale_web_to_4)
    evidence.record(
        "watch_410s",
        [
            f"{e['resource']} from resourceVersion {e['resource_version']}: {e['reason']}"
            for e in gone
        ],
    )
    relists = sorted(
        {
            r.resource
            for r in select(lab.audit.requests(start, end), user=impl.user, namespace=lab.namespace)
            if r.verb == "list"
        }
    )
    evidence.record("relisted", relists)
    evidence.record("recovery_s", round(took, 2))
    evidence.record("bound_s", RECOVERY_BOUND_S)
    premise(
        gone,
        "a watch of the operator's, resumed after the compaction, should have been "
        "answered 410 Gone; the API proxy saw none",
    )
    assert "services" in relists, (
        f"after 410 Gone the operator must re-list; it listed only {relists}"
    )


def _watch_answers(proxy: ApiProxy, resource: str) -> list[ProxyRequest]:
    """The lists and watches of ``resource`` the proxy logged, in the order they reached it."""
    records = RequestLog(proxy.request_log).records()
    mine = [r for r in records if r.resource == resource and r.verb in ("list", "watch")]
    return sorted(mine, key=lambda r: (seconds(r.start), r.id))


def _refused_then_watching(proxy: ApiProxy, resource: str, code: int) -> list[ProxyRequest]:
    """Wait until a watch of ``resource`` the proxy refused with ``code`` is followed by a
    watch it forwarded (the informer watches again); return what came between, both ends
    included. A watch that never comes back is the operator's failure."""

    def span() -> list[ProxyRequest] | None:
        seen = _watch_answers(proxy, resource)
        first = next(
            (i for i, r in enumerate(seen) if r.verb == "watch" and r.injected and r.code == code),
            None,
        )
        if first is None:
            return None
        after = next(
            (
                i
                for i in range(first + 1, len(seen))
                if seen[i].verb == "watch" and seen[i].forwarded
            ),
            None,
        )
        return None if after is None else seen[first : after + 1]

    return wait_for(
        span,
        lambda found: bool(found),
        CONVERGE_TIMEOUT,
        f"a watch of {resource} again after its start was refused {code}",
    )


@pytest.mark.modeldock_check("watch-recovers", case="watch-refused")
def test_watch_start_refused(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """watch-recovers[watch-refused]: a watch refused at its start is answered by what the
    refusal says. The operator runs behind its API proxy; the proxy ends its watch of
    ModelServices and answers the new watch 410 Gone (reason Expired: the resourceVersion was
    compacted away); later it ends it again and answers the next one 429 TooManyRequests
    (without Retry-After). After the 410 the operator must list ModelServices before it
    watches again (a relist); after the 429 it must watch again without a list in between.
    Then a ModelService created afterwards converges (the informer works).

    client-go's reflector relists only when the resourceVersion is gone (a 410 ends its
    ListAndWatch), and on a 429 backs off and retries the watch from where it was
    (``isWatchErrorRetriable``): a relist is the most expensive request an informer makes,
    the one an overloaded API server's 429 asks it not to send. An informer that takes every
    refusal for a 410 relists into that overload; one that takes a 410 for an ordinary
    error retries a watch that can never start again.
    """
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        set_up(lambda: wait_settled(op), "settling before the faults are armed")
        spans = {}
        for code in (410, 429):
            proxy.inject_write_error(1, code, resources=["modelservices"], watch=True)
            ended = proxy.end_watches(["modelservices"])
            premise(
                sum(ended.values()) > 0,
                f"the operator should have had a watch of modelservices to end; it had {ended}",
            )
            spans[code] = _refused_then_watching(proxy, "modelservices", code)
        create_modelservice(admin, namespace, "web", replicas=1)
        wait_converged(admin, namespace, "web")
    shown = {
        code: [f"{r.verb} -> {r.code}{' (injected)' if r.injected else ''}" for r in span]
        for code, span in spans.items()
    }
    evidence.record("after_refusal", {str(code): lines for code, lines in shown.items()})
    relisted = {code: [r for r in span if r.verb == "list"] for code, span in spans.items()}
    assert relisted[410], (
        f"the operator's watch of modelservices was refused 410 Gone (Expired) at its start, and "
        f"it watched again without listing first: {shown[410]}. The resourceVersion it asked "
        "for is gone; only a relist gives it a new one and the changes it missed"
    )
    assert not relisted[429], (
        f"the operator's watch of modelservices was refused 429 at its start, and it listed "
        f"again before watching: {shown[429]}. A 429 asks for less load: the watch is retried "
        "from its resourceVersion after a backoff (client-go's reflector), not replaced by a "
        "relist"
    )


#: The Retry-After of watch-recovers[watch-retry-after], in whole seconds: above the first
#: backoff of either informer after a failed watch (client-go's reflector 0.8 s to 1.6 s with
#: its jitter, the Python informer 0.8 s to 0.96 s), so a watch retried by the informer
#: instead of by the client comes back too early.
WATCH_RETRY_AFTER_S = 3
#: Slack under it: the proxy's timestamps are cut to microseconds; a timer never fires early.
WATCH_RETRY_AFTER_GRACE_S = 0.02


@pytest.mark.modeldock_check("watch-recovers", case="watch-retry-after")
def test_watch_start_retry_after(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """watch-recovers[watch-retry-after]: a watch start answered 429 with ``Retry-After: 3``
    is sent again after 3 s, by the client. The operator's API proxy ends its watch of
    ModelServices and answers the next watch 429 with the header; the operator's next watch
    of ModelServices must reach the proxy no sooner than 3 s after that answer, with no list
    in between, and a ModelService created afterwards converges.

    Retry-After binds every request of the process, a watch as much as a write (CONTRACT.md
    "Errors"): client-go's REST client waits for it before it sends a watch again, as for
    any other request. A client that leaves the answer to the informer's own backoff (under
    a second) comes back before the API server asked it to.
    """
    with operators.api_proxy() as proxy:
        op = operators.start(api_proxy=proxy)
        set_up(lambda: wait_settled(op), "settling before the fault is armed")
        proxy.inject_write_error(
            1, 429, retry_after=WATCH_RETRY_AFTER_S, resources=["modelservices"], watch=True
        )
        ended = proxy.end_watches(["modelservices"])
        premise(
            sum(ended.values()) > 0,
            f"the operator should have had a watch of modelservices to end; it had {ended}",
        )
        span = _refused_then_watching(proxy, "modelservices", 429)
        create_modelservice(admin, namespace, "web", replicas=1)
        wait_converged(admin, namespace, "web")
    refused, again = span[0], span[-1]
    gap = seconds(again.start) - seconds(refused.end or refused.start)
    shown = [f"{r.verb} -> {r.code}{' (injected)' if r.injected else ''}" for r in span]
    evidence.record("after_refusal", shown)
    evidence.record("next_watch_after_s", round(gap, 3))
    assert gap >= WATCH_RETRY_AFTER_S - WATCH_RETRY_AFTER_GRACE_S, (
        f"the operator's watch of modelservices was answered 429 with Retry-After: "
        f"{WATCH_RETRY_AFTER_S}, and it watched again {gap:.3f} s later ({shown}): a watch, "
        "like any request, is sent again only after the seconds the API server asked for "
        "(client-go's REST client)"
    )
    assert not [r for r in span if r.verb == "list"], (
        f"after a watch start answered 429 with Retry-After the operator listed again: {shown}"
    )
