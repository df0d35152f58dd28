"""The fault proxy on real loopback sockets: forwarding, cut, refuse, stall, delay, stop."""

from __future__ import annotations

import os
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from harness.envtest.kubeconfig import with_server
from harness.envtest.pki import CertificateAuthority
from harness.faults.tcpconn import close_with_rst
from harness.faults.tcpproxy import FaultProxy


class EchoServer:
    """The upstream: echoes every byte back; after the client's FIN, echoes the rest and closes.

    One thread, non-blocking sockets, so that the thread set is fixed while a test runs.
    """

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port: int = self.listener.getsockname()[1]
        self.accepted = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="echo-server", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ)
        buffers: dict[socket.socket, bytearray] = {}
        ended: set[socket.socket] = set()

        def close(s: socket.socket) -> None:
            sel.unregister(s)
            s.close()
            buffers.pop(s, None)
            ended.discard(s)

        try:
            while not self._stopping.is_set():
                for key, events in sel.select(0.05):
                    if key.fileobj is self.listener:
                        s, _ = self.listener.accept()
                        s.setblocking(False)
                        self.accepted += 1
                        buffers[s] = bytearray()
                        sel.register(s, selectors.EVENT_READ)
                        continue
                    s = key.fileobj  # type: ignore[assignment]
                    buf = buffers[s]
                    try:
                        if events & selectors.EVENT_READ and s not in ended:
                            data = s.recv(65536)
                            buf += data
                            if not data:
                                ended.add(s)
                        if buf:
                            del buf[: s.send(buf)]
                    except BlockingIOError:
                        pass
                    except OSError:
                        close(s)
                        continue
                    if s in ended and not buf:
                        close(s)
                        continue
                    want = selectors.EVENT_WRITE if buf else 0
                    if s not in ended and len(buf) < 1 << 20:
                        want |= selectors.EVENT_READ
                    sel.modify(s, want or selectors.EVENT_READ)
        finally:
            for s in list(buffers):
                close(s)
            self.listener.close()
            sel.close()


@pytest.fixture
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    yield server
    server.stop()


@pytest.fixture
def proxy(echo: EchoServer) -> Iterator[FaultProxy]:
    with FaultProxy(("127.0.0.1", echo.port)) as p:
        yield p


def _closed_port() -> int:
    """A loopback port that nobody listens on (it was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _connect(proxy: FaultProxy, timeout: float = 2.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", proxy.port), timeout=timeout)


def _round_trip(sock: socket.socket, data: bytes) -> bytes:
    sock.sendall(data)
    got = bytearray()
    while len(got) < len(data):
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return bytes(got)


def _is_closed(sock: socket.socket, timeout: float = 2.0) -> bool:
    """Whether the peer closes ``sock`` within ``timeout`` s (EOF or reset; data is skipped)."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def _new_connection_is_reset(proxy: FaultProxy, timeout: float = 2.0) -> bool:
    """Whether a new connection is closed within ``timeout`` s of being made."""
    try:
        with _connect(proxy) as c:
            return _is_closed(c, timeout)
    except ConnectionResetError:  # on loopback the RST can beat connect() itself
        return True


