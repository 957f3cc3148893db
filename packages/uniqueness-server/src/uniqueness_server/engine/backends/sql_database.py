"""The SQL databases backend (PostgreSQL, SQLite): read-only sources in named connections.

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

Everything is computed where the rows live: group counts, distinct counts and the key search's
checks are SQL sent to the database, and only aggregates and one page of rows come back. Each
dialect's declared keys and statistics are read by its catalog reader
(:mod:`.catalog_postgres`, :mod:`.catalog_sqlite`).
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted), integers and a
# client query that passed read_only_query; client values never reach it otherwise.
# ruff: noqa: S608

from __future__ import annotations

import re
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import sqlglot
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError, mask_credentials
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from uniqueness_server import extra_hint
from uniqueness_server.engine.approximate import SIGMAS, SKETCH_KEYS, kmv_sketch
from uniqueness_server.engine.backend import (
    SAMPLE_VALUE_BYTES,
    TIMEOUT_OPTION,
    GroupCounts,
    Progress,
    SearchSource,
    Sketch,
    Sketcher,
    deadline,
    statement_timeout,
    timed_out,
    watching,
)
from uniqueness_server.engine.backends.catalog_postgres import PostgresCatalog
from uniqueness_server.engine.backends.catalog_sqlite import SqliteCatalog
from uniqueness_server.engine.check import counted_groups
from uniqueness_server.engine.codes import CodeMatrix, TooManyCellsError, ValueCoder
from uniqueness_server.engine.columns import addressable
from uniqueness_server.engine.metadata import Catalog
from uniqueness_server.engine.model import DuplicateGroup, Nulls, Profile
from uniqueness_server.engine.profile import typed_profile
from uniqueness_server.engine.sql import (
    any_missing,
    column_list,
    duplicated_each,
    not_missing,
    sample_values,
)
from uniqueness_server.engine.stats import ColumnStats, aggregate_stats
from uniqueness_server.engine.table import Table
from uniqueness_server.read_limits import MIB, ReadLimits

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
_PG_OFFSET = 1 << 63  # hashtextextended is a signed bigint
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
    glot, shown = _DIALECTS[dialect].glot, _DIALECTS[dialect].shown
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
        if isinstance(node, exp.Anonymous):
            refused = refusal(str(node.name), _DIALECTS[dialect].refused)
            if refused is not None:
                raise _invalid(f"the query calls {node.name}(), which is refused: {refused}")
    while tokens and tokens[-1].token_type is sqlglot.TokenType.SEMICOLON:
        tokens.pop()
    return sql[tokens[0].start : tokens[-1].end + 1]


def _kind(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Lock):
        return "FOR UPDATE/SHARE (a row lock)"
    return node.key.upper()


@dataclass(frozen=True, slots=True)
class SqlConnection:
    """One configured database connection; opens a read-only source per call."""

    name: str
    engine: sa.Engine
    timeout: float | None
    limits: ReadLimits = field(default_factory=ReadLimits)

    def open(self, *, table: str | None, query: str | None, context: ToolContext | None) -> Table:
        """A read-only :class:`Table` over ``table`` or ``query`` in this database."""
        if (table is None) == (query is None):
            raise _invalid("give exactly one of table or query together with database")
        preparer = self.engine.dialect.identifier_preparer
        parts: list[str] = []
        if table is not None:
            parts = [part.strip() for part in table.split(".")]
            if not all(parts) or len(parts) > 3:
                raise _invalid(f"table must be NAME or SCHEMA.NAME, got {table!r}")
            inner = "SELECT * FROM " + ".".join(preparer.quote_identifier(p) for p in parts)
            label = f"{self.name}:{table}"
        else:
            assert query is not None
            inner = read_only_query(query, self.engine.dialect.name)
            label = f"{self.name}:query"
        backend = SqlBackend(
            self.engine, context or ToolContext(), label, self.timeout, self.limits
        )
        try:
            described = backend.columns(inner)
            names = addressable(described)
            internal = ", ".join(backend.quote(f"c{i}") for i in range(1, len(names) + 1))
            prefix = f"WITH src({internal}) AS ({inner}) "
        except BaseException:
            backend.close()
            raise
        return Table(
            backend=backend,
            label=label,
            names=names,
            prefix=prefix,
            row_numbers=False,
            base=tuple(parts) if table is not None else None,
            source_query=inner if query is not None else None,
        )


def _sqlite_file(name: str, database: str) -> str:
    """The absolute path of an SQLite URL's file, which must exist; the ``ValueError`` names
    the path tried (a relative one is read from the working directory, as SQLite does)."""
    path = Path(database).expanduser()
    tried = path if path.is_absolute() else Path.cwd() / path
    if tried.is_file():
        return str(tried)
    found = "is not a file" if tried.exists() else "does not exist"
    hint = (
        ""
        if path.is_absolute()
        else f" (sqlite:///{database} is relative to the working directory; "
        f"sqlite:////absolute/path names an absolute one)"
    )
    raise ValueError(f"--database {name}: the SQLite database {tried} {found}{hint}")


def connect(name: str, url_text: str, limits: ReadLimits | None = None) -> SqlConnection:
    """The named connection ``url_text`` describes; a ``ValueError`` naming the problem when
    it is not a PostgreSQL or SQLite URL this backend can hold read-only."""
    try:
        url = sa.make_url(url_text)
    except sa.exc.ArgumentError as exc:
        raise ValueError(
            f"--database {name}: not a usable SQLAlchemy URL: {mask_credentials(str(exc))}"
        ) from exc
    backend = url.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in _DIALECTS:
        raise ValueError(
            f"--database {name}: {backend} is not supported; only postgresql and sqlite "
            "connections can be held read-only"
        )
    driver = _DIALECTS[backend].driver
    _, plus, given = url.drivername.partition("+")
    if plus and given != driver:
        raise ValueError(
            f"--database {name}: {backend} connections use the {driver} driver "
            f"({backend}+{driver}://… or {backend}://…), not {given}"
        )
    timeout_text = url.query.get(TIMEOUT_OPTION)
    if isinstance(timeout_text, tuple):
        raise ValueError(f"--database {name}: {TIMEOUT_OPTION} is given more than once")
    timeout = statement_timeout(name, timeout_text)
    url = url.difference_update_query([TIMEOUT_OPTION]).set(drivername=f"{backend}+{driver}")
    if backend == "sqlite" and url.database not in (None, "", ":memory:"):
        database = url.database
        if not database.startswith("file:"):
            database = "file:" + urllib.parse.quote(_sqlite_file(name, database))
        # read-only URI mode (forced even over a URI's own mode): a missing file is an
        # error instead of a new empty database, and the file is never opened for writing
        url = url.set(database=database).update_query_dict({"mode": "ro", "uri": "true"})
    try:
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    except ModuleNotFoundError as exc:  # the driver of an optional part is not installed
        dialect = _DIALECTS[backend]
        raise ValueError(
            f"--database {name}: {dialect.shown} connections need the {dialect.driver} driver; "
            f"{extra_hint(dialect.extra or backend)}"
        ) from exc
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
        raise ValueError(
            f"--database {name}: not a usable SQLAlchemy URL: {mask_credentials(str(exc))}"
        ) from exc
    return SqlConnection(name, engine, timeout, limits or ReadLimits())


class SqlBackend:
    """Runs a database source's queries in one read-only transaction, one statement at a time."""

    local = False

    def __init__(
        self,
        engine: sa.Engine,
        context: ToolContext,
        label: str,
        timeout: float | None,
        limits: ReadLimits | None = None,
    ) -> None:
        self._engine = engine
        self._limits = limits or ReadLimits()
        self._refused: list[str] = []  # what the session refused, why (see _Dialect.harden)
        self._context = context
        self._label = label
        self._timeout = timeout
        self.progress = Progress(context)
        self._dialect = _DIALECTS[engine.dialect.name]
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

    def quote(self, identifier: str) -> str:
        """Quoted by the dialect's own identifier preparer."""
        return self._engine.dialect.identifier_preparer.quote_identifier(identifier)

    @property
    def catalog(self) -> Catalog:
        """The dialect's catalog reader, through this read-only connection."""
        return self._dialect.catalog(self.fetchall, self.quote)

    def as_text(self, expression: str) -> str:
        """``CAST(… AS VARCHAR)``."""
        return f"CAST({expression} AS VARCHAR)"

    def sampled(self, expression: str) -> str:
        """The value (its type kept) when at most :data:`SAMPLE_VALUE_BYTES` long, else NULL."""
        size = self._dialect.size.format(expression)
        return f"CASE WHEN {size} > {SAMPLE_VALUE_BYTES} THEN NULL ELSE {expression} END"

    def _make_read_only(self) -> None:
        if self._dialect.harden is not None:
            raw: Any = self._connection.connection.dbapi_connection
            self._dialect.harden(raw, self._limits, self._refused)
        for statement in self._dialect.read_only:
            self._run(statement)
        if self._timeout is not None and self._dialect.timeout is not None:
            # a backstop for a client that died mid-query (a SELECT may change it with
            # set_config, the client-side deadline it cannot)
            self._run(self._dialect.timeout.format(ms=max(1, round(self._timeout * 1000))))

    def _error(self, exc: BaseException) -> ToolError:
        original = getattr(exc, "orig", None) or exc
        first = (
            str(original).strip().splitlines()[0]
            if str(original).strip()
            else type(original).__name__
        )
        if self._refused:
            return ToolError(f"{self._label}: {self._refused[-1]}", ErrorCode.INVALID_ARGUMENT)
        if first == "out of memory" and self._dialect.harden is not None:
            return ToolError(
                f"{self._label}: the query needs more than {self._limits.max_engine_memory:,} "
                "MiB, the server's limit (--max-engine-memory); raise it to read this source",
                ErrorCode.INVALID_ARGUMENT,
            )
        if first == "string or blob too big":
            return ToolError(
                f"{self._label}: a value is longer than {self._limits.max_value_bytes:,} bytes, "
                "the server's limit (--max-value-bytes); raise it to read this source",
                ErrorCode.INVALID_ARGUMENT,
            )
        return ToolError(
            f"{self._label}: the database refused the query: {mask_credentials(first)}",
            ErrorCode.FAILED,
        )

    def _interrupt(self) -> None:
        raw: Any = self._connection.connection.dbapi_connection
        getattr(raw, self._dialect.interrupt)()

    def _run(self, sql: str) -> Any:
        """A DBAPI cursor that executed ``sql``, verbatim and as exactly one statement.

        psycopg gets ``prepare=True``: the extended query protocol, where the server refuses
        text holding several statements (a parameterless simple-protocol execute would run
        them all). ``sqlite3`` refuses several statements by itself. No parameters are ever
        sent, so ``%`` and ``:name`` in a client's query stay literal.
        """
        raw: Any = self._connection.connection.dbapi_connection
        cursor = raw.cursor()
        cursor.execute(sql, **self._dialect.execute_options)
        return cursor

    def _fetch(
        self, sql: str, fetch: bool, consume: Callable[[list[tuple[Any, ...]]], None] | None = None
    ) -> tuple[list[tuple[Any, ...]], list[str]]:
        try:
            with (
                watching(self._context, self._interrupt),
                deadline(self._timeout, self._interrupt) as expired,
            ):
                try:
                    cursor = self._run(sql)
                    names = [str(column[0]) for column in cursor.description or ()]
                    rows = [tuple(row) for row in cursor.fetchall()] if fetch else []
                    while consume is not None and (batch := cursor.fetchmany(_BATCH_ROWS)):
                        consume(batch)
                    cursor.close()
                except MemoryError as exc:
                    # sqlite3's answer to its heap limit (see _harden_sqlite)
                    raise self._error(RuntimeError("out of memory")) from exc
                except self._dbapi_error as exc:
                    if self._context.cancelled:
                        raise ToolCancelledError from exc
                    if expired.is_set() or getattr(exc, "sqlstate", None) == _QUERY_CANCELED:
                        raise timed_out(self._label, self._timeout or 0.0) from exc
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

    def execute(self, sql: str) -> None:
        """Run a statement without a result."""
        self._fetch(sql, fetch=False)

    def batches(self, sql: str, rows: int) -> Iterator[Any]:
        """Refused: a database's rows stay in the database (the backend is not local)."""
        raise ToolError(
            f"{self._label}: rows of a database are not streamed out", ErrorCode.UNSUPPORTED
        )

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

    def duplicate_groups(
        self, table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
    ) -> tuple[GroupCounts, list[DuplicateGroup]]:
        """Counted in the database; groups largest first, without row numbers."""
        return counted_groups(table, positions, nulls, limit, offset)

    def column_stats(
        self, table: Table, positions: Sequence[int], *, code: bool = False
    ) -> ColumnStats:
        """One aggregate query with an exact ``COUNT(DISTINCT …)`` per column (the rows stay
        in the database: ``code`` is not followed)."""
        return aggregate_stats(table, positions, table.relation, estimate=False)

    def sample_values(
        self, table: Table, positions: Sequence[int], rows: int
    ) -> dict[int, list[Any]]:
        """The first rows' values, read by a query each time (see
        :func:`.sql.sample_values`)."""
        return sample_values(table, positions, rows)

    def profile(self, table: Table) -> Profile:
        """The driver's types, exact distinct counts."""
        return typed_profile(table)

    def codes(
        self, table: Table, positions: Sequence[int], source: str, max_cells: int
    ) -> CodeMatrix:
        """The rows streamed out in batches and coded by value here (see :class:`ValueCoder`)."""
        coder = ValueCoder(positions)

        def consume(batch: list[tuple[Any, ...]]) -> None:
            if (coder.rows + len(batch)) * len(positions) > max_cells:
                raise TooManyCellsError
            coder.add(batch)

        self.stream(f"{table.prefix}SELECT {column_list(table, positions)} FROM {source}", consume)
        return coder.matrix()

    def search_source(
        self,
        table: Table,
        columns: Sequence[int],
        nulls: Nulls,
        context: ToolContext,
        *,
        rows: int,
        hash_safe: frozenset[int],
    ) -> SearchSource:
        """The source itself, read in place (see :class:`_InPlace`)."""
        return _InPlace(table, nulls, context)

    def sketcher(self) -> Sketcher:
        """PostgreSQL: K minimum values of ``hashtextextended``; SQLite: a Theta sketch."""
        return self._dialect.sketch


