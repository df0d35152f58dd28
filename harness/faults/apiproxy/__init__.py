"""An HTTP-aware proxy on one operator's connection to kube-apiserver, and its Python handle.

``FaultProxy`` (``harness.faults.tcpproxy``) moves TCP bytes and cannot see inside TLS, so it cannot
tell a watch from a write on client-go's single HTTP/2 connection. ``ApiProxy`` runs the Go
program in this folder (``main.go``; standard library only, built once and cached): it
terminates TLS with a serving certificate from the control plane's CA, reads each request's
verb, resource, namespace and name, and forwards it with ``httputil.ReverseProxy`` to the API
server with the operator's **own** credential — its client certificate (the proxy presents a
copy), or its bearer token (the operator's ``Authorization`` header passes through) — so
authentication, RBAC and the audit log see the operator's user, as without the proxy
(``ApiProxy.for_kubeconfig`` takes either from the operator's kubeconfig). It speaks
HTTP/2 or HTTP/1.1 to the operator, as the operator negotiates by ALPN.

Its perturbations:

- ``hold(resources)`` keeps back the events of every watch stream of those resources (any
  namespace; the plural resource name, e.g. ``"services"``): the proxy keeps reading them from
  the API server but delivers nothing of those streams to the operator until ``release()``,
  which delivers them all, in order. Every other request, including GETs, LISTs and writes of
  the held resources, passes as usual. That makes an operator's informer cache lag behind its
  own writes, deterministically, whatever its client library.
- ``end_watches(resources)`` ends every open watch stream of those resources cleanly, as the
  API server does when a watch times out, and drops the events it held: the client resumes
  from the last resourceVersion it saw, which is how a check makes it resume from a version
  etcd has compacted away meanwhile.
- ``delay_writes(seconds, count=1, resource=None, name=None)`` holds each of the next
  ``count`` writes (create, update, patch, delete; of one resource and object name if given)
  for ``seconds`` before forwarding it; ``stats()["writes_holding"]`` says one is held now, so
  a check can change the object while the operator's write is in flight, or stage a slow
  admission webhook for one object.

Scripted perturbations (``faults.go``), each a method here:

- ``crash_after_write(k, delivered=False)``: at the k-th write (of ``resources``) from now, the
  proxy forwards it, freezes the connection (every later request waits) and reports the crash
  (``wait_crash``); the harness SIGKILLs the operator and calls ``ack_crash``. Withheld: the
  write's response is never delivered (the write happened, the operator never learned);
  delivered: it is, and the operator dies before its next request. ``OperatorProcess`` is
  killed by the harness, not the proxy, so this works for an operator on any machine.
- ``inject_write_error(n, code, retry_after=0)``: answer the n-th write with 409, 429 (with
  Retry-After), 500, 503, ... without forwarding it.
- ``hold_answer(n)``, then ``release_answer()``: ``answers.py`` (the n-th write's answer held).
- ``delay_events(resources, seconds)``: each watch event of those resources arrives ``seconds``
  late (a stale view); ``coalesce_events(resources, window)``: the same, and an object's
  events within the window arrive as one, its last state (unobserved intermediate states),
  except that an ADDED the client has not yet received and a DELETED after it both arrive.
- ``clear_faults()``.

Its connection to the API server sends HTTP/2 PINGs after ``HTTP2_READ_IDLE_TIMEOUT_SECONDS``
of silence and gives the connection up when one goes unanswered for
``HTTP2_PING_TIMEOUT_SECONDS`` (``health.go``; 30 s and 15 s unless ``operator_env`` gives the
operator's values, ``HEALTH_ENV``). PINGs are hop by hop: the operator's are answered by the
proxy, so a stall behind the proxy is noticed by this check alone; the operator's watch
streams then fail and it re-watches.

Every request is written to ``request_log`` (``requests.jsonl``, ``reclog.go``): start and end,
verb, resource, subresource, namespace, name, code, the API server's ``Audit-Id``, bytes, a
refused request's Status reason and message (``status.go``), and for a watch each event
delivered. ``harness.faults.apiproxy.records`` reads it into the same
``harness.audit.Request`` records the audit log gives, so request accounting works on any
cluster (``harness.accounting``). Each line carries ``at``, stamped under the log's lock;
``mark()`` writes a mark line, after which every line stamped earlier is on disk. A non-watch
request goes on upstream when its client goes away (an operator killed mid-request), so its
answer is logged as the API server logs it; a watch the API server itself ended is marked
``upstream_ended``.

It records, per request, the resourceVersion involved (a write's body
``metadata.resourceVersion``, a read's ``?resourceVersion=``), and every ``ERROR`` event of a
watch stream with its Status code (``watch_errors``: a 410 served to this client).

Usage::

    proxy = ApiProxy.for_user(control_plane, "modeldock:go", workdir=tmp_path).start()
    op = operators.start(kubeconfig=proxy.kubeconfig)
    proxy.hold(["deployments", "services"])
    ...                                           # the operator writes children
    proxy.stats()["resources"]["services"]["held"]  # events held now, > 0
    proxy.release()
    proxy.stop()                                  # or: with ApiProxy.for_user(...) as proxy:

``stats()`` is the proxy's ``GET /stats`` (``Stats`` in ``proxy.go``)::

    {"uptime_seconds": float, "requests": int,
     "protocols": {"HTTP/2.0": int, "HTTP/1.1": int},      # requests by HTTP version
     "verbs": {"get": int, "list": int, "watch": int, ...}, # requests by verb
     "upstream_errors": int,                                 # answered 502: API server unreachable
     "holding": ["services", ...],
     "resources": {"services": {
         "holding": bool, "watches": int (open now), "watches_total": int,
         "received": int, "delivered": int,          # watch events from the API server / to the client
         "held": int, "held_total": int,             # held now / ever held
         "event_types": {"ADDED": int, "BOOKMARK": int, ...},
         "framings": {"json-lines" | "protobuf-length-prefixed" | "chunks": int},
         "content_types": {"application/json": int, ...},   # of watch responses
         "ended_by_proxy": int, "dropped": int,      # streams ended / events dropped by end_watches
         "requests": {"watch": int, "create": int, ...}}},
     "recent": [{"time": str (RFC 3339), "proto": str, "verb": str, "resource": str,
                 "subresource": str, "namespace": str, "name": str, "path": str,
                 "accept": str, "code": int, "latency_ms": float,
                 "resource_version": str,   # a write's metadata.resourceVersion, a read's ?resourceVersion=
                 "held_ms": float}, ...],   # how long delay_writes held it; last 500, oldest first
     "delay_writes": {"seconds": float, "remaining": int,   # armed now
                      "resource": str, "name": str},        # (only when given)
     "writes_holding": int, "writes_held": int,              # writes held now / since start
     "watch_errors": [{"time": str, "resource": str, "namespace": str,
                       "resource_version": str,             # the watch's ?resourceVersion=
                       "code": int, "reason": str, "message": str}, ...]}  # last 200

An "event" is one watch event: a JSON line, or one length-prefixed protobuf frame; for any
other encoding, one chunk as read from the API server. Bookmarks are events too
(``event_types`` tells them apart). Held events stay in the proxy's memory, unbounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from harness.envtest.kubeconfig import read_credentials, write_kubeconfig
from harness.envtest.pki import CertificateAuthority
from harness.faults.apiproxy.answers import CONTROL_TIMEOUT, HeldAnswers
from harness.faults.apiproxy.build import ApiProxyError as ApiProxyError
from harness.faults.apiproxy.build import binary as binary
from harness.faults.apiproxy.build import progress_line
from harness.process import ManagedProcess, ProcessError, log_tail, wait_until
from harness.verdicts import PremiseFailed

if TYPE_CHECKING:
    from harness.envtest.controlplane import ControlPlane


#: Seconds to wait for the proxy's ready file (it first checks the API server answers).
READY_TIMEOUT = 30.0
#: The operator's variables the proxy takes for its own connection to the API server: the
#: HTTP/2 health check client-go reads (silence before a PING, how long it may go unanswered;
#: CONTRACT.md, "Process"). PINGs are hop by hop, so without them a stall between the proxy
#: and the API server would go unseen for the proxy's defaults (30 s + 15 s).
HEALTH_ENV = ("HTTP2_READ_IDLE_TIMEOUT_SECONDS", "HTTP2_PING_TIMEOUT_SECONDS")


class ApiProxy(HeldAnswers):
    """One proxy process between a client (an operator) and kube-apiserver.

    Prefer ``ApiProxy.for_user(control_plane, user, workdir=...)``. The constructor takes
    files: ``upstream`` the API server URL (``https://127.0.0.1:PORT``); ``upstream_ca`` the CA
    of its serving certificate; ``client_cert``/``client_key`` the identity presented to the
    API server, or None with a bearer ``token`` instead (the client sends it, the proxy passes
    it on); ``serving_cert``/``serving_key`` the proxy's own serving certificate (valid for
    127.0.0.1) and ``serving_ca`` its CA (default: ``upstream_ca``); ``user`` the user name
    written into ``kubeconfig``; ``workdir`` a folder of its own for the log
    (``apiproxy.log``), ready file and kubeconfig; ``operator_env`` the environment of the
    operator behind it, whose ``HEALTH_ENV`` variables the proxy takes for its own upstream
    HTTP/2 health check (``health.go``), so that a stall between the proxy and the API server
    is noticed as soon as the operator would notice one in front of the proxy. Nothing runs
    until ``start()``.
    """

    def __init__(
        self,
        *,
        upstream: str,
        upstream_ca: Path,
        client_cert: Path | None,
        client_key: Path | None,
        serving_cert: Path,
        serving_key: Path,
        user: str,
        workdir: Path,
        progress: Callable[[str], None] = progress_line,
        token: str | None = None,
        serving_ca: Path | None = None,
        operator_env: Mapping[str, str] | None = None,
    ) -> None:
        self.upstream = upstream
        self.upstream_ca = upstream_ca
        self.client_cert = client_cert
        self.client_key = client_key
        self.token = token
        self.serving_ca = serving_ca or upstream_ca
        self.serving_cert = serving_cert
        self.serving_key = serving_key
        self.user = user
        self.workdir = Path(workdir)
        self.progress = progress
        #: the upstream health-check variables taken from ``operator_env``
        self.health_env = {k: v for k, v in (operator_env or {}).items() if k in HEALTH_ENV}
        self.address = ""  #: ``127.0.0.1:PORT`` the client connects to (TLS), once started
        self.control_address = ""  #: ``127.0.0.1:PORT`` of the control API (plain HTTP)
        self._proc: ManagedProcess | None = None

    @classmethod
    def for_user(
        cls,
        control_plane: ControlPlane,
        user: str,
        *,
        workdir: Path,
        groups: tuple[str, ...] = (),
        operator_env: Mapping[str, str] | None = None,
        upstream: str | None = None,
    ) -> ApiProxy:
        """A proxy that forwards as ``user`` (the kubeconfig ``control_plane.kubeconfig_for``
        issues it) with a serving certificate for 127.0.0.1/localhost from the control plane's
        CA, in a fresh folder under ``workdir``. ``operator_env``: as for the constructor;
        ``upstream``: another URL for the API server (``https://127.0.0.1:PORT`` of a TCP fault
        proxy in front of it; its certificate is checked as the API server's). Not started."""
        return cls.for_kubeconfig(
            control_plane.kubeconfig_for(user, groups),
            user=user,
            workdir=workdir,
            serving_ca=getattr(control_plane, "ca", None),
            operator_env=operator_env,
            upstream=upstream,
        )

    @classmethod
    def for_kubeconfig(
        cls,
        kubeconfig: Path,
        *,
        user: str,
        workdir: Path,
        serving_ca: CertificateAuthority | None = None,
        operator_env: Mapping[str, str] | None = None,
        upstream: str | None = None,
    ) -> ApiProxy:
        """A proxy that forwards with the credential in ``kubeconfig`` (a client certificate,
        presented by the proxy; or a bearer token, which the client sends through the proxy's
        kubeconfig and the proxy passes on), in a fresh folder under ``workdir``. Its serving
        certificate (127.0.0.1, localhost) comes from ``serving_ca``, else from a CA made for
        this proxy (a cluster the harness does not own). ``operator_env``, ``upstream``: as for
        ``for_user``. Not started. ValueError for a kubeconfig with no usable credential
        (``read_credentials``)."""
        Path(workdir).mkdir(parents=True, exist_ok=True)
        own = Path(tempfile.mkdtemp(prefix=f"apiproxy-{user.replace(':', '-')}-", dir=workdir))
        creds = read_credentials(Path(kubeconfig), own)
        serving_ca_file = None
        if serving_ca is None:
            serving_ca = CertificateAuthority.new("modeldock-apiproxy")
            serving_ca_file = own / "serving-ca.crt"
            serving_ca_file.write_bytes(serving_ca.cert_pem)
        serving_crt, serving_key = serving_ca.issue_serving(["127.0.0.1", "localhost"]).write(
            own, "serving"
        )
        return cls(
            upstream=upstream or creds.server,
            upstream_ca=creds.ca,
            client_cert=creds.cert,
            client_key=creds.key,
            token=creds.token,
            serving_cert=serving_crt,
            serving_key=serving_key,
            serving_ca=serving_ca_file,
            user=user,
            workdir=own,
            operator_env=operator_env,
        )

    # ------------------------------------------------------------------ paths
    @property
    def kubeconfig(self) -> Path:
        """A kubeconfig for ``user`` whose server is the proxy (its CA: the one that signed the
        proxy's serving certificate) with the same credential as the upstream one. A client
        certificate in it reaches the proxy only (the proxy presents its own configured copy
        to the API server); a token is sent by the client and passed on by the proxy."""
        return self.workdir / "kubeconfig"

    @property
    def request_log(self) -> Path:
        """The request log (JSON lines, ``reclog.go``); read it with ``records.RequestLog``."""
        return self.workdir / "requests.jsonl"

    @property
    def url(self) -> str:
        """``https://127.0.0.1:PORT``: the proxy as a server URL."""
        return f"https://{self.address}"

    @property
    def control_url(self) -> str:
        return f"http://{self.control_address}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "apiproxy.log"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> ApiProxy:
        """Build (first time only) and start the proxy, wait until it listens and has reached
        the API server, and write ``kubeconfig``. Raises ApiProxyError naming the problem (Go
        missing, build failure, API server unreachable or refusing the identity) with the log
        tail. The process gets PR_SET_PDEATHSIG: it dies with this Python process."""
        exe = binary(self.progress)
        ready_file = self.workdir / "ready.json"
        ready_file.unlink(missing_ok=True)
        self._proc = ManagedProcess(
            "apiproxy",
            [
                str(exe),
                f"--upstream={self.upstream}",
                f"--upstream-ca={self.upstream_ca}",
                *(
                    [f"--client-cert={self.client_cert}", f"--client-key={self.client_key}"]
                    if self.client_cert and self.client_key
                    else []
                ),
                f"--tls-cert={self.serving_cert}",
                f"--tls-key={self.serving_key}",
                f"--ready-file={ready_file}",
                f"--request-log={self.request_log}",
            ],
            self.log_path,
            env={**os.environ, **self.health_env} if self.health_env else None,
        )
        try:
            self._proc.start()
            wait_until(
                ready_file.exists,
                timeout=READY_TIMEOUT,
                interval=0.02,
                what="the API proxy's ready file",
                alive=[self._proc],
            )
        except (ProcessError, TimeoutError) as exc:
            self._proc.stop(timeout=5)
            raise ApiProxyError(
                f"the API proxy for {self.user} to {self.upstream} did not start: "
                f"{exc}\n--- last lines of {self.log_path}:\n"
                f"{log_tail(self.log_path)}"
            ) from exc
        ready = json.loads(ready_file.read_text())
        self.address, self.control_address = ready["proxy"], ready["control"]
        write_kubeconfig(
            self.kubeconfig,
            self.url,
            self.serving_ca,
            self.user,
            self.client_cert,
            self.client_key,
            context="modeldock-apiproxy",
            token=self.token,
        )
        return self

    def stop(self) -> int | None:
        """SIGTERM (SIGKILL after 5 s); every proxied connection is closed. Returns the exit
        code (0 after SIGTERM), or None if it never started."""
        return self._proc.stop(timeout=5) if self._proc else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.running()

    def __enter__(self) -> ApiProxy:
        return self if self.running() else self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ control
    def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        timeout: float = CONTROL_TIMEOUT,
    ) -> Any:
        if not self.control_address:
            raise ApiProxyError("the API proxy is not started")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.control_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise ApiProxyError(
                f"API proxy {method} {path}: {exc.code} "
                f"{exc.read().decode(errors='replace').strip()}"
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            alive = (
                "running"
                if self.running()
                else f"exited ({self._proc and self._proc.returncode()})"
            )
            raise ApiProxyError(
                f"API proxy {method} {path} failed: {exc}; the proxy is {alive}; "
                f"last lines of {self.log_path}:\n{log_tail(self.log_path)}"
            ) from exc

    def mark(self) -> str:
        """Write a mark line into the request log and return its ``at`` (RFC 3339): every line
        stamped earlier is on disk before this returns (``reclog.go``, ``Mark``)."""
        return str(self._call("POST", "/mark", {})["at"])

    def settle(self, seconds: float) -> int:
        """Wait up to ``seconds`` until every non-watch request already forwarded has its
        answer in the request log (``Settle`` in proxy.go); returns how many still had none.
        The API server applies a write before its answer reaches the proxy: a check can see
        the effect a moment before the proxy logs the request."""
        answer = self._call(
            "POST", "/settle", {"seconds": float(seconds)}, timeout=seconds + CONTROL_TIMEOUT
        )
        return int(answer["unanswered"])

    def hold(self, resources: Iterable[str]) -> list[str]:
        """From now on, deliver no watch event of these resources (plural names, e.g.
        ``["deployments", "services"]``, any API group and namespace) until ``release``; events
        already queued but not yet delivered are held too. Returns every resource held now."""
        names = [resources] if isinstance(resources, str) else list(resources)
        return list(self._call("POST", "/hold", {"resources": names})["holding"])

    def release(self, resources: Iterable[str] | None = None) -> dict[str, int]:
        """Stop holding ``resources`` (None: all) and deliver what they held, in order. Returns
        ``{resource: events held at that moment}`` for each resource released (delivery
        follows at once; watch ``stats()["resources"][r]["delivered"]`` to see it done)."""
        names = (
            []
            if resources is None
            else ([resources] if isinstance(resources, str) else list(resources))
        )
        return dict(self._call("POST", "/release", {"resources": names})["released"])

    def end_watches(self, resources: Iterable[str]) -> dict[str, int]:
        """End every open watch stream of ``resources`` now, cleanly (the client sees the watch
        close, as at its timeout), dropping the events held or queued for it, and stop holding
        those resources, so the watches the client opens next flow. Returns ``{resource:
        streams ended}`` (``stats()["resources"][r]["dropped"]``: events dropped)."""
        names = [resources] if isinstance(resources, str) else list(resources)
        return dict(self._call("POST", "/end-watches", {"resources": names})["ended"])

    def delay_writes(
        self,
        seconds: float,
        count: int = 1,
        *,
        resource: str | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """Hold each of the next ``count`` writes (create, update, patch, delete,
        deletecollection) for ``seconds`` before forwarding it (0: disarm): of any resource, or
        only those of ``resource`` (plural, e.g. ``"deployments"``) and object ``name`` where
        given; other writes pass at once and are not counted. A held write whose client gives
        up (a request timeout) is forwarded then. ``stats()["writes_holding"]`` counts those
        held now; each one's ``recent`` record has ``held_ms``. Returns ``{"seconds": ...,
        "remaining": ...}`` (and ``resource``, ``name`` when given) as armed."""
        body: dict[str, Any] = {"seconds": float(seconds), "count": int(count)}
        if resource:
            body["resource"] = resource
        if name:
            body["name"] = name
        return dict(self._call("POST", "/delay-writes", body)["delay_writes"])

    def release_writes(self) -> int:
        """Forward every write ``delay_writes`` holds now, without waiting for its delay to
        end; returns how many were held. Writes held after this wait their full delay again."""
        return int(self._call("POST", "/release-writes", {})["released"])

    # ------------------------------------------------------------------ scripted faults
    def crash_after_write(
        self, nth: int, *, delivered: bool = False, resources: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """Arm a crash at the ``nth`` write (of ``resources``; None: any) from now: the proxy
        forwards it, then freezes the client's connection and reports it (``wait_crash``).
        ``delivered=False``: the response is withheld; True: delivered first. The caller
        kills the operator, then ``ack_crash()``."""
        body: dict[str, Any] = {
            "nth": int(nth),
            "action": "crash-delivered" if delivered else "crash-withheld",
        }
        if resources is not None:
            body["resources"] = list(resources)
        return dict(self._call("POST", "/faults/write", body))

    def inject_write_error(
        self,
        nth: int,
        code: int,
        *,
        retry_after: int | str = 0,
        resources: Iterable[str] | None = None,
        bare: bool = False,
        message: str = "",
        causes: Iterable[tuple[str, str]] = (),
        page: str = "",
        watch: bool = False,
    ) -> dict[str, Any]:
        """Answer the ``nth`` write (of ``resources``; None: any) from now with ``code`` (409,
        429, 500, 503, ...; a Kubernetes Status, ``Retry-After`` when ``retry_after``) without
        forwarding it. ``bare``: the Status has no ``details`` at all (as apimachinery's
        NewServiceUnavailable answers), else it names the object. ``message``: the Status's
        message (default: the proxy's own wording); ``causes``: its ``details.causes`` as
        ``(field, message)`` pairs, in this order (an admission webhook's own answer). A str
        ``retry_after`` is the header's value as given ("0", an HTTP-date); ``page``: answer
        this text/html body instead of a Status (a proxy's error page). ``watch``: count and
        answer the watch requests of ``resources`` instead of the writes (a watch start
        refused)."""
        body: dict[str, Any] = {"nth": int(nth), "action": "status", "code": int(code)}
        if isinstance(retry_after, str):
            body["retry_after_header"] = retry_after
        elif retry_after:
            body["retry_after"] = int(retry_after)
        if page:
            body["page"] = page
        if watch:
            body["watch"] = True
        if bare:
            body["bare"] = True
        if message:
            body["message"] = message
        listed = [{"field": field, "message": text} for field, text in causes]
        if listed:
            body["causes"] = listed
        if resources is not None:
            body["resources"] = list(resources)
        return dict(self._call("POST", "/faults/write", body))

    def wait_crash(self, timeout: float) -> dict[str, Any]:
        """Wait up to ``timeout`` s for an armed crash to trigger. Returns ``{"armed": bool,
        "triggered": bool, "variant": "withheld"|"delivered", "request": {...}}``; when
        triggered, the client is frozen until ``ack_crash``."""
        req = urllib.request.Request(f"{self.control_url}/faults/crash?wait={float(timeout)}")
        try:
            with urllib.request.urlopen(req, timeout=timeout + CONTROL_TIMEOUT) as resp:
                return dict(json.loads(resp.read()))
        except (urllib.error.URLError, OSError) as exc:
            raise ApiProxyError(f"API proxy GET /faults/crash failed: {exc}") from exc

    def ack_crash(self) -> bool:
        """The operator is dead: drop the frozen requests and let the next client through."""
        return bool(self._call("POST", "/faults/crash/ack", {})["acked"])

    def delay_events(self, resources: Iterable[str], seconds: float) -> dict[str, Any]:
        """Deliver each watch event of ``resources`` ``seconds`` after it arrived (0: off)."""
        return dict(
            self._call(
                "POST", "/faults/events", {"resources": list(resources), "seconds": float(seconds)}
            )["event_rules"]
        )

    def coalesce_events(self, resources: Iterable[str], window: float) -> dict[str, Any]:
        """Delay the watch events of ``resources`` by ``window`` s and merge an object's
        events within it: only its last state arrives (an undelivered ADDED and the DELETED
        after it both do: ``hold.go``, ``watchStream.coalesce``)."""
        return dict(
            self._call(
                "POST",
                "/faults/events",
                {"resources": list(resources), "seconds": float(window), "coalesce": True},
            )["event_rules"]
        )

    def faults(self) -> dict[str, Any]:
        """The armed write faults (each with ``seen`` and ``fired``) and event rules."""
        return dict(self._call("GET", "/faults"))

    def clear_faults(self) -> None:
        """Disarm every write fault and event rule; ack a pending crash."""
        self._call("POST", "/faults/clear", {})

    def stats(self) -> dict[str, Any]:
        """The proxy's counters (shape in the module docstring)."""
        return dict(self._call("GET", "/stats"))

    def resource_stats(self, resource: str) -> dict[str, Any]:
        """``stats()["resources"][resource]``, or zeros if the proxy has not seen it yet."""
        zero: dict[str, Any] = {
            "holding": False,
            "watches": 0,
            "watches_total": 0,
            "received": 0,
            "delivered": 0,
            "held": 0,
            "held_total": 0,
            "event_types": {},
            "framings": {},
            "content_types": {},
            "requests": {},
            "streams_ended": 0,
            "ended_by_proxy": 0,
            "dropped": 0,
        }
        return dict(self.stats()["resources"].get(resource, zero))

    def wait_stats(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float,
        what: str,
        *,
        premise: bool = False,
    ) -> dict[str, Any]:
        """Poll ``stats()`` until ``predicate(stats)`` holds; return those stats. After
        ``timeout`` s it raises AssertionError naming ``what`` with the last stats' resources
        (the operator did not do what the check waited for), or, with ``premise=True``,
        PremiseFailed (a wait on the proxy's own doing: the check could not judge)."""
        deadline = time.monotonic() + timeout
        while True:
            stats = self.stats()
            with contextlib.suppress(KeyError):
                if predicate(stats):
                    return stats
            if time.monotonic() > deadline:
                message = (
                    f"timed out after {timeout:.0f}s waiting for {what}; proxy "
                    f"resources: {json.dumps(stats['resources'], indent=1)}"
                )
                if premise:
                    raise PremiseFailed.because(message)
                raise AssertionError(message)
            time.sleep(0.05)
