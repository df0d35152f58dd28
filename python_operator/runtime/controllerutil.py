"""Finalizer helpers: the twins of ``ContainsFinalizer``, ``AddFinalizer`` and
``RemoveFinalizer`` in sigs.k8s.io/controller-runtime/pkg/controller/controllerutil (v0.22),
on a JSON object (a dict with ``metadata``), so that the Python reconciler's step 3 and its
finalizer removal read like the Go reference's.

Go reads and writes ``metadata.finalizers`` through ``GetFinalizers``/``SetFinalizers``;
here it is the list at ``obj["metadata"]["finalizers"]``, absent or null meaning none. Like
Go's, the helpers change the object in place and write nothing: the caller sends the Update.
"""

from __future__ import annotations

from python_operator.runtime import client as client_

Obj = client_.Obj


def contains_finalizer(obj: Obj, finalizer: str) -> bool:
    """Whether obj's metadata.finalizers holds finalizer (Go: controllerutil.ContainsFinalizer).
    Raises KeyError if obj has no metadata."""
    return finalizer in (obj["metadata"].get("finalizers") or [])


def add_finalizer(obj: Obj, finalizer: str) -> bool:
    """Append finalizer to obj's metadata.finalizers unless it is there already; return
    whether the list changed (Go: controllerutil.AddFinalizer, which appends at the end and
    keeps every other finalizer in its place). Raises KeyError if obj has no metadata."""
    meta = obj["metadata"]
    current = list(meta.get("finalizers") or [])
    if finalizer in current:
        return False
    meta["finalizers"] = [*current, finalizer]
    return True


def remove_finalizer(obj: Obj, finalizer: str) -> bool:
    """Remove every occurrence of finalizer from obj's metadata.finalizers, keeping the
    others in order; return whether the list changed (Go: controllerutil.RemoveFinalizer).
    A list that is present stays present, possibly empty (``[]``), as Go's
    ``SetFinalizers(f[:index])`` leaves it; an absent list stays absent. Raises KeyError if
    obj has no metadata."""
    meta = obj["metadata"]
    current = meta.get("finalizers")
    if current is None:
        return False
    kept = [f for f in current if f != finalizer]
    meta["finalizers"] = kept
    return len(kept) != len(current)