def _eventually(predicate: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_bytes_pass_both_ways(proxy: FaultProxy) -> None:
    with _connect(proxy) as c:
        assert _round_trip(c, b"hello") == b"hello"
        payload = os.urandom(100_000)
        assert _round_trip(c, payload) == payload
        stats = proxy.stats()
    assert stats["accepted"] == 1 and stats["active"] == 1
    assert stats["bytes_up"] == stats["bytes_down"] == 100_005
    assert stats["dropped_bytes"] == 0
    assert proxy.address == f"127.0.0.1:{proxy.port}"


def test_bulk_transfer_keeps_order_under_backpressure(proxy: FaultProxy) -> None:
    payload = os.urandom(8 << 20)  # more than the proxy and kernel buffers together
    with _connect(proxy, timeout=10) as c:
        sender = threading.Thread(target=c.sendall, args=(payload,), daemon=True)
        sender.start()
        got = bytearray()
        while len(got) < len(payload):
            chunk = c.recv(1 << 20)
            assert chunk
            got += chunk
        sender.join(5)
    assert got == payload


def test_client_half_close_still_gets_the_reply(proxy: FaultProxy) -> None:
    with _connect(proxy) as c:
        c.sendall(b"last words")
        c.shutdown(socket.SHUT_WR)  # the FIN reaches the echo server after the bytes
        got = bytearray()
        while chunk := c.recv(65536):
            got += chunk
    assert got == b"last words"  # then EOF: the server's FIN came back through the proxy
    _eventually(lambda: proxy.stats()["active"] == 0)


def test_cut_resets_live_connections_and_new_ones_work(proxy: FaultProxy) -> None:
    with _connect(proxy) as a, _connect(proxy) as b:
        assert _round_trip(a, b"a") == b"a" and _round_trip(b, b"b") == b"b"
        assert proxy.cut() == 2
        assert _is_closed(a) and _is_closed(b)
    with _connect(proxy) as c:
        assert _round_trip(c, b"again") == b"again"
        stats = proxy.stats()
    assert stats["cut"] == 2 and stats["accepted"] == 3 and stats["active"] == 1


def test_stall_keeps_connections_open_and_silent(proxy: FaultProxy, echo: EchoServer) -> None:
    with _connect(proxy) as before:
        assert _round_trip(before, b"ok") == b"ok"
        proxy.stall(True)
        before.sendall(b"x" * 1000)  # the send succeeds: the proxy reads and drops
        with _connect(proxy) as during:
            during.sendall(b"y" * 24)
            _eventually(lambda: proxy.stats()["dropped_bytes"] == 1024)
            started = time.monotonic()
            assert not _is_closed(before, timeout=0.5)  # no echo, no close: silence
            assert not _is_closed(during, timeout=0.01)
            assert time.monotonic() - started >= 0.5
            stats = proxy.stats()
    assert stats["active"] == 2 and stats["bytes_up"] == 2
    assert echo.accepted == 1  # a connection made during the stall is never dialled


def test_stall_off_cuts_stalled_connections_and_new_ones_echo(proxy: FaultProxy) -> None:
    with _connect(proxy) as before:
        assert _round_trip(before, b"ok") == b"ok"
        proxy.stall(True)
        with _connect(proxy) as during:
            _eventually(lambda: proxy.stats()["active"] == 2)
            proxy.stall(False)
            assert _is_closed(before) and _is_closed(during)
    with _connect(proxy) as after:
        assert _round_trip(after, b"back") == b"back"
    assert proxy.stats()["cut"] == 2


def test_stall_existing_silences_open_connections_only(proxy: FaultProxy) -> None:
    with _connect(proxy) as old:
        assert _round_trip(old, b"ok") == b"ok"
        assert proxy.stall_existing() == 1
        old.sendall(b"x" * 100)
        _eventually(lambda: proxy.stats()["dropped_bytes"] == 100)  # read, never forwarded
        with _connect(proxy) as new:
            assert _round_trip(new, b"new ones work") == b"new ones work"
            assert not _is_closed(old, timeout=0.05)  # still open, still silent
            proxy.stall(False)
            assert _is_closed(old)
            assert _round_trip(new, b"untouched") == b"untouched"
    assert proxy.stats()["cut"] == 1


def test_silenced_records_when_each_client_closed_and_when_its_bytes_arrived(
    proxy: FaultProxy,
) -> None:
    """The record a check reads: one client gives up its silent connection, another keeps
    writing into its own afterwards; FIN and RST both count as the client's close."""
    first, second = _connect(proxy), _connect(proxy)
    clients = [f"127.0.0.1:{s.getsockname()[1]}" for s in (first, second)]
    try:
        assert _round_trip(first, b"1") == b"1" and _round_trip(second, b"2") == b"2"
        assert proxy.silenced() == []  # nothing silenced yet
        before = time.monotonic()
        assert proxy.stall_existing() == 2
        first.sendall(b"a" * 10)
        _eventually(lambda: proxy.stats()["dropped_bytes"] == 10)
        first.close()  # FIN: the client gave it up
        _eventually(lambda: proxy.silenced()[0].client_closed_at is not None)
        second.sendall(b"b" * 5)  # written into a silenced connection after that
        with _connect(proxy) as fresh:  # not silenced: forwarded, not recorded
            assert _round_trip(fresh, b"fresh") == b"fresh"
        _eventually(lambda: proxy.stats()["dropped_bytes"] == 15)
        close_with_rst(second)
        _eventually(lambda: proxy.silenced()[1].client_closed_at is not None)
        records = proxy.silenced()
    finally:
        first.close()
        second.close()
    assert [r.number for r in records] == [1, 2]
    assert [r.client for r in records] == clients
    a, b = records
    assert before <= a.silenced_at == b.silenced_at
    assert a.bytes == 10 and sum(n for _, n in a.arrivals) == 10 and b.bytes == 5
    assert a.last_arrival is not None and b.last_arrival is not None
    assert a.client_closed_at is not None and b.client_closed_at is not None
    assert a.silenced_at <= a.last_arrival <= a.client_closed_at
    assert a.client_closed_at < b.last_arrival <= b.client_closed_at
    assert b.arrivals[-1][0] == b.last_arrival


def test_silenced_counts_only_the_clients_own_close(proxy: FaultProxy) -> None:
    """A connection the proxy cuts (``stall(False)``) was not closed by its client; one
    accepted during ``stall(True)`` is silenced from the start and recorded too."""
    with _connect(proxy) as old:
        assert _round_trip(old, b"ok") == b"ok"
        proxy.stall(True)
        with _connect(proxy) as during:
            during.sendall(b"x")
            _eventually(lambda: len(proxy.silenced()) == 2 and proxy.silenced()[1].bytes == 1)
            proxy.stall(False)
            assert _is_closed(old) and _is_closed(during)
        records = proxy.silenced()
    assert [r.client_closed_at for r in records] == [None, None]
    assert records[0].silenced_at <= records[1].silenced_at
    assert records[0].bytes == 0 and records[0].last_arrival is None


def test_delay_adds_latency_in_each_direction(proxy: FaultProxy) -> None:
    with _connect(proxy) as c:
        assert _round_trip(c, b"warm") == b"warm"
        proxy.delay(0.3)
        started = time.monotonic()
        for piece in (b"a", b"b", b"c"):  # three chunks, held and delivered in order
            c.sendall(piece)
        got = bytearray()
        while len(got) < 3:
            got += c.recv(3)
        elapsed = time.monotonic() - started
        assert got == b"abc"
        assert 0.6 <= elapsed < 3.0  # 0.3 s up + 0.3 s down
        proxy.delay(0)
        started = time.monotonic()
        assert _round_trip(c, b"fast") == b"fast"
        assert time.monotonic() - started < 0.3


def test_delay_rejects_negative_or_infinite_seconds(proxy: FaultProxy) -> None:
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError):
            proxy.delay(bad)


