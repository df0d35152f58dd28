"""Ports the harness hands out: free when picked and never handed out twice while reserved
(an operator's metrics and health ports once came out equal, and it could not start)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import process
from harness.process import PORT_RESERVATION_S, free_port, reserve_port


@pytest.fixture
def reservations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "ports"
    monkeypatch.setattr(process, "PORT_RESERVATIONS", folder)
    return folder


def test_a_reserved_port_is_not_reserved_again_until_stale(reservations: Path) -> None:
    assert reserve_port(25000, now=1000.0)
    assert not reserve_port(25000, now=1000.0)
    os.utime(reservations / "25000", (1000.0, 1000.0))
    assert not reserve_port(25000, now=1000.0 + PORT_RESERVATION_S - 1)
    assert reserve_port(25000, now=1000.0 + PORT_RESERVATION_S + 1)
    assert not reserve_port(25000, now=1000.0 + PORT_RESERVATION_S + 2)


def test_picks_are_distinct(reservations: Path) -> None:
    # 300 picks from 12,768 ports: without the reservations two would coincide with
    # probability about 97 % (the birthday bound).
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)
    assert sorted(int(p.name) for p in reservations.iterdir()) == sorted(ports)
