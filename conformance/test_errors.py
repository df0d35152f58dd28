"""errors-retried: an API server that answers "not now" is asked again, when it says, and until
it says yes.

Two answers of the API server say nothing about the request itself, only about the server at
that moment: 429 TooManyRequests (its priority and fairness is shedding load) and a 5xx (an
internal error, an unavailable backend). Both are to be retried, and neither may be retried
carelessly: a server that sent ``Retry-After: R`` has asked for R seconds of quiet from this
request, and a server in trouble that gets every failed request back at once is kept in
trouble. The rules are client-go's (CONTRACT.md, "Errors"): an answer with Retry-After is sent
again by the client after R seconds; a 5xx without it goes back to the work queue, which
retries the key with its backoff (5 ms, doubling per failure).

The operator runs behind its own API proxy, which answers the scripted writes itself (they
never reach the API server) and logs every request with its own clock: the times judged here
are the proxy's, never the harness's nor the operator's word.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

import pytest

from conformance.premises import set_up
from conformance.support import (
    CONVERGE_TIMEOUT,
    actual_deployment_fields,
    actual_service_fields,
    condition,
    controller_ref,
    create_modelservice,
    describe_event,
    diff_fields,
    expected_deployment_fields,
    expected_service_fields,
    get_present,
    operator_events,
    premise,
    wait_converged,
    wait_events_settled,
    wait_settled,
)
from harness.faults.apiproxy import ApiProxy
from harness.faults.apiproxy.records import ProxyRequest, RequestLog, seconds
from harness.kube import Kube
from harness.lab.pool import OperatorPool
from harness.operators import OperatorProcess
from harness.plugin.evidence import Evidence

#: The Retry-After the API proxy sends with its 429 and its 503, in whole seconds (the header's
#: form client-go reads). Long enough that a retry through the work queue (milliseconds) is
#: far below it, short enough for the case to take seconds.
RETRY_AFTER_S = 2
#: How much earlier than Retry-After the next request may reach the proxy: the log's
#: timestamps are cut to microseconds, and a timer never fires early; the rest is slack for
#: clock granularity, far below a retry that ignored the header (milliseconds after).
RETRY_AFTER_GRACE_S = 0.02
#: The request timeout the operator runs with in errors-retried[retry-after-deadline]
#: (REQUEST_TIMEOUT_SECONDS, a contract input: 3 s instead of 35, so the case takes seconds),
#: and the Retry-After, longer than it, of the 429 that case injects.
DEADLINE_ENV = {"REQUEST_TIMEOUT_SECONDS": "3"}
DEADLINE_S = 3.0
LONG_RETRY_AFTER_S = 7
#: Slack under the deadline in that case: the client starts its clock before the request
#: reaches the proxy, so the proxy may see the next request a little less than 3 s after.
DEADLINE_GRACE_S = 0.25
#: client-go's Request.maxRetries (rest/request.go, v0.34): answers with Retry-After are sent
#: again at most this many times, so the answer to the eleventh attempt is the request's error.
MAX_RETRIES = 10
#: A load balancer's or a proxy's error page: no Kubernetes Status, a text/html body. Plain
#: words (no quotes, no newline), so that Go's quoting of it (%q) keeps them as they are.
PROXY_PAGE = "<html><body>502 Bad Gateway - modeldock apiproxy page</body></html>"
#: How many answers 500 and 503 (alternately, without Retry-After) the finalizer update gets in
#: a row before one is let through.
SERVER_ERRORS = 10
#: The work queue's backoff of a failing key (CONTRACT.md step 7, client-go's default
#: controller rate limiter): the retry after the n-th failure in a row waits at least
#: BACKOFF_BASE_S * 2**(n-1). Ten failures span at least 5.1 s; a retry every 100 ms
#: (mutants no-backoff, no-backoff-go) is too early from the sixth on.
BACKOFF_BASE_S = 0.005
#: How many of the operator's updates of Deployment web in a row its API proxy answers 409
#: Conflict in stale-update-conflict[child-409]: enough that the retries span a second and
#: more (5 ms * (2**8 - 1) = 1.3 s of backoff), so a refused-write status written after
#: each 409 stays long enough to be read, few enough for the case to take seconds.
CHILD_CONFLICTS = 8
#: How often stale-update-conflict[child-409] reads the ModelService while the 409s last.
STATUS_POLL_S = 0.05
#: Slack under each backoff bound: timestamps cut to microseconds, nothing more (a timer
#: never fires early, and the backoff starts after the answer the gap is measured from).
BACKOFF_GRACE_S = 0.001
#: errors-retried[server-error], once converged: how late the retry of the key's next failure
#: may come. The ten failures were followed by a success, which resets the key's backoff
#: (client-go's Forget): the next failure is a first one again, retried 5 ms later, and the
#: rest is slack for a loaded machine. A key whose count was never reset waits 5 ms * 2**10 =
#: 5.12 s (mutants never-forgets, never-forgets-go).
FORGOTTEN_RETRY_BOUND_S = 1.0


def _start(
    operators: OperatorPool, proxy: ApiProxy, env: dict[str, str] | None = None
) -> OperatorProcess:
    """The operator behind ``proxy`` (with ``env`` added to its environment), settled with
    nothing to do (no ModelService yet): a set-up wait, whose timeout is an unmet premise
    (verdict ``error``), the fault not armed. Returns the operator."""
    op = operators.start(api_proxy=proxy, env=env) if env else operators.start(api_proxy=proxy)
    set_up(lambda: wait_settled(op), "settling before the faults are armed")
    return op


def _operator_log(proxy: ApiProxy) -> list[ProxyRequest]:
    """Every request of the operator the proxy logged, the ones it answered itself included,
    in the order they reached it, once every forwarded one has its answer logged."""
    proxy.settle(5.0)
    proxy.mark()
    return sorted(RequestLog(proxy.request_log).records(), key=lambda r: (seconds(r.start), r.id))


def _answered_at(r: ProxyRequest) -> float:
    """When the proxy had answered r (epoch seconds): its end, or its start when it has none."""
    return seconds(r.end or r.start)


def _line(r: ProxyRequest, origin: float) -> str:
    """``+1.234s create deployments web -> 429 (injected)``: one request for the evidence."""
    sub = f"/{r.subresource}" if r.subresource else ""
    injected = " (injected)" if r.injected else ""
    return (
        f"+{seconds(r.start) - origin:.3f}s {r.verb} {r.resource}{sub} {r.name} -> "
        f"{r.code}{injected}"
    )


def _exact_children(
    admin: Kube, namespace: str, name: str, log: list[ProxyRequest], evidence: Evidence
) -> None:
    """The children are exactly the contract's, controlled by the ModelService, each created
    by one create the API server accepted and never deleted: a retry made no second child and
    replaced none."""
    msvc = get_present(admin, "modelservices", namespace, name)
    uid = msvc["metadata"]["uid"]
    for resource, expected, actual in (
        ("deployments", expected_deployment_fields, actual_deployment_fields),
        ("services", expected_service_fields, actual_service_fields),
    ):
        child = get_present(admin, resource, namespace, name)
        diffs = diff_fields(expected(msvc), actual(child))
        assert not diffs, f"{resource} {name} differs from the desired one: {diffs}"
        ref = controller_ref(child) or {}
        assert ref.get("uid") == uid, (
            f"{resource} {name} must be controlled by ModelService {name} (uid {uid}); its "
            f"controller ownerReference is {ref or None}"
        )
        mine = [r for r in log if r.resource == resource and r.name == name and r.forwarded]
        created = [r for r in mine if r.verb == "create" and r.code == 201]
        deleted = [r for r in mine if r.verb == "delete"]
        evidence.record(f"{resource}_created", len(created))
        assert len(created) == 1 and not deleted, (
            f"{resource} {name}: {len(created)} accepted creates and {len(deleted)} deletes; "
            "one create and no delete make exactly one child"
        )


def _retry_after_success(admin: Kube, namespace: str, name: str, proxy: ApiProxy) -> dict[str, Any]:
    """Once ``name`` converged after its failures: arm one 500 on the next write of the
    ModelService, overwrite its status's observedGeneration (7) so that the operator must
    write it back, and wait until it did. The 500 changes nothing, so no watch event follows
    it: only the work queue brings the key back. Returns ``{"answered": ..., "next": ...,
    "gap_s": seconds from the 500's answer to the next status update, proxy's clock}``;
    premises: the 500 went to a status update and another followed."""
    proxy.inject_write_error(1, 500, resources=["modelservices"])
    msvc = get_present(admin, "modelservices", namespace, name)
    msvc.setdefault("status", {})["observedGeneration"] = 7
    admin.update("modelservices", msvc, subresource="status")
    wait_converged(admin, namespace, name)
    log = _operator_log(proxy)
    statuses = [
        r
        for r in log
        if r.resource == "modelservices" and r.name == name and r.subresource == "status"
    ]
    failed = next((i for i, r in enumerate(statuses) if r.injected and r.code == 500), None)
    premise(
        failed is not None and failed + 1 < len(statuses),
        "the API proxy should have answered the operator's status update of the converged "
        f"ModelService {name} 500, and the operator written it again; its status updates: "
        f"{[f'{r.verb} -> {r.code}' for r in statuses]}",
    )
    assert failed is not None
    refused, retry = statuses[failed], statuses[failed + 1]
    return {
        "answered": f"{refused.verb} status -> 500",
        "next": f"{retry.verb} status -> {retry.code}",
        "gap_s": round(seconds(retry.start) - _answered_at(refused), 4),
    }


@pytest.mark.modeldock_check("errors-retried", case="retry-after")
def test_retry_after_is_honoured(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """errors-retried[retry-after]: an answer that says when to ask again is obeyed. The
    operator's finalizer update of ModelService ``web`` is answered 500 InternalError, its
    create of Deployment ``web`` 429 TooManyRequests and its create of Service ``web`` 503
    ServiceUnavailable, each with ``Retry-After: 2``, by its API proxy. The operator's next
    request for that object must reach the proxy no sooner than 2 s after the answer (the
    proxy's timestamps), no Warning Event may tell of the answers (the client sent the
    request again itself: the reconcile never saw them), and the ModelService must converge
    with exactly the desired children.

    client-go's REST client does this by itself (rest.Request, v0.34): an answer 429, or 5xx,
    with a Retry-After of whole seconds is sent again after that many seconds, up to 10 times
    within the request's timeout; the reconcile never sees it. An operator that treats the
    answer as an ordinary error retries through the work queue a few milliseconds later,
    against a server that has just asked it for two seconds of quiet: under real overload that
    is exactly the traffic priority and fairness is trying to shed.
    """
    name = "web"
    with operators.api_proxy() as proxy:
        _start(operators, proxy)
        proxy.inject_write_error(1, 500, retry_after=RETRY_AFTER_S, resources=["modelservices"])
        proxy.inject_write_error(1, 429, retry_after=RETRY_AFTER_S, resources=["deployments"])
        proxy.inject_write_error(1, 503, retry_after=RETRY_AFTER_S, resources=["services"])
        msvc = create_modelservice(admin, namespace, name, replicas=1)
        wait_converged(admin, namespace, name)
        log = _operator_log(proxy)
        wait_events_settled(admin, namespace)
    evidence.record("retry_after_s", RETRY_AFTER_S)
    origin = seconds(log[0].start) if log else 0.0
    evidence.record("requests", [_line(r, origin) for r in log if r.name == name])
    for resource, code in (("modelservices", 500), ("deployments", 429), ("services", 503)):
        about = [r for r in log if r.resource == resource and r.name == name]
        refused = next((r for r in about if r.injected and r.code == code), None)
        premise(
            refused is not None,
            f"the API proxy should have answered the operator's first write of {resource} "
            f"{name} {code} with Retry-After; it logged {[_line(r, origin) for r in about]}",
        )
        assert refused is not None
        answered = _answered_at(refused)
        after = [
            r for r in about if r.id != refused.id and seconds(r.start) >= seconds(refused.start)
        ]
        assert after, f"after the {code} the operator never asked for {resource} {name} again"
        gap = seconds(after[0].start) - answered
        evidence.record(
            f"waited_{resource}",
            {
                "answered": f"{refused.verb} -> {code}, Retry-After {RETRY_AFTER_S}",
                "next": f"{after[0].verb} -> {after[0].code}",
                "after_s": round(gap, 3),
            },
        )
        assert gap >= RETRY_AFTER_S - RETRY_AFTER_GRACE_S, (
            f"{resource} {name}: the API server answered the operator's {refused.verb} {code} "
            f"with Retry-After: {RETRY_AFTER_S}, and its next request for that object "
            f"({after[0].verb}) reached the API proxy {gap:.3f} s later. A 429, or a 5xx with "
            "Retry-After, is sent again after the seconds it asks for (client-go's REST "
            "client, up to 10 times), not handed back to the work queue to be retried within "
            "milliseconds"
        )
    warnings = [
        describe_event(e)
        for e in operator_events(admin, namespace, msvc["metadata"]["uid"])
        if e.get("type") == "Warning"
    ]
    evidence.record("warnings", warnings)
    assert not warnings, (
        f"the answers with Retry-After reached the reconcile: {warnings}. The client sends the "
        "request again itself after the wait (client-go's REST client), and the reconcile "
        "sees only the answer to that, not an error it would report"
    )
    _exact_children(admin, namespace, name, log, evidence)


def _sends_after(log: list[ProxyRequest], first: ProxyRequest) -> list[ProxyRequest]:
    """The requests for first's object (resource, name) that reached the proxy after first."""
    return [
        r
        for r in log
        if r.resource == first.resource
        and r.name == first.name
        and r.id != first.id
        and seconds(r.start) >= seconds(first.start)
    ]


