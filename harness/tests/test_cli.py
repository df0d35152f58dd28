"""harness.cli: one command line with a sub-command per job, each with its --help; the
delegated jobs (bench, mutants, rbac-ablation) get their own parser's --help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import cli

#: Seconds a ``python -m harness`` subprocess may take: generous, as the tests judge what it
#: says, not how fast a machine under a load of 40 starts Python.
SUBPROCESS_TIMEOUT = 600

#: An option only the delegated job's own parser has.
OWN_OPTION = {
    "bench": "--quick",
    "mutants": "--mutant",
    "rbac-ablation": "--unit",
    "generate": "--sequences",
    "replay": "--quiet",
}

COMMANDS = (
    "conformance",
    "report",
    "bench",
    "mutants",
    "rbac-ablation",
    "generate",
    "replay",
    "binaries",
    "up",
    "down",
)


def test_every_command_is_listed_in_the_top_level_help() -> None:
    text = cli.build_parser().format_help()
    for command in COMMANDS:
        assert command in text


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_answers_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """In-process: the test is about the parsers, not how fast a loaded machine starts Python."""
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code in (0, None)
    out = capsys.readouterr().out
    assert "usage:" in out
    if command in cli.DELEGATED:  # the job's own parser answered, not the wrapper's
        assert OWN_OPTION[command] in out


def test_conformance_arguments_reach_the_job() -> None:
    args = cli.build_parser().parse_args(
        ["conformance", "--impl", "go", "--reports", "/tmp/r", "--", "-k", "noop"]
    )
    assert args.impl == ["go"]
    assert args.reports == "/tmp/r"
    assert args.pytest_args == ["-k", "noop"]


@pytest.mark.parametrize("command", ["conformance", "mutants"])
def test_a_bad_converge_timeout_stops_every_command_first_in_one_line(command: str) -> None:
    """Checked before anything starts: not a collection error in each pytest worker after a
    control plane came up (seen: 54 s, 1324 lines of tracebacks for MODELDOCK_CONVERGE_TIMEOUT=abc)."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", command],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        env={**os.environ, "MODELDOCK_CONVERGE_TIMEOUT": "abc"},
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "[modeldock] MODELDOCK_CONVERGE_TIMEOUT='abc': give the convergence bound in seconds, "
        "a positive number (unset: 60)"
    ]


def test_a_failing_build_is_its_output_and_exit_2(tmp_path: Path) -> None:
    """Not an ImplementationError traceback and exit code 1 (the code of failed checks), and
    said before a control plane is started for nothing."""
    impl_file = tmp_path / "bad.toml"
    impl_file.write_text(
        '[bad]\ntitle = "bad"\nbuild = ["sh", "-c", "echo compile error >&2; exit 1"]\n'
        'command = ["true"]\n'
    )
    (tmp_path / "tmp").mkdir()
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "harness", "conformance", "--impl-file", str(impl_file)),
            *("--impl", "bad", "--check", "noop-stable", "--reports", str(tmp_path / "reports")),
        ],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        env={**os.environ, "TMPDIR": str(tmp_path / "tmp")},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "building implementation 'bad' failed" in proc.stderr
    assert "compile error" in proc.stderr
    assert "[control-plane]" not in proc.stderr + proc.stdout, "built before any plane starts"


@pytest.mark.parametrize(
    ("check", "says"),
    [
        ("noop-stabel", ("--check: no check ['noop-stabel']",)),
        (
            "leader-failover[partitioned]",
            (
                "--check: no case ['leader-failover[partitioned]']; cases of that check: "
                "leader-failover, ",
                " leader-failover[partitioned-leader],",
            ),
        ),
    ],
)
def test_an_unknown_check_or_case_is_one_line_and_exit_2(
    check: str, says: tuple[str, ...], tmp_path: Path
) -> None:
    """Refused before anything starts, the last reports left as they were: an unknown case
    used to start a control plane, select no test, and end in a pytest-xdist INTERNALERROR
    after deleting the previous JUnit files."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "junit-go.xml").write_text("<testsuites/>")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "conformance",
            "--check",
            check,
            "--reports",
            str(reports),
        ],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and all(part in lines[0] for part in says), lines
    assert (reports / "junit-go.xml").read_text() == "<testsuites/>"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--ci"], "not with --ci, --rest or --from-junit"),
        (["--rest"], "not with --ci, --rest or --from-junit"),
        (["--from-junit"], "not with --ci, --rest or --from-junit"),
        (["--mutant", "no-owns"], "no-owns not declared with `explore`"),
        (["--mutant", "remembers-status"], "remembers-status not declared with `explore` and no"),
    ],
)
def test_exploration_only_refuses_what_would_judge_something_else(
    args: list[str], says: str, tmp_path: Path
) -> None:
    """--exploration-only runs the whole suite anew against the mutants only exploration
    finds; a subset, a rebuild, or another mutant would print a verdict about something else.
    Refused with exit 2 before anything starts."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "mutants",
            "--exploration-only",
            *args,
            "--reports",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr
    assert not (tmp_path / "exploration-only").exists()


def test_rest_refuses_ci_and_from_junit(tmp_path: Path) -> None:
    """--rest is the complement of --ci's pairs: both at once, or a rebuild, is exit 2."""
    for other in ("--ci", "--from-junit"):
        proc = subprocess.run(
            [sys.executable, "-m", "harness", "mutants", "--rest", other],
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_TIMEOUT,
            cwd=tmp_path,
        )
        assert proc.returncode == 2, proc.stderr
        assert "--rest runs the pairs --ci leaves out" in proc.stderr


def test_interrupts_exit_128_plus_the_signal() -> None:
    from harness import exitcodes

    assert exitcodes.for_interrupt(KeyboardInterrupt("signal 15")) == 143
    assert exitcodes.for_interrupt(KeyboardInterrupt()) == 130