class _InPlace:
    """A key search reading the database's rows where they are; samples are the first rows."""

    def __init__(self, table: Table, nulls: Nulls, context: ToolContext) -> None:
        self._table = table
        self._nulls = nulls
        self._context = context

    def relation(self, needed: Sequence[int] = ()) -> str:
        """The source relation."""
        return self._table.relation

    def samples(self, sizes: Sequence[int]) -> list[str]:
        """The first rows: a random sample would cost the database a full scan."""
        return [
            f"(SELECT * FROM {self._table.relation} LIMIT {rows}) sample_{rows}" for rows in sizes
        ]

    def duplicated(
        self, candidates: Sequence[tuple[int, ...]], source: str
    ) -> set[tuple[int, ...]]:
        """One GROUP BY per candidate."""
        return duplicated_each(self._table, candidates, self._nulls, source, self._context)


def _postgres_sketch(table: Table, positions: Sequence[int], nulls: Nulls) -> Sketch:
    """Rows and rows with a missing key value, then the smallest key hashes by a top-N sort
    in the database (two statements: ``src`` referenced twice in one would be materialized)."""
    missing = any_missing(table, positions)
    rows, missing_rows = table.query(
        f"SELECT COUNT(*), COUNT(CASE WHEN {missing} THEN 1 END) FROM {table.relation}"
    )[0]
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    key = f"hashtextextended(ROW({column_list(table, positions)})::text, 0)"
    hashes = table.query(
        f"SELECT {key} AS h FROM {table.relation}{where} ORDER BY h LIMIT {SKETCH_KEYS}"
    )
    ordered = [int(h) + _PG_OFFSET for (h,) in hashes]
    return kmv_sketch(int(rows), int(missing_rows), ordered, nulls, "hashtextextended")


