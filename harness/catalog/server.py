"""The model catalog's HTTP server: registrations with an idempotency key, kept in SQLite.

An operator registers each served model (``POST /registrations``). Every registration the
catalog accepts for a key it has not seen is an *effect*: one row, the thing that must happen
once per ModelService generation (the article's external ledger). A request whose
``Idempotency-Key`` was seen before is answered with the original result and records nothing
(the key's first body decides; another body under the same key is refused, 422).

Endpoints (JSON in and out):

- ``POST /registrations`` with header ``Idempotency-Key: <key>`` (required, at most 256
  characters) and body ``{"name": str, "model": str, "image": str, "endpoint": str}``
  (all required, non-empty). New key: 201 and ``{"id": "reg-<n>", "key", "name", "model",
  "image", "endpoint"}``; key seen with the same body: 200, the same document, header
  ``Idempotent-Replayed: true``; key seen with another body: 422; bad input: 400. Each error
  is ``{"error": "<the field and the fix>"}``.
- ``GET /effects``: ``{"effects": [{"id", "key", "name", "model", "image", "endpoint",
  "at"}, ...]}`` in the order recorded (``at``: epoch seconds).
- ``POST /faults/hold`` ``{"count": n}``: the next n registrations that record an effect
  commit it and then hold their answer (the effect happened, the caller has not learned it)
  until ``POST /faults/release`` or until the caller went away; ``GET /faults/held?wait=s``
  waits up to s seconds for one to be held and answers ``{"held": [keys]}``.
- ``POST /faults/fail`` ``{"count": n}``: the next n registrations, well-formed or not, are
  answered 500 with ``{"id": "reg-unrecorded", "error": ...}`` and record nothing (a catalog
  whose storage failed after it chose an id: an id in a failed answer is no registration);
  ``GET /faults/failed`` answers ``{"failed": [keys]}``, the keys so answered.
- ``GET /healthz``: 200.

Storage is one SQLite file (``--db``), written in a transaction per effect, so an effect
survives the catalog's own restart as it survives the operator's.
"""

from __future__ import annotations

import argparse
import json
import select
import sqlite3
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: The fields of a registration, each a non-empty string.
FIELDS = ("name", "model", "image", "endpoint")
#: The longest Idempotency-Key accepted, in characters.
MAX_KEY = 256
#: Seconds a held answer waits for a release at most.
HOLD_LIMIT = 120.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS effects (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    model TEXT NOT NULL,
    image TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    at REAL NOT NULL
)
"""


class Store:
    """The effects, in one SQLite file at ``path``; safe from several threads (one lock, a
    connection per call)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30, isolation_level="IMMEDIATE")

    def register(self, key: str, body: dict[str, str]) -> tuple[dict[str, Any], bool]:
        """Record an effect for ``key`` unless it was seen. Returns (the registration, True
        when this call recorded it). Raises KeyError(key) for a seen key with another body."""
        with self._lock, self._connect() as db:
            row = db.execute(
                "SELECT n, key, name, model, image, endpoint FROM effects WHERE key = ?", (key,)
            ).fetchone()
            if row is not None:
                doc = _document(row)
                if any(doc[f] != body[f] for f in FIELDS):
                    raise KeyError(key)
                return doc, False
            cur = db.execute(
                "INSERT INTO effects (key, name, model, image, endpoint, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, *(body[f] for f in FIELDS), time.time()),
            )
            n = cur.lastrowid or 0
        return _document((n, key, *(body[f] for f in FIELDS))), True

    def effects(self) -> list[dict[str, Any]]:
        """Every effect, in the order recorded."""
        with self._lock, self._connect() as db:
            rows = db.execute(
                "SELECT n, key, name, model, image, endpoint, at FROM effects ORDER BY n"
            ).fetchall()
        return [{**_document(r[:6]), "at": r[6]} for r in rows]


def _document(row: tuple[Any, ...]) -> dict[str, Any]:
    n, key, *values = row
    return {"id": f"reg-{n}", "key": key, **dict(zip(FIELDS, values, strict=True))}


