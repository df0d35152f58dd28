"""no-watch-timeout: watches with no timeout and no read deadline, trusting an open connection.

Anti-pattern: the informer opens each watch without ``timeoutSeconds`` and with no read
timeout on its socket, so it waits for the next event for as long as the connection stays
open. A connection that stays open but carries nothing (a dead NAT entry, a load balancer
that lost the flow, a half-dead API server) is never noticed: no error, no end of stream,
just silence, and the cache is frozen for ever while the process looks healthy.

Why people write it: a watch is meant to be a long-lived stream, and a timeout looks like a
way to lose events; on a laptop a broken connection is always a reset or a clean close, which
every loop handles. The Python client even does this by default (``kubernetes.watch`` sets no
read timeout unless asked).

What the correct operator does: every watch has a deadline. client-go asks the server to end
each watch after 5-10 minutes and, over HTTP/2, pings a silent connection (30 s idle, 15 s
ping timeout); the Python operator asks for 30-60 s and sets a socket read timeout a few
seconds above it. Either way a silent connection is given up and the watch resumes from the
last resourceVersion on a new one.
"""

from __future__ import annotations

from harness import mutants
from python_operator.runtime import client as client_


def watch_without_deadline(
    self: client_.Client,
    resource: client_.Resource,
    namespace: str,
    *,
    resource_version: str,
    timeout_seconds: int,
    read_timeout: float,
) -> client_.WatchStream:
    """The mutant: the same watch request, without ``timeoutSeconds`` and with no read timeout
    (the connect timeout stays)."""
    query = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
    ]
    method, url, header_params, serialized, post_params = self._api.param_serialize(
        method="GET",
        resource_path=resource.path(namespace),
        query_params=query,
        header_params={"Accept": "application/json"},
        body=None,
        auth_settings=["BearerToken"],
    )
    rest_response = self._api.call_api(
        method,
        url,
        header_params=header_params,
        body=serialized,
        post_params=post_params,
        _request_timeout=(client_.CONNECT_TIMEOUT, None),
    )
    response = rest_response.response
    if not 200 <= response.status <= 299:
        try:
            data = response.data
        finally:
            response.release_conn()
        raise client_._error_from_body(response.status, response.reason or "", data or b"")
    return client_.WatchStream(response)


PATCHES = (mutants.Patch(client_.Client, "watch", watch_without_deadline),)

if __name__ == "__main__":
    mutants.main(PATCHES)
