"""A source opened for querying: a relation with positional internal column names.

Every source, file or database, is exposed as a relation ``src`` whose columns are named
``c1..cn`` internally, so client-supplied column names never reach SQL text and sources with
repeated or odd header names still work. ``names`` holds what the user sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from uniqueness_server.engine.backend import Backend


@dataclass
class Table:
    """A relation to run uniqueness queries on, and the backend that runs them."""

    backend: Backend
    label: str
    names: tuple[str, ...]
    prefix: str = ""  # a WITH clause defining ``src`` for database sources
    relation: str = "src"
    row_numbers: bool = True
    base: tuple[str, ...] | None = None  # a database table source: its name, as the parts given
    source_query: str | None = None  # a database query source: the client's checked query

    def column(self, position: int) -> str:
        """The quoted internal identifier of the column at ``position`` (0-based)."""
        return self.backend.quote(f"c{position + 1}")

    def query(self, body: str) -> list[tuple[Any, ...]]:
        """Rows of ``body`` (which reads from :attr:`relation`)."""
        return self.backend.fetchall(self.prefix + body)

    def close(self) -> None:
        """Release the underlying connection."""
        self.backend.close()
