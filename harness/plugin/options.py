"""The plugin's command-line options and ini key, and whether a session asked for ModelDock.

The ``pytest11`` entry point loads the plugin into every pytest session of the environment
ModelDock is installed in, so it stays quiet until asked (issue 24): it adds its options
(every one ``--modeldock-<name>``: pytest refuses to start when two plugins add the same
option, so a bare ``--impl`` or ``--check`` would collide), its ini key and its markers, and
nothing else. A session *asks* for ModelDock (``asked``) when one of these holds:

- a ``--modeldock-*`` option is given (on the command line, in ``PYTEST_ADDOPTS`` or in the
  ``addopts`` ini line: pytest parses them all alike);
- the ini key ``modeldock = true`` is set (``[tool.pytest.ini_options]``, ``pytest.ini``,
  or ``-o modeldock=true``);
- the session collects the conformance suite: a path argument is ``conformance/`` or inside
  it, the repository root (``pytest .`` there), or ``--pyargs conformance[.<module>]``.

Only then does ``harness.plugin.pytest_configure`` register the hooks and fixtures and set up
the run (SIGTERM, run claim, reaping, watchdog). An environment variable (``MODELDOCK_IMPL``,
...) is a default for its option in a session that asked; it does not ask by itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness import tiers
from harness.paths import CONFORMANCE_DIR, REPO_ROOT, REPORTS_DIR

#: The prefix of every option (``--modeldock-impl``) and of the option's ``dest``
#: (``modeldock_impl``).
PREFIX = "modeldock"

#: The ini key (a bool) that asks for ModelDock in a session whose arguments do not.
INI_KEY = "modeldock"


@dataclass(frozen=True)
class Option:
    """One plugin option: ``--modeldock-<name>``, read with ``value(config, name)``.

    ``env`` names the environment variable that gives its default in a session that asked,
    ``fallback`` the default without it. ``action`` and ``choices`` are argparse's. Every
    option's parser default is None, so ``asked`` can tell a given option from a default.
    """

    name: str
    help: str
    env: str | None = None
    fallback: Any = None
    action: str | None = None
    choices: tuple[str, ...] | None = None

    @property
    def flag(self) -> str:
        """The command-line spelling, ``--modeldock-<name>``."""
        return f"--{PREFIX}-{self.name}"

    @property
    def dest(self) -> str:
        """The attribute on ``config.option``, ``modeldock_<name with _>``."""
        return f"{PREFIX}_{self.name.replace('-', '_')}"


def _truthy(text: str) -> bool:
    return text.strip().lower() not in ("", "0", "false", "no")


OPTIONS: tuple[Option, ...] = (
    Option(
        "impl",
        "implementation under test, an id from harness/implementations.toml or a "
        "--modeldock-impl-file (default: $MODELDOCK_IMPL, else go)",
        env="MODELDOCK_IMPL",
        fallback="go",
    ),
    Option(
        "cluster",
        "control-plane tier: envtest (etcd + kube-apiserver, default), sim "
        "(+ controller-manager, scheduler, kwok), kind, existing (KUBECONFIG)",
        fallback=tiers.DEFAULT,
        choices=tiers.names(),
    ),
    Option(
        "control-plane-state",
        "state.json of a running control plane (from `python -m harness up`); default: "
        "$MODELDOCK_CONTROL_PLANE, else start one for this session",
        env="MODELDOCK_CONTROL_PLANE",
    ),
    Option(
        "impl-file",
        "a TOML file declaring more implementations (see harness/implementations.toml); repeatable",
        fallback=(),
        action="append",
    ),
    Option(
        "artifacts-dir",
        "where logs, objects and audit events of failed checks are saved "
        "(default: reports/artifacts)",
        fallback=str(REPORTS_DIR / "artifacts"),
    ),
    Option(
        "operator-role",
        "a ClusterRole YAML file to bind the operator's user to instead of "
        "config/rbac/role.yaml (the RBAC ablation passes the role minus one right); "
        "default: $MODELDOCK_OPERATOR_ROLE, else config/rbac/role.yaml",
        env="MODELDOCK_OPERATOR_ROLE",
    ),
    Option(
        "request-accounting",
        "what the `audit` fixture reads: auto (the audit log where the tier has one, else "
        "the operators' API proxies) or proxy (the proxies on every tier, as on a cluster "
        "without an audit log; checks that need audit-log still get it); default: "
        "$MODELDOCK_REQUEST_ACCOUNTING, else auto",
        env="MODELDOCK_REQUEST_ACCOUNTING",
        fallback="auto",
        choices=("auto", "proxy"),
    ),
    Option("progress", "print one line per finished check to stderr", action="store_true"),
    Option(
        "check",
        "run only this check id, or id[case] (repeatable)",
        fallback=(),
        action="append",
    ),
    Option(
        "keep-on-failure",
        "leave a failed check's namespace in place and list it in <artifacts-dir>/kept.jsonl",
        action="store_true",
    ),
    Option(
        "full",
        "also run the checks marked modeldock_slow (e.g. watch-recovers"
        "[connection-stall-defaults]); default: $MODELDOCK_FULL",
        env="MODELDOCK_FULL",
        fallback=False,
        action="store_true",
    ),
    Option(
        "pause-on-failure",
        "stop at the first failed check until Enter (needs -n 0)",
        action="store_true",
    ),
    Option(
        "built",
        "the implementation under test and its parity reference are built already "
        "(`python -m harness conformance` builds them once): the session does not build them",
        action="store_true",
    ),
)

_BY_NAME = {option.name: option for option in OPTIONS}


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--modeldock-*`` options (group "modeldock") and the ``modeldock`` ini key.
    Every option's default is None (``value`` applies the real default)."""
    group = parser.getgroup(PREFIX, "ModelDock conformance harness (quiet until asked)")
    for option in OPTIONS:
        kwargs: dict[str, Any] = {"dest": option.dest, "default": None, "help": option.help}
        if option.action:
            kwargs["action"] = option.action
        if option.choices:
            kwargs["choices"] = option.choices
        group.addoption(option.flag, **kwargs)
    parser.addini(
        INI_KEY,
        type="bool",
        default=False,
        help="ask for the ModelDock plugin in every session of this project (hooks, "
        "fixtures, run set-up); without it only --modeldock-* options or collecting "
        "conformance/ do",
    )


