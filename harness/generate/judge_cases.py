"""``python -m harness generate-cases``: the shipped case files that hold today replayed on go
and python (``harness.generate.judge.cases_main``)."""

from harness.generate.judge import cases_main as main

__all__ = ["main"]
