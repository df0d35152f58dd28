"""refuses-http-catalog: refuses a valid http:// catalog URL and exits 2.

Anti-pattern: the catalog URL's check accepts only https://, so an operator given the
plain-HTTP URL of an in-cluster catalog (a Service's http://name.namespace:port) refuses to
start: "invalid environment", exit 2. The contract accepts http:// and https:// and refuses
only what is not a URL of either.

Why people write it: a "secure by default" check added in review, or a scheme test written
with one case in mind; every unit test used an https:// example.

What the correct operator does: it starts with any http(s) URL that has a host (CONTRACT.md,
"An external effect, once"), and external-effect-once fails an operator that exits before
/readyz with such a URL.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness import mutants
from python_operator import catalog

_catalog_from_env = catalog.catalog_from_env  # the real one, taken before the patch


def refusing_http_catalog(env: Mapping[str, str]) -> catalog.CatalogClient | None:
    raw = env.get(catalog.CATALOG_URL_ENV, "").strip()
    if raw and not raw.startswith("https://"):
        raise ValueError(f"{catalog.CATALOG_URL_ENV}={raw!r}: must be the catalog's https:// URL")
    return _catalog_from_env(env)


PATCHES = (mutants.Patch(catalog, "catalog_from_env", refusing_http_catalog),)

if __name__ == "__main__":
    mutants.main(PATCHES)
