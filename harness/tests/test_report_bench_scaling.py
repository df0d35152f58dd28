"""The floor and worker scaling in the report: the model read from a made-up bench.json
(``data/bench-scaling.json``), the note, the Markdown section (golden), the HTML plots."""

from __future__ import annotations

import json
from typing import Any

from harness.report import html_sections, html_svg, markdown, svg_split
from harness.report.bench_scaling import scaling_model, scaling_note, split_numbers
from harness.report.model import bench_model
from harness.report.sections import with_sections
from harness.tests.test_report import DATA, bench, check_golden

GOLDEN_MD = DATA / "bench-scaling.golden.md"


def scaling_data() -> dict[str, Any]:
    return dict(json.loads((DATA / "bench-scaling.json").read_text()))


def test_model_reads_the_floor_the_workers_and_the_splits() -> None:
    b = bench_model(scaling_data())
    # "<impl>/floor" is not a column of the main table
    assert b.ratio_names == ["python/go"]
    sc = scaling_model(scaling_data(), b.implementations)
    assert sc is not None
    assert sc.floor == [(100, 1.0), (1000, 10.0)] and sc.floor_workers == 1
    assert sc.floor_ratios == {"go": {100: 2.0, 1000: 2.0}, "python": {100: 2.5, 1000: 2.5}}
    assert sc.worker_counts == [1, 4, 16] and sc.who == ["floor", "go", "python"]
    assert sc.workers["python"][16]["cpu_s"] == 11.0
    assert sc.workers["floor"][4]["latency_p95_s"] is None
    assert sc.worker_ratios["go"] == {1: 2.0, 4: 1.5, 16: 1.6}
    assert sc.splits_w["python"][16]["limited_by"] == "operator CPU"
    assert sc.splits_n["go"][1000]["machine_busy"] == 0.93


def test_model_computes_floor_ratios_bench_json_lacks() -> None:
    data = scaling_data()
    del data["ratios"]["go/floor"]
    sc = scaling_model(data, ["go", "python"])
    assert sc is not None
    assert sc.floor_ratios["go"] == {100: 2.0, 1000: 2.0}
    assert sc.worker_ratios["go"] == {1: 2.0, 4: 1.5, 16: 1.6}


def test_no_floor_and_no_workers_no_scaling() -> None:
    assert scaling_model(bench(), ["go", "python"]) is None
    assert html_sections.scaling_section(bench_model(bench()), None) == ""


def test_note_gives_the_ratios_to_the_floor_and_what_limits_each_curve() -> None:
    sc = scaling_model(scaling_data(), ["go", "python"])
    assert sc is not None
    note = scaling_note(sc, ["go", "python"])
    assert (
        note[0].startswith("Against the floor")
        and "N = 1000: floor 10 s; go 2×, python 2.5×" in note[0]
    )
    assert "go N = 1000: machine CPU (go operator 0.30 cores" in note[1]
    py = next(p for p in note if p.startswith("python,"))
    assert "25 s → 15 s → 14 s" in py and "1.79× as fast at 16 as at 1" in py
    assert "16 worker(s): operator CPU (python operator 0.90 cores" in py
    assert split_numbers({"wall_s": 0}) == ""


def test_markdown_section_golden() -> None:
    md = markdown.render_markdown(with_sections(_empty_report(), bench=scaling_data()))
    section = md[md.index("### The floor and worker scaling") :]
    check_golden(section, GOLDEN_MD)


def test_html_plots_the_floor_and_the_scaling() -> None:
    b = bench_model(scaling_data())
    sc = scaling_model(scaling_data(), b.implementations)
    assert sc is not None
    section = html_sections.bench_section(b, sc)
    assert 'id="bench-scaling"' in section
    # latency, throughput, memory; then time, CPU, p95 by workers and the split
    assert section.count('<svg class="chart"') == 7
    thr = html_svg.throughput_svg(b, sc)
    assert 'data-impl="floor"' in thr and "stroke-dasharray" in thr
    for key in ("throughput_s", "cpu_s", "latency_p95_s"):
        svg = html_svg.scaling_svg(b, sc, key, "y")
        assert all(f'data-impl="{w}"' in svg for w in ("go", "python"))
    assert 'data-impl="floor"' not in html_svg.scaling_svg(b, sc, "latency_p95_s", "y")
    split = svg_split.split_svg(sc)
    assert split.count('data-part="client_cpu_s"') == 6 and "operator CPU" in split
    assert "limited by" in section and "×16" in section


def _empty_report() -> Any:
    from harness.tests.test_report import model

    return model()


def test_the_note_gives_the_cpu_ratios() -> None:
    from harness.report.bench_scaling import cpu_note

    cpu = {"ratios": {"python/go": {"latency": 1.5, "throughput": {"100": 1.4}, "workers": {}}}}
    assert cpu_note(cpu) == (
        "CPU per object (the operator's CPU time from the first create until its Events were "
        "written, not counting waits for a core; the floor client's for its writes): "
        "python/go: one at a time 1.5×, N = 100 1.4×."
    )
    assert cpu_note({}) == ""