def test_refuse_resets_new_connections_at_once(proxy: FaultProxy) -> None:
    with _connect(proxy) as old:
        assert _round_trip(old, b"1") == b"1"
        proxy.refuse(True)
        started = time.monotonic()
        assert _new_connection_is_reset(proxy, timeout=1.0)
        assert time.monotonic() - started < 1.0
        assert _round_trip(old, b"2") == b"2"  # open connections are left alone
        proxy.refuse(False)
        with _connect(proxy) as again:
            assert _round_trip(again, b"3") == b"3"
    stats = proxy.stats()
    assert stats["refused"] == 1 and stats["accepted"] == 3  # a refused one is accepted too


def test_refusing_upstream_resets_the_client_and_the_proxy_goes_on() -> None:
    with FaultProxy(("127.0.0.1", _closed_port())) as proxy:
        for _ in range(2):
            assert _new_connection_is_reset(proxy)
        _eventually(lambda: proxy.stats()["upstream_failed"] == 2)
        assert proxy.stats()["active"] == 0


def test_stop_joins_the_thread_closes_connections_and_releases_the_port(echo: EchoServer) -> None:
    threads_before = set(threading.enumerate())
    proxy = FaultProxy(("127.0.0.1", echo.port)).start()
    port = proxy.port
    with _connect(proxy) as c:
        assert _round_trip(c, b"hi") == b"hi"
        proxy.stop()
        proxy.stop()  # idempotent
        assert _is_closed(c)
    assert set(threading.enumerate()) <= threads_before
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with socket.socket() as s:  # what a restarted proxy would do
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()
    assert proxy.stats()["active"] == 0  # still answers once stopped
    with pytest.raises(RuntimeError):
        proxy.start()


