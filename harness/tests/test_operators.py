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


def test_expected_failures_and_role_are_read(tmp_path: Path) -> None:
    (tmp_path / "role.yaml").write_text("kind: ClusterRole\n")
    f = tmp_path / "implementation.toml"
    f.write_text(
        '[other]\ncommand = ["op"]\nrole = "role.yaml"\n'
        '[other.expected_failures]\n"noop-stable" = "writes an annotation"\n'
        '"watch-recovers[api-restart]" = "gives up"\n'
    )
    impl = get_implementation("other", [f])
    assert impl.expected_failures == {
        "noop-stable": "writes an annotation",
        "watch-recovers[api-restart]": "gives up",
    }
    assert impl.role == (tmp_path / "role.yaml").resolve()
    defaults = load_implementations()
    assert all(i.expected_failures == {} and i.role is None for i in defaults.values())


@pytest.mark.parametrize(
    "table",
    [
        'expected_failures = ["noop-stable"]',
        'expected_failures = { "noop-stable" = "" }',
        'expected_failures = { "noop-stable" = 1 }',
    ],
)
def test_expected_failures_need_a_reason_each(tmp_path: Path, table: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(f'[other]\ncommand = ["op"]\n{table}\n')
    with pytest.raises(ImplementationError, match=r"bad.toml: \[other\] expected_failures"):
        load_implementations([f])


def test_an_expected_failure_may_be_declared_not_strict(tmp_path: Path) -> None:
    f = tmp_path / "implementation.toml"
    f.write_text(
        '[other]\ncommand = ["op"]\n[other.expected_failures]\n'
        '"child-repaired" = "never"\n'
        '"watch-recovers[compaction-410]" = { reason = "a race", strict = false }\n'
    )
    impl = get_implementation("other", [f])
    assert impl.expected_failures == {
        "child-repaired": "never",
        "watch-recovers[compaction-410]": "a race",
    }
    assert impl.unstrict_failures == {"watch-recovers[compaction-410]"}
