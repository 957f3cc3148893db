"""Named database connections and read-only sources inside them.

The client names a connection configured on the server (``--database NAME=URL``), never a
URL, so credentials never pass through the model. Every query the engine sends runs inside
the database (GROUP BY pushed down) and read-only: a client ``query`` must be one SELECT /
WITH / VALUES statement, and the session itself is made read-only (SQLite ``query_only``,
PostgreSQL ``SET TRANSACTION READ ONLY``, SQLite files opened in read-only mode).
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError, mask_credentials

from uniqueness_server.engine.runner import Progress, watching
from uniqueness_server.engine.spark import SCHEME as SPARK_SCHEME
from uniqueness_server.engine.spark import SparkConnection
from uniqueness_server.engine.table import Table

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_READ_WORDS = frozenset({"select", "with", "values"})


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def strip_sql_comments(sql: str) -> str:
    """``sql`` without ``--`` and ``/* */`` comments; string and identifier quotes respected."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i : end + 1])
            i = end + 1
        elif sql.startswith("--", i):
            newline = sql.find("\n", i)
            i = n if newline < 0 else newline
            out.append(" ")
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            if close < 0:
                raise _invalid("query has an unterminated /* comment")
            i = close + 2
            out.append(" ")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _outside_quotes(sql: str) -> str:
    return re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "''", sql)


def read_only_query(sql: str) -> str:
    """The query, ready to wrap, if it is one read-only statement; an error otherwise."""
    text = strip_sql_comments(sql).strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    if not text:
        raise _invalid("query is empty")
    if ";" in _outside_quotes(text):
        raise _invalid("query must be a single statement; it holds several separated by ';'")
    first = re.match(r"[A-Za-z]+", text)
    word = first.group(0).lower() if first else text[:10]
    if word not in _READ_WORDS:
        raise _invalid(
            "query must be a read-only SELECT (or WITH … SELECT, VALUES) statement, "
            f"not {word.upper()}"
        )
    return text


@dataclass(frozen=True, slots=True)
class _Connection:
    name: str
    engine: sa.Engine


def _engine_for(url_text: str) -> sa.Engine:
    url = sa.make_url(url_text)
    if url.drivername in ("postgresql", "postgres"):
        # the installed PostgreSQL driver is psycopg 3, not SQLAlchemy's default psycopg2
        url = url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        database = url.database
        if not database.startswith("file:"):
            # read-only URI mode: a missing file is an error instead of a new empty database
            url = url.set(
                database=f"file:{database}", query={**url.query, "mode": "ro", "uri": "true"}
            )
    return sa.create_engine(url, poolclass=sa.pool.NullPool)


class DatabaseRegistry:
    """The named connections a server was started with."""

    def __init__(self, connections: Sequence[_Connection | SparkConnection] = ()) -> None:
        self._connections = {c.name: c for c in connections}

    @classmethod
    def from_options(cls, values: Sequence[str] | None) -> DatabaseRegistry:
        """Connections from ``NAME=URL`` strings; a malformed one is a ``ValueError``."""
        connections: list[_Connection | SparkConnection] = []
        for value in values or ():
            name, sep, url = value.partition("=")
            name = name.strip()
            if not sep or not _NAME.match(name) or not url.strip():
                raise ValueError(
                    f"--database expects NAME=URL (NAME of letters, digits, _ or -), got "
                    f"{mask_credentials(value)!r}"
                )
            if url.strip().startswith(SPARK_SCHEME):
                connections.append(SparkConnection(name, url.strip()))
                continue
            try:
                engine = _engine_for(url.strip())
            except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ValueError) as exc:
                raise ValueError(
                    f"--database {name}: not a usable SQLAlchemy URL: {mask_credentials(str(exc))}"
                ) from exc
            connections.append(_Connection(name, engine))
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
        if isinstance(connection, SparkConnection):
            return connection.open(table=table, query=query, context=context)
        if (table is None) == (query is None):
            raise _invalid("give exactly one of table or query together with database")
        engine = connection.engine
        preparer = engine.dialect.identifier_preparer
        if table is not None:
            parts = [part.strip() for part in table.split(".")]
            if not all(parts) or len(parts) > 3:
                raise _invalid(f"table must be NAME or SCHEMA.NAME, got {table!r}")
            inner = "SELECT * FROM " + ".".join(preparer.quote_identifier(p) for p in parts)
            label = f"{name}:{table}"
        else:
            assert query is not None
            inner = read_only_query(query)
            label = f"{name}:query"
        runner = SqlRunner(engine, context or ToolContext(), label)
        try:
            described = runner.columns(inner)
            names = tuple(described)
            internal = ", ".join(runner.quote(f"c{i}") for i in range(1, len(names) + 1))
            prefix = f"WITH src({internal}) AS ({inner}) "
        except BaseException:
            runner.close()
            raise
        return Table(runner=runner, label=label, names=names, prefix=prefix, row_numbers=False)


