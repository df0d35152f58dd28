"""Find, or build and cache, the Kubernetes control-plane binaries.

The harness needs etcd, kube-apiserver and kubectl (and, for the `sim` tier,
kube-controller-manager, kube-scheduler and kwok). They are never downloaded from release
pages and never committed: they are built here from pinned Go modules fetched through the Go
module proxy, by the wrapper modules in ``tools/`` (docs/design.md, "Architecture"):

- ``tools/kube``: requires ``k8s.io/kubernetes v1.34.N`` and replaces every staging module with
  its published ``v0.34.N``; builds ``cmd/kube-apiserver`` and friends with ``CGO_ENABLED=0``
  and the version ldflags Kubernetes' own build sets, so ``--version`` tells the truth.
- ``tools/etcd``: requires ``go.etcd.io/etcd/server/v3 v3.6.N`` and builds its ``main``
  package (``go install ...@version`` is refused because etcd's go.mod has replace directives).
- kwok: ``go install sigs.k8s.io/kwok/cmd/kwok@<version>`` (no replace directives).

Lookup order for each binary (the same as controller-runtime's envtest):
``TEST_ASSET_<NAME>``, then ``KUBEBUILDER_ASSETS/<name>``, then the project's cache, then a
build into the cache. The cache is laid out like a setup-envtest store,
``<cache>/envtest/k8s/<version>-linux-amd64/{etcd,kube-apiserver,kubectl,...}``, so
``KUBEBUILDER_ASSETS`` can point at it for Go's envtest or any kubebuilder project.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from harness import process, tiers
from harness.paths import REPO_ROOT, cache_root

TOOLS_DIR = REPO_ROOT / "tools"

KWOK_VERSION = "v0.7.0"

#: Binaries of the envtest tier, the minimum every run needs (``harness.tiers``, the registry).
ENVTEST_BINARIES = tiers.CONTROL_PLANE_BINARIES
#: Extra binaries of the sim tier.
SIM_BINARIES = tiers.SIM_BINARIES

#: Which wrapper module builds which binary, and the Go package it is.
_PACKAGES = {
    "kube-apiserver": ("kube", "k8s.io/kubernetes/cmd/kube-apiserver"),
    "kubectl": ("kube", "k8s.io/kubernetes/cmd/kubectl"),
    "kube-controller-manager": ("kube", "k8s.io/kubernetes/cmd/kube-controller-manager"),
    "kube-scheduler": ("kube", "k8s.io/kubernetes/cmd/kube-scheduler"),
    "etcd": ("etcd", "go.etcd.io/etcd/server/v3"),
}

Progress = Callable[[str], None]


class BinaryError(RuntimeError):
    """A binary could not be found or built; the message says which and what to do."""


def _print_progress(line: str) -> None:
    print(f"[binaries] {line}", file=sys.stderr, flush=True)


def _module_version(module_dir: Path, module: str) -> str:
    """Return the version that ``module_dir/go.mod`` requires of ``module`` (e.g. ``v1.34.4``).

    Raises BinaryError if go.mod does not name the module.
    """
    text = (module_dir / "go.mod").read_text()
    m = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", text, re.MULTILINE)
    if not m:
        raise BinaryError(f"{module_dir / 'go.mod'} does not require {module}")
    return m.group(1)


#: The default minor version: the API the Go reference's client-go v0.34 and
#: controller-runtime v0.22 are built for (docs/tiers.md, "Kubernetes versions").
DEFAULT_MINOR = "1.34"
#: The variables that choose the minor version, ours first, then kubebuilder's name.
VERSION_VARS = ("K8S_VERSION", "ENVTEST_K8S_VERSION")


def supported_minors() -> list[str]:
    """Every minor version with wrapper modules in tools/, oldest first, e.g.
    ``["1.34", "1.35", "1.36", "1.37"]`` (1.34 in tools/{kube,etcd}, the others in
    tools/<minor>/{kube,etcd})."""
    found = {DEFAULT_MINOR}
    for child in TOOLS_DIR.iterdir():
        if re.fullmatch(r"1\.\d+", child.name) and (child / "kube" / "go.mod").is_file():
            found.add(child.name)
    return sorted(found, key=lambda m: int(m.split(".")[1]))


def selected_minor() -> str:
    """The minor version chosen by ``K8S_VERSION`` or ``ENVTEST_K8S_VERSION`` (``1.37`` or
    ``1.37.2``; a patch must be the pinned one), else DEFAULT_MINOR.

    Raises BinaryError naming the variable, its value and the versions on offer.
    """
    for var in VERSION_VARS:
        value = os.environ.get(var, "").strip().lstrip("v")
        if not value:
            continue
        m = re.fullmatch(r"(1\.\d+)(\.\d+)?", value)
        minors = supported_minors()
        if not m or m.group(1) not in minors:
            raise BinaryError(
                f"{var}={os.environ[var]!r} is not a version this harness builds; "
                f"use one of {', '.join(minors)} (a minor, or its pinned patch)"
            )
        minor = m.group(1)
        if m.group(2):
            pinned = _module_version(module_dir("kube", minor), "k8s.io/kubernetes").lstrip("v")
            if pinned != value:
                raise BinaryError(
                    f"{var}={value}: tools/ pins {pinned} for {minor}; set {var}={minor} or {pinned}"
                )
        return minor
    return DEFAULT_MINOR


def module_dir(kind: str, minor: str | None = None) -> Path:
    """The wrapper module folder for ``kind`` (``kube`` or ``etcd``) of a minor version:
    tools/<kind> for DEFAULT_MINOR, tools/<minor>/<kind> for the others."""
    minor = minor or selected_minor()
    return TOOLS_DIR / kind if minor == DEFAULT_MINOR else TOOLS_DIR / minor / kind


def kubernetes_version() -> str:
    """The pinned Kubernetes version of the selected minor without the ``v``, e.g. ``1.34.4``
    (from its wrapper module's go.mod)."""
    return _module_version(module_dir("kube"), "k8s.io/kubernetes").lstrip("v")


def etcd_version() -> str:
    """The pinned etcd version of the selected minor, e.g. ``v3.6.4``."""
    return _module_version(module_dir("etcd"), "go.etcd.io/etcd/server/v3")


def _goarch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)


