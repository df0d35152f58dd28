"""Tiers and capabilities: what each tier offers, the skip reasons, and the markers of the
suite (every need a known capability; the envtest-only and sim-only checks as the issue says)."""

from __future__ import annotations

import argparse
import ast
from typing import Any

import pytest

from harness import tiers
from harness.checks import CHECK_MARKER, NEEDS_MARKER
from harness.paths import CONFORMANCE_DIR


def test_every_tier_offers_known_capabilities() -> None:
    for tier, offers in tiers.OFFERS.items():
        assert not tiers.unknown(offers), tier


def test_skip_reason_names_need_tier_and_why() -> None:
    reason = tiers.skip_reason("envtest", tiers.OFFERS["envtest"], ["pods-ready"])
    assert reason and reason.startswith("needs pods-ready (") and "envtest tier" in reason
    assert tiers.skip_reason("sim", tiers.OFFERS["sim"], ["pods-ready", "audit-log"]) is None
    both = tiers.skip_reason("existing", tiers.OFFERS["existing"], ["audit-log", "pods-ready"])
    assert both and both.count("needs ") == 2


def test_existing_offers_pods_ready_only_on_kwok_nodes() -> None:
    kwok: dict[str, Any] = {"metadata": {"annotations": {"kwok.x-k8s.io/node": "fake"}}}
    real: dict[str, Any] = {"metadata": {"annotations": {}}}
    assert "pods-ready" in tiers.existing_offers([kwok, kwok])
    assert "pods-ready" not in tiers.existing_offers([kwok, real])
    assert "pods-ready" not in tiers.existing_offers([])


def _needs_by_check() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in CONFORMANCE_DIR.glob("test_*.py"):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            check: str | None = None
            wanted: set[str] = set()
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute):
                    args = [str(a.value) for a in dec.args if isinstance(a, ast.Constant)]
                    if dec.func.attr == CHECK_MARKER:
                        case = next(
                            (
                                str(k.value.value)
                                for k in dec.keywords
                                if k.arg == "case" and isinstance(k.value, ast.Constant)
                            ),
                            None,
                        )
                        check = f"{args[0]}[{case}]" if case else args[0]
                    elif dec.func.attr == NEEDS_MARKER:
                        wanted |= set(args)
            if check:
                out[check] = wanted | {
                    n
                    for f in (a.arg for a in node.args.args)
                    for n in tiers.FIXTURE_NEEDS.get(f, ())
                }
    return out


def test_suite_needs_are_capabilities_and_split_as_designed() -> None:
    needs = _needs_by_check()
    for check, wanted in needs.items():
        assert not tiers.unknown(wanted), check
    runs_on = {
        t: {c for c, w in needs.items() if not tiers.missing(tiers.OFFERS[t], w)}
        for t in tiers.OFFERS
    }
    assert "progressing-without-kubelet" in runs_on["envtest"] - runs_on["sim"]
    for check in ("ready-with-kwok", "garbage-collected", "namespace-deleted"):
        assert check in runs_on["sim"] - runs_on["envtest"], check
    # Everything that needs no kubelet, no staged orphan and no Deployment status of its own
    # making runs on both harness-owned tiers.
    assert runs_on["envtest"] - runs_on["sim"] == {
        "progressing-without-kubelet",
        "replaced-child-kept",
        "status-follows-rollout[played-rollout]",
        "status-rebuilt[deployment-status]",
    }


def test_request_accounting_everywhere_audit_log_only_where_needed() -> None:
    """Every tier accounts the operators' requests (their API proxies); only the checks that
    read what the proxy does not record (the authorizer's decision, Status messages, request
    bodies) need the audit log itself."""
    assert all("request-accounting" in offers for offers in tiers.OFFERS.values())
    needs = _needs_by_check()
    assert {c for c, w in needs.items() if "audit-log" in w} == {
        "rbac-least-privilege",
        "events-recorded",
        "replaced-child-kept",
        "replaced-child-kept[foreign-deployment]",
        "vanished-owner[refused-delete]",
    }
    assert "request-accounting" in needs["noop-stable"]


def test_the_registry_says_how_each_tier_runs() -> None:
    """One registry (issue 24): the tiers the harness starts, the binaries each needs, and
    kind, which runs as existing on the cluster it makes (no entry of its own in OFFERS)."""
    assert tiers.names() == ("envtest", "sim", "existing", "kind")
    assert tiers.names(started=True) == ("envtest", "sim")
    assert tiers.spec("kind").session == "existing" and tiers.spec("kind").creates_cluster
    assert "kind" not in tiers.OFFERS
    assert all(tiers.spec(t.session).session == t.session for t in tiers.TIERS.values())
    assert set(tiers.spec("envtest").binaries) < set(tiers.spec("sim").binaries)
    assert tiers.spec("existing").binaries == ("kubectl",)
    with pytest.raises(ValueError, match="no tier 'minikube'"):
        tiers.spec("minikube")


def test_every_tier_choice_is_the_registry_s() -> None:
    """The command lines and the plugin offer exactly the registry's tiers."""
    from harness import cli
    from harness.envtest import controlplane
    from harness.plugin import options

    choices = {o.name: o.choices for o in options.OPTIONS}
    assert choices["cluster"] == tiers.names()
    assert tiers.names(started=True) == controlplane.TIERS
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, wanted in (
        ("conformance", tiers.names()),
        ("up", ("envtest", "sim", "kind")),
    ):
        cluster = next(a for a in sub.choices[command]._actions if a.dest == "cluster")
        assert tuple(cluster.choices or ()) == wanted, command
    # serve, the internal process up starts, has a parser of its own
    serve = next(a for a in cli.build_serve_parser()._actions if a.dest == "cluster")
    assert tuple(serve.choices or ()) == tiers.names(started=True)
