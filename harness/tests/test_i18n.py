"""The translations (harness/i18n): every catalogue entry translates the English the code has
now (its hash), keeps the identifiers and Kubernetes terms in English, and the report and the
lesson use it; an entry whose English changed is not shown."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import i18n, report
from harness.i18n import sources
from harness.report import html_sections
from harness.tests import test_report_html

DATA = Path(__file__).parent / "data"

#: Words that stay English in a translation when the English has them: camelCase and
#: PascalCase identifiers with an inner capital, ids with brackets, HTTP codes.
_KEPT = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z-]+\[[a-z0-9-]+\]|[1-5]\d\d)\b")


def test_no_translation_is_stale() -> None:
    english = sources.sources()
    stale = sources.stale("zh-CN", english)
    hint = "; ".join(
        f"{k}: now {i18n.text_hash(english[k])!r} for {english[k][:60]!r}"
        if k in english
        else f"{k}: no such English text any more"
        for k in stale
    )
    assert not stale, (
        f"the English of {len(stale)} translated text(s) changed: look at the Chinese again "
        f"and write the new hash (python -m harness.i18n lists them): {hint}"
    )


def test_translations_are_chinese_and_keep_identifiers() -> None:
    english = sources.sources()
    for key, (_, zh) in i18n.catalogue("zh-CN").items():
        kept = key.endswith(":term") and zh == english[key]  # a term the article keeps
        assert kept or i18n.has_cjk(zh), f"{key}: the translation has no Chinese"
        missing = sorted({w for w in _KEPT.findall(english[key]) if w.removesuffix("s") not in zh})
        assert not missing, f"{key}: the translation lost the identifiers {missing}"


def test_catalogue_covers_the_teaching_text_and_the_lesson() -> None:
    english = sources.sources()
    cat = i18n.catalogue("zh-CN")
    must = [k for k in english if k.startswith(("intro:", "glossary:", "outcome:", "label:"))]
    must += [k for k in english if k.startswith("lesson:")]
    assert sorted(k for k in must if k not in cat) == []


def test_tr_shows_a_stale_translation_as_english(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = {"x": (i18n.text_hash("old  text"), "旧的")}
    monkeypatch.setattr(i18n, "catalogue", lambda lang: entries)
    assert i18n.tr("zh-CN", "x", "old text") == "旧的"  # whitespace does not count
    assert i18n.tr("zh-CN", "x", "new text") == "new text"
    assert i18n.tr("en", "x", "old text") == "old text"
    assert i18n.tr("zh-CN", "y", "other") == "other"


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="zh-CN"):
        i18n.catalogue("fr")


def test_chinese_report_from_the_fixtures(tmp_path: Path) -> None:
    model = report.build([DATA / "junit-go.xml", DATA / "junit-python.xml"])
    (tmp_path / "lesson.zh-CN.html").write_text("")  # made: linked
    en = report.write_all(model, tmp_path)
    zh = report.write_all(model, tmp_path, lang="zh-CN")
    assert [p.name for p in zh] == ["comparison.zh-CN.md", "comparison.zh-CN.html"]
    page = zh[1].read_text()
    assert '<html lang="zh-CN">' in page and "第一次接触控制器？请先读这里" in page
    assert "没有东西要改的 reconcile 什么也不写。" in page  # noop-stable's what-it-proves
    assert "它证明什么" in page and 'href="lesson.zh-CN.html"' in page
    assert "每次 reconcile 都" not in en[1].read_text()
    assert "lesson.html" not in en[1].read_text() and "make lesson" in en[1].read_text()
    assert '<html lang="en">' in en[1].read_text()
    md = zh[0].read_text()
    assert "本报告使用的术语" in md and "(lesson.zh-CN.md)" in md


def test_introduction_links_to_the_lesson() -> None:
    assert 'href="../lesson.html"' in html_sections.introduction_section("en", "../lesson.html")


# --------------------------------------------------------------------------- in Chromium
def _cjk_font_or_skip() -> None:
    """A font with Chinese glyphs (Debian: fonts-noto-cjk, which .ci/run installs). Missing:
    skipped on a workstation, a failure under CI=true."""
    found = (
        shutil.which("fc-list")
        and subprocess.run(
            ["fc-list", ":lang=zh-cn", "family"], capture_output=True, text=True, check=False
        ).stdout.strip()
    )
    if not found:
        why = "no font with Chinese glyphs (Debian: apt-get install -y fonts-noto-cjk)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{why}; under CI=true the Chinese pages must be drawn, not skipped")
        pytest.skip(why)


def _shot(browser: list[str], page: Path, shot: Path, size: str) -> list[list[bytes]]:
    subprocess.run(
        [*browser, f"--screenshot={shot}", f"--window-size={size}", page.as_uri()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return test_report_html.png_pixels(shot.read_bytes())[2]


def _ink(rows: list[list[bytes]]) -> int:
    return sum(px != b"\xff\xff\xff" for row in rows for px in row)


def test_chinese_pages_render_with_chinese_glyphs(tmp_path: Path) -> None:
    browser_path = test_report_html.chromium_or_skip()
    _cjk_font_or_skip()
    browser = [
        browser_path,
        *test_report_html.CHROMIUM_FLAGS,
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    # Real glyphs differ in ink from one character to another; missing ones are all the same
    # empty box ("tofu"): one stroke against sixteen. (A window under ~200 px tall draws
    # nothing in headless Chromium.)
    inks = []
    for name, char in (("one", "一"), ("dragon", "龍")):
        page = tmp_path / f"{name}.html"
        page.write_text(
            '<!DOCTYPE html><html lang="zh-CN"><body style="margin:0;background:#fff">'
            f'<p style="font-size:64px;margin:0">{char * 8}</p></body></html>',
            encoding="utf-8",
        )
        inks.append(_ink(_shot(browser, page, tmp_path / f"{name}.png", "800,600")))
    assert inks[1] > 2 * inks[0] > 0, f"ink {inks}: Chinese is drawn as empty boxes"

    model = report.build([DATA / "junit-go.xml", DATA / "junit-python.xml"])
    page = report.write_all(model, tmp_path, lang="zh-CN")[1]
    rows = _shot(browser, page, tmp_path / "zh.png", "1280,1600")
    assert _ink(rows) / (1280 * 1600) > 0.03, "the Chinese report looks blank"
    dom = subprocess.run(
        [*browser, "--dump-dom", page.as_uri()],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert '<html lang="zh-CN">' in dom and "第一次接触控制器" in dom
    assert dom.count('<svg class="swimlane"') == 3
