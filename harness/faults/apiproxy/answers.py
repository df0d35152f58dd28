"""The API proxy's held answers (``hold-answer`` in ``faults.go``), a part of ``ApiProxy``.

``hold_answer(n)`` has the proxy forward the n-th write (of ``resources``) at once and keep
its answer back (``wait_answer`` says it is held; the client's other requests pass) until
``release_answer()``, then deliver it as the API server gave it: the harness changes the world
between a write and its answer, e.g. the API server deleting an object whose finalizer update
it has just answered 200 (kubernetes#77988; ``vanished-owner[finalizer-race]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Seconds a control-API call may take.
CONTROL_TIMEOUT = 10.0


class HeldAnswers:
    """The held-answer calls of ``ApiProxy``, which provides ``_call`` (its control API)."""

    def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        timeout: float = CONTROL_TIMEOUT,
    ) -> Any:
        raise NotImplementedError  # ApiProxy._call

    def hold_answer(self, nth: int, *, resources: Iterable[str] | None = None) -> dict[str, Any]:
        """Arm a held answer at the ``nth`` write (of ``resources``; None: any) from now: the
        proxy forwards it at once and keeps the API server's answer back until
        ``release_answer()`` (or 120 s), while the client's other requests pass."""
        body: dict[str, Any] = {"nth": int(nth), "action": "hold-answer"}
        if resources is not None:
            body["resources"] = list(resources)
        return dict(self._call("POST", "/faults/write", body))

    def wait_answer(self, timeout: float) -> dict[str, Any]:
        """Wait up to ``timeout`` s for the armed ``hold_answer`` write to be answered and
        held. Returns ``{"armed": bool, "held": bool, "request": {...}}`` (the write as
        logged, its ``code`` the API server's)."""
        return dict(
            self._call(
                "GET", f"/faults/answer?wait={float(timeout)}", timeout=timeout + CONTROL_TIMEOUT
            )
        )

    def release_answer(self) -> bool:
        """Deliver the held answer; False when no answer is held or armed."""
        return bool(self._call("POST", "/faults/answer/release", {})["released"])
