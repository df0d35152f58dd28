"""The translations (harness/i18n): every catalogue entry translates the English the code has
now (its hash), keeps the identifiers and Kubernetes terms in English, and the report and the
lesson use it; an entry whose English changed is not shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import i18n, report
from harness.i18n import sources
from harness.report import html_sections

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
    en = report.write_all(model, tmp_path)
    zh = report.write_all(model, tmp_path, lang="zh-CN")
    assert [p.name for p in zh] == ["comparison.zh-CN.md", "comparison.zh-CN.html"]
    page = zh[1].read_text()
    assert '<html lang="zh-CN">' in page and "第一次接触控制器？请先读这里" in page
    assert "没有东西要改的 reconcile 什么也不写。" in page  # noop-stable's what-it-proves
    assert "它证明什么" in page and 'href="lesson.html"' in page
    assert "每次 reconcile 都" not in en[1].read_text()
    assert '<html lang="en">' in en[1].read_text()
    md = zh[0].read_text()
    assert "本报告使用的术语" in md and "(lesson.md)" in md


def test_introduction_links_to_the_lesson() -> None:
    assert 'href="../lesson.html"' in html_sections.introduction_section("en", "../lesson.html")
