"""The survivors' classification (harness/mutants/survivors.toml): per-id and per-class entries, each equivalent, gap or dead code with a one-line reason, and which chosen mutants an equivalent class covers."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.mutscore.generate import ToolMutant
from harness.paths import REPO_ROOT

SURVIVORS_FILE = REPO_ROOT / "harness" / "mutants" / "survivors.toml"


#: The kinds a survivor may be classified as.
KINDS = ("equivalent", "gap", "dead-code")


# --------------------------------------------------------------------------- survivors.toml
@dataclass
class Survivors:
    """``survivors.toml``: ``mutants`` (stable id -> {kind, reason}) and ``classes`` (name ->
    {kind, reason, lang, context, operator (regex), file, function (regex)}): a class
    classifies every mutant that matches all the keys it gives."""

    mutants: dict[str, dict[str, str]] = field(default_factory=dict)
    classes: dict[str, dict[str, str]] = field(default_factory=dict)

    def classify(self, m: ToolMutant) -> tuple[str, str, str] | None:
        """``(kind, reason, source)`` for ``m`` (source: its id, or ``class:<name>``), or
        None when nothing classifies it."""
        if m.id in self.mutants:
            e = self.mutants[m.id]
            return e["kind"], e["reason"], m.id
        for name, c in self.classes.items():
            if class_matches(c, m):
                return c["kind"], c["reason"], f"class:{name}"
        return None


def class_matches(c: Mapping[str, str], m: ToolMutant) -> bool:
    """Whether the class ``c`` (survivors.toml ``[class.<name>]``) covers the mutant."""
    return (
        c.get("lang", m.lang) == m.lang
        and c.get("context", m.context) == m.context
        and c.get("file", m.file) == m.file
        and re.fullmatch(c.get("operator", ".*"), m.operator) is not None
        and re.fullmatch(c.get("function", ".*"), m.function) is not None
    )


def load_survivors(path: Path = SURVIVORS_FILE) -> Survivors:
    """Read ``survivors.toml``. Raises ValueError naming the entry for a kind not in
    ``KINDS`` or a missing or empty reason (every classification has its one-line reason)."""
    data = tomllib.loads(path.read_text()) if path.exists() else {}
    out = Survivors(dict(data.get("mutant", {})), dict(data.get("class", {})))
    for name, e in [*out.mutants.items(), *out.classes.items()]:
        if e.get("kind") not in KINDS or not str(e.get("reason", "")).strip():
            raise ValueError(
                f"{path}: {name!r} needs kind (one of {', '.join(KINDS)}) and a one-line reason"
            )
    return out


def assumed_equivalent(chosen: Sequence[ToolMutant], survivors: Survivors) -> set[str]:
    """The ids of ``chosen`` an equivalent class of survivors.toml covers, but the first (by id)
    of each class: those are not run (the class's representative is, and a kill of it is
    reported), and count as equivalent survivors."""
    out: set[str] = set()
    for c in survivors.classes.values():
        if c["kind"] != "equivalent":
            continue
        members = sorted(m.id for m in chosen if class_matches(c, m))
        out.update(members[1:])
    return out
