"""Build a Go mutant: the Go reference with one file added, by ``go build -overlay``.

A Go mutant (id ending in ``-go``, declared in ``mutants.toml``) is one source file,
``harness/mutants/go/<id with underscores>.go``, in ``package main``, whose ``func init()``
assigns new values to seams of the Go reference (package-level variables in
``go_reference/seams.go``). The Go reference itself carries no mutant code: the file joins the
package only in the mutant's own build, through an overlay (``go help build``, ``-overlay``:
a JSON file that maps a path the compiler reads to the file that stands for it). So every
mutant is the real operator with exactly the replaced seams changed, as a Python mutant is
the real operator with its ``PATCHES`` applied.

``python -m harness.mutants.gobuild <mutant-id>`` (the mutant's ``build`` in mutants.toml, run
in ``go_reference/``) writes an overlay into ``build/mutants/<id>/`` and builds
``build/mutants/<id>/modeldock-go``. Exit 0 when built; 2 for an id that is not a Go mutant
(no source file: the message names the path it looked for); otherwise go build's exit code,
with its output on stderr.

``compile_errors`` checks that many Go mutants compile without linking any: one ``go list
-export`` over an overlay that gives each mutant a package of its own (the reference's files
plus the mutant's), so the unit tests judge every mutant's build for about a third of the CPU
of linking each one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness import mutants
from harness.paths import BUILD_DIR, REPO_ROOT, cache_root

#: The Go reference's package folder, where the mutant's file is overlaid.
GO_REFERENCE_DIR = REPO_ROOT / "go_reference"


def output_dir(mutant_id: str) -> Path:
    """``build/mutants/<id>/``: the overlay file and the mutant's binary."""
    return BUILD_DIR / "mutants" / mutant_id


def binary(mutant_id: str) -> Path:
    """The built mutant operator, ``build/mutants/<id>/modeldock-go`` (the ``command`` of its
    declaration in mutants.toml)."""
    return output_dir(mutant_id) / "modeldock-go"


def overlay(mutant_id: str) -> dict[str, dict[str, str]]:
    """The ``go build -overlay`` document for the mutant: the file
    ``go_reference/zz_mutant_<module>.go`` (which does not exist) read from the mutant's
    source. Raises FileNotFoundError naming the source when it is missing."""
    source = mutants.go_source_path(mutant_id)
    if not source.is_file():
        raise FileNotFoundError(
            f"{mutant_id!r} is not a Go mutant: no source file {source} "
            "(a Go mutant's id ends in -go and its source is harness/mutants/go/<id>.go)"
        )
    target = GO_REFERENCE_DIR / f"zz_mutant_{mutants.module_name(mutant_id)}.go"
    return {"Replace": {str(target): str(source)}}


def build(mutant_id: str) -> int:
    """Write the overlay and run ``go build`` in go_reference/; returns go build's exit code
    (its output goes to this process's stdout and stderr). Raises FileNotFoundError as
    ``overlay`` does.

    The binary is linked under a name of this process's own and then renamed over
    ``binary(mutant_id)`` (``os.replace``, atomic): two steps of ``make test`` side by side
    (mutants-ci and explore-ci) build the same mutant, and ``go build -o`` rewrites its target
    in place, so one step's exec found no file while the other's build was writing it. A
    process that already runs the old binary keeps its inode. The old binary is copied to the
    new name first, so that an up-to-date build links nothing."""
    doc = overlay(mutant_id)
    out = output_dir(mutant_id)
    out.mkdir(parents=True, exist_ok=True)
    overlay_file = out / f"overlay.{os.getpid()}.json"
    target = binary(mutant_id)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        overlay_file.write_text(json.dumps(doc, indent=2) + "\n")
        if target.is_file():
            # go build leaves an up-to-date target alone (its build ID): a copy keeps that
            shutil.copy2(target, partial)
        cmd = ["go", "build", "-overlay", str(overlay_file), "-o", str(partial), "."]
        code = subprocess.run(cmd, cwd=GO_REFERENCE_DIR, check=False).returncode
        if code == 0:
            os.replace(partial, target)
        return code
    finally:
        partial.unlink(missing_ok=True)
        overlay_file.unlink(missing_ok=True)


