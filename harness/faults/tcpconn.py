"""The connection state of the TCP fault proxy (``harness.faults.tcpproxy``): one proxied
connection's two sockets and two directions of queued bytes, what its client did after a stall
silenced it, and the proxy's counters.

Owned by the proxy's loop thread alone: nothing here locks.
"""

from __future__ import annotations

import contextlib
import socket
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

#: Which socket of a connection: the accepted client's, or the one dialled to the API server.
Side = Literal["client", "upstream"]

#: ``SO_LINGER`` on, timeout 0: ``close()`` sends RST and discards unsent data.
LINGER_RESET = struct.pack("ii", 1, 0)


def close_with_rst(sock: socket.socket) -> None:
    """Close ``sock`` with an RST rather than a FIN (best effort; never raises)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
    sock.close()


def set_nodelay(sock: socket.socket) -> None:
    """Forward small writes at once: the proxy must not add Nagle delay to API requests."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@dataclass(eq=False)
class Direction:
    """Bytes read from one socket of a connection, waiting to be written to the other."""

    #: ``(due, data)`` in arrival order; ``due`` is a ``time.monotonic()`` instant.
    chunks: deque[tuple[float, bytes]] = field(default_factory=deque)
    #: Sum of ``len(data)`` over ``chunks``.
    queued: int = 0
    #: The source sent FIN (or, during a stall, failed): it is not read any more.
    eof: bool = False
    #: The FIN was passed on: the destination's write side is shut down.
    shut: bool = False

    def due(self, now: float) -> bool:
        """Whether the first chunk may be written at ``now``."""
        return bool(self.chunks) and self.chunks[0][0] <= now


#: Arrivals kept per silenced connection (a client that keeps writing into a silenced one is
#: shown by the first few and by ``last_arrival``; the list does not grow without end).
MAX_ARRIVALS = 1000


@dataclass(frozen=True)
class SilencedConnection:
    """What the client did on one connection after a stall silenced it
    (``FaultProxy.silenced()``). Times are ``time.monotonic()`` seconds, as the caller's.

    - ``number``: the connection's accept order (1 for the proxy's first); ``client``: the
      client's ``host:port``, as the proxy saw it;
    - ``silenced_at``: when ``stall_existing()`` or ``stall(True)`` silenced it (a connection
      accepted during ``stall(True)``: when it was accepted);
    - ``client_closed_at``: when the client closed its end (the proxy read its FIN, or its
      socket failed: RST); None while open. A close by the proxy (``cut()``, ``stall(False)``,
      ``stop()``) is not the client's and is not recorded;
    - ``arrivals``: ``(time, length)`` of each chunk read from the client after the silence
      (all dropped), in order, the first ``MAX_ARRIVALS``; ``last_arrival``: the time of the
      last (None: nothing arrived); ``bytes``: their total length.
    """

    number: int
    client: str
    silenced_at: float
    client_closed_at: float | None
    arrivals: tuple[tuple[float, int], ...]
    last_arrival: float | None
    bytes: int


@dataclass(eq=False)
class Connection:
    """One proxied connection: the accepted client socket and the socket dialled upstream."""

    client: socket.socket | None
    upstream: socket.socket | None = None
    #: While the upstream connect is in flight: when to give up (monotonic seconds).
    connect_deadline: float | None = None
    up: Direction = field(default_factory=Direction)
    down: Direction = field(default_factory=Direction)
    #: The connection lived through a stall: nothing is forwarded, and it is cut when the
    #: stall ends. Each side is on its own: what happens to one is not shown to the other.
    stalled: bool = False
    #: The selector events each socket is registered for now (0: not registered).
    masks: dict[Side, int] = field(default_factory=lambda: {"client": 0, "upstream": 0})
    closed: bool = False
    #: Accept order (1 for the proxy's first connection) and the client's ``host:port``.
    number: int = 0
    peer: str = ""
    #: When a stall silenced the connection (monotonic seconds; None: never silenced), and
    #: what its client did after that: when it closed its end (FIN or RST; None: not yet), and
    #: each chunk of bytes it sent, ``(arrival, length)``, the first ``MAX_ARRIVALS`` kept.
    silenced_at: float | None = None
    client_closed_at: float | None = None
    arrivals: list[tuple[float, int]] = field(default_factory=list)
    last_arrival: float | None = None
    arrived_bytes: int = 0

    def client_sent(self, n: int, now: float) -> None:
        """Note ``n`` bytes read from the client of a silenced connection at ``now``."""
        if len(self.arrivals) < MAX_ARRIVALS:
            self.arrivals.append((now, n))
        self.last_arrival = now
        self.arrived_bytes += n

    def silence_record(self) -> SilencedConnection:
        """A snapshot of what the client did after the silence. Call only once silenced."""
        assert self.silenced_at is not None
        return SilencedConnection(
            number=self.number,
            client=self.peer,
            silenced_at=self.silenced_at,
            client_closed_at=self.client_closed_at,
            arrivals=tuple(self.arrivals),
            last_arrival=self.last_arrival,
            bytes=self.arrived_bytes,
        )

    def sock(self, side: Side) -> socket.socket | None:
        """The socket of ``side``, or None once it is closed (or not dialled yet)."""
        return self.client if side == "client" else self.upstream

    def reads(self, side: Side) -> Direction:
        """The direction fed by reading ``side``."""
        return self.up if side == "client" else self.down

    def writes(self, side: Side) -> Direction:
        """The direction drained by writing to ``side``."""
        return self.down if side == "client" else self.up

    def writable(self, side: Side) -> bool:
        """Whether bytes may be written to ``side`` now (open, connected, not stalled)."""
        if self.stalled or self.sock(side) is None:
            return False
        return side == "client" or self.connect_deadline is None


@dataclass
class Counters:
    """What ``FaultProxy.stats()`` reports, all counted since ``start()``:

    - ``accepted``: connections the listener accepted, refused ones included (so it shows a
      client redialling even while ``refuse(True)`` is on);
    - ``refused``: of those, connections reset at once by ``refuse(True)``;
    - ``upstream_failed``: connections reset because the upstream refused or timed out;
    - ``active``: connections open now;
    - ``cut``: connections reset by ``cut()`` or by ``stall(False)`` (not by ``stop()``);
    - ``bytes_up`` / ``bytes_down``: bytes delivered to the API server / to the client;
    - ``dropped_bytes``: bytes read but never delivered: read during a stall, or still queued
      when their connection closed.
    """

    accepted: int = 0
    refused: int = 0
    upstream_failed: int = 0
    cut: int = 0
    bytes_up: int = 0
    bytes_down: int = 0
    dropped_bytes: int = 0
