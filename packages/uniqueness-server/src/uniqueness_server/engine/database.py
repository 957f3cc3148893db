"""Named database connections and read-only sources inside them.

The client names a connection configured on the server (``--database NAME=URL``), never a
URL, so credentials never pass through the model. Nothing a client sends can write:

- a client ``query`` must parse (sqlglot, in the connection's dialect) as exactly one
  statement that only reads (SELECT, WITH … SELECT, UNION …, VALUES);
- every statement goes to the database as one statement at the protocol level: PostgreSQL
  through the extended query protocol (a prepared statement refuses ``;``-separated text),
  SQLite through ``sqlite3``'s ``execute`` (which refuses more than one statement);
- the session itself is read-only (PostgreSQL ``READ ONLY`` transactions, SQLite files opened
  with ``mode=ro`` and ``PRAGMA query_only``), so even a SELECT calling a writing function fails;
- every statement has a time limit (``statement_timeout`` in the URL, default 60 s).
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted), integers and a
# client query that passed read_only_query; client values never reach it otherwise.
# ruff: noqa: S608

from __future__ import annotations

import re
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
import sqlglot
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError, mask_credentials
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from uniqueness_server.engine.columns import addressable
from uniqueness_server.engine.runner import Progress, watching
from uniqueness_server.engine.spark import SCHEME as SPARK_SCHEME
from uniqueness_server.engine.spark import SparkConnection
from uniqueness_server.engine.table import Table

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
DEFAULT_STATEMENT_TIMEOUT = 60.0
"""Seconds a statement may run unless the ``--database`` URL sets ``statement_timeout``."""
_TIMEOUT_OPTION = "statement_timeout"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|min|h)$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "min": 60.0, "h": 3600.0}
# SQLAlchemy dialect name -> (the only driver we run, sqlglot dialect, name in messages)
_SUPPORTED = {
    "postgresql": ("psycopg", "postgres", "PostgreSQL"),
    "sqlite": ("pysqlite", "sqlite", "SQLite"),
}
# anything that writes, locks, changes the session or is not parsed (Command) is refused,
# wherever it sits in the statement (a data-modifying WITH, SELECT … INTO, FOR UPDATE, …)
_NOT_READING: tuple[type[exp.Expr], ...] = (
    exp.DML,
    exp.DDL,
    exp.Command,
    exp.Into,
    exp.Lock,
    exp.Pragma,
    exp.Set,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Copy,
    exp.LoadData,
    exp.Attach,
    exp.Detach,
    exp.Use,
    exp.Kill,
    exp.Grant,
    exp.Analyze,
)
_BATCH_ROWS = 10_000  # rows per batch of a streamed result
_QUERY_CANCELED = "57014"  # PostgreSQL SQLSTATE of a statement stopped by statement_timeout


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def read_only_query(sql: str, dialect: str) -> str:
    """``sql`` trimmed to its one statement if that statement only reads; an error otherwise.

    ``dialect`` is the SQLAlchemy dialect name (``postgresql``, ``sqlite``). The text sent
    to the database is the client's own (from its first to its last token, so a trailing
    comment or ``;`` cannot swallow the wrapping the engine adds), never a re-rendering: the
    parser only decides whether the query is allowed.
    """
    _, glot, shown = _SUPPORTED[dialect]
    try:
        statements = [s for s in sqlglot.parse(sql, dialect=glot) if s is not None]
        tokens = Dialect.get_or_raise(glot).tokenize(sql)
    except RecursionError as exc:
        raise _invalid("query is nested too deeply to be checked; simplify it") from exc
    except sqlglot.errors.SqlglotError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _invalid(f"query is not one valid {shown} SELECT statement: {reason}") from exc
    if not statements:
        raise _invalid("query is empty")
    if len(statements) > 1:
        raise _invalid(
            f"only one SQL statement is allowed; the query holds {len(statements)} separated by ';'"
        )
    statement = statements[0]
    if not isinstance(statement, exp.Query | exp.Values):
        raise _invalid(
            "only SELECT queries are allowed (SELECT, WITH … SELECT, UNION, VALUES), "
            f"not {_kind(statement)}"
        )
    for node in statement.walk():
        if isinstance(node, _NOT_READING):
            raise _invalid(f"only SELECT queries are allowed; the query holds {_kind(node)}")
    while tokens and tokens[-1].token_type is sqlglot.TokenType.SEMICOLON:
        tokens.pop()
    return sql[tokens[0].start : tokens[-1].end + 1]


def _kind(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Lock):
        return "FOR UPDATE/SHARE (a row lock)"
    return node.key.upper()


def _seconds(name: str, text: str) -> float | None:
    """``statement_timeout`` as seconds; ``0`` means no limit (``None``)."""
    value = text.strip().lower()
    if value == "0":
        return None
    match = _DURATION.match(value)
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(
            f"--database {name}: statement_timeout must be a duration such as 30s, 500ms, "
            f"5min or 1h (0 = no limit), got {text!r}"
        )
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


@dataclass(frozen=True, slots=True)
class _Connection:
    name: str
    engine: sa.Engine
    timeout: float | None


def _connection_for(name: str, url_text: str) -> _Connection:
    url = sa.make_url(url_text)
    backend = url.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in _SUPPORTED:
        raise ValueError(
            f"--database {name}: {backend} is not supported; only postgresql and sqlite "
            "connections can be held read-only"
        )
    driver = _SUPPORTED[backend][0]
    _, plus, given = url.drivername.partition("+")
    if plus and given != driver:
        raise ValueError(
            f"--database {name}: {backend} connections use the {driver} driver "
            f"({backend}+{driver}://… or {backend}://…), not {given}"
        )
    timeout_text = url.query.get(_TIMEOUT_OPTION)
    if isinstance(timeout_text, tuple):
        raise ValueError(f"--database {name}: statement_timeout is given more than once")
    timeout = DEFAULT_STATEMENT_TIMEOUT if timeout_text is None else _seconds(name, timeout_text)
    url = url.difference_update_query([_TIMEOUT_OPTION]).set(drivername=f"{backend}+{driver}")
    if backend == "sqlite" and url.database not in (None, "", ":memory:"):
        database = url.database
        if not database.startswith("file:"):
            database = "file:" + urllib.parse.quote(database)
        # read-only URI mode (forced even over a URI's own mode): a missing file is an
        # error instead of a new empty database, and the file is never opened for writing
        url = url.set(database=database).update_query_dict({"mode": "ro", "uri": "true"})
    return _Connection(name, sa.create_engine(url, poolclass=sa.pool.NullPool), timeout)


class DatabaseRegistry:
    """The named connections a server was started with."""

    def __init__(self, connections: Sequence[_Connection | SparkConnection] = ()) -> None:
        self._connections = {c.name: c for c in connections}

    @classmethod
    def from_options(cls, values: Sequence[str] | None) -> DatabaseRegistry:
        """Connections from ``NAME=URL`` strings; a malformed one is a ``ValueError``.

        The URL may carry ``statement_timeout`` (``30s``, ``500ms``, ``5min``, ``1h``; ``0`` =
        no limit; default 60 s): it bounds every statement and is not passed to the driver.
        A ``sc://`` URL is a Spark Connect endpoint (:mod:`uniqueness_server.engine.spark`).
        """
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
                connections.append(_connection_for(name, url.strip()))
            except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
                raise ValueError(
                    f"--database {name}: not a usable SQLAlchemy URL: {mask_credentials(str(exc))}"
                ) from exc
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
        parts: list[str] = []
        if table is not None:
            parts = [part.strip() for part in table.split(".")]
            if not all(parts) or len(parts) > 3:
                raise _invalid(f"table must be NAME or SCHEMA.NAME, got {table!r}")
            inner = "SELECT * FROM " + ".".join(preparer.quote_identifier(p) for p in parts)
            label = f"{name}:{table}"
        else:
            assert query is not None
            inner = read_only_query(query, engine.dialect.name)
            label = f"{name}:query"
        runner = SqlRunner(engine, context or ToolContext(), label, connection.timeout)
        try:
            described = runner.columns(inner)
            names = addressable(described)
            internal = ", ".join(runner.quote(f"c{i}") for i in range(1, len(names) + 1))
            prefix = f"WITH src({internal}) AS ({inner}) "
        except BaseException:
            runner.close()
            raise
        return Table(
            runner=runner,
            label=label,
            names=names,
            prefix=prefix,
            row_numbers=False,
            base=tuple(parts) if table is not None else None,
            source_query=inner if query is not None else None,
        )


class SqlRunner:
    """Runs the engine's queries in one read-only transaction, one statement at a time."""

    def __init__(
        self, engine: sa.Engine, context: ToolContext, label: str, timeout: float | None
    ) -> None:
        self._engine = engine
        self._context = context
        self._label = label
        self._timeout = timeout
        self.progress = Progress(context)
        self._dbapi_error: type[Exception] = engine.dialect.loaded_dbapi.Error
        try:
            self._connection = engine.connect()
        except sa.exc.SQLAlchemyError as exc:
            raise self._error(exc) from exc
        try:
            self._make_read_only()
        except BaseException:
            self._connection.close()
            raise

    @property
    def dialect(self) -> str:
        """The SQLAlchemy dialect name (``sqlite`` or ``postgresql``)."""
        return self._engine.dialect.name

    def quote(self, identifier: str) -> str:
        """Quoted by the dialect's own identifier preparer."""
        return self._engine.dialect.identifier_preparer.quote_identifier(identifier)

    def _make_read_only(self) -> None:
        if self.dialect == "sqlite":
            self._run("PRAGMA query_only = ON")
        else:
            # the session default too, so no later transaction of this connection can write;
            # the server-side timeout is a backstop for a client that died mid-query (a SELECT
            # may change it with set_config, the client-side deadline it cannot)
            self._run("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            self._run("SET TRANSACTION READ ONLY")
            if self._timeout is not None:
                self._run(f"SET statement_timeout = {max(1, round(self._timeout * 1000))}")

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

    def _timed_out(self) -> ToolError:
        return ToolError(
            f"{self._label}: the query ran longer than the statement timeout of "
            f"{self._timeout:g} s and was stopped (statement_timeout in the server's "
            "--database URL sets it)",
            ErrorCode.FAILED,
        )

    def _interrupt(self) -> None:
        raw: Any = self._connection.connection.dbapi_connection
        if self.dialect == "sqlite":
            raw.interrupt()
        else:
            raw.cancel()

    @contextmanager
    def _deadline(self) -> Iterator[threading.Event]:
        """Interrupts the statement running when the timeout elapses; the event says so."""
        expired = threading.Event()
        if self._timeout is None:
            yield expired
            return

        def expire() -> None:
            expired.set()
            self._interrupt()

        timer = threading.Timer(self._timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            yield expired
        finally:
            timer.cancel()

    def _run(self, sql: str) -> Any:
        """A DBAPI cursor that executed ``sql``, verbatim and as exactly one statement.

        psycopg gets ``prepare=True``: the extended query protocol, where the server refuses
        text holding several statements (a parameterless simple-protocol execute would run
        them all). ``sqlite3`` refuses several statements by itself. No parameters are ever
        sent, so ``%`` and ``:name`` in a client's query stay literal.
        """
        raw: Any = self._connection.connection.dbapi_connection
        cursor = raw.cursor()
        if self.dialect == "sqlite":
            cursor.execute(sql)
        else:
            cursor.execute(sql, prepare=True)
        return cursor

    def _fetch(
        self, sql: str, fetch: bool, consume: Callable[[list[tuple[Any, ...]]], None] | None = None
    ) -> tuple[list[tuple[Any, ...]], list[str]]:
        try:
            with watching(self._context, self._interrupt), self._deadline() as expired:
                try:
                    cursor = self._run(sql)
                    names = [str(column[0]) for column in cursor.description or ()]
                    rows = [tuple(row) for row in cursor.fetchall()] if fetch else []
                    while consume is not None and (batch := cursor.fetchmany(_BATCH_ROWS)):
                        consume(batch)
                    cursor.close()
                except self._dbapi_error as exc:
                    if self._context.cancelled:
                        raise ToolCancelledError from exc
                    if expired.is_set() or getattr(exc, "sqlstate", None) == _QUERY_CANCELED:
                        raise self._timed_out() from exc
                    raise self._error(exc) from exc
        except sa.exc.SQLAlchemyError as exc:
            raise self._error(exc) from exc
        return rows, names

    def columns(self, inner: str) -> list[str]:
        """Column names of ``inner`` without reading its rows."""
        return self._fetch(f"SELECT * FROM ({inner}) q WHERE 1 = 0", fetch=False)[1]

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``; cancellation or the timeout stops the statement in the database."""
        return self._fetch(sql, fetch=True)[0]

    def stream(self, sql: str, consume: Callable[[list[tuple[Any, ...]]], None]) -> None:
        """Hands the rows of ``sql`` to ``consume`` batch by batch (SQLite reads them as they
        are consumed); cancellation or the timeout stops the statement as for :meth:`fetchall`."""
        self._fetch(sql, fetch=False, consume=consume)

    def close(self) -> None:
        """Roll back (nothing was written) and release the connection."""
        try:
            self._connection.rollback()
        finally:
            self._connection.close()
