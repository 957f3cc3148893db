"""Logging for a server process: stderr (or a file), never stdout, credentials masked.

The log keeps paths (an operator needs them) but every formatted line, traceback included,
goes through :func:`~mcp_common.masking.mask_credentials`.
"""

from __future__ import annotations

import logging
import sys

from mcp_common.masking import mask_credentials

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class MaskingFormatter(logging.Formatter):
    """A formatter whose whole output, exception text included, has credentials masked."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_credentials(super().format(record))


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