def store_dir() -> Path:
    """The setup-envtest-style store folder for the pinned version:
    ``<cache>/envtest/k8s/<version>-linux-<arch>``."""
    return cache_root() / "envtest" / "k8s" / f"{kubernetes_version()}-linux-{_goarch()}"


@dataclass(frozen=True)
class Binaries:
    """Absolute paths of the control-plane binaries, keyed by binary name
    (``etcd``, ``kube-apiserver``, ``kubectl``, ``kube-controller-manager``, ...)."""

    paths: dict[str, Path]

    def __getitem__(self, name: str) -> Path:
        try:
            return self.paths[name]
        except KeyError:
            raise BinaryError(f"binary {name!r} was not requested from binaries.ensure()") from None


def _env_override(name: str) -> Path | None:
    var = "TEST_ASSET_" + name.upper().replace("-", "_")
    if os.environ.get(var):
        path = Path(os.environ[var])
        if not os.access(path, os.X_OK):
            raise BinaryError(f"{var}={path} is not an executable file; unset it or fix the path")
        return path
    assets = os.environ.get("KUBEBUILDER_ASSETS")
    if assets and (Path(assets) / name).is_file():
        return Path(assets) / name
    return None


def find(name: str) -> Path | None:
    """Return the path of ``name`` by the lookup order of this module, or None if it must be built."""
    override = _env_override(name)
    if override is not None:
        return override
    cached = store_dir() / name
    return cached if os.access(cached, os.X_OK) else None


def _version_ldflags(version: str, commit_time: str) -> str:
    """ldflags that Kubernetes' own build (hack/lib/version.sh) sets, for both packages that
    hold a version, so ``kube-apiserver --version`` prints ``Kubernetes v<version>``."""
    major, minor = version.lstrip("v").split(".")[:2]
    flags = []
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [
            f"-X {pkg}.gitVersion={version}",
            f"-X {pkg}.gitMajor={major}",
            f"-X {pkg}.gitMinor={minor}",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.gitCommit=unknown",
            f"-X {pkg}.buildDate={commit_time}",
        ]
    return " ".join(flags)


def _go_env() -> dict[str, str]:
    env = dict(os.environ)
    env["CGO_ENABLED"] = "0"
    env.setdefault("GOFLAGS", "-mod=mod")
    return env