class SqlRunner:
    """Runs the engine's queries through SQLAlchemy in one read-only transaction."""

    def __init__(self, engine: sa.Engine, context: ToolContext, label: str) -> None:
        self._engine = engine
        self._context = context
        self._label = label
        self.progress = Progress(context)
        self._dbapi_error: type[Exception] = engine.dialect.loaded_dbapi.Error
        try:
            self._connection = engine.connect()
            self._make_read_only()
        except sa.exc.SQLAlchemyError as exc:
            raise self._error(exc) from exc

    @property
    def dialect(self) -> str:
        """The SQLAlchemy dialect name (``sqlite``, ``postgresql``, …)."""
        return self._engine.dialect.name

    def quote(self, identifier: str) -> str:
        """Quoted by the dialect's own identifier preparer."""
        return self._engine.dialect.identifier_preparer.quote_identifier(identifier)

    def _make_read_only(self) -> None:
        if self.dialect == "sqlite":
            self._connection.exec_driver_sql("PRAGMA query_only = ON")
        elif self.dialect == "postgresql":
            # the session default too, so no later transaction of this connection can write
            self._connection.exec_driver_sql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            self._connection.exec_driver_sql("SET TRANSACTION READ ONLY")

    def _error(self, exc: BaseException) -> ToolError:
        original = getattr(exc, "orig", None) or exc
        first = (
            str(original).strip().splitlines()[0]
            if str(original).strip()
            else type(original).__name__
        )
        return ToolError(
            f"{self._label}: the database refused the query: {mask_credentials(first)}",
            ErrorCode.FAILED,
        )

    def _interrupt(self) -> None:
        raw: Any = self._connection.connection.dbapi_connection
        for method in ("interrupt", "cancel"):
            if hasattr(raw, method):
                getattr(raw, method)()
                return

    def _cursor(self, sql: str) -> Any:
        """A DBAPI cursor that executed ``sql`` verbatim.

        The engine never sends parameters, and going through the driver without any keeps
        ``%`` (psycopg) and ``:name`` (SQLAlchemy text) in a client's query literal.
        """
        raw: Any = self._connection.connection.dbapi_connection
        cursor = raw.cursor()
        cursor.execute(sql)
        return cursor

    def columns(self, inner: str) -> list[str]:
        """Column names of ``inner`` without reading its rows."""
        try:
            cursor = self._cursor(f"SELECT * FROM ({inner}) q WHERE 1 = 0")
            names = [str(column[0]) for column in cursor.description or ()]
            cursor.close()
        except self._dbapi_error as exc:
            raise self._error(exc) from exc
        return names

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``; cancellation cancels the statement in the database."""
        try:
            with watching(self._context, self._interrupt):
                cursor = self._cursor(sql)
                rows = [tuple(row) for row in cursor.fetchall()]
                cursor.close()
                return rows
        except ToolCancelledError:
            raise
        except self._dbapi_error as exc:
            if self._context.cancelled:
                raise ToolCancelledError from exc
            raise self._error(exc) from exc

    def close(self) -> None:
        """Roll back (nothing was written) and release the connection."""
        try:
            self._connection.rollback()
        finally:
            self._connection.close()