def _warnings(admin: Kube, namespace: str, uid: str) -> list[str]:
    """The operator's Warning Events about the object with ``uid``, as describe lines."""
    events = operator_events(admin, namespace, uid)
    return [describe_event(e) for e in events if e.get("type") == "Warning"]


@pytest.mark.modeldock_check("errors-retried", case="retry-after-deadline")
def test_retry_after_past_deadline(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """errors-retried[retry-after-deadline]: a Retry-After that reaches past the request's
    timeout ends the request at its deadline. The operator runs with a 3 s request timeout
    (REQUEST_TIMEOUT_SECONDS); its create of Deployment ``web`` is answered 429 with
    ``Retry-After: 7``. The operator's next request for that object (the work queue's retry of
    the reconcile, which got the timeout) must reach the proxy no sooner than 3 s after the
    refused create (less 0.25 s: the client's clock starts before the proxy's) and sooner
    than the 7 s asked for; after the 429 the API server must receive one create, whose
    answer the operator read (a Normal CreatedDeployment Event), not a create sent at the
    deadline and left unread (the next one answered AlreadyExists); the create that ended at
    its deadline must be reported as a failed write (a Warning FailedCreate), not sent again
    at the deadline with its answer used, nor kept quiet; then it converges with exactly the
    desired children. Mutants: waits-past-deadline(-go); timeout-unreported(-go).

    client-go's REST client waits for a Retry-After under the request's context, whose
    deadline is the client's Timeout: a wait that would pass it ends at the deadline with a
    timeout error, and the request is not sent again. A client that waits the whole
    Retry-After holds a worker past its timeout (and a request sent after its deadline may
    do its work after the caller has given up on it).
    """
    name = "web"
    with operators.api_proxy() as proxy:
        _start(operators, proxy, env=DEADLINE_ENV)
        proxy.inject_write_error(1, 429, retry_after=LONG_RETRY_AFTER_S, resources=["deployments"])
        msvc = create_modelservice(admin, namespace, name, replicas=1)
        wait_converged(admin, namespace, name)
        log = _operator_log(proxy)
        wait_events_settled(admin, namespace)
    evidence.record("operator_env", DEADLINE_ENV)
    evidence.record("retry_after_s", LONG_RETRY_AFTER_S)
    about = [r for r in log if r.resource == "deployments" and r.name == name]
    origin = seconds(about[0].start) if about else 0.0
    evidence.record("requests", [_line(r, origin) for r in about])
    refused = next((r for r in about if r.injected and r.code == 429), None)
    premise(
        refused is not None,
        f"the API proxy should have answered the operator's first create of deployments {name} "
        f"429; it logged {[_line(r, origin) for r in about]}",
    )
    assert refused is not None
    after = _sends_after(log, refused)
    assert after, f"after the 429 the operator never asked for deployments {name} again"
    gap = seconds(after[0].start) - seconds(refused.start)
    evidence.record("next_after_s", round(gap, 3))
    assert gap >= DEADLINE_S - DEADLINE_GRACE_S, (
        f"the operator's create of deployments {name} was answered 429 with Retry-After: "
        f"{LONG_RETRY_AFTER_S}, and its next request for it came {gap:.3f} s after that create: "
        f"before the request's timeout ({DEADLINE_S:g} s) had passed, so the client neither "
        "waited for the Retry-After nor until its deadline"
    )
    assert gap < LONG_RETRY_AFTER_S, (
        f"the operator's create of deployments {name} was answered 429 with Retry-After: "
        f"{LONG_RETRY_AFTER_S}, and its next request for it came {gap:.3f} s after that create, "
        f"past the request's timeout of {DEADLINE_S:g} s (REQUEST_TIMEOUT_SECONDS): a wait "
        "for a Retry-After that would pass the request's deadline ends at the deadline, with "
        "a timeout error (client-go: the request's context), and the request is not sent again"
    )
    creates = [f"{r.verb} -> {r.code}" for r in after if r.verb == "create" and r.forwarded]
    told = [
        describe_event(e)
        for e in operator_events(admin, namespace, msvc["metadata"]["uid"])
        if e.get("reason") == "CreatedDeployment"
    ]
    evidence.record("creates_after", creates)
    evidence.record("created_events", told)
    warnings = [
        e
        for e in operator_events(admin, namespace, msvc["metadata"]["uid"])
        if e.get("type") == "Warning"
    ]
    evidence.record("warnings", [describe_event(e) for e in warnings])
    assert creates == ["create -> 201"] and told, (
        f"after the 429 the API server received the creates {creates} of deployments {name}, "
        f"and the operator recorded {told or 'no'} CreatedDeployment Event: the refused "
        "create was sent again at its deadline and its answer never read (the Deployment "
        "made unseen, the next try answered AlreadyExists). A request whose deadline has "
        "come is not sent again; the work queue's retry sends one create, and reads its answer"
    )
    failed = [describe_event(e) for e in warnings if e.get("reason") == "FailedCreate"]
    assert failed, (
        f"the operator's create of deployments {name} ended at its deadline (the 429's "
        f"Retry-After: {LONG_RETRY_AFTER_S} passes the {DEADLINE_S:g} s timeout), yet it "
        "recorded no Warning FailedCreate about the ModelService: a request that ends at its "
        "deadline is the write's error, which the reconcile reports like any failed write. "
        "None means the create was sent again at the deadline and its answer used, or the "
        f"timeout kept quiet; Warnings recorded: {[describe_event(e) for e in warnings]}"
    )
    _exact_children(admin, namespace, name, log, evidence)


@pytest.mark.modeldock_check("errors-retried", case="retry-after-exhausted")
def test_retry_after_exhausted(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """errors-retried[retry-after-exhausted]: answers that ask for a retry in a way the client
    does not follow, or too often, reach the reconcile as the request's error. The operator's
    API proxy answers its creates of Deployment ``web`` 429 with ``Retry-After: 0`` eleven
    times in a row; its first create of Service ``web`` 429 with a Retry-After in HTTP-date
    form (an hour ahead), its second 502 with a load balancer's text/html page, no Status.

    client-go sends a request again after an answer with Retry-After at most 10 times (11
    attempts): the eleventh 429 is the create's error, which the reconcile reports as a
    refused write (a Warning Event about the ModelService) and the work queue retries. It
    reads Retry-After as whole seconds only: an HTTP-date is no Retry-After, so that 429 is
    the create's error at once (a Warning), not a wait of an hour. An answer without a Status
    is an error like any other: its Warning carries the page's text, and nothing panics (the
    no-panic oracle). The ModelService then converges with exactly the desired children.
    """
    name = "web"
    in_an_hour = email.utils.formatdate(time.time() + 3600, usegmt=True)
    with operators.api_proxy() as proxy:
        _start(operators, proxy)
        for n in range(1, MAX_RETRIES + 2):
            proxy.inject_write_error(n, 429, retry_after="0", resources=["deployments"])
        proxy.inject_write_error(1, 429, retry_after=in_an_hour, resources=["services"])
        proxy.inject_write_error(2, 502, page=PROXY_PAGE, resources=["services"])
        msvc = create_modelservice(admin, namespace, name, replicas=1)
        wait_converged(admin, namespace, name)
        log = _operator_log(proxy)
        fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
        wait_events_settled(admin, namespace)
    origin = seconds(log[0].start) if log else 0.0
    evidence.record("requests", [_line(r, origin) for r in log if r.name == name])
    premise(
        len(fired) == MAX_RETRIES + 3,
        f"the API proxy should have answered {MAX_RETRIES + 3} creates itself; it answered "
        f"{len(fired)}",
    )
    warnings = _warnings(admin, namespace, msvc["metadata"]["uid"])
    evidence.record("warnings", warnings)
    expected = {
        f"the {MAX_RETRIES + 1}th answer 429 (Retry-After: 0) to the Deployment's create": (
            "Deployment",
            "injected 429",
        ),
        "the answer 429 with an HTTP-date Retry-After to the Service's create": (
            "Service",
            "injected 429",
        ),
        "the answer 502 with a text/html page to the Service's create": ("Service", PROXY_PAGE),
    }
    missing = [
        what
        for what, (kind, words) in expected.items()
        if not any(kind in w and words in w for w in warnings)
    ]
    assert not missing, (
        f"no Warning reports {'; '.join(missing)}: the operator's Warnings are {warnings}. A "
        f"request is sent again after answers with Retry-After at most {MAX_RETRIES} times, "
        "only for a Retry-After of whole seconds (client-go's REST client), and any other "
        "failed answer, a Status or not, is the request's error, reported as a refused write"
    )
    _exact_children(admin, namespace, name, log, evidence)


@pytest.mark.modeldock_check("errors-retried", case="server-error")
def test_server_errors_are_retried_with_backoff(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """errors-retried[server-error]: a 5xx without Retry-After is retried, with backoff, until
    it succeeds. The operator's API proxy answers its first ten writes of the ModelService (the
    finalizer update, step 3) 500 InternalError and 503 ServiceUnavailable in turn, without
    Retry-After, and lets the eleventh through; each 503 is a bare Status, without details,
    as the API server's own 503 comes (apimachinery's NewServiceUnavailable), and an operator
    that reads the details of every answer to word its Warning panics on it (the no-panic
    oracle, harness/panics.py). The operator must try again after each, each
    retry at least as late as the work queue's backoff puts it (5 ms after the first failure,
    doubling per failure, measured on the proxy's clock from the answer to the next attempt),
    and converge with exactly the desired children. The success resets the key's backoff:
    once settled, its status overwritten, the operator's status update that restores it is
    answered 500 too, and its retry must come within 1 s (5 ms after a first failure), not
    after the 5.12 s an eleventh failure in a row would wait.

    client-go hands a 5xx without Retry-After back as the reconcile's error, and the
    rate-limited work queue retries the key: nothing else would bring it back, since a write
    that failed changed nothing and no watch event follows. The finalizer update is the
    write chosen because of that: before it no child exists, so no child's event can start an
    extra reconcile, and every attempt seen is a retry the backoff scheduled. An operator that
    drops the error never converges; one that retries at a fixed short interval comes back
    too early once the doubling passes it.
    """
    name = "web"
    with operators.api_proxy() as proxy:
        op = _start(operators, proxy)
        codes = [500 if n % 2 else 503 for n in range(1, SERVER_ERRORS + 1)]
        for n, code in enumerate(codes, start=1):
            # The 503s are bare, a Status without details, as the API server's own
            # (apierrors.NewServiceUnavailable); the 500s name the object in theirs.
            proxy.inject_write_error(n, code, resources=["modelservices"], bare=code == 503)
        create_modelservice(admin, namespace, name, replicas=1)
        wait_converged(admin, namespace, name)
        log = _operator_log(proxy)
        fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
        set_up(lambda: wait_settled(op), "settling after the first convergence")
        forgotten = _retry_after_success(admin, namespace, name, proxy)
    evidence.record("after_success", forgotten)
    assert forgotten["gap_s"] <= FORGOTTEN_RETRY_BOUND_S, (
        f"after the finalizer update succeeded, the next failure of {name} (its status "
        f"update answered 500) was retried {forgotten['gap_s']:.3f} s later, more than "
        f"{FORGOTTEN_RETRY_BOUND_S:g} s: a success resets the key's backoff (client-go's "
        "Forget), so its next failure is a first one, retried after 5 ms, not after the "
        "backoff of the ten failures before (CONTRACT.md step 7)"
    )
    premise(
        len(fired) == SERVER_ERRORS,
        f"the API proxy should have answered {SERVER_ERRORS} writes of the ModelService "
        f"itself; it answered {len(fired)}",
    )
    # The updates of the ModelService itself (the finalizer), not of its status.
    updates = [
        r
        for r in log
        if r.resource == "modelservices"
        and r.name == name
        and r.verb == "update"
        and not r.subresource
    ]
    origin = seconds(updates[0].start) if updates else 0.0
    evidence.record("updates", [_line(r, origin) for r in updates])
    injected = updates[:SERVER_ERRORS]
    premise(
        [r.code for r in injected] == codes and all(r.injected for r in injected),
        f"the operator's first {SERVER_ERRORS} updates of ModelService {name} should be the "
        f"ones the proxy answered {codes}; they were {[_line(r, origin) for r in injected]}",
    )
    assert len(updates) > SERVER_ERRORS and updates[SERVER_ERRORS].code == 200, (
        f"after {SERVER_ERRORS} answers 5xx the operator must try the finalizer update again "
        f"until it succeeds; its updates: {[_line(r, origin) for r in updates]}"
    )
    accepted = [r for r in updates if r.code == 200]
    assert len(accepted) == 1, (
        f"the finalizer is added by one update; the API server accepted {len(accepted)}"
    )
    gaps = []
    early = []
    for n in range(1, SERVER_ERRORS + 1):
        gap = seconds(updates[n].start) - _answered_at(updates[n - 1])
        bound = BACKOFF_BASE_S * 2 ** (n - 1)
        gaps.append({"after_failure": n, "gap_s": round(gap, 4), "at_least_s": bound})
        if gap < bound - BACKOFF_GRACE_S:
            early.append(
                f"retry after failure {n}: {gap * 1000:.1f} ms, at least {bound * 1000:g} ms"
            )
    evidence.record("backoff", gaps)
    assert not early, (
        f"the operator retried the finalizer update after {SERVER_ERRORS} answers 5xx, but "
        f"not with backoff: {'; '.join(early)}. A 5xx without Retry-After goes back to the "
        "rate-limited work queue, whose retry of a failing key waits 5 ms, doubling per "
        "failure (CONTRACT.md step 7)"
    )
    _exact_children(admin, namespace, name, log, evidence)


@pytest.mark.modeldock_check("stale-update-conflict", case="child-409")
def test_child_conflict_is_retried_quietly(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence
) -> None:
    """stale-update-conflict[child-409]: a 409 on a child write is retried, quietly. The
    ModelService has converged; its replicas change from 1 to 2, and the operator's API proxy
    answers its next 8 updates of Deployment web 409 Conflict (the answer to a write based on
    an object that changed meanwhile) and lets the ninth through. The operator must retry
    until the Deployment has 2 replicas, and meanwhile say nothing about it: no status with
    FailedUpdate (the harness reads the ModelService every 50 ms while the 409s last) and no
    Warning Event.

    A 409 says only that the operator's cache was behind: the next reconcile reads a newer
    one and recomputes (CONTRACT.md, step 7 and "A refused child write"). Reporting it as a
    refused write tells the user the spec is wrong when nothing is, costs a status write per
    409 and another to take it back, and a Warning asks someone to act on optimistic
    concurrency doing its job.
    """
    name = "web"
    with operators.api_proxy() as proxy:
        _start(operators, proxy)
        msvc = create_modelservice(admin, namespace, name, replicas=1)
        set_up(
            lambda: wait_converged(admin, namespace, name), "the first convergence, before the 409s"
        )
        for n in range(1, CHILD_CONFLICTS + 1):
            proxy.inject_write_error(n, 409, resources=["deployments"])
        admin.patch("modelservices", namespace, name, {"spec": {"replicas": 2}})
        seen: list[tuple[str, str]] = []
        deadline = time.monotonic() + CONVERGE_TIMEOUT
        converged = None
        while converged is None and time.monotonic() < deadline:
            current = admin.get("modelservices", namespace, name) or {}
            ready = condition(current, "Ready") or {}
            state = (str(ready.get("status")), str(ready.get("reason")))
            if state not in seen:
                seen.append(state)
            dep = admin.get("deployments", namespace, name) or {}
            if (dep.get("spec") or {}).get("replicas") == 2:
                converged = wait_converged(admin, namespace, name)
            else:  # every status while the 409s last, at a fixed gap (wait_for backs off)
                time.sleep(STATUS_POLL_S)  # style: allow-sleep-loop each status must be seen
        fired = [f for f in proxy.faults()["write_faults"] if f.get("fired")]
        events = wait_events_settled(admin, namespace)
    evidence.record("ready_seen", [f"{s} {r}" for s, r in seen])
    premise(
        len(fired) == CHILD_CONFLICTS,
        f"the API proxy should have answered {CHILD_CONFLICTS} updates of Deployment {name} "
        f"409; it answered {len(fired)}",
    )
    assert converged is not None, (
        f"after {CHILD_CONFLICTS} answers 409 the operator must update Deployment {name} "
        f"again, from a fresh read, until it succeeds; it has not within {CONVERGE_TIMEOUT:g} s"
    )
    reported = [f"{s} {r}" for s, r in seen if r in ("FailedUpdate", "FailedCreate")]
    assert not reported, (
        f"a 409 on the Deployment's update was reported in the status as a refused write "
        f"(Ready {reported}): a 409 only says the cache was behind, and is retried quietly"
    )
    warnings = [
        describe_event(e)
        for e in operator_events(admin, namespace, msvc["metadata"]["uid"])
        if e.get("type") == "Warning"
    ]
    evidence.record("warnings", warnings)
    evidence.record("events_in_namespace", len(events))
    assert not warnings, (
        f"a 409 on the Deployment's update recorded {warnings}: a Warning is for what a user "
        "may have to act on, not for optimistic concurrency doing its job"
    )
