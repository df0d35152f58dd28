"""Building the API proxy (the Go program beside this file), a part of
``harness.faults.apiproxy``: ``binary()`` finds the binary for the current sources and Go
version, or builds it once, under a lock, into ``build/apiproxy/<hash>/modeldock-apiproxy``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from harness.envtest import process
from harness.paths import BUILD_DIR, REPO_ROOT

SOURCE_DIR = Path(__file__).resolve().parent
#: Built binaries: ``build/apiproxy/<hash of the sources and the Go version>/modeldock-apiproxy``.
PROXY_BUILD_DIR = BUILD_DIR / "apiproxy"


class ApiProxyError(RuntimeError):
    """The proxy could not be built, did not start, or its control API failed; the message says
    which, with the relevant output or log tail."""


def progress_line(line: str) -> None:
    print(f"[apiproxy] {line}", file=sys.stderr, flush=True)


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        raise ApiProxyError(
            "the `go` command is not on PATH: the API proxy is a Go program "
            f"({SOURCE_DIR}); install Go >= 1.24"
        )
    return go


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
    go = _go()
    digest = hashlib.sha256()
    try:
        version = process.run(
            [go, "version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ApiProxyError(f"`go version` failed: {exc}") from exc
    digest.update(version.encode())
    for src in sorted([*SOURCE_DIR.glob("*.go"), SOURCE_DIR / "go.mod"]):
        if not src.name.endswith("_test.go"):
            digest.update(src.name.encode() + b"\0" + src.read_bytes())
    out = PROXY_BUILD_DIR / digest.hexdigest()[:16] / "modeldock-apiproxy"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if out.exists():  # another process built it while we waited
            return out
        progress(f"building the API proxy ({SOURCE_DIR.relative_to(REPO_ROOT)}) into {out}")
        started = time.monotonic()
        tmp = out.with_name(f".{out.name}.{os.getpid()}")
        env = dict(os.environ, GOWORK="off", CGO_ENABLED="0")
        proc = process.run(
            [go, "build", "-o", str(tmp), "."],
            cwd=SOURCE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise ApiProxyError(
                f"building the API proxy failed (go build in {SOURCE_DIR}):\n"
                f"{proc.stdout}{proc.stderr}"
            )
        os.replace(tmp, out)
        progress(f"built in {time.monotonic() - started:.1f}s")
    return out
