"""A sampling profile of an operator process during a bench run (``--py-spy IMPL``), with py-spy
(PyPI, a dev dependency), and the frames that cost the most.

``PySpy`` runs ``py-spy record --pid <pid> --format raw --nonblocking --gil --full-filenames``
on a running Python process from ``start`` to ``stop`` (SIGINT, then py-spy writes its file):
every sample is one line ``thread;frame;frame;... count`` (collapsed stacks, outermost frame
first) of the thread that held the GIL (time spent in C with the GIL released, such as
waiting in an SSL read, is not sampled; without ``--gil`` py-spy counted those blocked reads
as active, 48 % of the samples of one run). Holding the GIL is not using a core: on a loaded
machine the holder is often off its core, and one run held the GIL about twice as long as it
used CPU, so the shares are of GIL time (docs/bench.md). ``top_frames`` counts each sample under its
innermost frame (own time) and under every frame of its stack (total time), and says whose
code each frame is (``owner_of``).
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: Samples per second (py-spy's ``--rate``).
RATE = 100

#: Whose code a frame's file is, first match wins: (owner, regular expression on the path).
OWNERS = (
    ("operator", re.compile(r"python_operator/")),
    ("kubernetes client", re.compile(r"/kubernetes/")),
    ("urllib3", re.compile(r"/urllib3/")),
    ("http.client, ssl, socket", re.compile(r"/(http/client|ssl|socket)\.py")),
    ("json", re.compile(r"/json/")),
    ("logging", re.compile(r"/logging/")),
    ("threading, queue", re.compile(r"/(threading|queue)\.py")),
    ("import", re.compile(r"<frozen importlib|importlib/")),
)


def owner_of(frame: str) -> str:
    """Whose code a py-spy frame ``"function (path:line)"`` is: the first of ``OWNERS``
    whose expression matches, else "other" (the rest of the standard library, or a frame
    without a file)."""
    for owner, expr in OWNERS:
        if expr.search(frame):
            return owner
    return "other"


@dataclass
class Frame:
    """One frame of a profile: ``own`` samples with it innermost, ``total`` samples with it
    anywhere on the stack, both also as shares of all samples (0..1)."""

    frame: str
    owner: str
    own: int
    own_share: float
    total: int
    total_share: float


def parse_raw(text: str) -> Counter[tuple[str, ...]]:
    """py-spy's raw output (``thread;frame;...;frame count`` a line) as {stack: samples}, the
    stack without its thread and with py-spy's line numbers kept. Lines that do not end in a
    count are skipped."""
    out: Counter[tuple[str, ...]] = Counter()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = tuple(f for f in stack.split(";")[1:] if f)
        if frames:
            out[frames] += int(count)
    return out


def _key(frame: str) -> str:
    """A frame without its line number: ``"f (a.py:12)"`` -> ``"f (a.py)"``, so a function's
    samples on different lines add up."""
    return re.sub(r":\d+\)$", ")", frame)


def top_frames(stacks: Counter[tuple[str, ...]], n: int = 10) -> list[Frame]:
    """The ``n`` frames (function and file) with the most own samples, most first."""
    total = sum(stacks.values()) or 1
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    for stack, count in stacks.items():
        keys = [_key(f) for f in stack]
        own[keys[-1]] += count
        for k in set(keys):
            anywhere[k] += count
    return [
        Frame(f, owner_of(f), c, round(c / total, 4), anywhere[f], round(anywhere[f] / total, 4))
        for f, c in own.most_common(n)
    ]


def by_owner(stacks: Counter[tuple[str, ...]]) -> dict[str, float]:
    """Share (0..1) of the samples whose innermost frame is each owner's (``owner_of``)."""
    total = sum(stacks.values()) or 1
    shares: Counter[str] = Counter()
    for stack, count in stacks.items():
        shares[owner_of(stack[-1])] += count
    return {k: round(v / total, 4) for k, v in shares.most_common()}


def summary(raw: Path, n: int = 10) -> dict[str, Any]:
    """``{"samples", "rate_hz", "raw", "by_owner", "top_own"}`` of a raw profile file."""
    stacks = parse_raw(raw.read_text(errors="replace"))
    return {
        "samples": sum(stacks.values()),
        "rate_hz": RATE,
        "raw": str(raw),
        "by_owner": by_owner(stacks),
        "top_own": [asdict(f) for f in top_frames(stacks, n)],
    }


def render(summary_: dict[str, Any]) -> str:
    """The summary as text: the shares by owner, then the top frames by own time."""
    lines = [f"{summary_['samples']} samples at {summary_['rate_hz']} Hz ({summary_['raw']})"]
    lines += [f"  {share:6.1%}  {owner}" for owner, share in summary_["by_owner"].items()]
    lines.append("top frames by own time (own %, total %, owner, frame):")
    lines += [
        f"  {f['own_share']:6.1%} {f['total_share']:6.1%}  {f['owner']:<26} {f['frame']}"
        for f in summary_["top_own"]
    ]
    return "\n".join(lines)


class PySpy:
    """``py-spy record`` on one process, writing raw collapsed stacks to ``out``. Raises
    FileNotFoundError from ``start`` when py-spy is not installed (``make venv`` installs it)."""

    def __init__(self, pid: int, out: Path) -> None:
        self.pid, self.out = pid, out
        self._proc: subprocess.Popen[bytes] | None = None

    @staticmethod
    def binary() -> str:
        """py-spy beside this interpreter (the venv's), else on PATH."""
        here = Path(sys.executable).with_name("py-spy")
        found = str(here) if here.exists() else shutil.which("py-spy")
        if not found:
            raise FileNotFoundError("py-spy is not installed (make venv installs it)")
        return found

    def start(self) -> PySpy:
        """Start sampling (``--nonblocking``: the process is not paused for a sample; ``--gil``:
        only the thread holding the GIL)."""
        from harness import process

        self.out.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.out.with_suffix(".log"), "wb")  # noqa: SIM115 (the child keeps it)
        self._proc = process.popen(
            [
                self.binary(),
                "record",
                "--pid",
                str(self.pid),
                "--rate",
                str(RATE),
                "--format",
                "raw",
                "--nonblocking",
                "--gil",
                "--full-filenames",
                "--output",
                str(self.out),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        return self

    def stop(self, timeout: float = 60.0) -> Path | None:
        """SIGINT, wait for py-spy to write its file; the file, or None if it wrote none."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
        return self.out if self.out.exists() and self.out.stat().st_size else None
