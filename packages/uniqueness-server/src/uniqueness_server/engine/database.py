"""The named database connections a server was started with (``--database NAME=URL``).

The client names a connection, never a URL, so credentials never pass through the model. The
URL's scheme picks the backend (:mod:`uniqueness_server.engine.backends`), which holds the
connection read-only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcp_common import ErrorCode, ToolContext, ToolError, mask_credentials

from uniqueness_server.engine.backends import Connection, connect
from uniqueness_server.engine.table import Table
from uniqueness_server.read_limits import ReadLimits

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class DatabaseRegistry:
    """The named connections a server was started with."""

    def __init__(self, connections: Sequence[Connection] = ()) -> None:
        self._connections = {c.name: c for c in connections}

    @classmethod
    def from_options(
        cls, values: Sequence[str] | None, limits: ReadLimits | None = None
    ) -> DatabaseRegistry:
        """Connections from ``NAME=URL`` strings; a malformed one is a ``ValueError``.

        A SQL URL may carry ``statement_timeout`` (``30s``, ``500ms``, ``5min``, ``1h``; ``0`` =
        no limit; default 60 s): it bounds every statement and is not passed to the driver.
        A ``sc://`` URL is a Spark Connect endpoint.
        """
        connections: list[Connection] = []
        for value in values or ():
            name, sep, url = value.partition("=")
            name = name.strip()
            if not sep or not _NAME.match(name) or not url.strip():
                raise ValueError(
                    f"--database expects NAME=URL (NAME of letters, digits, _ or -), got "
                    f"{mask_credentials(value)!r}"
                )
            connections.append(connect(name, url.strip(), limits or ReadLimits()))
        return cls(connections)

    @property
    def names(self) -> tuple[str, ...]:
        """Configured connection names, sorted."""
        return tuple(sorted(self._connections))

    def open(
        self,
        name: str,
        *,
        table: str | None = None,
        query: str | None = None,
        context: ToolContext | None = None,
    ) -> Table:
        """A read-only :class:`Table` over ``table`` or ``query`` in connection ``name``."""
        connection = self._connections.get(name)
        if connection is None:
            configured = (
                ", ".join(self.names)
                if self._connections
                else "none (start the server with --database NAME=URL)"
            )
            raise ToolError(
                f"unknown database {name!r}; configured databases: {configured}",
                ErrorCode.NOT_FOUND,
            )
        return connection.open(table=table, query=query, context=context)