#: Where ``compile_errors`` runs: a folder at one path on this machine, in the project's cache
#: (outside the clone, unless MODELDOCK_CACHE is set inside it), kept empty on disk. The overlay gives it the reference's go.mod and go.sum, so imports
#: resolve exactly as in the real build, and each mutant's package under
#: ``zz_mutants/<module>/``. Go's build cache keys a package outside the module cache by its
#: folder (cmd/go's buildActionID adds "dir <path>" unless -trimpath): in the clone's own
#: folder every clone at a new path (a fresh clone in CI, a worktree) compiled all the mutants
#: again (276 to 301 s of ``make unit``); from one fixed folder a second clone of the same
#: sources compiles nothing. -trimpath would do the same but rebuilds every dependency once
#: more under its own keys.
def compile_check_dir() -> Path:
    """``<cache_root>/go-compile-check/``, made if missing (harness.paths.cache_root), with
    symlinks resolved: go matches the overlay's paths against its working folder as getcwd
    gives it, and a symlinked cache would leave go.mod unfound."""
    folder = cache_root().resolve() / "go-compile-check"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def compile_overlay(mutant_ids: list[str], root: Path) -> dict[str, dict[str, str]]:
    """The ``-overlay`` document of ``compile_errors`` run in ``root``: ``root/go.mod`` and
    ``root/go.sum`` are the reference's, and for each mutant the folder
    ``root/zz_mutants/<module>/`` holds every non-test ``.go`` file of go_reference/ under
    its own name (build constraints in names and contents apply as in the real build) and the
    mutant's source as ``zz_mutant_<module>.go``, the name ``overlay`` gives it. Raises
    FileNotFoundError as ``overlay`` does."""
    reference = sorted(p for p in GO_REFERENCE_DIR.glob("*.go") if not p.name.endswith("_test.go"))
    replace = {str(root / name): str(GO_REFERENCE_DIR / name) for name in ("go.mod", "go.sum")}
    for mutant_id in mutant_ids:
        [(target, source)] = overlay(mutant_id)["Replace"].items()
        folder = root / "zz_mutants" / mutants.module_name(mutant_id)
        for path in reference:
            replace[str(folder / path.name)] = str(path)
        replace[str(folder / Path(target).name)] = source
    return {"Replace": replace}


def compile_errors(mutant_ids: list[str]) -> dict[str, str]:
    """Compile the given Go mutants, each as the reference plus its one file, in one ``go list
    -e -export`` (compiled, type-checked, not linked; Go's build cache keeps what compiled):
    mutant id -> the compiler's message, for those that do not compile; empty when all do.
    Raises RuntimeError with go's output when go itself fails, FileNotFoundError as
    ``overlay`` does. Linking, which a compiled package of this module does not fail, is left
    to ``build``, the one that makes a binary to run."""
    root = compile_check_dir()
    doc = compile_overlay(mutant_ids, root)
    out = BUILD_DIR / "mutants"
    out.mkdir(parents=True, exist_ok=True)
    overlay_file = out / f"compile-check.{os.getpid()}.json"
    try:
        overlay_file.write_text(json.dumps(doc, indent=2) + "\n")
        cmd = ["go", "list", "-e", "-export", "-overlay", str(overlay_file)]
        cmd += ["-json=ImportPath,Error,DepsErrors"]
        cmd += [f"./zz_mutants/{mutants.module_name(m)}" for m in mutant_ids]
        env = {**os.environ, "GOWORK": "off"}
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False, env=env)
    finally:
        overlay_file.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed:\n{proc.stdout}{proc.stderr}")
    by_module = {mutants.module_name(m): m for m in mutant_ids}
    # a mutant go list leaves out is an error too, until its record says otherwise
    errors = {m: f"go list did not list its package ./{mod}" for mod, m in by_module.items()}
    decoder = json.JSONDecoder()
    text, at = proc.stdout, 0
    while text[at:].strip():
        record, at = decoder.raw_decode(text, text.index("{", at))
        mutant_id = by_module.get(record["ImportPath"].rsplit("/", 1)[-1], record["ImportPath"])
        problems = [record.get("Error") or {}, *(record.get("DepsErrors") or [])]
        messages = [p["Err"].strip() for p in problems if p.get("Err")]
        if messages:
            errors[mutant_id] = "\n".join(messages)
        else:
            errors.pop(mutant_id, None)
    return errors


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.mutants.gobuild <mutant-id>``: see the module docstring."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m harness.mutants.gobuild <go-mutant-id>", file=sys.stderr)
        return 2
    try:
        return build(args[0])
    except FileNotFoundError as exc:
        print(f"gobuild: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
