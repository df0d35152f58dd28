"""The two small HTTP endpoints of the manager: metrics and health probes.

controller-runtime serves ``/metrics`` on ``METRICS_BIND_ADDRESS`` and ``/healthz``,
``/readyz`` on ``HEALTH_PROBE_BIND_ADDRESS``; ``"0"`` turns either off. An address is
``host:port``; an empty host (``:8080``) listens on every interface.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A route answers (status, content type, body).
Route = Callable[[], tuple[int, str, bytes]]


def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (host may be empty or a bracketed IPv6 address) to (host, port)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{address!r} is not host:port")
    return host.strip("[]"), int(port)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def try_listen(address: str) -> None:
    """Listen on ``address`` (``host:port``) as ``serve`` would, and close at once. Raises
    ValueError for an address that is not host:port and OSError when it cannot be listened
    on (``EADDRINUSE``: another process holds the port)."""
    _Server(parse_address(address), BaseHTTPRequestHandler).server_close()


def serve(address: str, routes: dict[str, Route]) -> ThreadingHTTPServer:
    """Serve routes on address in a daemon thread; return the server (call shutdown() on it)."""
    host, port = parse_address(address)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            route = routes.get(self.path.split("?", 1)[0])
            status, content_type, body = (
                route() if route is not None else (404, "text/plain", b"404 page not found\n")
            )
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # probes every few seconds would drown the log

    server = _Server((host, port), Handler)
    threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.1},  # shutdown() waits up to one poll
        name=f"http-{address}",
        daemon=True,
    ).start()
    return server
