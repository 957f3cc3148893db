"""Spending the read limits (:mod:`uniqueness_server.read_limits`) while a reader expands a
source: cells counted as they are produced, compressed bytes inflated only so far."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import BinaryIO

from mcp_common import ToolContext, ToolError

from uniqueness_server.engine.formats import unreadable_gzip
from uniqueness_server.read_limits import ReadLimits

_CHUNK = 1 << 20


class CellBudget:
    """Counts cells as a reader produces them; past the limit (or on cancellation) it raises,
    so an expansion stops where it is, never after it finished."""

    _CHECK_EVERY = 65_536

    def __init__(self, limits: ReadLimits, label: str, context: ToolContext) -> None:
        self._limits = limits
        self._label = label
        self._context = context
        self._left = limits.max_cells
        self._until_check = self._CHECK_EVERY

    def spend(self, cells: int) -> None:
        """Count ``cells`` more."""
        self._left -= cells
        if self._left < 0:
            raise self._limits.too_many_cells(self._label)
        self.tick(cells)

    def tick(self, work: int = 1) -> None:
        """Note ``work`` cells of work already counted; checks for cancellation now and then."""
        self._until_check -= work
        if self._until_check <= 0:
            self._until_check = self._CHECK_EVERY
            self._context.check_cancelled()


def read_bounded(
    path: Path, compressed: bool, limit: int, label: str, too_large: ToolError
) -> bytes:
    """The whole (decompressed) content of ``path``, refused with ``too_large`` as soon as it
    passes ``limit`` bytes (a gzip stream is inflated only that far)."""
    try:
        with gzip.open(path, "rb") if compressed else path.open("rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise unreadable_gzip(label, exc) from exc
    if len(data) > limit:
        raise too_large
    return data


def inflate_bounded(
    path: Path, out: BinaryIO, limit: int, label: str, too_large: ToolError
) -> None:
    """Write the decompressed content of the gzip file ``path`` to ``out`` a chunk at a time,
    refused with ``too_large`` as soon as it passes ``limit`` bytes."""
    written = 0
    try:
        with gzip.open(path, "rb") as stream:
            while chunk := stream.read(min(_CHUNK, limit + 1 - written)):
                written += len(chunk)
                if written > limit:
                    raise too_large
                out.write(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise unreadable_gzip(label, exc) from exc
