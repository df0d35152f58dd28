"""external-effect-once: an effect outside the cluster happens once per generation, crash or not.

Replicas can be recomputed and written again as often as a reconcile runs; a registration in
an external catalog cannot be undone by running again. At-least-once delivery (a reconcile
may run any number of times, a process may die after any request) makes it happen once only
with a durable request identity that the outside world recognises: the operator registers
each ModelService generation with the model catalog (harness/catalog, a real process with
SQLite storage) under the Idempotency-Key ``<uid>/<generation>``, and the catalog answers a
key it has seen with the original registration (CONTRACT.md, "The model catalog").

Each case crashes the operator (SIGKILL, no operator code: the API proxy or the catalog
reports the boundary) at one boundary around the catalog call and the status write, restarts
it, and then changes the spec once (generation 2). The catalog must then hold exactly one
effect for generation 1 and one for generation 2, and the status names the catalog's
registration of the current generation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.support import (
    CONVERGE_TIMEOUT,
    REACT_TIMEOUT,
    create_modelservice,
    premise,
    wait_requests_quiet,
)
from harness.catalog import CATALOG_URL_ENV, Catalog
from harness.catalog.server import UNRECORDED_ID
from harness.faults.apiproxy import ApiProxy
from harness.kube import Kube, wait_for
from harness.lab.pool import OperatorPool
from harness.operators import OperatorProcess
from harness.plugin.evidence import Evidence
from harness.process import ProcessError

NAME = "web"

#: A boundary: given the API proxy and the catalog, arm it (before the ModelService is
#: created) and return a function that waits until the operator reached it (the harness then
#: SIGKILLs it) and returns what was seen there, for the evidence.
Boundary = Callable[[ApiProxy, Catalog], Callable[[], dict[str, Any]]]


def _registered(admin: Kube, namespace: str, generation: int) -> Callable[[], Any]:
    def fetch() -> Any:
        ms = admin.get("modelservices", namespace, NAME) or {}
        catalog = (ms.get("status") or {}).get("catalog") or {}
        return catalog if catalog.get("generation") == generation else None

    return fetch


def _effects_of(catalog: Catalog, namespace: str) -> list[dict[str, Any]]:
    return [e for e in catalog.effects() if e["name"] == f"{namespace}/{NAME}"]


def _start_with_catalog(
    operators: OperatorPool, proxy: ApiProxy, env: dict[str, str]
) -> OperatorProcess:
    """The operator, started with ``env`` (the test catalog's http:// URL) and ready. An
    operator that exits before /readyz refused a valid configuration (CONTRACT.md: any
    http(s) URL with a host is a catalog): that is the check's failure, not a premise's
    (mutants refuses-http-catalog, refuses-http-catalog-go)."""
    try:
        return operators.start(api_proxy=proxy, env=env)
    except ProcessError as exc:
        raise AssertionError(
            f"the operator did not start with {CATALOG_URL_ENV}={env[CATALOG_URL_ENV]!r}, "
            f"a valid http:// URL of a catalog that answers: {exc}"
        ) from None


def _run(
    admin: Kube,
    namespace: str,
    operators: OperatorPool,
    evidence: Evidence,
    tmp_path: Path,
    boundary: Boundary,
) -> None:
    with Catalog(tmp_path / "catalog") as catalog:
        env = {CATALOG_URL_ENV: catalog.url}
        proxy = operators.api_proxy(env=env)
        op: OperatorProcess = _start_with_catalog(operators, proxy, env)
        reached = boundary(proxy, catalog)
        create_modelservice(admin, namespace, NAME, replicas=1)
        seen = reached()
        op.kill()
        proxy.ack_crash()
        proxy.clear_faults()
        catalog.release()
        evidence.record("boundary", seen)
        evidence.record("effects_at_crash", [e["key"] for e in _effects_of(catalog, namespace)])
        op.start()

        first = wait_for(
            _registered(admin, namespace, 1),
            bool,
            CONVERGE_TIMEOUT,
            f"status.catalog of ModelService {namespace}/{NAME} to name generation 1 after "
            "the restart",
        )
        wait_requests_quiet(op)
        effects = _effects_of(catalog, namespace)
        evidence.record("effects_generation_1", effects)
        assert len(effects) == 1, (
            f"the catalog holds {len(effects)} registrations of generation 1 after a crash "
            f"at this boundary and a restart, expected exactly one: keys "
            f"{[e['key'] for e in effects]}. Every attempt of one generation must carry the "
            "same durable request identity (Idempotency-Key <uid>/<generation>, CONTRACT.md "
            '"The model catalog"), so that the catalog recognises a registration it already '
            "recorded"
        )
        assert first["registration"] == effects[0]["id"], (
            f"status.catalog names registration {first['registration']!r}, the catalog "
            f"recorded {effects[0]['id']!r}"
        )

        admin.patch("modelservices", namespace, NAME, {"spec": {"replicas": 2}})
        second = wait_for(
            _registered(admin, namespace, 2),
            bool,
            CONVERGE_TIMEOUT,
            f"status.catalog of ModelService {namespace}/{NAME} to name generation 2",
        )
        wait_requests_quiet(op)
        effects = _effects_of(catalog, namespace)
        evidence.record("effects", effects)
        assert len(effects) == 2 and second["registration"] == effects[1]["id"], (
            f"after generation 2 the catalog holds {len(effects)} registrations of "
            f"{namespace}/{NAME} (keys {[e['key'] for e in effects]}), status.catalog "
            f"{second}; expected exactly one per generation, the second named in the status"
        )


def _answer_lost(proxy: ApiProxy, catalog: Catalog) -> Callable[[], dict[str, Any]]:
    catalog.hold_answers(1)

    def reached() -> dict[str, Any]:
        held = catalog.wait_held(CONVERGE_TIMEOUT)
        assert held, (
            f"the operator did not register generation 1 with the catalog within "
            f"{CONVERGE_TIMEOUT:.0f} s of the create, with {CATALOG_URL_ENV} set (CONTRACT.md, "
            '"The model catalog")'
        )
        return {"catalog_recorded_and_held_answer_of": held}

    return reached


def _crash_at_write(resource: str, nth: int, subresource: str, delivered: bool = False) -> Boundary:
    def arm(proxy: ApiProxy, catalog: Catalog) -> Callable[[], dict[str, Any]]:
        proxy.crash_after_write(nth, delivered=delivered, resources=[resource])

        def reached() -> dict[str, Any]:
            report = proxy.wait_crash(CONVERGE_TIMEOUT + REACT_TIMEOUT)
            premise(report.get("triggered"), f"the operator made no write {nth} of {resource}")
            req = report.get("request") or {}
            premise(
                (req.get("subresource") or "") == subresource,
                f"write {nth} of {resource} was expected to be of subresource "
                f"{subresource or '(none)'}; it was {req}",
            )
            return {"crash": report.get("variant"), "request": req}

        return reached

    return arm


@pytest.mark.modeldock_check("external-effect-once")
def test_answer_lost(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence, tmp_path: Path
) -> None:
    """external-effect-once: killed after the catalog recorded the registration of generation
    1 and before its answer arrived (the catalog holds the answer; the harness SIGKILLs the
    operator). The effect happened and the operator never learned it; restarted, it registers
    again, and with the same request identity the catalog answers with the original and
    records nothing new. A fresh key per attempt records a second effect."""
    _run(admin, namespace, operators, evidence, tmp_path, _answer_lost)


@pytest.mark.modeldock_check("external-effect-once", case="before-call")
def test_before_call(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence, tmp_path: Path
) -> None:
    """external-effect-once[before-call]: killed at the create of the Service (the API proxy
    forwards it and withholds the answer), before the catalog was called: restarted, the
    operator registers generation 1 once."""
    _run(admin, namespace, operators, evidence, tmp_path, _crash_at_write("services", 1, ""))


@pytest.mark.modeldock_check("external-effect-once", case="status-lost")
def test_status_lost(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence, tmp_path: Path
) -> None:
    """external-effect-once[status-lost]: killed at the status write that records the
    catalog's answer (the API proxy forwards it and withholds the answer; the ModelService's
    writes are the finalizer, then the status): the status holds the registration, so the
    restarted operator registers nothing more for generation 1."""
    _run(
        admin,
        namespace,
        operators,
        evidence,
        tmp_path,
        _crash_at_write("modelservices", 2, "status"),
    )


@pytest.mark.modeldock_check("external-effect-once", case="status-conflict")
def test_status_conflict(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence, tmp_path: Path
) -> None:
    """external-effect-once[status-conflict]: the status write that records the catalog's
    answer is answered 409 Conflict (by the API proxy, not forwarded), as when the cache was
    behind; the next reconcile registers generation 1 again. With the same request identity
    the catalog records nothing new. Then the operator is killed and restarted as in the
    other cases, with nothing left to register for generation 1."""

    def arm(proxy: ApiProxy, catalog: Catalog) -> Callable[[], dict[str, Any]]:
        proxy.inject_write_error(2, 409, resources=["modelservices"])

        def reached() -> dict[str, Any]:
            faults = wait_for(
                proxy.faults,
                lambda f: all(x.get("fired") for x in f.get("write_faults", [])),
                CONVERGE_TIMEOUT,
                "the API proxy to answer the status write with 409",
                premise=True,
            )
            wait_for(
                _registered(admin, namespace, 1),
                bool,
                CONVERGE_TIMEOUT,
                "status.catalog to name generation 1 after the 409",
            )
            return {"injected": faults.get("write_faults")}

        return reached

    _run(admin, namespace, operators, evidence, tmp_path, arm)


@pytest.mark.modeldock_check("external-effect-once", case="server-error-id")
def test_server_error_id(
    admin: Kube, namespace: str, operators: OperatorPool, evidence: Evidence, tmp_path: Path
) -> None:
    """external-effect-once[server-error-id]: the catalog answers the first registration of
    generation 1 with 500 and a body that carries an id, and records nothing (its storage
    failed after it chose the id). Only a 200 or 201 with an id is a registration (CONTRACT.md,
    "The model catalog"): the operator retries the same key, the catalog records it, and the
    status names the recorded registration, never the failed answer's id. Then the operator
    is killed and restarted as in the other cases, with nothing left to register for
    generation 1. An operator that reads the id whatever the code (mutants
    trusts-failed-registration, trusts-failed-registration-go) writes the failed answer's id
    and leaves the catalog without an effect for generation 1."""

    def arm(proxy: ApiProxy, catalog: Catalog) -> Callable[[], dict[str, Any]]:
        catalog.fail_registrations(1)

        def reached() -> dict[str, Any]:
            wait_for(
                catalog.failed,
                bool,
                CONVERGE_TIMEOUT,
                "the catalog to answer the first registration with 500",
                premise=True,
            )
            recorded = wait_for(
                _registered(admin, namespace, 1),
                bool,
                CONVERGE_TIMEOUT,
                "status.catalog to name generation 1 after the catalog's 500",
            )
            assert recorded["registration"] != UNRECORDED_ID, (
                f"status.catalog names {recorded['registration']!r}, the id of an answer 500 "
                "that recorded nothing: only a 200 or 201 with an id is a registration; any "
                "other answer is a failure, retried with the same key"
            )
            return {"failed": catalog.failed(), "recorded": recorded}

        return reached

    _run(admin, namespace, operators, evidence, tmp_path, arm)
