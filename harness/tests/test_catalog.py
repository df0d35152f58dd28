"""The model catalog (harness/catalog): a real process, a real SQLite file."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from harness.catalog import Catalog

BODY = {"name": "ns/web", "model": "m", "image": "img:1", "endpoint": "http://web.ns.svc:8000"}


@pytest.fixture
def catalog(tmp_path: Path):  # type: ignore[no-untyped-def]
    with Catalog(tmp_path) as c:
        yield c


def test_new_key_records_one_effect_and_replays(catalog: Catalog) -> None:
    code, doc = catalog.register("uid-1/1", **BODY)
    assert code == 201 and doc["id"] == "reg-1" and doc["key"] == "uid-1/1"
    again, replayed = catalog.register("uid-1/1", **BODY)
    assert again == 200 and replayed == doc
    code2, doc2 = catalog.register("uid-1/2", **BODY)
    assert code2 == 201 and doc2["id"] == "reg-2"
    assert [e["key"] for e in catalog.effects()] == ["uid-1/1", "uid-1/2"]


def test_refusals_name_the_field(catalog: Catalog) -> None:
    code, doc = catalog.register("", **BODY)
    assert code == 400 and "Idempotency-Key" in doc["error"]
    code, doc = catalog.register("k", **{**BODY, "image": ""})
    assert code == 400 and "field image" in doc["error"]
    catalog.register("k", **BODY)
    code, doc = catalog.register("k", **{**BODY, "image": "img:2"})
    assert code == 422 and "another body" in doc["error"]
    assert len(catalog.effects()) == 1


def test_effects_survive_a_restart(tmp_path: Path) -> None:
    with Catalog(tmp_path) as c:
        c.register("k1", **BODY)
    rows = sqlite3.connect(tmp_path / "catalog.sqlite").execute("SELECT key FROM effects")
    assert [r[0] for r in rows] == ["k1"]
    with Catalog(tmp_path) as c:
        assert c.register("k1", **BODY)[0] == 200
        assert [e["key"] for e in c.effects()] == ["k1"]


def test_held_answer_is_recorded_before_it_is_answered(catalog: Catalog) -> None:
    catalog.hold_answers(1)
    answers: list[int] = []
    t = threading.Thread(target=lambda: answers.append(catalog.register("k", **BODY)[0]))
    t.start()
    assert catalog.wait_held(10) == ["k"]
    assert [e["key"] for e in catalog.effects()] == ["k"] and not answers
    catalog.release()
    t.join(10)
    assert answers == [201]
    # disarmed: the next one is answered at once
    assert catalog.register("k2", **BODY)[0] == 201


def test_failed_registration_has_an_id_and_records_nothing(catalog: Catalog) -> None:
    catalog.fail_registrations(1)
    code, doc = catalog.register("k", **BODY)
    assert code == 500 and doc["id"] == "reg-unrecorded" and "nothing recorded" in doc["error"]
    assert catalog.effects() == [] and catalog.failed() == ["k"]
    # one failure armed: the retry of the same key records the effect, as new
    code, doc = catalog.register("k", **BODY)
    assert code == 201 and doc["id"] == "reg-1"
    assert catalog.failed() == ["k"]


def _ms(generation: int, stored: dict[str, object] | None = None) -> dict[str, object]:
    ms: dict[str, object] = {
        "metadata": {"name": "web", "namespace": "ns", "uid": "u-1", "generation": generation}
    }
    if stored is not None:
        ms["status"] = {"catalog": stored}
    return ms


def test_python_operator_registers_each_generation_once(catalog: Catalog) -> None:
    """python_operator.catalog against the real catalog: the key is <uid>/<generation>, a
    retry gets the original id, a registered generation is not sent again."""
    from python_operator import catalog as op_catalog
    from python_operator.runtime import log as log_

    client = op_catalog.CatalogClient(catalog.url)
    rlog = log_.get_logger("test")
    status: dict[str, object] = {"url": "http://web.ns.svc:8000"}
    op_catalog.register_in_catalog(client, _ms(1), "m", "img", "", status, rlog)
    assert status["catalog"] == {"generation": 1, "key": "u-1/1", "registration": "reg-1"}
    retry: dict[str, object] = {"url": "http://web.ns.svc:8000"}
    op_catalog.register_in_catalog(client, _ms(1), "m", "img", "", retry, rlog)
    assert retry["catalog"] == status["catalog"]
    kept = {"url": "x", "catalog": status["catalog"]}
    op_catalog.register_in_catalog(None, _ms(1), "m", "img", "", kept, rlog)
    op_catalog.register_in_catalog(client, _ms(1), "m", "img", "", kept, rlog)
    op_catalog.register_in_catalog(client, _ms(2), "m", "img", "conflict", kept, rlog)
    assert [e["key"] for e in catalog.effects()] == ["u-1/1"]
    op_catalog.register_in_catalog(client, _ms(2), "m", "img", "", kept, rlog)
    assert kept["catalog"] == {"generation": 2, "key": "u-1/2", "registration": "reg-2"}


def test_python_operator_catalog_errors_name_the_variable(catalog: Catalog) -> None:
    from python_operator import catalog as op_catalog

    assert op_catalog.catalog_from_env({}) is None
    with pytest.raises(ValueError, match="MODELDOCK_CATALOG_URL"):
        op_catalog.catalog_from_env({"MODELDOCK_CATALOG_URL": "catalog:80"})
    client = op_catalog.CatalogClient(catalog.url)
    with pytest.raises(op_catalog.CatalogError, match="HTTP 400: field model"):
        client.register("k", {"name": "n", "model": "", "image": "i", "endpoint": "e"})


def test_compute_status_keeps_the_stored_catalog() -> None:
    """The catalog's answer survives every status the operator computes (python_operator
    compute_status; Go computeStatus does the same), and a status without one gets none."""
    from datetime import UTC, datetime

    from python_operator import controller

    ms: dict[str, object] = {
        "metadata": {"name": "web", "namespace": "ns", "uid": "u", "generation": 2},
        "spec": {"model": "m", "image": "i", "replicas": 1, "port": 8000},
    }
    spec = controller.read_spec(ms)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert "catalog" not in controller.compute_status(ms, spec, None, "", now)
    stored = {"generation": 1, "key": "u/1", "registration": "reg-1"}
    ms["status"] = {"catalog": stored}
    assert controller.compute_status(ms, spec, None, "conflict", now)["catalog"] == stored
