"""Signal dispositions for the harness processes the tests start and then signal."""

from __future__ import annotations

import signal


def as_from_a_terminal() -> None:
    """``preexec_fn`` for a child that a test sends SIGINT (Ctrl-C) or SIGQUIT: give both their
    default disposition back. A shell starts background jobs (``make test &``, ``nohup``) with
    SIGINT and SIGQUIT ignored, children inherit that, and Python then installs no
    KeyboardInterrupt handler, so the harness would rightly ignore the test's Ctrl-C
    (POSIX, Shell Command Language 2.11: asynchronous lists ignore SIGINT and SIGQUIT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
