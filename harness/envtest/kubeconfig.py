"""Kubeconfig files: the harness writes one per identity (admin, each implementation's user,
each operator instance), and rewrites them to point a client at a fault proxy instead of the
API server. Paths inside are always absolute, so a kubeconfig works from any folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def write_kubeconfig(
    path: Path,
    server: str,
    ca_cert: Path,
    user: str,
    cert: Path,
    key: Path,
    context: str = "modeldock",
) -> Path:
    """Write a kubeconfig for one client-certificate user; return ``path``. File paths are
    written absolute: a kubeconfig's relative paths are read relative to the kubeconfig's own
    folder, and the operators run in folders of their own."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": context,
                "cluster": {
                    "server": server,
                    "certificate-authority": str(Path(ca_cert).resolve()),
                },
            }
        ],
        "users": [
            {
                "name": user,
                "user": {
                    "client-certificate": str(Path(cert).resolve()),
                    "client-key": str(Path(key).resolve()),
                },
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": context, "user": user}}],
        "current-context": context,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


def user_credentials(kubeconfig: Path) -> tuple[str, Path, Path, Path]:
    """(server URL, CA file, client certificate file, client key file) of a kubeconfig
    ``write_kubeconfig`` wrote (its first cluster and first user). KeyError or IndexError for a
    kubeconfig of another shape."""
    config = yaml.safe_load(kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    return (
        cluster["server"],
        Path(cluster["certificate-authority"]),
        Path(user["client-certificate"]),
        Path(user["client-key"]),
    )


def with_server(kubeconfig_in: Path, kubeconfig_out: Path, server: str) -> Path:
    """Copy a kubeconfig with every cluster's ``server`` set to ``https://<server>``.

    ``server``: ``host:port`` without a scheme, e.g. ``FaultProxy.address``. Relative file
    paths (``certificate-authority``, ``client-certificate``, ``client-key``, ``tokenFile``)
    are made absolute against ``kubeconfig_in``'s directory, so the copy works from anywhere.
    Contexts, users and embedded data are kept as they are. ``kubeconfig_out`` is written with
    mode 0600 (it may hold keys) and returned.

    Raises ValueError if ``server`` has a scheme or the kubeconfig has no clusters; OSError
    and yaml.YAMLError from reading and parsing pass through.
    """
    if "://" in server:
        raise ValueError(f"server must be host:port without a scheme, not {server!r}")
    config = yaml.safe_load(kubeconfig_in.read_text())
    clusters = config.get("clusters") if isinstance(config, dict) else None
    if not clusters:
        raise ValueError(f"{kubeconfig_in}: no clusters to point at {server}")
    base = kubeconfig_in.resolve().parent

    def absolute(section: dict[str, Any], keys: tuple[str, ...]) -> None:
        for k in keys:
            value = section.get(k)
            if isinstance(value, str) and value and not Path(value).is_absolute():
                section[k] = str(base / value)

    for entry in clusters:
        cluster = entry.setdefault("cluster", {})
        cluster["server"] = f"https://{server}"
        absolute(cluster, ("certificate-authority",))
    for entry in config.get("users") or []:
        absolute(entry.get("user") or {}, ("client-certificate", "client-key", "tokenFile"))
    kubeconfig_out.write_text(yaml.safe_dump(config, sort_keys=False))
    kubeconfig_out.chmod(0o600)
    return kubeconfig_out
