"""Structured JSON logs on stderr: the twin of controller-runtime's zap logger (JSON encoder).

One JSON object per line, with ``level``, ``ts`` (seconds since the epoch, as zap writes it),
``logger``, ``msg`` and the key/value pairs of the call, e.g.::

    {"level": "info", "ts": 1732870000.123, "logger": "controller", "msg": "Created Deployment",
     "modelservice": "lab/opt"}

``Logger.with_values(k=v)`` returns a logger that adds those pairs to every line (logr's
``WithValues``). Python's own ``logging`` carries the lines, so library loggers (urllib3, ...)
come out in the same format.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

_LEVELS = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warn"}


class JSONFormatter(logging.Formatter):
    """One JSON object per record: level, ts (epoch seconds), logger, msg and the record's
    fields, as controller-runtime's zap JSON encoder writes them (CONTRACT.md, "Process")."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "level": _LEVELS.get(record.levelno, "error"),
            "ts": round(record.created, 6),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            line["stacktrace"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def setup(level: int = logging.INFO) -> None:
    """Send every logger's lines to stderr as JSON, once per process."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JSONFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # urllib3 warns on every broken pooled connection; callers log their own failures.
    logging.getLogger("urllib3").setLevel(logging.ERROR)
    # The JSON line has no thread, process or source position: do not compute them for
    # every record (logging's documented switches). A py-spy profile of the operator at one
    # worker and N = 1000 (issue 28) found LogRecord.__init__ and findCaller a third of the
    # logging's own time, which is one line per write.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


class Logger:
    """A logger with bound key/value pairs. ``info(msg, **fields)`` writes one line."""

    def __init__(self, logger: logging.Logger, fields: dict[str, Any] | None = None) -> None:
        self._logger = logger
        self._fields = fields or {}

    def with_values(self, **fields: Any) -> Logger:
        return Logger(self._logger, {**self._fields, **fields})

    def debug(self, msg: str, **fields: Any) -> None:
        self._log(logging.DEBUG, msg, fields)

    def info(self, msg: str, **fields: Any) -> None:
        self._log(logging.INFO, msg, fields)

    def error(self, msg: str, **fields: Any) -> None:
        self._log(logging.ERROR, msg, fields)

    def _log(self, level: int, msg: str, fields: dict[str, Any]) -> None:
        logger = self._logger
        if logger.isEnabledFor(level):
            # a record made and handled directly: no findCaller (the line has no source
            # position), what Logger.log would do otherwise
            record = logger.makeRecord(
                logger.name,
                level,
                "",
                0,
                msg,
                (),
                None,
                extra={"fields": {**self._fields, **fields}},
            )
            logger.handle(record)


def get_logger(name: str) -> Logger:
    """The Logger called name, with no fields yet (Go: ctrl.Log.WithName(name))."""
    return Logger(logging.getLogger(name))


def flush() -> None:
    """Flush stderr: call before os._exit, which skips Python's own flushing."""
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stderr.flush()
