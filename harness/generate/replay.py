"""``python -m harness replay FILE``: a case file of ``generate`` run again
(``harness.generate.cli.replay_main``)."""

from harness.generate.cli import replay_main as main

__all__ = ["main"]
