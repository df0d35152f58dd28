"""Implementations are declared in TOML files; a bad declaration names the file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.operators import ImplementationError, get_implementation, load_implementations


def test_default_implementations() -> None:
    impls = load_implementations()
    assert {"go", "python"} <= set(impls)
    assert impls["go"].user == "modeldock:go"
    assert impls["python"].command[1:] == ("-m", "python_operator")


def test_extra_file_adds_an_implementation(tmp_path: Path) -> None:
    f = tmp_path / "mine.toml"
    f.write_text('[kopf]\ntitle = "kopf"\ncommand = ["kopf", "run", "op.py"]\n')
    impl = get_implementation("kopf", [f])
    assert impl.command == ("kopf", "run", "op.py")
    assert impl.workdir == tmp_path


def test_missing_command_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('[broken]\ntitle = "x"\n')
    with pytest.raises(ImplementationError, match=r"bad.toml: \[broken\] needs command"):
        load_implementations([f])


def test_unknown_implementation_lists_the_known_ones() -> None:
    with pytest.raises(ImplementationError, match="declared: go, python"):
        get_implementation("rust")
