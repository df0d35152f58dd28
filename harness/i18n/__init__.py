"""The teaching text in other languages: the report's and the lesson's words in English and
Simplified Chinese (``--lang zh-CN``), identifiers and Kubernetes terms kept in English.

A catalogue maps a key to ``(hash of the English text, translation)``. Keys:
``intro:<n>``, ``glossary:<term>``, ``glossary:<term>:term``, ``outcome:<outcome>``,
``label:<English label>``, ``check:<testcase>:why`` / ``:teaches`` (the check's docstring,
``harness.plugin.markers.check_texts``), ``mutant:<id>:title`` (mutants.toml) and
``lesson:...`` (``harness.lesson.story``). ``tr`` returns the translation only when its hash
is the hash of the English text it is asked for: when the English changes, the old
translation is no longer shown (the English is, until someone looks at it again), and
harness/tests/test_i18n.py fails naming the key. ``python -m harness.i18n`` lists every
stale or missing key with the hash to write; ``harness.i18n.sources`` reads the English.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.report.model import Report

#: The languages the report and the lesson are written in (``--lang``).
LANGS = ("en", "zh-CN")

#: One catalogue entry: (``text_hash`` of the English it translates, the translation).
Entry = tuple[str, str]


def text_hash(english: str) -> str:
    """The first 10 hex digits of the SHA-256 of ``english`` with its whitespace collapsed
    (re-wrapping a docstring does not make its translation stale)."""
    return hashlib.sha256(" ".join(english.split()).encode()).hexdigest()[:10]


def catalogue(lang: str) -> dict[str, Entry]:
    """Every entry for ``lang`` ({} for English). Raises ValueError naming ``--lang`` and the
    languages there are for any other."""
    if lang == "en":
        return {}
    if lang != "zh-CN":
        raise ValueError(f"--lang {lang!r}: choose one of {', '.join(LANGS)}")
    from harness.i18n import (
        zh_cn,
        zh_cn_checks,
        zh_cn_checks2,
        zh_cn_checks3,
        zh_cn_children,
        zh_cn_client,
        zh_cn_events,
        zh_cn_informer,
        zh_cn_lease,
        zh_cn_lesson,
        zh_cn_mutants,
        zh_cn_mutants2,
        zh_cn_quantities,
        zh_cn_queue,
    )

    return {
        **zh_cn.ENTRIES,
        **zh_cn_checks.ENTRIES,
        **zh_cn_checks2.ENTRIES,
        **zh_cn_checks3.ENTRIES,
        **zh_cn_children.ENTRIES,
        **zh_cn_events.ENTRIES,
        **zh_cn_client.ENTRIES,
        **zh_cn_informer.ENTRIES,
        **zh_cn_lease.ENTRIES,
        **zh_cn_mutants.ENTRIES,
        **zh_cn_mutants2.ENTRIES,
        **zh_cn_quantities.ENTRIES,
        **zh_cn_queue.ENTRIES,
        **zh_cn_lesson.ENTRIES,
    }


def tr(lang: str, key: str, english: str) -> str:
    """``english`` in ``lang``: the catalogue's translation for ``key`` if its hash is
    ``text_hash(english)``, else ``english`` itself (no translation, or a stale one)."""
    if lang == "en" or not english:
        return english
    entry = catalogue(lang).get(key)
    return entry[1] if entry and entry[0] == text_hash(english) else english


def label(lang: str, english: str) -> str:
    """A short label of a page (``What it proves``) in ``lang``: ``tr`` with key
    ``label:<english>``."""
    return tr(lang, f"label:{english}", english)


#: The labels of the report's and the lesson's pages that are translated (``label``).
LABELS: tuple[str, ...] = (
    "New to controllers? Read this first",
    "Words this report uses",
    "What it proves",
    "Why",
    "The lesson: the article's story with this run's evidence",
    "No lesson in this folder yet: make lesson writes it, and the next report links to it",
)

_CJK = re.compile(r"[\u3400-\u9fff]")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK ideograph (a translation that is not English)."""
    return bool(_CJK.search(text))


def localise(report: Report, lang: str) -> Report:
    """A copy of ``report`` whose checks' what-it-proves and why (``check:<id>:why`` /
    ``:teaches``) are in ``lang`` where the catalogue has them, ``lang`` set for the writers
    (the introduction, the glossary, the labels) and its link to the lesson in ``lang``
    (``lesson.zh-CN.html``). Raises ValueError for an unknown ``lang``."""
    catalogue(lang)  # an unknown language is refused here, before anything is written
    checks = [
        dataclasses.replace(
            c,
            why=tr(lang, f"check:{c.id}:why", c.why),
            teaches=tr(lang, f"check:{c.id}:teaches", c.teaches),
        )
        for c in report.checks
    ]
    href = report.lesson_href
    if lang != "en" and href.endswith("lesson.html"):  # the lesson in the same language
        href = href.removesuffix(".html") + f".{lang}.html"
    return dataclasses.replace(report, checks=checks, lang=lang, lesson_href=href)


def localise_mutants(data: Mapping[str, Any] | None, lang: str) -> Mapping[str, Any] | None:
    """reports/mutants.json's dict with each mutant's card (``doc``) led by its title in
    ``lang`` (``mutant:<id>:title``) where the catalogue has it; the explanation after it
    stays as written (English)."""
    if not data or lang == "en":
        return data
    from harness import mutants

    declared = mutants.declared()
    out = dict(data)
    out["mutants"] = {}
    for m, entry in (data.get("mutants") or {}).items():
        title = str(declared.get(m, {}).get("title", ""))
        local = tr(lang, f"mutant:{m}:title", title)
        doc = str(entry.get("doc", ""))
        out["mutants"][m] = {**entry, "doc": f"{local}\n\n{doc}"} if local != title else entry
    return out