def value(config: pytest.Config, name: str) -> Any:
    """The value of ``--modeldock-<name>``: as given, else its environment variable (a flag's
    is true unless empty, 0, false or no), else its fallback (a repeatable option's is a
    list). Raises KeyError for a name that is not in ``OPTIONS``."""
    option = _BY_NAME[name]
    given = config.getoption(option.dest, None)
    if given is not None:
        return given
    if option.env and os.environ.get(option.env):
        text = os.environ[option.env]
        return _truthy(text) if option.action == "store_true" else text
    if option.action == "append":
        return list(option.fallback)
    if option.action == "store_true":
        return bool(option.fallback)
    return option.fallback


def given(config: pytest.Config) -> list[str]:
    """The ``--modeldock-*`` options this session was given, by flag."""
    return [o.flag for o in OPTIONS if config.getoption(o.dest, None) is not None]


def collects_conformance(config: pytest.Config) -> bool:
    """Whether the session's arguments collect the conformance suite: a path that is
    ``conformance/`` or inside it, or the repository root (``pytest .`` there; not any other
    ancestor: a project whose virtualenv holds ModelDock contains it too, and pytest does not
    collect a virtualenv), or with ``--pyargs`` the module ``conformance`` or one of its
    modules. A ``::`` node id counts by its file."""
    suite = CONFORMANCE_DIR.resolve()
    root = REPO_ROOT.resolve()
    pyargs = bool(config.getoption("pyargs", False))
    for arg in config.args:
        text = str(arg).split("::", 1)[0]
        if pyargs and (text == "conformance" or text.startswith("conformance.")):
            return True
        path = Path(text)
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        try:
            path = path.resolve()
        except OSError:
            continue
        if path == root or path.is_relative_to(suite):
            return True
    return False


def asked(config: pytest.Config) -> bool:
    """Whether this session asked for ModelDock: a ``--modeldock-*`` option, the ini key
    ``modeldock``, or the conformance suite among its arguments (module docstring)."""
    return bool(given(config)) or bool(config.getini(INI_KEY)) or collects_conformance(config)
