"""spam-key-by-name: the Event spam filter keeps its token bucket per object name, not per
object: a ModelService created again under a name whose Events filled the burst gets none.

Anti-pattern: the filter's key is built from the involvedObject's kind, namespace and name,
leaving out its uid. A ModelService deleted and created again under the same name (a
redeploy, a test that recreates its fixtures) is another object, but shares the old one's
bucket: if the old one spent its burst of 25, the new one's first Events (CreatedDeployment,
CreatedService) are dropped for up to five minutes.

Why people write it: kind, namespace and name are what ``kubectl describe`` shows, and an
object's uid looks redundant next to its name.

What the correct operator does: as client-go's ``getSpamKey`` (tools/record v0.34), the key
holds the involvedObject's uid and apiVersion with its kind, namespace and name, so each
object has its own bucket (CONTRACT.md, "Events"), and ``events-recorded[burst]`` sees the
new ModelService's Events.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import events


def spam_key_by_name(event: dict[str, Any]) -> str:
    """The mutant: source, kind, namespace, name and type; no uid, no apiVersion."""
    return "".join(events._source(event) + events._involved(event) + [str(event.get("type", ""))])


PATCHES = (mutants.Patch(events, "get_spam_key", spam_key_by_name),)

if __name__ == "__main__":
    mutants.main(PATCHES)