def _sqlite_sketch(table: Table, positions: Sequence[int], nulls: Nulls) -> Sketch:
    """SQLite has no hash function: stream the key values once through a Theta sketch."""
    # imported here: only SQLite sources need it, and server start-up stays lean
    from datasketches import update_theta_sketch  # type: ignore[import-untyped]

    sketch = update_theta_sketch(lg_k=SKETCH_KEYS.bit_length() - 1)
    counts = [0, 0]  # rows, rows with a missing key value

    def consume(batch: Sequence[tuple[Any, ...]]) -> None:
        for row in batch:
            counts[0] += 1
            if None in row:
                counts[1] += 1
                if nulls is Nulls.DISTINCT:
                    continue
            sketch.update(repr(tuple(_canonical(v) for v in row)))

    backend = table.backend
    assert isinstance(backend, SqlBackend)  # the sketch of this module's own backend
    backend.stream(
        table.prefix + f"SELECT {column_list(table, positions)} FROM {table.relation}", consume
    )
    rows, missing = counts
    if not sketch.is_estimation_mode():
        reason = f"the sketch kept every distinct key ({sketch.num_retained:,}); checked exactly"
        return Sketch(rows, missing, exact_because=reason)
    return Sketch(
        rows,
        missing,
        f"Apache DataSketches Theta sketch (k = {SKETCH_KEYS:,}) of the key values' text, "
        "one pass streaming the rows",
        sketch.get_estimate(),
        sketch.get_lower_bound(SIGMAS),
        sketch.get_upper_bound(SIGMAS),
    )


