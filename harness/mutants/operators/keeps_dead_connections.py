"""keeps-dead-connections: gives up a connection found silent, but keeps the pooled ones beside it.

Anti-pattern: a watch or a request times out on a connection that went silent, and the client
closes that one connection and nothing else. The idle connections pooled beside it went
through the same dead path (a NAT entry that expired, a load balancer that lost its flows) and
are just as silent, but the pool hands them out again: the re-list and the next writes are
sent into them, and each waits out its own read timeout before the next one is tried. The
operator recovers, one deadline per pooled connection later than it could have: 24.6 s
instead of 7.6 s for the Python operator with 8 s deadlines, minutes with the defaults.

Why people write it: an HTTP/1.1 connection pool (urllib3's, requests', the Kubernetes
Python client's) treats each connection on its own, and only drops one it finds closed by the
peer; a silent connection looks healthy until it is used. Closing one timed-out socket is the
library's default, and on a laptop every broken connection is a reset that the next request
notices at once.

What the correct operator does: a transport failure on one connection to the API server gives
up all of them (the Python operator: ``Client.drop_connections`` clears the pool), so the next
request dials a fresh connection. client-go gets this from HTTP/2: one connection carries every
request, and when its health-check ping goes unanswered all of them move to a new one.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_


def keep_connections(self: client_.Client) -> None:
    """The mutant: a transport failure closes only the connection it happened on (urllib3
    does that itself); the pooled connections beside it are kept and handed out again."""


PATCHES = (mutants.Patch(client_.Client, "drop_connections", keep_connections),)

if __name__ == "__main__":
    mutants.main(PATCHES)
