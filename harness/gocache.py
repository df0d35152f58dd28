"""Go programs of the harness built once per content: ``cached_build`` finds the binary for a
module's current sources and Go version, or builds it under a lock into
``<build_dir>/<hash>/<name>`` (the API proxy, ``harness.faults.apiproxy.build``, and the bench's
floor client, ``harness.bench.gofloor``)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from harness import process


def cached_build(
    source_dir: Path,
    build_dir: Path,
    name: str,
    what: str,
    error: type[Exception],
    progress: Callable[[str], None],
    timeout: float = 900,
) -> Path:
    """The binary ``name`` of the Go module in ``source_dir``, keyed by a hash of its sources
    (``*.go`` but tests, ``go.mod``, ``go.sum``) and ``go version``. Built with
    ``CGO_ENABLED=0``, ``GOWORK=off`` when absent; concurrent callers (pytest-xdist workers,
    parallel runs) build it once, under a lock in its folder, and a build is renamed into place
    only once it succeeded. ``what`` names the program in messages and ``progress`` lines.
    Raises ``error`` if Go is missing, ``go version`` fails or the build fails (with go's
    output)."""
    go = shutil.which("go")
    if go is None:
        raise error(f"the `go` command is not on PATH: {what} is a Go program ({source_dir})")
    try:
        version = process.run(
            [go, "version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise error(f"`go version` failed: {exc}") from exc
    digest = hashlib.sha256(str(version).encode())
    sources = [*source_dir.glob("*.go"), source_dir / "go.mod", source_dir / "go.sum"]
    for src in sorted(p for p in sources if p.exists() and not p.name.endswith("_test.go")):
        digest.update(src.name.encode() + b"\0" + src.read_bytes())
    out = build_dir / digest.hexdigest()[:16] / name
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if out.exists():  # another process built it while this one waited
            return out
        progress(f"building {what} ({source_dir.name}) into {out}")
        started = time.monotonic()
        tmp = out.with_name(f".{out.name}.{os.getpid()}")
        proc = process.run(
            [go, "build", "-o", str(tmp), "."],
            cwd=source_dir,
            env=dict(os.environ, GOWORK="off", CGO_ENABLED="0"),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0:
            raise error(
                f"building {what} failed (go build in {source_dir}):\n{proc.stdout}{proc.stderr}"
            )
        os.replace(tmp, out)
        progress(f"built in {time.monotonic() - started:.1f}s")
    return out
