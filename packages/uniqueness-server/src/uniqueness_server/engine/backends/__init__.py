"""The backends a source is read by, one module each, and the registry of database ones.

Each module implements :class:`uniqueness_server.engine.backend.Backend` (read its docstring
for the contract): :mod:`.embedded` (DuckDB, every file), :mod:`.sql_database` (PostgreSQL
and SQLite, with their catalog readers :mod:`.catalog_postgres` and :mod:`.catalog_sqlite`)
and :mod:`.spark` (Spark Connect). A database backend module also offers
``connect(name, url, limits) -> Connection``: the configured connection, which opens a read-only
:class:`~uniqueness_server.engine.table.Table` per call.

Adding a database backend is one module and one line in :data:`CONNECTORS`. Modules are
imported when a connection of theirs is configured, so a server that reads only files never
imports a database driver.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

from mcp_common import ToolContext

if TYPE_CHECKING:
    from uniqueness_server.engine.table import Table
    from uniqueness_server.read_limits import ReadLimits

CONNECTORS: dict[str, str] = {
    "postgresql": "uniqueness_server.engine.backends.sql_database",
    "postgres": "uniqueness_server.engine.backends.sql_database",
    "sqlite": "uniqueness_server.engine.backends.sql_database",
    "sc": "uniqueness_server.engine.backends.spark",
}
"""URL scheme (before any ``+driver``) -> the backend module connecting to it."""


class Connection(Protocol):
    """A named database connection configured on the server."""

    @property
    def name(self) -> str:
        """The name clients use."""
        ...

    def open(self, *, table: str | None, query: str | None, context: ToolContext | None) -> Table:
        """A read-only table over ``table`` or ``query`` (exactly one) for one call."""
        ...


def connect(name: str, url: str, limits: ReadLimits) -> Connection:
    """The connection ``url`` describes, by the backend its scheme names; a ``ValueError``
    naming the problem otherwise (a startup error)."""
    scheme, separator, _ = url.partition("://")
    if not separator:
        raise ValueError(
            f"--database {name}: not a usable SQLAlchemy URL or Spark Connect URL (expected "
            "SCHEME://…, e.g. postgresql://…, sqlite:///shop.db or sc://host:15002)"
        )
    backend = scheme.partition("+")[0].lower()
    module = CONNECTORS.get(backend)
    if module is None:
        raise ValueError(
            f"--database {name}: {backend} is not supported; only postgresql and sqlite "
            "connections can be held read-only (and sc:// reaches Spark Connect)"
        )
    connection: Connection = importlib.import_module(module).connect(name, url, limits)
    return connection
