"""``python -m harness.i18n [LANG]``: the catalogue's state for LANG (default zh-CN): every
stale entry (its English changed: look at the translation again) and every text not
translated yet, each with the hash an entry for today's English carries. Exit code 1 when an
entry is stale."""

from __future__ import annotations

import argparse
import sys

from harness.i18n import LANGS, catalogue, text_hash
from harness.i18n.sources import sources, stale


def main(argv: list[str]) -> int:
    """Print LANG's stale and untranslated entries and a summary line; return 1 when an
    entry is stale, else 0. An unknown LANG is refused by argparse (exit 2, naming the
    choices)."""
    parser = argparse.ArgumentParser(prog="python -m harness.i18n", description=__doc__)
    parser.add_argument("lang", nargs="?", default="zh-CN", choices=LANGS, help="default zh-CN")
    lang = parser.parse_args(argv).lang
    english = sources()
    cat = catalogue(lang)
    old = stale(lang, english)
    for key in old:
        now = f"now {text_hash(english[key])}: {english[key][:90]}" if key in english else "gone"
        print(f"STALE    {key} ({now})")
    missing = [k for k in english if k not in cat]
    for key in missing:
        print(f"MISSING  {key} {text_hash(english[key])}: {english[key][:90]}")
    print(
        f"{lang}: {len(cat) - len(old)} of {len(english)} texts translated, "
        f"{len(old)} stale, {len(missing)} not translated (shown in English)"
    )
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
