"""no-reconnect: a watch whose connection breaks is not re-established.

Anti-pattern: the informer restarts a watch that ends (its timeout, the server closing it)
and one that times out, but a connection that breaks under an open watch (reset by a peer,
cut by a network fault, dropped by a dying API server) ends that informer: it stops watching
and keeps its cache as it was. The process lives on, /healthz answers, and the operator
never hears of another change to that resource.

Why people write it: the loop handles the endings the developer saw: "for event in stream"
inside "while True", plus an ``except`` for the timeout. A broken connection raises from the
middle of the iteration, with an exception type (urllib3's ``ProtocolError``) that nobody
listed, and the thread that dies of it dies quietly.

What the correct operator does: any failure of a list or a watch is retried with backoff, for
ever, until the process is told to stop: the watch resumes from the last resourceVersion it
saw (or relists if that is gone), and what changed meanwhile arrives.
"""

from __future__ import annotations

import urllib3

from harness import mutants
from python_operator.runtime import informer


class _ConnectionLost(Exception):
    """The mutant's signal: the watch's connection broke mid-stream."""


class _GiveUpOnBrokenStream:
    """A watch stream whose connection errors (not timeouts) become ``_ConnectionLost``."""

    def __init__(self, inner: informer.Stream) -> None:
        self._inner = inner

    def __iter__(self):  # type: ignore[no-untyped-def]
        try:
            yield from self._inner
        except urllib3.exceptions.TimeoutError:
            raise
        except (urllib3.exceptions.ProtocolError, ConnectionError) as err:
            raise _ConnectionLost(str(err)) from err

    def close(self) -> None:
        self._inner.close()


class _Watcher:
    def __init__(self, inner: informer.ListerWatcher) -> None:
        self._inner = inner

    def list(self) -> tuple[informer.ObjList, str]:
        return self._inner.list()

    def watch(
        self, resource_version: str, timeout_seconds: int, read_timeout: float
    ) -> informer.Stream:
        return _GiveUpOnBrokenStream(
            self._inner.watch(resource_version, timeout_seconds, read_timeout)
        )


class NoReconnectInformer(informer.Informer):
    def __init__(self, lister_watcher: informer.ListerWatcher, **kwargs: object) -> None:
        super().__init__(_Watcher(lister_watcher), **kwargs)  # type: ignore[arg-type]

    def _watch(self) -> None:
        try:
            super()._watch()
        except _ConnectionLost as err:
            # The mutant: the informer stops here, blind, until the process is stopped.
            self._log.info("watch connection lost; not reconnecting", error=str(err))
            self._stop.wait()


PATCHES = (mutants.Patch(informer, "Informer", NoReconnectInformer),)

if __name__ == "__main__":
    mutants.main(PATCHES)