REFUSED_FUNCTIONS = {
    "fts3_tokenizer": "it returns (and with two arguments takes) a native memory address",
    "load_extension": "it loads native code",
    # SQLite before 3.41 repeats %c's precision one character at a time inside one step, which
    # neither the statement timeout nor a cancel can interrupt (2**31 repeats: over a minute,
    # and a query may chain many)
    "printf": "its %c with a precision runs for minutes past the statement timeout",
    "format": "its %c with a precision runs for minutes past the statement timeout",
}
"""SQLite functions no query may call, whatever calls them (a query, a view, a trigger): the
bundled SQLite's function list (``pragma_function_list``) was reviewed for functions that
return or take memory addresses, run native code or run uninterruptibly; these are the ones."""
REFUSED_COLUMNS = {
    ("pragma_database_list", "file"): "it shows where the database files lie on the server",
}
"""Columns of SQLite's built-in tables no query may read (the path policy never shows a
client the server's absolute paths)."""
_POSTGRES_REFUSED: tuple[tuple[str, str], ...] = (
    (r"pg_(try_)?advisory_\w*", "it takes or frees an advisory lock, which the database's own "
     "applications may rely on"),
    (r"pg_(terminate|cancel)_backend|pg_signal_backend", "it stops other sessions"),
    (r"pg_reload_conf|pg_rotate_logfile|pg_log_backend_memory_contexts|pg_promote|"
     r"pg_switch_wal|pg_create_restore_point|pg_wal_replay_\w+", "it acts on the server, not "
     "on rows"),
    (r"dblink\w*", "it reaches other databases"),
    (r"pg_read_(binary_)?file|pg_ls_\w+|pg_stat_file|lo_(import|export)", "it reads or writes "
     "the server's files"),
    # these run a string as a query: a refused function inside it would pass unseen
    (r"query_to_xml\w*|cursor_to_xml\w*|ts_stat|ts_rewrite", "it runs SQL given as text, "
     "which these checks cannot see"),
)  # fmt: skip
"""PostgreSQL functions a client query may not call (a READ ONLY transaction allows them)."""