def test_controls_are_safe_from_many_threads(proxy: FaultProxy) -> None:
    errors: list[BaseException] = []

    def hammer() -> None:
        try:
            for i in range(50):
                proxy.delay(0)
                proxy.refuse(i % 2 == 0)
                proxy.stats()
                proxy.cut()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=hammer, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not errors
    proxy.refuse(False)
    with _connect(proxy) as c:
        assert _round_trip(c, b"still fine") == b"still fine"


def test_with_server_points_every_cluster_at_the_proxy(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    source = tmp_path / "in" / "kubeconfig"
    source.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": "a",
                        "cluster": {
                            "server": "https://127.0.0.1:6443",
                            "certificate-authority": "ca.crt",
                        },
                    },
                    {
                        "name": "b",
                        "cluster": {
                            "server": "https://10.0.0.1",
                            "certificate-authority-data": "Q0E=",
                        },
                    },
                ],
                "users": [
                    {
                        "name": "u",
                        "user": {"client-certificate": "/abs/u.crt", "client-key": "u.key"},
                    }
                ],
                "contexts": [{"name": "a", "context": {"cluster": "a", "user": "u"}}],
                "current-context": "a",
            }
        )
    )
    out = with_server(source, tmp_path / "proxied", "127.0.0.1:40123")
    config = yaml.safe_load(out.read_text())
    assert [c["cluster"]["server"] for c in config["clusters"]] == [
        "https://127.0.0.1:40123",
        "https://127.0.0.1:40123",
    ]
    assert config["clusters"][0]["cluster"]["certificate-authority"] == str(
        tmp_path / "in" / "ca.crt"
    )
    assert config["clusters"][1]["cluster"]["certificate-authority-data"] == "Q0E="
    assert config["users"][0]["user"] == {
        "client-certificate": "/abs/u.crt",
        "client-key": str(tmp_path / "in" / "u.key"),
    }
    assert config["current-context"] == "a"
    assert out.stat().st_mode & 0o777 == 0o600


def test_with_server_rejects_a_scheme_and_an_empty_kubeconfig(tmp_path: Path) -> None:
    source = tmp_path / "kubeconfig"
    source.write_text("apiVersion: v1\nkind: Config\nclusters: []\n")
    with pytest.raises(ValueError, match="scheme"):
        with_server(source, tmp_path / "out", "https://127.0.0.1:1")
    with pytest.raises(ValueError, match="no clusters"):
        with_server(source, tmp_path / "out", "127.0.0.1:1")


def test_tls_passes_through_and_verifies_the_ip_san(tmp_path: Path) -> None:
    ca = CertificateAuthority.new()
    cert, key = ca.issue_serving(["127.0.0.1"]).write(tmp_path, "server")
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve_one() -> None:
        raw, _ = listener.accept()
        with server_ctx.wrap_socket(raw, server_side=True) as tls:
            while data := tls.recv(65536):
                tls.sendall(data)

    server = threading.Thread(target=serve_one, daemon=True)
    server.start()
    client_ctx = ssl.create_default_context(cadata=ca.cert_pem.decode())
    try:
        with (
            FaultProxy(listener.getsockname()) as proxy,
            _connect(proxy) as raw,
            client_ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
        ):
            assert _round_trip(tls, b"GET /readyz") == b"GET /readyz"
    finally:
        server.join(5)
        listener.close()
    assert not server.is_alive()
