"""A source opened for querying: a relation with positional internal column names.

Every source, file or database, is exposed as a relation ``src`` whose columns are named
``c1..cn`` internally, so client-supplied column names never reach SQL text and sources with
repeated or odd header names still work. ``names`` holds what the user sees.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from uniqueness_server.engine.runner import DuckDbRunner, Runner


@dataclass
class Table:
    """A relation to run uniqueness queries on."""

    runner: Runner
    label: str
    names: tuple[str, ...]
    prefix: str = ""  # a WITH clause defining ``src`` for database sources
    relation: str = "src"
    row_numbers: bool = True
    _materialized: frozenset[int] = field(default=frozenset(), repr=False)

    def column(self, position: int) -> str:
        """The quoted internal identifier of the column at ``position`` (0-based)."""
        return self.runner.quote(f"c{position + 1}")

    def query(self, body: str) -> list[tuple[Any, ...]]:
        """Rows of ``body`` (which reads from :attr:`relation`)."""
        return self.runner.fetchall(self.prefix + body)

    @property
    def in_memory(self) -> bool:
        """Whether queries read an in-memory copy rather than the file."""
        return bool(self._materialized)

    def materialize(self, positions: Sequence[int] | None = None) -> None:
        """Copy an embedded source (or some of its columns) into memory once, so repeated
        scans skip re-parsing the file; database sources stay where they are."""
        wanted = frozenset(range(len(self.names)) if positions is None else positions)
        if wanted <= self._materialized or not isinstance(self.runner, DuckDbRunner):
            return
        wanted |= self._materialized
        select = ", ".join(self.column(p) for p in sorted(wanted))
        self.runner.execute(
            f"CREATE OR REPLACE TEMP TABLE materialized AS SELECT {select} FROM src"
        )
        self.relation = "materialized"
        self._materialized = wanted

    def close(self) -> None:
        """Release the underlying connection."""
        self.runner.close()
