"""Kubeconfig files: the harness writes one per identity (admin, each implementation's user,
each operator instance), and rewrites them to point a client at a fault proxy instead of the
API server. Paths inside are always absolute, so a kubeconfig works from any folder.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


def write_kubeconfig(
    path: Path,
    server: str,
    ca_cert: Path,
    user: str,
    cert: Path | None,
    key: Path | None,
    context: str = "modeldock",
    token: str | None = None,
) -> Path:
    """Write a kubeconfig for one user, with a client certificate (``cert``/``key``) or a
    bearer ``token``; return ``path``. File paths are written absolute: a kubeconfig's
    relative paths are read relative to the kubeconfig's own folder, and the operators run in
    folders of their own."""
    credential: dict[str, str] = {}
    if cert is not None and key is not None:
        credential["client-certificate"] = str(Path(cert).resolve())
        credential["client-key"] = str(Path(key).resolve())
    if token:
        credential["token"] = token
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
                "user": credential,
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": context, "user": user}}],
        "current-context": context,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


@dataclass(frozen=True)
class Credentials:
    """What a kubeconfig's current context connects with: the server URL, the CA file, and a
    client certificate and key (files) or a bearer token (None where absent)."""

    server: str
    ca: Path
    cert: Path | None = None
    key: Path | None = None
    token: str | None = None


def read_credentials(kubeconfig: Path, workdir: Path) -> Credentials:
    """The ``Credentials`` of ``kubeconfig``'s current context (else its first context, else
    its first cluster and user). Embedded data (``certificate-authority-data``,
    ``client-certificate-data``, ``client-key-data``) is written to files in ``workdir``;
    ``tokenFile`` is read. Relative paths are taken against the kubeconfig's folder. Raises
    ValueError for a kubeconfig with neither a CA nor a credential the proxy can forward
    (exec plugins, auth providers)."""
    config = yaml.safe_load(kubeconfig.read_text()) or {}
    base = kubeconfig.resolve().parent
    contexts = {c["name"]: c.get("context") or {} for c in config.get("contexts") or []}
    ctx = contexts.get(config.get("current-context") or "") or next(iter(contexts.values()), {})

    def pick(kind: str, name: str | None) -> dict[str, Any]:
        entries = config.get(f"{kind}s") or []
        for e in entries:
            if e.get("name") == name:
                return dict(e.get(kind) or {})
        return dict((entries[0].get(kind) or {}) if entries else {})

    cluster, user = pick("cluster", ctx.get("cluster")), pick("user", ctx.get("user"))

    def file(section: dict[str, Any], key: str, stem: str) -> Path | None:
        if section.get(f"{key}-data"):
            out = workdir / stem
            out.write_bytes(base64.b64decode(section[f"{key}-data"]))
            out.chmod(0o600)
            return out
        value = section.get(key)
        return (base / value) if value else None

    ca = file(cluster, "certificate-authority", "upstream-ca.crt")
    cert = file(user, "client-certificate", "client.crt")
    key = file(user, "client-key", "client.key")
    token = user.get("token") or None
    if not token and user.get("tokenFile"):
        token = (base / user["tokenFile"]).read_text().strip()
    if ca is None or not ((cert and key) or token):
        raise ValueError(
            f"{kubeconfig}: the API proxy needs a CA and a client certificate or a bearer token"
        )
    return Credentials(str(cluster["server"]), ca, cert, key, token)


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