def test_a_missing_kubeconfig_file_is_named_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.kubeconfig"
    assert cli.main(["existing-cleanup", "--kubeconfig", str(missing)]) == 2
    assert f"--kubeconfig {missing}: no such file" in capsys.readouterr().err


def test_kubeconfig_flag_becomes_kubeconfig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "admin.kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\n")
    monkeypatch.setenv("KUBECONFIG", "/elsewhere")
    args = cli.build_parser().parse_args(["conformance", "--kubeconfig", str(config)])
    assert args.kubeconfig == str(config)


@pytest.mark.parametrize("command", ["report", "accounting-check"])
def test_a_junit_file_that_is_not_xml_is_named_and_exit_2(command: str, tmp_path: Path) -> None:
    (tmp_path / "junit-go.xml").write_text("<junk")
    proc = subprocess.run(
        [sys.executable, "-m", "harness", command, "--reports", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{tmp_path / 'junit-go.xml'}: not a JUnit XML file" in lines[0]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["replay", "{tmp}/missing.yaml"], "{tmp}/missing.yaml: no such file"),
        (["replay", "{tmp}"], "{tmp}: is a folder"),
        (["generate", "--steps", "0"], "--steps 0: give a number of at least 1"),
        (["generate", "--impl", "nosuch"], "unknown implementation(s) ['nosuch']; known: go"),
    ],
)
def test_generate_and_replay_refuse_bad_input_before_starting(
    argv: list[str], says: str, tmp_path: Path
) -> None:
    """One line and exit 2, where a traceback (and exit 1) used to come after a control plane
    started, or from hypothesis."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *(a.format(tmp=tmp_path) for a in argv)],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says.format(tmp=tmp_path) in lines[0], lines


def test_serve_is_internal_and_named_nowhere_a_user_looks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "serve" not in cli.build_parser().format_help()
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(["no-such-command"])
    assert exc.value.code == 2
    assert "serve" not in capsys.readouterr().err  # the list of choices leaves it out
    args = cli.build_serve_parser().parse_args(["--state-dir", "/tmp/x", "--cluster", "sim"])
    assert (args.command, args.state_dir, args.cluster) == (cli.SERVE, "/tmp/x", "sim")


def test_down_stops_the_state_dir_the_last_up_used(tmp_path: Path) -> None:
    from harness.envtest import background

    default, other, last_up = tmp_path / "up", tmp_path / "elsewhere", tmp_path / "up.last"
    assert background.state_dir_to_stop(None, last_up, default) == default  # no up yet
    other.mkdir()
    (other / "state.json").write_text('{"supervisor_pid": 1}')
    last_up.write_text(f"{other}\n")
    assert background.state_dir_to_stop(None, last_up, default) == other
    assert background.state_dir_to_stop(default, last_up, default) == default  # as given
    (other / "state.json").unlink()  # that one is down: the default again
    assert background.state_dir_to_stop(None, last_up, default) == default


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["explore", "--impl", "nope"], "--impl nope: unknown implementation; known: "),
        (["explore", "--impl", "go", "--scenario", "nope"], "unknown scenario 'nope'; known"),
        (["explore", "--case", "nope@write-1-withheld"], "unknown scenario 'nope'; known"),
        (["explore", "--variants", "bogus"], "--variants bogus: give some of"),
        (["explore", "--reports", "/etc/hostname"], "--reports /etc/hostname: is a file"),
        (["conformance", "--reports", "/proc/x"], "--reports /proc/x: cannot make it"),
        (["conformance", "--reports", "/etc/hostname"], "--reports /etc/hostname: is a file"),
    ],
)
def test_explore_and_conformance_refuse_bad_input_in_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line and exit 2 before a control plane starts, where a traceback (ImplementationError,
    KeyError, FileNotFoundError, FileExistsError) and exit 1 used to come."""
    assert cli.main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines


def test_up_says_the_down_that_stops_it(tmp_path: Path) -> None:
    from harness.envtest import background

    assert background.down_command(background.DEFAULT_STATE_DIR) == "python -m harness down"
    assert background.down_command(tmp_path) == f"python -m harness down --state-dir {tmp_path}"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bench", "--sizes", "-5"], "--sizes -5: -5 is not a number of at least 1"),
        (["bench", "--sizes", "a,b"], "--sizes a,b: give whole numbers"),
        (["bench", "--repeats", "0"], "--repeats 0: give a number of at least 1"),
        (["bench", "--quiet-seconds", "-1"], "--quiet-seconds -1.0: give a number of seconds"),
        (["bench", "--scaling-workers", "1,0"], "--scaling-workers 1,0: 0 is not a number"),
        (["bench", "--rss-size", "7"], "--rss-size 7: not among --sizes"),
        (["rbac-ablation", "--jobs", "-1"], "--jobs -1: give a number of at least 1"),
        (["mutants", "--workers", "0"], "--workers 0: give a number of at least 1"),
        (["mutation-score", "--sample", "0"], "--sample 0: draws no mutant"),
        (["lesson", "--jobs", "0"], "--jobs 0: give a number of at least 1"),
        (["explore", "--workers", "0"], "--workers 0: give a number above 0"),
        (["explore", "--max-k", "-1"], "--max-k -1: give 0"),
        (["generate", "--quiet", "0"], "--quiet 0.0: give a number of seconds above 0"),
        (["generate", "--shrink-seconds", "-1"], "--shrink-seconds -1.0: give 0"),
    ],
)
def test_every_number_is_checked_before_anything_starts(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A number out of range is one line naming the option and exit 2, before a control plane
    starts (bench --sizes -5 used to start one and panic in the floor client)."""
    assert cli.main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
