"""A TCP fault proxy: put it between an operator and kube-apiserver, then break the link on cue.

The conformance checks prove that an operator recovers from a bad network. ``FaultProxy``
listens on loopback and forwards raw bytes to the API server; the operator's kubeconfig points
at the proxy (``harness.envtest.kubeconfig.with_server``), and a check breaks the connection in one of four ways:

- ``cut()``: reset every open connection now (RST both sides). The client sees
  ``ECONNRESET`` at once and must dial again; new connections are still accepted.
- ``refuse(True)``: accept each new connection and reset it at once, until ``refuse(False)``.
- ``stall(True)``: a black hole. Connections stay open and the proxy keeps reading both
  sides, but it forwards nothing (not even a FIN): each peer sees a healthy, silent TCP
  connection, which only a client-side timeout or keepalive can detect. New connections
  are accepted and never dialled upstream. The dropped bytes leave each TLS stream corrupt,
  so ``stall(False)`` cuts every connection that lived through the stall.
  ``stall_existing()`` silences only the connections open now and keeps forwarding new ones:
  the case of a dead NAT entry, where a client that notices the silence can reconnect.
- ``delay(seconds)``: hold each chunk read for ``seconds`` before forwarding it. The latency
  is per direction, so a request/response round trip gains twice ``seconds``.

The proxy knows nothing of TLS or HTTP: it never terminates TLS, and because the API server's
serving certificate has 127.0.0.1 as an IP SAN, a kubeconfig that names the proxy's
``127.0.0.1:PORT`` still verifies.

Design: one thread owns everything. A single daemon thread runs a ``selectors`` loop over
the listener, every connection's two non-blocking sockets and a wake-up socket pair. The
public methods never touch sockets: each sends the loop a command and waits (bounded) for its
answer, so fault switches take effect at a known point (when ``stall(True)`` returns, no
further byte is forwarded) and ``cut()`` can say how many connections it reset. No locks
guard the connection state, because only the loop thread reads or writes it.

Each connection has two directions (``up``: client to API server; ``down``: API server to
client). A direction is a FIFO of ``(due, bytes)`` chunks: a chunk read at time ``t`` is due
at ``t + delay``, and is written when due and the destination can take it. Order is kept even
if the delay changes. While a direction holds 1 MiB, its source is not read, so a slow reader
slows its writer (backpressure) instead of growing the queue. A FIN is forwarded once its
direction is drained (half-close works); when both directions are closed, so is the
connection. An error on either socket resets both, as does an upstream that refuses or does
not answer within ``connect_timeout``: the client sees a reset connection, never a hang.

Counters: ``stats()``, described at ``harness.faults.tcpconn.Counters``. For each connection a
stall silenced, ``silenced()`` tells what its client did afterwards: when it closed its end,
and when it still sent bytes (``harness.faults.tcpconn.SilencedConnection``), so a check can
ask whether a client that gave up one silent connection kept writing into the others.

Python-only: there is no Go twin; the Go operator is put behind the same proxy.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import errno
import math
import selectors
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from harness.faults.tcpconn import (
    Connection,
    Counters,
    Side,
    SilencedConnection,
    close_with_rst,
    set_nodelay,
)

_T = TypeVar("_T")

#: Most bytes one ``recv()`` reads; the unit ``delay()`` holds back.
_CHUNK = 64 * 1024
#: A direction stops reading its source while this many bytes wait for its destination.
_HIGH_WATER = 1024 * 1024
#: Longest one ``select()`` sleeps, in seconds. Commands and timers wake the loop on their own;
#: this only bounds the damage if a wake-up is ever missed.
_MAX_WAIT = 0.25
#: How long a public method waits for the loop to run its command, in seconds.
_COMMAND_TIMEOUT = 10.0
#: How long ``stop()`` waits for the loop thread to finish, in seconds.
_JOIN_TIMEOUT = 10.0
#: selector ``data`` of the two sockets that are not connections.
_LISTENER = "listener"
_WAKE = "wake"


class FaultProxy:
    """A TCP proxy from ``listen_host:listen_port`` to ``upstream`` with switchable faults.

    ``upstream``: ``(host, port)`` to dial for each accepted connection (resolved once, at
    ``start()``). ``listen_port``: 0 lets the kernel choose; read it from ``port``.
    ``connect_timeout``: seconds to wait for the upstream to accept a connection before
    resetting the client. Nothing listens until ``start()``. All methods are thread-safe.
    """

    def __init__(
        self,
        upstream: tuple[str, int],
        listen_host: str = "127.0.0.1",
        listen_port: int = 0,
        *,
        connect_timeout: float = 5.0,
    ) -> None:
        self.upstream = upstream
        self.listen_host = listen_host
        self.listen_port = listen_port
        self.connect_timeout = connect_timeout
        # Guards _thread, _loop_done and _commands: the hand-over between callers and the loop.
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop_done = False
        self._commands: list[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = []
        self._stopping = threading.Event()
        self._error: BaseException | None = None
        self._port = 0
        # Owned by the loop thread once started (by the caller before that, or after it ends).
        self._listener: socket.socket | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._sel: selectors.BaseSelector | None = None
        self._upstream_family = socket.AF_INET
        self._upstream_addr: Any = upstream
        self._conns: set[Connection] = set()
        self._silenced: list[Connection] = []  # every connection a stall silenced, in order
        self._counters = Counters()
        self._refusing = False
        self._stalled = False
        self._delay = 0.0

    # ----- lifecycle -----

    def start(self) -> FaultProxy:
        """Bind and listen, then start the loop thread; return ``self``.

        Raises RuntimeError if already started (a stopped proxy cannot be restarted: make a
        new one), OSError if the listen address cannot be bound or the upstream host does not
        resolve.
        """
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("FaultProxy already started; a stopped one cannot restart")
            family, _, _, _, self._upstream_addr = socket.getaddrinfo(
                *self.upstream, type=socket.SOCK_STREAM
            )[0]
            self._upstream_family = socket.AddressFamily(family)
            lfamily, _, _, _, laddr = socket.getaddrinfo(
                self.listen_host, self.listen_port, type=socket.SOCK_STREAM
            )[0]
            listener = socket.socket(lfamily, socket.SOCK_STREAM)
            wake_r, wake_w = socket.socketpair()
            sel = selectors.DefaultSelector()
            try:
                # A restarted proxy can rebind its port despite TIME_WAIT connections.
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                listener.bind(laddr)
                listener.listen(128)
                listener.setblocking(False)
                wake_r.setblocking(False)
                wake_w.setblocking(False)
                sel.register(listener, selectors.EVENT_READ, _LISTENER)
                sel.register(wake_r, selectors.EVENT_READ, _WAKE)
            except BaseException:
                for s in (listener, wake_r, wake_w):
                    s.close()
                sel.close()
                raise
            self._listener, self._wake_r, self._wake_w, self._sel = listener, wake_r, wake_w, sel
            self._port = int(listener.getsockname()[1])
            self._thread = threading.Thread(
                target=self._run, name=f"faultproxy-{self._port}", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Close the listener and every connection (FIN, not RST), and join the loop thread.

        Idempotent; a no-op if never started. Raises RuntimeError if the loop thread does not
        finish within 10 s, or (once) if it died of an unexpected error, chained to that error.
        """
        with self._lock:
            thread = self._thread
            if thread is None:
                return
            self._stopping.set()
            self._wake_locked()
        thread.join(_JOIN_TIMEOUT)
        if thread.is_alive():
            raise RuntimeError(f"{thread.name} did not stop within {_JOIN_TIMEOUT:.0f}s")
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(f"{thread.name} died: {error!r}") from error

    def __enter__(self) -> FaultProxy:
        """Start the proxy unless already started."""
        with self._lock:
            started = self._thread is not None
        return self if started else self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port. Raises RuntimeError before ``start()``."""
        if not self._port:
            raise RuntimeError("FaultProxy not started")
        return self._port

    @property
    def address(self) -> str:
        """``host:port`` for clients (``[host]:port`` for IPv6), e.g. ``127.0.0.1:40123``."""
        host = f"[{self.listen_host}]" if ":" in self.listen_host else self.listen_host
        return f"{host}:{self.port}"

    # ----- faults -----

    def cut(self) -> int:
        """Reset every open connection (RST to both peers); return how many were reset.

        New connections are still accepted. Raises TimeoutError if the loop does not answer
        within 10 s.
        """
        return self._call(self._cut_all)

    def refuse(self, on: bool) -> None:
        """While ``on``, reset each new connection as soon as it is accepted.

        Open connections are left alone (``cut()`` them if needed).
        """

        def apply() -> None:
            self._refusing = on

        self._call(apply)

    def stall(self, on: bool) -> None:
        """Black-hole every connection, open and new, while ``on``; see the module docstring.

        ``stall(True)``: from its return on, bytes read from either side (and bytes still held
        by ``delay()``) are dropped and counted in ``dropped_bytes``. ``stall(False)``: cuts
        (RST) every stalled connection (all that were open at any time during the stall, and
        those silenced by ``stall_existing()``), then forwards again for new connections.
        Turning on an active stall does nothing; ``stall(False)`` with nothing stalled neither.
        """
        self._call(self._stall_on if on else self._stall_off)

    def stall_existing(self) -> int:
        """Black-hole only the connections open now; return how many that is.

        Those connections stay open and silent (bytes dropped, as in ``stall(True)``) until
        ``cut()``, ``stall(False)`` or ``stop()``; new connections are forwarded as usual.
        """
        return self._call(self._stall_existing)

    def delay(self, seconds: float) -> None:
        """Hold each chunk read from now on for ``seconds`` before forwarding it (0: off).

        Per direction: a round trip gains ``2 * seconds``. Chunks already held keep their
        due time. Raises ValueError if ``seconds`` is negative or not finite.
        """
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"delay must be a finite number of seconds >= 0, not {seconds!r}")

        def apply() -> None:
            self._delay = float(seconds)

        self._call(apply)

    def stats(self) -> dict[str, int]:
        """Counters since ``start()``: ``accepted``, ``active``, ``cut``, ``bytes_up``,
        ``bytes_down``, ``dropped_bytes``, ``refused``, ``upstream_failed`` (module docstring).
        """

        def snapshot() -> dict[str, int]:
            c = self._counters
            return {
                "accepted": c.accepted,
                "active": len(self._conns),
                "cut": c.cut,
                "bytes_up": c.bytes_up,
                "bytes_down": c.bytes_down,
                "dropped_bytes": c.dropped_bytes,
                "refused": c.refused,
                "upstream_failed": c.upstream_failed,
            }

        return self._call(snapshot)

    def silenced(self) -> list[SilencedConnection]:
        """What the client did on each connection a stall silenced since ``start()``, in the
        order they were silenced, then accepted (closed ones included): when it closed its end
        and when bytes still arrived from it (``harness.faults.tcpconn.SilencedConnection``,
        times in ``time.monotonic()`` seconds). Raises TimeoutError after 10 s without the loop.
        """
        return self._call(lambda: [conn.silence_record() for conn in self._silenced])

    # ----- commands: callers hand work to the loop thread -----

    def _call(self, fn: Callable[[], _T]) -> _T:
        """Run ``fn`` on the loop thread and return its result (or raise its exception).

        Before ``start()`` and after the loop ends there is no loop and no connection, so
        ``fn`` runs here, under the lock. Raises TimeoutError after 10 s without an answer.
        """
        with self._lock:
            if self._thread is None or self._loop_done:
                return fn()
            future: concurrent.futures.Future[_T] = concurrent.futures.Future()
            self._commands.append((fn, future))
            self._wake_locked()
        return future.result(timeout=_COMMAND_TIMEOUT)

    def _wake_locked(self) -> None:
        """Make the loop's ``select()`` return. Caller holds ``_lock`` (so the socket is open)."""
        if self._wake_w is not None and not self._loop_done:
            with contextlib.suppress(BlockingIOError):  # full: the loop is awake already
                self._wake_w.send(b"\0")

    def _run_commands(self) -> None:
        assert self._wake_r is not None
        with contextlib.suppress(BlockingIOError):
            while self._wake_r.recv(4096):
                pass
        with self._lock:
            commands, self._commands = self._commands, []
        for fn, future in commands:
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn())
                except BaseException as exc:  # handed to the caller, who re-raises it
                    future.set_exception(exc)

    def _cut_all(self) -> int:
        conns = list(self._conns)
        for conn in conns:
            self._close(conn, reset=True)
        self._counters.cut += len(conns)
        return len(conns)

    def _stall_on(self) -> None:
        if not self._stalled:
            self._stalled = True
            self._stall_existing()

    def _stall_existing(self) -> int:
        now = time.monotonic()
        for conn in sorted(self._conns, key=lambda c: c.number):
            conn.stalled = True
            self._note_silenced(conn, now)
            for direction in (conn.up, conn.down):  # held by delay(), not yet forwarded
                self._counters.dropped_bytes += direction.queued
                direction.chunks.clear()
                direction.queued = 0
        return len(self._conns)

    def _note_silenced(self, conn: Connection, now: float) -> None:
        if conn.silenced_at is None:
            conn.silenced_at = now
            self._silenced.append(conn)

    def _stall_off(self) -> None:
        self._stalled = False
        stalled = [conn for conn in self._conns if conn.stalled]
        for conn in stalled:
            self._close(conn, reset=True)
        self._counters.cut += len(stalled)

    # ----- the loop -----

    def _run(self) -> None:
        """The loop thread: serve until ``stop()``, then close every socket it owns."""
        assert self._sel is not None
        try:
            while not self._stopping.is_set():
                now = time.monotonic()
                for conn in list(self._conns):
                    self._sync_interest(conn, now)
                for key, events in self._sel.select(self._next_wait(now)):
                    self._dispatch(key, events)
                now = time.monotonic()
                for conn in [
                    c
                    for c in self._conns
                    if c.connect_deadline is not None and c.connect_deadline <= now
                ]:
                    self._dial_failed(conn)
        except BaseException as exc:  # reported by stop()
            self._error = exc
        finally:
            for conn in list(self._conns):
                with contextlib.suppress(Exception):  # close the rest whatever happens
                    self._close(conn, reset=False)
            self._sel.close()
            if self._listener is not None:
                self._listener.close()
            with self._lock:
                self._loop_done = True
                for s in (self._wake_r, self._wake_w):
                    if s is not None:
                        s.close()
                commands, self._commands = self._commands, []
            for fn, future in commands:  # arrived while closing: answer them, no loop needed
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as exc:
                        future.set_exception(exc)

    def _next_wait(self, now: float) -> float:
        """Seconds until the next timer: a held chunk falling due, or a connect deadline."""
        wait = _MAX_WAIT
        sides: tuple[Side, Side] = ("client", "upstream")
        for conn in self._conns:
            if conn.connect_deadline is not None:
                wait = min(wait, conn.connect_deadline - now)
            for side in sides:
                direction = conn.writes(side)
                if conn.writable(side) and direction.chunks and direction.chunks[0][0] > now:
                    wait = min(wait, direction.chunks[0][0] - now)
        return max(wait, 0.0)

    def _sync_interest(self, conn: Connection, now: float) -> None:
        """Register each socket of ``conn`` for exactly the events the loop can act on.

        Read while the direction it feeds has room (always during a stall: bytes are dropped);
        write while a chunk is due; an upstream still connecting waits to become writable.
        """
        assert self._sel is not None
        sides: tuple[Side, Side] = ("client", "upstream")
        for side in sides:
            sock = conn.sock(side)
            if sock is None:
                continue
            if side == "upstream" and conn.connect_deadline is not None:
                want = selectors.EVENT_WRITE
            else:
                want = 0
                source = conn.reads(side)
                if not source.eof and (conn.stalled or source.queued < _HIGH_WATER):
                    want |= selectors.EVENT_READ
                if conn.writable(side) and conn.writes(side).due(now):
                    want |= selectors.EVENT_WRITE
            have = conn.masks[side]
            if want == have:
                continue
            if not have:
                self._sel.register(sock, want, (conn, side))
            elif not want:
                self._sel.unregister(sock)
            else:
                self._sel.modify(sock, want, (conn, side))
            conn.masks[side] = want

    def _dispatch(self, key: selectors.SelectorKey, events: int) -> None:
        if key.data == _LISTENER:
            self._accept()
            return
        if key.data == _WAKE:
            self._run_commands()
            return
        conn, side = key.data
        if conn.closed or conn.sock(side) is not key.fileobj:
            return  # closed earlier in this batch
        if side == "upstream" and conn.connect_deadline is not None:
            self._connected(conn)
            return
        if events & selectors.EVENT_READ and not conn.reads(side).eof:
            self._read(conn, side)
        if events & selectors.EVENT_WRITE and not conn.closed:
            self._flush(conn, side)

    def _accept(self) -> None:
        assert self._listener is not None
        for _ in range(64):  # then let the other sockets have a turn
            try:
                client, peer = self._listener.accept()
            except (BlockingIOError, ConnectionAbortedError):
                return
            except OSError:  # e.g. out of file descriptors: retry on the next round
                return
            client.setblocking(False)
            self._counters.accepted += 1
            if self._refusing:
                self._counters.refused += 1
                close_with_rst(client)
                continue
            set_nodelay(client)
            conn = Connection(client=client, stalled=self._stalled)
            conn.number, conn.peer = self._counters.accepted, f"{peer[0]}:{peer[1]}"
            self._conns.add(conn)
            if conn.stalled:  # a black hole does not dial
                self._note_silenced(conn, time.monotonic())
            else:
                self._dial(conn)

    def _dial(self, conn: Connection) -> None:
        try:
            upstream = socket.socket(self._upstream_family, socket.SOCK_STREAM)
        except OSError:
            self._dial_failed(conn)
            return
        upstream.setblocking(False)
        conn.upstream = upstream
        err = upstream.connect_ex(self._upstream_addr)
        if err in (errno.EINPROGRESS, errno.EAGAIN, errno.EWOULDBLOCK):
            conn.connect_deadline = time.monotonic() + self.connect_timeout
        elif err:
            self._dial_failed(conn)
        else:
            set_nodelay(upstream)

    def _connected(self, conn: Connection) -> None:
        """The upstream connect finished: go on forwarding, or give up if it failed."""
        assert conn.upstream is not None
        try:
            err = conn.upstream.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        except OSError:
            err = errno.EBADF
        if err:
            self._dial_failed(conn)
            return
        conn.connect_deadline = None
        set_nodelay(conn.upstream)
        self._flush(conn, "upstream")  # what the client sent while we were dialling

    def _dial_failed(self, conn: Connection) -> None:
        """The upstream refused, timed out or could not be dialled: reset the client.

        During a stall only the upstream socket goes; the client keeps its silent connection.
        """
        self._counters.upstream_failed += 1
        conn.connect_deadline = None
        if conn.stalled:
            self._drop_side(conn, "upstream")
        else:
            self._close(conn, reset=True)

    def _read(self, conn: Connection, side: Side) -> None:
        sock = conn.sock(side)
        assert sock is not None
        try:
            data = sock.recv(_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            self._client_heard(conn, side, 0)
            self._lost(conn, side)
            return
        self._client_heard(conn, side, len(data))
        direction = conn.reads(side)
        if not data:
            direction.eof = True
            if not conn.stalled:
                self._flush(conn, "upstream" if side == "client" else "client")
            return
        if conn.stalled:
            self._counters.dropped_bytes += len(data)
            return
        direction.chunks.append((time.monotonic() + self._delay, data))
        direction.queued += len(data)
        self._flush(conn, "upstream" if side == "client" else "client")

    @staticmethod
    def _client_heard(conn: Connection, side: Side, n: int) -> None:
        """Record a read from the client of a silenced connection: ``n`` bytes, or 0 for its
        FIN or a socket error (the client closed its end)."""
        if side != "client" or conn.silenced_at is None or conn.client_closed_at is not None:
            return
        if n:
            conn.client_sent(n, time.monotonic())
        else:
            conn.client_closed_at = time.monotonic()

    def _flush(self, conn: Connection, side: Side) -> None:
        """Write the due chunks bound for ``side`` until none is due or the socket is full;
        pass a FIN on once the direction is drained; close the connection when both are."""
        direction = conn.writes(side)
        sock = conn.sock(side)
        if sock is None or not conn.writable(side):
            return
        now = time.monotonic()
        while direction.due(now):
            due, data = direction.chunks[0]
            try:
                sent = sock.send(data)
            except BlockingIOError:
                return
            except OSError:
                self._lost(conn, side)
                return
            direction.queued -= sent
            if side == "upstream":
                self._counters.bytes_up += sent
            else:
                self._counters.bytes_down += sent
            if sent < len(data):
                direction.chunks[0] = (due, data[sent:])
                return
            direction.chunks.popleft()
        if direction.eof and not direction.chunks and not direction.shut:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                self._lost(conn, side)
                return
            direction.shut = True
            if conn.up.shut and conn.down.shut:
                self._close(conn, reset=False)

    def _lost(self, conn: Connection, side: Side) -> None:
        """A socket error on ``side``: reset the whole connection, or, during a stall, only
        that side (the other peer must not learn of it)."""
        if conn.stalled:
            self._drop_side(conn, side)
        else:
            self._close(conn, reset=True)

    def _drop_side(self, conn: Connection, side: Side) -> None:
        """Reset one socket of a stalled connection; forget the connection once both are gone."""
        sock = conn.sock(side)
        if sock is not None:
            self._release(conn, side, sock, reset=True)
        conn.reads(side).eof = True
        if conn.client is None and conn.upstream is None:
            self._close(conn, reset=True)

    def _close(self, conn: Connection, *, reset: bool) -> None:
        """Close both sockets of ``conn`` (RST if ``reset``, else FIN) and forget it."""
        if conn.closed:
            return
        conn.closed = True
        self._conns.discard(conn)
        sides: tuple[Side, Side] = ("client", "upstream")
        for side in sides:
            sock = conn.sock(side)
            if sock is not None:
                self._release(conn, side, sock, reset=reset)
        for direction in (conn.up, conn.down):
            self._counters.dropped_bytes += direction.queued
            direction.chunks.clear()
            direction.queued = 0

    def _release(self, conn: Connection, side: Side, sock: socket.socket, *, reset: bool) -> None:
        if conn.masks[side] and self._sel is not None:
            self._sel.unregister(sock)
            conn.masks[side] = 0
        if reset:
            close_with_rst(sock)
        else:
            sock.close()
        if side == "client":
            conn.client = None
        else:
            conn.upstream = None