class Holds:
    """The answers held after their effect was recorded (``POST /faults/hold``)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.armed = 0
        self.held: list[str] = []
        self.generation = 0  # bumped by every release

    def arm(self, count: int) -> None:
        with self._cond:
            self.armed = count

    def hold(self, key: str, gone: threading.Event) -> None:
        """Hold the answer for ``key`` if one is armed: until released, the caller gone
        (``gone``) or HOLD_LIMIT."""
        with self._cond:
            if self.armed <= 0:
                return
            self.armed -= 1
            self.held.append(key)
            release = self.generation
            self._cond.notify_all()
            deadline = time.monotonic() + HOLD_LIMIT
            while self.generation == release and not gone.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(min(left, 0.2))

    def wait_held(self, timeout: float) -> list[str]:
        with self._cond:
            self._cond.wait_for(lambda: bool(self.held), timeout)
            return list(self.held)

    def release(self) -> None:
        with self._cond:
            self.armed = 0
            self.held = []
            self.generation += 1
            self._cond.notify_all()


#: The id a failed registration's answer carries (``POST /faults/fail``); no effect has it.
UNRECORDED_ID = "reg-unrecorded"


class Failures:
    """The registrations to answer 500 with an id, recording nothing (``POST /faults/fail``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.armed = 0
        self.failed: list[str] = []

    def arm(self, count: int) -> None:
        with self._lock:
            self.armed = count

    def take(self, key: str) -> bool:
        """Whether the registration of ``key`` is to fail (one armed failure used)."""
        with self._lock:
            if self.armed <= 0:
                return False
            self.armed -= 1
            self.failed.append(key)
            return True


class CatalogServer(ThreadingHTTPServer):
    """The HTTP server: ``store``, ``holds`` and ``failures`` shared by the handler threads."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], store: Store) -> None:
        super().__init__(address, Handler)
        self.store = store
        self.holds = Holds()
        self.failures = Failures()


class Handler(BaseHTTPRequestHandler):
    """One request; see the module docstring for the endpoints."""

    server: CatalogServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, code: int, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(doc).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the caller went away (killed while its answer was held)
            self.close_connection = True

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw or b"null")

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/healthz":
            self._send(200, {"ok": True})
        elif url.path == "/effects":
            self._send(200, {"effects": self.server.store.effects()})
        elif url.path == "/faults/held":
            wait = float(parse_qs(url.query).get("wait", ["0"])[0])
            self._send(200, {"held": self.server.holds.wait_held(wait)})
        elif url.path == "/faults/failed":
            self._send(200, {"failed": list(self.server.failures.failed)})
        else:
            self._send(404, {"error": f"no such endpoint: GET {url.path}"})

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        try:
            body = self._body()
        except (ValueError, UnicodeDecodeError):
            self._send(400, {"error": "the body must be JSON"})
            return
        if url.path == "/registrations":
            self._register(body)
        elif url.path == "/faults/hold":
            count = body.get("count", 1) if isinstance(body, dict) else 1
            self.server.holds.arm(int(count))
            self._send(200, {"armed": int(count)})
        elif url.path == "/faults/fail":
            count = body.get("count", 1) if isinstance(body, dict) else 1
            self.server.failures.arm(int(count))
            self._send(200, {"armed": int(count)})
        elif url.path == "/faults/release":
            self.server.holds.release()
            self._send(200, {"released": True})
        else:
            self._send(404, {"error": f"no such endpoint: POST {url.path}"})

    def _register(self, body: Any) -> None:
        key = (self.headers.get("Idempotency-Key") or "").strip()
        if self.server.failures.take(key):
            self._send(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                {"id": UNRECORDED_ID, "error": "storage failed: nothing recorded, retry"},
            )
            return
        if not key or len(key) > MAX_KEY:
            self._send(
                400,
                {
                    "error": "header Idempotency-Key: required, 1 to "
                    f"{MAX_KEY} characters; send the request's durable identity "
                    "(e.g. <uid>/<generation>)"
                },
            )
            return
        if not isinstance(body, dict):
            self._send(400, {"error": "the body must be a JSON object with " + ", ".join(FIELDS)})
            return
        bad = [f for f in FIELDS if not isinstance(body.get(f), str) or not body[f]]
        if bad:
            self._send(400, {"error": f"field {bad[0]}: required, a non-empty string"})
            return
        try:
            doc, created = self.server.store.register(key, {f: body[f] for f in FIELDS})
        except KeyError:
            self._send(
                422,
                {
                    "error": f"Idempotency-Key {key!r} was registered with another body; "
                    "send a new key for a new registration"
                },
            )
            return
        if created:
            gone = _gone(self)
            self.server.holds.hold(key, gone)
            gone.set()  # ends the watcher
            self._send(HTTPStatus.CREATED, doc)
        else:
            self._send(HTTPStatus.OK, doc, {"Idempotent-Replayed": "true"})


def _gone(handler: Handler) -> threading.Event:
    """An Event set once the caller's connection is closed (a killed operator)."""
    gone = threading.Event()

    def watch() -> None:
        sock = handler.connection
        while not gone.is_set():
            try:
                ready, _, _ = select.select([sock], [], [], 0.2)
                if ready and not sock.recv(1, 2):  # MSG_PEEK: EOF means closed
                    gone.set()
            except (OSError, ValueError):
                gone.set()

    threading.Thread(target=watch, daemon=True).start()
    return gone


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.catalog --db PATH [--port N] [--url-file PATH]``: serve until
    killed; the URL is printed on stdout and written to ``--url-file``."""
    parser = argparse.ArgumentParser(prog="python -m harness.catalog", description=__doc__)
    parser.add_argument("--db", type=Path, required=True, help="the SQLite file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--url-file", type=Path, help="write the URL here once listening")
    args = parser.parse_args(argv)
    server = CatalogServer((args.host, args.port), Store(args.db))
    url = f"http://{args.host}:{server.server_address[1]}"
    print(url, flush=True)
    if args.url_file:
        tmp = args.url_file.with_suffix(".tmp")
        tmp.write_text(url)
        tmp.replace(args.url_file)
    server.serve_forever()
    return 0
