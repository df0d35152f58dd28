"""The finalizer helpers behave as controller-runtime v0.22's controllerutil.ContainsFinalizer,
AddFinalizer and RemoveFinalizer do on an unstructured object. No Go twin: Go calls the
library."""

from __future__ import annotations

from typing import Any

from python_operator.runtime import controllerutil

Obj = dict[str, Any]


def test_contains_finalizer() -> None:
    assert controllerutil.contains_finalizer({"metadata": {"finalizers": ["a", "b"]}}, "b")
    assert not controllerutil.contains_finalizer({"metadata": {"finalizers": ["a"]}}, "b")
    assert not controllerutil.contains_finalizer({"metadata": {}}, "b")
    assert not controllerutil.contains_finalizer({"metadata": {"finalizers": None}}, "b")


def test_add_finalizer_appends_once_and_keeps_the_others() -> None:
    obj: Obj = {"metadata": {"finalizers": ["orphan"]}}
    assert controllerutil.add_finalizer(obj, "modeldock.io/cleanup")
    assert not controllerutil.add_finalizer(obj, "modeldock.io/cleanup")
    assert obj["metadata"]["finalizers"] == ["orphan", "modeldock.io/cleanup"]
    bare: Obj = {"metadata": {}}
    assert controllerutil.add_finalizer(bare, "x")
    assert bare["metadata"]["finalizers"] == ["x"]


def test_remove_finalizer_removes_every_copy_and_keeps_the_rest_in_order() -> None:
    obj: Obj = {"metadata": {"finalizers": ["a", "ours", "b", "ours"]}}
    assert controllerutil.remove_finalizer(obj, "ours")
    assert obj["metadata"]["finalizers"] == ["a", "b"]
    assert not controllerutil.remove_finalizer(obj, "ours")
    last: Obj = {"metadata": {"finalizers": ["ours"]}}
    assert controllerutil.remove_finalizer(last, "ours")
    assert last["metadata"]["finalizers"] == []  # present and empty, as Go's f[:0]
    absent: Obj = {"metadata": {}}
    assert not controllerutil.remove_finalizer(absent, "ours")
    assert "finalizers" not in absent["metadata"]  # nil stays nil
