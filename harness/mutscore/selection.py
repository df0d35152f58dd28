"""Which of cosmic-ray's mutants a run judges: a sufficient set of operators, one mutant per
(site, operator kind) where the tool's replacements are redundant (docs/design.md "Tool
mutants: the selection").

cosmic-ray 8.7 replaces every binary operator by every other one (ten per ``+``, including the
bitwise ones) and every comparison by every other one (seven per ``<``, including ``is``).
Offutt, Lee, Rothermel, Untch and Zapf (1996, "An experimental determination of sufficient
mutant operators", ACM TOSEM 5(2)) found that five operators, ABS, AOR, LCR, ROR and UOI,
give test sets that kill about 99 % of the mutants of the whole Mothra set; Kaminski, Ammann
and Offutt (2011, "Better predicate testing", AST workshop) showed that three of the seven
relational replacements of a comparison subsume the other four. This module keeps:

- ROR: per comparison the two relational replacements of Kaminski et al. (``<``: ``<=`` and
  ``!=``) and, in place of their constant predicate (``false``), which cosmic-ray cannot make,
  the negation (``<``: ``>=``). ``==`` and ``!=`` keep the negation only: their operands here
  are strings, dicts and None, whose order means nothing (or raises). ``is`` and ``is not``
  keep their negation; the replacements across identity and equality are dropped.
- AOR: one replacement per arithmetic operator, gremlins' own (``ARITHMETIC_BASE``: ``+`` and
  ``-`` swap, ``*`` -> ``/``, ``/`` and ``%`` -> ``*``), and ``//``, ``**`` -> ``*``; so both
  languages' arithmetic mutants are the same concept. Bitwise operators are not arithmetic:
  in this code ``|`` is a dict merge or a union type, and replacing it (or anything by
  ``<<``, ``&`` ...) is outside AOR.
- LCR: ``and`` <-> ``or``, all.
- UOI: ``not`` added to a condition and ``not`` removed, except where the result is a mutant
  another kept operator already makes: ``not a == b`` is ROR's ``a != b``, ``not not x`` is
  the removal's ``x``.
- ABS: cosmic-ray has no ``abs()`` insertion; the sign removal (``-x`` -> ``x``) stands for it,
  the other unary swaps (``-`` -> ``~``, ``not``, ``+``) are dropped.
- outside the five, kept because a controller's behaviour rests on them: loop control
  (``break``/``continue``, zero iterations; gremlins' INVERT_LOOPCTRL is the same concept) and
  the exception handler that catches nothing (ExceptionReplacer: the not-found and conflict
  paths, the operator's error handling, which Offutt et al.'s Fortran programs did not have).
- dropped: constant replacement, which is not among the five and which gremlins does not make
  either: number replacements (in this code HTTP statuses and counters inside comparisons,
  which ROR mutates, and timing constants, backoffs and timeouts, one unit of which the
  checks' time bounds rarely tell apart) and ``True``/``False`` swaps (mostly ``return True``
  and ``return False`` of predicates, whose callers' conditions UOI negates, and flags);
  decorator removal (six of its eight remove ``@dataclass``, which breaks construction rather
  than behaviour); and every mutant inside a type annotation (never evaluated: ``from
  __future__ import annotations``).

The ids of kept mutants are the ids the whole list gives them (``generate._number`` runs before
the selection), so ``survivors.toml`` and ``sample.toml`` stay keyed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


class ToolMutant(Protocol):
    """What the selection reads of a ``generate.ToolMutant`` (generate imports this module,
    so it is not imported here)."""

    @property
    def lang(self) -> str: ...
    @property
    def operator(self) -> str: ...
    @property
    def context(self) -> str: ...
    @property
    def id(self) -> str: ...


M = TypeVar("M", bound=ToolMutant)

#: ROR: cosmic-ray comparison name -> the replacements kept (module docstring).
ROR_KEEP: dict[str, tuple[str, ...]] = {
    "Lt": ("LtE", "NotEq", "GtE"),
    "Gt": ("GtE", "NotEq", "LtE"),
    "LtE": ("Lt", "Eq", "Gt"),
    "GtE": ("Gt", "Eq", "Lt"),
    "Eq": ("NotEq",),
    "NotEq": ("Eq",),
    "Is": ("IsNot",),
    "IsNot": ("Is",),
}

#: AOR: cosmic-ray binary operator name -> the one replacement kept (gremlins' table, plus
#: Python's ``//`` and ``**``).
AOR_KEEP: dict[str, str] = {
    "Add": "Sub",
    "Sub": "Add",
    "Mul": "Div",
    "Div": "Mul",
    "Mod": "Mul",
    "FloorDiv": "Mul",
    "Pow": "Mul",
}

#: The other cosmic-ray operators kept whole, by the sufficient operator each stands for.
KEPT: dict[str, str] = {
    "core/ReplaceAndWithOr": "LCR",
    "core/ReplaceOrWithAnd": "LCR",
    "core/AddNot": "UOI",
    "core/ReplaceUnaryOperator_Delete_Not": "UOI",
    "core/ReplaceUnaryOperator_Delete_USub": "ABS",
    "core/ExceptionReplacer": "handler",
    "core/ZeroIterationForLoop": "loop",
    "core/ReplaceBreakWithContinue": "loop",
    "core/ReplaceContinueWithBreak": "loop",
}

#: ``ToolMutant.context`` values ``generate.python_mutants`` gives the AddNot mutants that
#: duplicate another kept mutant.
DUPLICATE_CONTEXTS = ("negated-comparison", "double-negation")


def python_dropped(m: ToolMutant) -> str:
    """Why the selection drops the cosmic-ray mutant ``m`` (a short reason, the same for every
    mutant of one kind), or "" when it is judged. Go mutants are never dropped."""
    if m.lang != "python":
        return ""
    if m.context == "annotation":
        return "inside an annotation"
    if m.context in DUPLICATE_CONTEXTS:
        return f"UOI duplicate ({m.context})"
    name = m.operator.removeprefix("core/")
    if name.startswith("ReplaceComparisonOperator_"):
        before, _, after = name[len("ReplaceComparisonOperator_") :].partition("_")
        return "" if after in ROR_KEEP.get(before, ()) else "ROR: not in the sufficient three"
    if name.startswith("ReplaceBinaryOperator_"):
        before, _, after = name[len("ReplaceBinaryOperator_") :].partition("_")
        return "" if AOR_KEEP.get(before) == after else "AOR: not the one replacement kept"
    if m.operator in KEPT:
        return ""
    return f"operator {name} not selected"


def python_selected(mutants: Sequence[M]) -> list[M]:
    """The mutants of ``mutants`` the selection keeps (``python_dropped`` gives ""), in order."""
    return [m for m in mutants if not python_dropped(m)]


def summary(every: Sequence[ToolMutant], survivor_ids: list[str]) -> dict[str, Any]:
    """What the selection did to cosmic-ray's whole list ``every``: ``tool_total``,
    ``selected``, ``dropped`` (reason -> count, ``python_dropped``'s reasons) and
    ``survivor_entries_dropped``: the Python ids of ``survivor_ids`` (survivors.toml's
    per-id entries) that the tool generates but the selection drops (they classify nothing
    now; a test refuses ids the tool does not generate at all)."""
    dropped: dict[str, int] = {}
    reasons = {m.id: python_dropped(m) for m in every}
    for why in reasons.values():
        if why:
            dropped[why] = dropped.get(why, 0) + 1
    return {
        "tool_total": len(every),
        "selected": sum(1 for why in reasons.values() if not why),
        "dropped": dict(sorted(dropped.items())),
        "survivor_entries_dropped": sorted(i for i in survivor_ids if reasons.get(i)),
    }