def refusal(name: str, refused: tuple[tuple[str, str], ...]) -> str | None:
    """Why a function called ``name`` is refused (a pattern of ``refused`` matching all of
    it, any case), or None."""
    for pattern, reason in refused:
        if re.fullmatch(pattern, name, re.IGNORECASE):
            return reason
    return None


def _harden_sqlite(raw: Any, limits: ReadLimits, refused: list[str]) -> None:
    """No value longer than ``max_value_bytes`` (``zeroblob``, ``replace`` or ``printf`` would
    build one in the server's memory), no more memory than ``max_engine_memory`` for SQLite
    in all, no call of :data:`REFUSED_FUNCTIONS` and no read of :data:`REFUSED_COLUMNS`,
    checked by SQLite itself as it prepares each statement (views included); ``refused``
    records what was refused, and why."""
    raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.max_value_bytes)
    # SQLite runs inside the server: its memory (every connection's) has the engine's bound
    raw.execute(f"PRAGMA hard_heap_limit = {int(limits.max_engine_memory) * MIB}")

    def authorize(action: int, first: str | None, second: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_FUNCTION and (second or "").lower() in REFUSED_FUNCTIONS:
            name = (second or "").lower()
            refused.append(f"the query calls {name}(), which is refused: {REFUSED_FUNCTIONS[name]}")
            return sqlite3.SQLITE_DENY
        column = ((first or "").lower(), (second or "").lower())
        if action == sqlite3.SQLITE_READ and column in REFUSED_COLUMNS:
            refused.append(
                f"the query reads {'.'.join(column)}, which is refused: {REFUSED_COLUMNS[column]}"
            )
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    raw.set_authorizer(authorize)


def _canonical(value: object) -> object:
    """SQLite compares ``1`` and ``1.0`` as equal: give them one spelling."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass(frozen=True, slots=True)
class _Dialect:
    """What differs between the SQL databases this backend reads."""

    driver: str  # the only driver run
    glot: str  # sqlglot's name of the dialect
    shown: str  # its name in messages
    catalog: Callable[[Callable[[str], list[tuple[Any, ...]]], Callable[[str], str]], Catalog]
    sketch: Sketcher
    read_only: tuple[str, ...]  # statements making the session read-only
    timeout: str | None  # a statement setting the server-side timeout ({ms}); None: none
    interrupt: str  # the DBAPI connection's method stopping the running statement
    size: str  # SQL for the stored size in bytes of the value of {}
    execute_options: dict[str, Any] = field(default_factory=dict)
    extra: str | None = None  # the optional part of the distribution holding the driver
    # limits and refusals set on the DBAPI connection before any statement
    harden: Callable[[Any, ReadLimits, list[str]], None] | None = None
    # functions a client query may not call: (full-match pattern, why)
    refused: tuple[tuple[str, str], ...] = ()


_DIALECTS = {
    "postgresql": _Dialect(
        "psycopg",
        "postgres",
        "PostgreSQL",
        PostgresCatalog,
        _postgres_sketch,
        # the session default too, so no later transaction of this connection can write
        ("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SET TRANSACTION READ ONLY"),
        "SET statement_timeout = {ms}",
        "cancel",
        "pg_column_size({})",
        # the extended query protocol: the server refuses text holding several statements
        {"prepare": True},
        extra="postgres",
        refused=_POSTGRES_REFUSED,
    ),
    "sqlite": _Dialect(
        "pysqlite",
        "sqlite",
        "SQLite",
        SqliteCatalog,
        _sqlite_sketch,
        ("PRAGMA query_only = ON",),
        None,
        "interrupt",
        "length(CAST({} AS BLOB))",
        harden=_harden_sqlite,
        refused=tuple((re.escape(name), why) for name, why in REFUSED_FUNCTIONS.items()),
    ),
}
