"""The command ``python -m harness.bench`` (``make bench``): options, then build the
implementations, start one control plane, run the phases, write ``reports/bench.json`` and
print the figures as a table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness import exitcodes
from harness.bench.measure import command_output, machine_info
from harness.bench.phases import Runner, bench_control_plane
from harness.bench.results import floor_gaps, missing_figures
from harness.bench.settings import DEFAULT_OUT, LOG_DIR, say, settings_from_args
from harness.bench.tables import render_cpu, render_floor_table, render_spread, render_table

DESCRIPTION = (
    "``make bench``: benchmarks of the implementations (docs/design.md, section "
    '"Measurements"), not timed tests.'
)


def _versions(cp: Any, admin: Any) -> tuple[str, str]:
    try:
        api = str(admin.request("GET", "/version").get("gitVersion", ""))
    except Exception:
        api = ""
    etcd = ""
    try:
        from harness.envtest import binaries

        out = command_output([str(binaries.ensure(["etcd"])["etcd"]), "--version"])
        m = re.search(r"etcd Version: (\S+)", out)
        etcd = m.group(1) if m else ""
    except Exception:
        pass
    return api, etcd


def build_parser() -> argparse.ArgumentParser:
    """The options of ``python -m harness.bench`` (``make bench BENCH_ARGS=...``)."""
    parser = argparse.ArgumentParser(prog="python -m harness bench", description=DESCRIPTION)
    parser.add_argument(
        "--impl",
        action="append",
        help="implementation id (repeatable; default: go, python); ratios are <each>/<first>",
    )
    parser.add_argument(
        "--impl-file", action="append", default=[], help="extra implementations TOML"
    )
    parser.add_argument("--sizes", default="100,500,1000", help="N for throughput (comma list)")
    parser.add_argument("--latency-objects", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3, help="latency runs per implementation")
    parser.add_argument(
        "--throughput-repeats",
        type=int,
        default=3,
        help="runs per N (each N = --restart-size run also measures a restart, "
        "each N = --rss-size run peak RSS and a quiet period)",
    )
    parser.add_argument("--quiet-seconds", type=float, default=30.0)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="MAX_CONCURRENT_RECONCILES for every implementation (default 1, "
        "the contract's default)",
    )
    parser.add_argument(
        "--scaling-workers",
        default="1,4,16",
        help="worker counts (MAX_CONCURRENT_RECONCILES) of the scaling runs, "
        "comma list; empty: none",
    )
    parser.add_argument(
        "--scaling-size", type=int, default=1000, help="N of the scaling runs (default 1000)"
    )
    parser.add_argument(
        "--scaling-repeats",
        type=int,
        default=3,
        help="runs per worker count and implementation (default 3: the figure is the median)",
    )
    parser.add_argument(
        "--capacity-concurrency",
        default="64",
        help="concurrencies of the write-capacity runs (the floor client's writes with that "
        "many goroutines), comma list; empty: none",
    )
    parser.add_argument(
        "--capacity-size",
        type=int,
        default=0,
        help="N of the write-capacity runs (default the largest of --sizes)",
    )
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="skip the floor client's runs (no go/floor, python/floor)",
    )
    parser.add_argument(
        "--restart-size", type=int, default=0, help="N for the SIGKILL restart (default 500)"
    )
    parser.add_argument(
        "--rss-size",
        type=int,
        default=0,
        help="N for peak RSS and the quiet period (default the largest)",
    )
    parser.add_argument(
        "--py-spy",
        action="append",
        default=[],
        metavar="IMPL",
        help="record a py-spy profile of this (Python) implementation's operator during each "
        "throughput run, first create to Events written (repeatable; harness.bench.profile); "
        "raw stacks and the top frames in build/bench/, the summaries in bench.json's "
        "profiles",
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument(
        "--keep",
        action="store_true",
        help=f"keep the control plane's folder (audit log, logs) in {LOG_DIR / 'control-plane'}",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: N = 20, 10 latency objects once, 5 s quiet, worker scaling 1,4 at N = 40",
    )
    return parser


def _int_list(option: str, text: str) -> tuple[list[int], str | None]:
    """The comma list of ``option``, each a number of at least 1; or the one line naming it."""
    try:
        values = [int(x) for x in (text or "").split(",") if x.strip()]
    except ValueError:
        return [], f"{option} {text}: give whole numbers, comma-separated (e.g. 100,500)"
    bad = [v for v in values if v < 1]
    if bad:
        return [], f"{option} {text}: {bad[0]} is not a number of at least 1; give such numbers"
    return values, None


def bench_problem(args: argparse.Namespace) -> str | None:
    """What of the bench's arguments would fail only once its control plane is up (the floor
    client's ``makeslice`` panic for a negative N), in one line naming the option and the fix
    (as ``generate``'s ``generate_problem``); None when it can start."""
    sizes, said = _int_list("--sizes", args.sizes)
    if said:
        return said
    if not sizes and not args.quick:
        return "--sizes: give at least one N, e.g. --sizes 100,500"
    for option, text in (
        ("--scaling-workers", args.scaling_workers),
        ("--capacity-concurrency", args.capacity_concurrency),
    ):
        said = _int_list(option, text)[1]
        if said:
            return said
    for option, value in (
        ("--latency-objects", args.latency_objects),
        ("--repeats", args.repeats),
        ("--throughput-repeats", args.throughput_repeats),
        ("--workers", args.workers),
        ("--scaling-size", args.scaling_size),
        ("--scaling-repeats", args.scaling_repeats),
    ):
        if value < 1:
            return f"{option} {value}: give a number of at least 1"
    if args.quiet_seconds <= 0:
        return f"--quiet-seconds {args.quiet_seconds}: give a number of seconds above 0"
    for option, value in (
        ("--capacity-size", args.capacity_size),
        ("--restart-size", args.restart_size),
        ("--rss-size", args.rss_size),
    ):
        if value < 0:
            return f"{option} {value}: give 0 (the default) or a number of at least 1"
    if args.quick:
        return None
    restart = args.restart_size or (
        500 if 500 in sizes else sorted(set(sizes))[len(set(sizes)) // 2]
    )
    for option, value in (("--restart-size", restart), ("--rss-size", args.rss_size)):
        if value and value not in sizes:
            return f"{option} {value}: not among --sizes {args.sizes}; give one of them"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the bench and write bench.json. Exit code: 0 every figure measured, 1 a figure
    missing (``results.missing_figures``, ``results.floor_gaps``) or a phase failed (bench.json written all the same), 2 an unknown or unbuildable
    implementation, 3 the control plane failed, 130 after Ctrl-C, 143 after SIGTERM (nothing written)."""
    args = build_parser().parse_args(argv)
    problem = bench_problem(args)
    if problem:
        say(problem)
        return exitcodes.BAD_ARGUMENT

    from harness import runs
    from harness.envtest import binaries
    from harness.envtest.controlplane import ControlPlaneError
    from harness.operators import ImplementationError, load_implementations

    settings = settings_from_args(args)
    runs.own(say)  # claim the run, reap dead ones, SIGTERM unwinds like Ctrl-C
    try:
        impls = load_implementations(args.impl_file)
        unknown = [i for i in settings.impls if i not in impls]
        if unknown:
            say(f"unknown implementation(s) {unknown}; declared: {sorted(impls)}")
            return 2
        binaries.ensure(binaries.ENVTEST_BINARIES)
        for impl_id in settings.impls:
            say(f"building {impl_id}")
            impls[impl_id].run_build()
    except ImplementationError as exc:
        say(str(exc))
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C while building: no traceback, as below
        say("interrupted; processes stopped, nothing written")
        return exitcodes.for_interrupt(exc)
    say(f"settings: {json.dumps({k: v for k, v in asdict(settings).items()})}")
    try:
        workdir = None
        if args.keep:
            workdir = LOG_DIR / "control-plane"
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir(parents=True)
        with bench_control_plane(workdir) as cp:
            bench = Runner(cp, impls, settings)
            api, etcd = _versions(cp, bench.admin)
            machine = machine_info(api, etcd)
            machine["max_concurrent_reconciles"] = settings.workers
            # after every run, what is measured so far (a bench stopped midway leaves it)
            bench.partial = (Path(args.out).with_suffix(".partial.json"), machine)
            bench.run()
            machine["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
            machine["bench_seconds"] = round(time.monotonic() - bench.started)
            report = bench.report(machine)
    except ControlPlaneError as exc:
        say(f"control plane failed: {exc}")
        return 3
    except KeyboardInterrupt as exc:
        say("interrupted; processes stopped, nothing written")
        return exitcodes.for_interrupt(exc)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs.write_text_atomic(out, json.dumps(report, indent=2) + "\n")
    print(render_table(report))
    for extra in (render_floor_table(report), render_spread(report), render_cpu(report)):
        if extra:
            print("\n" + extra)
    for impl_id, det in report["details"].items():
        for kind, info in det["failed_writes"].items():
            print(f"{impl_id}: {info['count']} x {kind}: {info['cause']}")
    missing = missing_figures(report) + floor_gaps(report)
    say(f"wrote {out}" + (f"; missing figures: {', '.join(missing)}" if missing else ""))
    for err in report["errors"]:
        say(f"error: {err}")
    return 1 if missing or report["errors"] else 0
