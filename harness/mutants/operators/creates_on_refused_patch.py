"""creates-on-refused-patch: a repeat whose PATCH the API server refuses is created anew.

Anti-pattern: the recorder's fallback for a repeat it could not patch is a create, whatever
the answer was: "the patch failed, so write the Event the other way". Only a 404 means the
Event is gone; a 403 (an admission policy, a quota on Events) or a 422 refuses the write
itself, so the create is a request the API server answers 409 (the Event exists under that
name) or refuses again: a write per occurrence for nothing, and, where only patches are
refused, a second Event.

Why people write it: the create after a failed patch is right for an Event that expired (the
API server's event TTL is an hour), the case every author meets; a refused patch is rare.

What the correct operator does: as client-go's ``recordEvent`` (tools/record v0.34), it
creates after a failed patch only when the answer was 404, and drops a refused one ("will not
retry"); the occurrence stays counted (``events-recorded[refused-patch]``). Here the sink
reports any refused patch as 404.
"""

from __future__ import annotations

from typing import Any

from harness import mutants
from python_operator.runtime import client as client_
from python_operator.runtime import events


class GoneOnRefusalSink(events.ClientSink):
    def patch(self, event: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
        try:
            return super().patch(event, patch)
        except client_.ApiError as exc:
            if client_.is_not_found(exc):
                raise
            # The mutant: any refusal of the patch taken for a gone Event.
            raise client_.ApiError(404, "NotFound", f"taken for gone: {exc}") from exc


PATCHES = (mutants.Patch(events, "ClientSink", GoneOnRefusalSink),)

if __name__ == "__main__":
    mutants.main(PATCHES)
