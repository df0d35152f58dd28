"""``python -m harness lesson`` (``make lesson``): run what the lesson draws, on one control
plane, and write ``reports/lesson.{md,html}``.

On one envtest control plane, side by side: the conformance suite's testcases the lesson
draws (``story.cases``) for the Go and the Python implementation, and each mutant the lesson
draws (``story.mutants``) against its one testcase; the JUnit files go to
``reports/lesson/`` (``junit-<impl>.xml``, ``mutants/junit-<mutant>.xml``), apart from
``make conformance``'s, with this run's comparison report beside them
(``reports/lesson/comparison.{md,html}``, linking back to the lesson). Then the lesson is
rendered from those files (``harness.lesson.evidence``, ``harness.lesson.render``);
``--from-junit`` only renders. ``--lang zh-CN`` writes ``lesson.zh-CN.{md,html}`` (and the
comparison in Chinese) as well. Exit code: 0 written and every real implementation passed
what it ran and every mutant was caught; 1 written but not so; 2 bad input; 3 no control
plane.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import exitcodes, mutants, report, runs, say
from harness.checks import base_check, check_functions
from harness.i18n import LANGS
from harness.lesson import render, story
from harness.lesson.evidence import LESSON_DIR, Evidence, load
from harness.paths import REPORTS_DIR
from harness.runs import write_text_atomic

#: The real implementations the lesson compares.
IMPLS = ("go", "python")


_say = say.to("lesson")


def functions_of(cases: Iterable[str], functions: Mapping[str, list[str]]) -> list[str]:
    """The test functions of ``cases`` (check ids or ``id[case]``, ``check_functions``'
    keys): for a case its function, for a plain id of a check that has cases the one function
    no case names. Cases the suite does not have are left out."""
    out: list[str] = []
    for case in cases:
        if case not in functions:
            continue
        cased = {
            f for k, fs in functions.items() if k.startswith(f"{base_check(case)}[") for f in fs
        }
        own = functions[case] if "[" in case else [f for f in functions[case] if f not in cased]
        out += [f for f in own if f not in out]
    return out


def k_expression(wanted: Iterable[str], functions: Mapping[str, list[str]]) -> str:
    """A pytest ``-k`` expression selecting exactly the test functions ``wanted``: ``-k``
    matches substrings, so every other function whose name contains a wanted one is excluded
    (``test_noop_stable`` would select ``test_noop_stable_long_quiet`` too)."""
    wanted = list(wanted)
    every = {f for fs in functions.values() for f in fs}
    others = sorted(f for f in every - set(wanted) if any(w in f for w in wanted))
    expr = " or ".join(wanted)
    return f"({expr}) and not ({' or '.join(others)})" if others else expr


def mutant_titles() -> dict[str, str]:
    """mutant id -> its title in mutants.toml, for the mutants the lesson draws."""
    declared = mutants.declared()
    return {m: str(declared.get(m, {}).get("title", m)) for m in story.mutants()}


def run(folder: Path, jobs: int) -> dict[str, int]:
    """Run the lesson's testcases for ``IMPLS`` and its mutants on one envtest control plane,
    ``jobs`` suites at a time, into ``folder``; return pytest's exit code per suite (an id
    absent: its suite did not start)."""
    from harness.envtest import binaries
    from harness.envtest.controlplane import ControlPlane
    from harness.operators import load_implementations
    from harness.suite import run_suite, stop_suites

    functions = check_functions()
    real = functions_of(story.cases(), functions)
    impls = load_implementations([])
    for impl in IMPLS:
        _say(f"building {impl}")
        impls[impl].run_build()
    binaries.ensure(binaries.ENVTEST_BINARIES)
    (folder / "mutants").mkdir(parents=True, exist_ok=True)
    for path in [*folder.glob("junit-*.xml"), *(folder / "mutants").glob("junit-*.xml")]:
        path.unlink()
    suites: dict[str, tuple[Path, list[str], list[str]]] = {
        impl: (folder, real, []) for impl in IMPLS
    }
    for mutant, case in story.mutants().items():
        suites[mutant] = (
            folder / "mutants",
            functions_of([case], functions),
            [str(mutants.MUTANTS_FILE)],
        )
    codes: dict[str, int] = {}
    with ControlPlane(tier="envtest") as cp:

        def one(who: str) -> None:
            out, wanted, files = suites[who]
            if not wanted:
                return
            workers = "0" if len(wanted) == 1 else str(min(4, len(wanted)))
            extra = ["-n", workers, "--tb=line", "--modeldock-cluster=envtest"]
            extra += ["-k", k_expression(wanted, functions)]
            t0 = time.monotonic()
            log = out / f"pytest-{who}.log"
            codes[who] = run_suite(who, cp.state_path, out, extra, files, log)
            _say(f"{who}: pytest exit code {codes[who]} in {time.monotonic() - t0:.0f}s")

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            try:
                list(pool.map(one, list(suites)))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                stop_suites()
                raise
    return codes


def write(reports: Path, lang: str) -> tuple[list[Path], Evidence]:
    """Render the lesson from ``reports/lesson/`` in ``lang``: ``reports/lesson.{md,html}``
    (``lesson.<lang>.{md,html}`` for a language other than English) and this run's
    comparison report in ``reports/lesson/``, linking back. Returns the paths and the
    evidence read."""
    from harness.operators import load_implementations

    folder = reports / LESSON_DIR
    ev = load(folder, load_implementations([]), mutant_titles())
    suffix = "" if lang == "en" else f".{lang}"
    ev.report.lesson_href = "../lesson.html"  # harness.i18n.localise adds the language
    # The lesson's pages first: the comparison links back to them only once they are there.
    pages = [
        write_text_atomic(
            reports / f"lesson{suffix}.html",
            render.render_html(ev, lang, f"{LESSON_DIR}/comparison{suffix}.html"),
        ),
        write_text_atomic(
            reports / f"lesson{suffix}.md",
            render.render_markdown(ev, lang, f"{LESSON_DIR}/comparison{suffix}.md"),
        ),
    ]
    comparison = (
        report.write_all(ev.report, folder, mutants={}, lang=lang) if ev.report.checks else []
    )
    return [*comparison, *pages], ev


def verdict(ev: Evidence) -> list[str]:
    """What is not as the lesson needs it, one line each: a testcase a real implementation did
    not pass, a mutant its testcase did not catch (it would show no wrong way), a drawn
    testcase with no result; [] when the lesson stands."""
    problems = []
    drawn = [f for p in story.PARTS for f in p.figures if not p.needs or ev.has(p.needs)]
    for figure in drawn:
        for lane in ev.lanes(figure):
            if not lane.wrong and lane.result.outcome != "passed":
                problems.append(f"{figure.case} [{lane.who}]: {lane.result.outcome}")
            if lane.wrong and lane.result.outcome != "failed":
                problems.append(
                    f"{figure.case}: mutant {lane.who} not caught ({lane.result.outcome})"
                )
        if not ev.has(figure.case):
            problems.append(f"{figure.case}: no result of a real implementation")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness lesson",
        description="Run what the lesson draws (both implementations and the mutants that "
        "show the wrong way, on one control plane) and write reports/lesson.{md,html}.",
    )
    parser.add_argument("--reports", default=str(REPORTS_DIR), help="reports folder")
    parser.add_argument("--lang", default="en", choices=LANGS, help="the lesson's language")
    parser.add_argument("--jobs", type=int, default=4, help="suites at a time (default 4)")
    parser.add_argument(
        "--from-junit",
        action="store_true",
        help="run nothing: render from the JUnit files of reports/lesson/",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:  # found before a control plane starts
        _say(f"--jobs {args.jobs}: give a number of at least 1")
        return exitcodes.BAD_ARGUMENT
    reports = Path(args.reports)
    if not args.from_junit:
        from harness.envtest.controlplane import ControlPlaneError
        from harness.operators import ImplementationError

        runs.own(_say)
        started = time.monotonic()
        try:
            run(reports / LESSON_DIR, args.jobs)
        except ImplementationError as exc:
            _say(str(exc))
            return 2
        except ControlPlaneError as exc:
            _say(f"control plane failed: {exc}")
            return 3
        except KeyboardInterrupt as exc:
            _say("interrupted; processes stopped, the lesson not written")
            return exitcodes.for_interrupt(exc)
        _say(f"ran in {time.monotonic() - started:.0f}s")
    elif not report.suite_junit_files(reports / LESSON_DIR):
        _say(f"no junit-*.xml in {reports / LESSON_DIR}; run `make lesson` first")
        return 2
    paths, ev = write(reports, "en")
    if args.lang != "en":
        paths += write(reports, args.lang)[0]
    problems = verdict(ev)
    for line in problems:
        _say(f"not as the lesson needs: {line}")
    _say("wrote " + ", ".join(str(p) for p in paths))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
