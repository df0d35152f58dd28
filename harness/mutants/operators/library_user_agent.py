"""library-user-agent: the operator's requests go out under the client library's default name.

Anti-pattern: the operator builds its ApiClient and never sets a user agent, so every request
says ``OpenAPI-Generator/<version>/python`` (the official Python client's default). The API
server takes that as the field manager of every create and update, so managedFields, the
audit log and ``kubectl get -o yaml --show-managed-fields`` cannot tell this operator's
writes from those of any other program built on the same client.

Why people write it: nothing fails without it; client-go names a program after its binary,
so a Go author never has to think of it, and the Python client's default looks like a name.

What the correct operator does: it sets the client's user agent to a name of its own
(``modeldock-python/<version> (...)``, python_operator.__main__.USER_AGENT), as the Go
reference does (``modeldock-go/...``).
"""

from __future__ import annotations

from kubernetes import client as k8s

import python_operator.__main__ as entry
from harness import mutants

PATCHES = (mutants.Patch(entry, "USER_AGENT", f"OpenAPI-Generator/{k8s.__version__}/python"),)

if __name__ == "__main__":
    mutants.main(PATCHES)