def _module_time(module: str, version: str, cwd: Path) -> str:
    """The publication time of a module version from the Go module proxy (deterministic, used
    as buildDate)."""
    out = process.run(
        [
            "go",
            "list",
            "-m",
            "-f",
            '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}',
            f"{module}@{version}",
        ],
        cwd=cwd,
        env=_go_env(),
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() or "1970-01-01T00:00:00Z"


def _run_go(
    args: list[str],
    cwd: Path,
    label: str,
    progress: Progress,
    extra_env: dict[str, str] | None = None,
) -> None:
    """Run a go command, streaming ``-v`` package lines into a periodic progress line.

    Raises BinaryError with the tail of go's output if it fails.
    """
    start = time.monotonic()
    proc = process.popen(  # dies with us, even on SIGKILL
        args,
        cwd=cwd,
        env={**_go_env(), **(extra_env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    count = [0]
    done = threading.Event()

    def heartbeat() -> None:
        while not done.wait(15):
            progress(f"{label}: {count[0]} packages compiled, {time.monotonic() - start:.0f}s")

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            count[0] += 1
            lines.append(line.rstrip())
            del lines[:-40]
        rc = proc.wait()
    except BaseException:  # Ctrl-C, SIGTERM: no build keeps running behind our back
        proc.kill()
        proc.wait()
        raise
    finally:
        done.set()
    if rc != 0:
        tail = "\n".join(lines[-25:])
        raise BinaryError(f"{label} failed (exit {rc}) in {cwd}:\n{tail}")


def build(names: Iterable[str], progress: Progress = _print_progress) -> dict[str, Path]:
    """Build the named binaries into the cache store and return their paths.

    Compiles with ``CGO_ENABLED=0`` and ``-trimpath``; Go's module and build caches are reused,
    so a second build after a cache wipe is fast. Each binary is written under a temporary name
    and renamed, so an interrupted build never leaves a broken file in the store.
    Raises BinaryError naming the binary and showing go's output when a build fails.
    """
    if shutil.which("go") is None:
        raise BinaryError(
            "the Go toolchain is needed to build the Kubernetes binaries: install Go "
            "1.24 or newer, or point KUBEBUILDER_ASSETS at existing binaries"
        )
    dest = store_dir()
    dest.mkdir(parents=True, exist_ok=True)
    version = "v" + kubernetes_version()
    built: dict[str, Path] = {}
    names = list(names)
    for i, name in enumerate(names, 1):
        target = dest / name
        tmp = dest / f".{name}.tmp{os.getpid()}"
        started = time.monotonic()
        progress(f"building {name} ({i}/{len(names)}) into {dest}; a cold build takes minutes")
        if name == "kwok":
            gobin = dest / f".gobin{os.getpid()}"
            _run_go(
                ["go", "install", "-v", "-trimpath", f"sigs.k8s.io/kwok/cmd/kwok@{KWOK_VERSION}"],
                TOOLS_DIR,
                name,
                progress,
                {"GOBIN": str(gobin), "GOFLAGS": ""},
            )
            (gobin / "kwok").rename(tmp)
            shutil.rmtree(gobin, ignore_errors=True)
        else:
            module, package = _PACKAGES[name]
            cwd = module_dir(module)
            ldflags = "-s -w"
            if module == "kube":
                ldflags += " " + _version_ldflags(
                    version, _module_time("k8s.io/kubernetes", version, cwd)
                )
            _run_go(
                ["go", "build", "-v", "-trimpath", "-ldflags", ldflags, "-o", str(tmp), package],
                cwd,
                name,
                progress,
            )
        tmp.rename(target)
        built[name] = target
        progress(f"built {name} in {time.monotonic() - started:.0f}s")
    return built


def ensure(
    names: Iterable[str] = ENVTEST_BINARIES, progress: Progress = _print_progress
) -> Binaries:
    """Return the paths of ``names``, building (with progress) the ones not found.

    Raises BinaryError if a build fails.
    """
    names = list(names)
    paths: dict[str, Path] = {}
    missing = []
    for name in names:
        found = find(name)
        if found is None:
            missing.append(name)
        else:
            paths[name] = found
    if missing:
        started = time.monotonic()
        progress(f"not cached: {', '.join(missing)}; building from the Go module proxy")
        paths.update(build(missing, progress))
        progress(f"all built in {time.monotonic() - started:.0f}s")
    return Binaries(paths)


def assets_dir() -> Path:
    """The folder to give as KUBEBUILDER_ASSETS: the user's own if set, else the cache store."""
    return (
        Path(os.environ["KUBEBUILDER_ASSETS"])
        if os.environ.get("KUBEBUILDER_ASSETS")
        else store_dir()
    )
