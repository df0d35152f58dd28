"""served-by-group: the CRD is taken for served as soon as its group version is.

Anti-pattern: the wait for the CRD asks discovery for ``/apis/modeldock.io/v1alpha1`` and
stops at the first 200, whatever resources the answer lists. A group whose CRDs are applied
one by one (a chart that ships several kinds, an upgrade that adds one) serves the group
version before the ModelService CRD, and the operator starts its informers on a resource
that is not there: its list is refused 404 and it never becomes ready, or exits.

Why people write it: with one CRD in the group, "the group version is served" and "the CRD is
served" are the same answer, and a 404 of the whole group version is what every test of the
wait sees.

What the correct operator does: it waits until discovery lists ``modelservices`` in the group
version (CONTRACT.md, "Process"); waits-for-crd serves a decoy CRD of the same group before
it starts the operator.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_


def group_served(self: client_.Client, resource: client_.Resource) -> bool:
    """The mutant: True when discovery of the group version answers with any resource."""
    try:
        found = self._json("GET", f"/apis/{resource.group}/{resource.version}")
    except client_.ApiError as err:
        if client_.is_not_found(err):
            return False
        raise
    return bool(found.get("resources"))


PATCHES = (mutants.Patch(client_.Client, "served", group_served),)

if __name__ == "__main__":
    mutants.main(PATCHES)
