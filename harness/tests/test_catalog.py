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
