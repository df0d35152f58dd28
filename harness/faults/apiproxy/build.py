"""Building the API proxy (the Go program beside this file), a part of
``harness.faults.apiproxy``: ``binary()`` finds the binary for the current sources and Go
version, or builds it once, under a lock, into ``build/apiproxy/<hash>/modeldock-apiproxy``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from harness.gocache import cached_build
from harness.paths import BUILD_DIR

SOURCE_DIR = Path(__file__).resolve().parent
#: Built binaries: ``build/apiproxy/<hash of the sources and the Go version>/modeldock-apiproxy``.
PROXY_BUILD_DIR = BUILD_DIR / "apiproxy"


class ApiProxyError(RuntimeError):
    """The proxy could not be built, did not start, or its control API failed; the message says
    which, with the relevant output or log tail."""


def progress_line(line: str) -> None:
    print(f"[apiproxy] {line}", file=sys.stderr, flush=True)


#: The binary this process found or built (``binary``): later proxies start without asking Go.
_BINARY: Path | None = None


def binary(progress: Callable[[str], None] = progress_line) -> Path:
    """The proxy binary, built on first use and cached by content hash (of ``*.go``, ``go.mod``
    and ``go version``); once known, this process reuses it without asking Go again.
    Concurrent callers (pytest-xdist workers) build it once, under a lock. Raises
    ApiProxyError if Go is missing or the build fails."""
    global _BINARY
    if _BINARY is not None and _BINARY.exists():
        return _BINARY
    _BINARY = _find_or_build(progress)
    return _BINARY


def _find_or_build(progress: Callable[[str], None]) -> Path:
    return cached_build(
        SOURCE_DIR,
        PROXY_BUILD_DIR,
        "modeldock-apiproxy",
        "the API proxy",
        ApiProxyError,
        progress,
        timeout=600,
    )
