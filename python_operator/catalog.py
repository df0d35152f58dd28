"""Registering each ModelService generation with the model catalog.

CONTRACT.md, "The model catalog". With MODELDOCK_CATALOG_URL set, step 6 registers the
ModelService's current generation with the catalog before it writes the status, once per
generation: a status whose ``catalog.generation`` is the current one is registered already.
The registration is an effect outside the cluster, which a crash can make happen without the
operator learning of it (the catalog recorded it, its answer was lost), so every attempt of one
generation carries the same durable identity, the Idempotency-Key
``<metadata.uid>/<metadata.generation>``: the catalog answers a key it has seen with the
original registration and records nothing new. The answer goes into ``status.catalog``.

Go: go_reference/catalog.go, the same names.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from python_operator.runtime import log as log_

#: Names the catalog; unset or empty: no catalog, nothing is registered.
CATALOG_URL_ENV = "MODELDOCK_CATALOG_URL"
#: Seconds one registration request may take.
CATALOG_TIMEOUT = 10.0

Obj = dict[str, Any]


class CatalogError(RuntimeError):
    """A registration failed: no answer, or an answer other than 200/201 with an id."""


class CatalogClient:
    """Registers with the catalog at ``url`` (scheme and host, no trailing slash)."""

    def __init__(self, url: str, timeout: float = CATALOG_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def register(self, key: str, registration: Mapping[str, str]) -> str:
        """POST /registrations with ``key`` as the Idempotency-Key and ``registration``
        (``name``, ``model``, ``image``, ``endpoint``) as the body; returns the catalog's id of
        the registration (a new one, or the original for a key it has seen). Raises
        CatalogError saying what failed."""
        req = urllib.request.Request(
            self.url + "/registrations",
            data=json.dumps(dict(registration)).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Idempotency-Key": key},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                code, data = resp.status, resp.read(1 << 20)
        except urllib.error.HTTPError as err:
            code, data = err.code, err.read(1 << 20)
        except (urllib.error.URLError, OSError) as err:
            raise CatalogError(f"catalog registration {key}: {err}") from err
        try:
            answer = json.loads(data or b"{}")
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        if code not in (200, 201):
            raise CatalogError(
                f"catalog registration {key}: HTTP {code}: {answer.get('error', '')}"
            )
        if not answer.get("id"):
            raise CatalogError(f"catalog registration {key}: HTTP {code} without an id")
        return str(answer["id"])


def catalog_from_env(env: Mapping[str, str]) -> CatalogClient | None:
    """The catalog ``env[CATALOG_URL_ENV]`` names; None when it is unset or empty. Raises
    ValueError naming the variable and the fix when it is not an http(s) URL with a host."""
    raw = env.get(CATALOG_URL_ENV, "").strip()
    if not raw:
        return None
    u = urllib.parse.urlsplit(raw)
    if u.scheme not in ("http", "https") or not u.netloc:
        raise ValueError(
            f"{CATALOG_URL_ENV}={raw!r}: must be the catalog's http:// or https:// URL; "
            "unset it to run without a catalog"
        )
    return CatalogClient(raw)


def request_key(ms: Obj) -> str:
    """The durable identity of the registration of ms's current generation:
    ``<metadata.uid>/<metadata.generation>``, the same in every attempt, process and leader."""
    meta = ms["metadata"]
    return f"{meta.get('uid', '')}/{meta.get('generation', 0)}"


def register_in_catalog(
    catalog: CatalogClient | None,
    ms: Obj,
    model: str,
    image: str,
    conflict: str,
    status: Obj,
    rlog: log_.Logger,
) -> None:
    """Step 6's registration: with a catalog, no conflict and a status whose catalog is not of
    the current generation, register the generation and set ``status["catalog"]`` to
    ``{generation, key, registration}``. ``status`` is the computed status (compute_status
    keeps the stored catalog). Raises CatalogError (the key is requeued with backoff; the
    status is not written)."""
    if catalog is None or conflict:
        return
    generation = ms["metadata"].get("generation", 0)
    stored = status.get("catalog")
    if isinstance(stored, dict) and stored.get("generation") == generation:
        return
    key = request_key(ms)
    meta = ms["metadata"]
    registration = catalog.register(
        key,
        {
            "name": f"{meta['namespace']}/{meta['name']}",
            "model": model,
            "image": image,
            "endpoint": str(status.get("url", "")),
        },
    )
    rlog.info("Registered in catalog", key=key, registration=registration)
    status["catalog"] = {"generation": generation, "key": key, "registration": registration}
