"""Logging for a server process: stderr (or a file), never stdout, credentials masked, bounded.

The log keeps paths (an operator needs them) but every formatted line, traceback included,
goes through :func:`~mcp_common.masking.mask_credentials`. Nothing a client sends can make a
log line long: every value is cut at :data:`VALUE_LIMIT` characters and every line at
:data:`LINE_LIMIT`, each cut noting the original size, so a 50 MB argument costs a few
kilobytes of log, not 50 MB of disk.
"""

from __future__ import annotations

import copy
import logging
import sys
from collections.abc import Mapping

from mcp_common.masking import mask_arguments, mask_credentials

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

VALUE_LIMIT = 2_000
"""Characters kept of one logged value (a string argument, an error message, a tool name)."""
LINE_LIMIT = 16_000
"""Characters kept of one log record, traceback included."""
# text is cut this far past a limit before masking and to the limit after, so masking never
# scans megabytes and a credential straddling the limit is still seen whole by the masker
_MASK_MARGIN = 1_000
# how much of a container a log line shows: enough to recognise a call, never its bulk
_ITEMS_SHOWN = 20
_STRING_SHOWN = 500
_DEPTH_SHOWN = 6


def bounded(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` cut at ``limit`` characters, with a note of its original size when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut: {len(text):,} characters in all]"


def masked_bounded(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` with credentials masked, cut like :func:`bounded` (masked before the cut, so
    the cut cannot split a credential out of the pattern that recognises it)."""
    if len(text) <= limit:
        return mask_credentials(text)
    kept = mask_credentials(text[: limit + _MASK_MARGIN])[:limit]
    return f"{kept}… [cut: {len(text):,} characters in all]"


def _trimmed(value: object, depth: int) -> object:
    """A small copy of ``value``: long strings cut, long containers and deep nesting elided."""
    if isinstance(value, str):
        return masked_bounded(value, _STRING_SHOWN)
    if isinstance(value, Mapping | list | tuple) and depth >= _DEPTH_SHOWN:
        return f"… [{type(value).__name__} nested deeper than {_DEPTH_SHOWN} levels]"
    if isinstance(value, Mapping):
        shown: dict[object, object] = {}
        for index, (key, item) in enumerate(value.items()):
            if index == _ITEMS_SHOWN:
                shown["…"] = f"[{len(value):,} members in all]"
                break
            shown[_trimmed(key, depth + 1)] = _trimmed(item, depth + 1)
        return shown
    if isinstance(value, list | tuple):
        items = [_trimmed(item, depth + 1) for item in value[:_ITEMS_SHOWN]]
        if len(value) > _ITEMS_SHOWN:
            items.append(f"… [{len(value):,} items in all]")
        return items
    return value


def loggable(value: object) -> str:
    """``value`` (call arguments, a tool name) as a log line shows it: credentials masked
    (secret-named members replaced), paths kept, and at most :data:`VALUE_LIMIT` characters."""
    return bounded(repr(mask_arguments(_trimmed(value, 0))))


def _bounded_argument(value: object) -> object:
    if isinstance(value, str):
        return masked_bounded(value)
    if isinstance(value, Mapping | list | tuple | set | bytes):
        return masked_bounded(repr(value))
    return value


class MaskingFormatter(logging.Formatter):
    """A formatter whose whole output, exception text included, has credentials masked and
    is at most :data:`LINE_LIMIT` characters long (each ``%`` argument at most
    :data:`VALUE_LIMIT`)."""

    def format(self, record: logging.LogRecord) -> str:
        args = record.args
        if args:
            # a copy: other handlers (pytest's capture, say) keep the record as it was
            record = copy.copy(record)
            if isinstance(args, Mapping):
                record.args = {k: _bounded_argument(v) for k, v in args.items()}
            else:
                record.args = tuple(_bounded_argument(v) for v in args)
        return masked_bounded(super().format(record), LINE_LIMIT)


def configure_logging(level: str = "INFO", log_file: str | None = None) -> None:
    """Send every log record to stderr, or to ``log_file`` when given; replaces any handler
    configured before (a library's ``basicConfig`` pointing at stdout included)."""
    handler: logging.Handler
    if log_file:
        handler = logging.FileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(MaskingFormatter(LOG_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.captureWarnings(True)


def log_descriptor() -> int:
    """The file descriptor the log is written to (for a helper process that must log)."""
    for handler in logging.getLogger().handlers:
        stream = getattr(handler, "stream", None)
        if stream is not None:
            try:
                return int(stream.fileno())
            except (OSError, ValueError):
                break
    return 2
