"""What a database declares (keys) and estimates (statistics) about a table, read from its catalog.

Declared keys are facts the database enforces on every row it stores, so they answer "is this
unique?" without a scan, within limits this module states rather than glosses over:

- a UNIQUE constraint or index lets rows with a missing (NULL) key value repeat (PostgreSQL
  unless ``NULLS NOT DISTINCT``, SQLite always; a SQLite PRIMARY KEY other than an INTEGER
  PRIMARY KEY may even hold NULLs). Under ``nulls=distinct`` that is exactly the engine's own
  rule, so the key proves uniqueness; under ``nulls=equal`` it does only when its columns are
  declared NOT NULL or at most one row has a missing key value (two such rows are the only
  pairs the constraint lets collide);
- a partial index (``WHERE …``) is a key of the rows matching its condition, an expression
  index one of the expression, an invalid PostgreSQL index (a failed ``CREATE INDEX
  CONCURRENTLY``) of nothing, and a PostgreSQL table with inheriting tables is read together
  with their rows, which its constraints do not cover: such keys are reported, labelled, and
  never used as proof.

Statistics (``pg_stats``, ``sqlite_stat1``) come from the last ANALYZE and are estimates: they
rank and hint, never decide. Sources named by ``table`` have metadata, and so does a ``query``
that only filters one table's rows and selects its columns (:func:`query_shape`); any other
query may join, repeat or reshape rows in ways a declared key says nothing about.

Every statement goes through the source's read-only runner. Names a client gave (and catalog
names, to be safe) reach the SQL only as hexadecimal text decoded by the database, so no
quoting rule can be got wrong; everything else is catalog identifiers and integers.
"""

# SQL text here holds client-given names only as hexadecimal literals (decoded by the
# database), catalog object ids as integers and fixed catalog identifiers.
# ruff: noqa: S608

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from uniqueness_server.engine.model import (
    ColumnEstimate,
    DeclaredKey,
    Nulls,
    Statistics,
    TableMetadata,
)
from uniqueness_server.engine.runner import Runner
from uniqueness_server.engine.sql import any_missing
from uniqueness_server.engine.table import Table

LIKELY_UNIQUE = 0.99  # estimated distinct values per present row making a column a likely key
STALE_RATIO = 0.2  # estimated rows this far off the counted rows: statistics look stale
_PG_KINDS = {
    "r": "table",
    "p": "partitioned table",
    "v": "view",
    "m": "materialized view",
    "f": "foreign table",
}


# a query keeps a declared key of its table only if it selects a subset of the table's rows,
# unchanged and each at most once: these clauses of a SELECT (and of its table) allow nothing else
_FILTERS = {"expressions", "from_", "where", "order", "limit", "offset", "distinct"}
_TABLE_PARTS = {"this", "db", "catalog", "alias", "only"}
Projection = tuple[tuple[str, str] | None, ...]
"""A simple query's select list: (table column, output name) per item, ``None`` for ``*``."""


def read_metadata(table: Table) -> TableMetadata | None:
    """Declared keys and statistics of the table a database source reads: one named by
    ``table``, or the one table a ``query`` only filters and selects columns of (see
    :func:`query_shape`); ``None`` for files and any other query."""
    base, projection = table.base, None
    if base is None and table.source_query is not None:
        shape = query_shape(table.source_query, table.runner.dialect)
        if shape is None:
            return None
        base, projection = shape
    if base is None:
        return None
    if table.runner.dialect == "postgresql":
        return _postgres(table, base, projection)
    if table.runner.dialect == "sqlite":
        return _sqlite(table, base, projection)
    return None


def metadata_scope_note(table: Table) -> str | None:
    """For a database ``query`` source without metadata, why no declared key or statistic
    is used."""
    if (
        table.source_query is not None
        and query_shape(table.source_query, table.runner.dialect) is None
    ):
        return (
            "declared keys and statistics are read for a table, or a query that only filters "
            "one table's rows (WHERE, ORDER BY, LIMIT, DISTINCT) and selects its columns; this "
            "query may join, repeat or reshape rows, so its answer comes from scanning"
        )
    return None


def query_shape(sql: str, dialect: str) -> tuple[tuple[str, ...], Projection] | None:
    """The table name parts and select list of a query that only filters, orders and limits
    the rows of one table and selects its plain columns (so every row it returns is a row of
    the table, at most once, and a declared key among the selected columns still holds);
    ``None`` for anything else. Unquoted PostgreSQL names are folded to lower case, as the
    database folds them."""
    glot = "postgres" if dialect == "postgresql" else dialect
    try:
        statement = sqlglot.parse_one(sql, dialect=glot)
    except sqlglot.errors.SqlglotError:
        return None
    if not isinstance(statement, exp.Select):
        return None
    if any(value and key not in _FILTERS for key, value in statement.args.items()):
        return None
    source = statement.args.get("from_")
    source = source.this if source is not None else None
    if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier):
        return None
    if any(value and key not in _TABLE_PARTS for key, value in source.args.items()):
        return None

    def name(identifier: exp.Expr) -> str:
        text = str(identifier.this)
        if isinstance(identifier, exp.Identifier) and not identifier.quoted and glot == "postgres":
            return text.lower()
        return text

    parts = tuple(
        name(p) for p in (source.args.get("catalog"), source.args.get("db"), source.this) if p
    )
    alias = source.args.get("alias")
    qualifier = name(alias.this) if alias is not None and alias.this else parts[-1]
    projection: list[tuple[str, str] | None] = []
    for item in statement.expressions:
        output = item.args.get("alias") if isinstance(item, exp.Alias) else None
        column = item.this if isinstance(item, exp.Alias) else item
        if isinstance(column, exp.Star) and not any(column.args.values()) and output is None:
            projection.append(None)
            continue
        if (
            not isinstance(column, exp.Column)
            or column.args.get("db")
            or column.args.get("catalog")
        ):
            return None
        table_part = column.args.get("table")
        if table_part is not None and name(table_part).casefold() != qualifier.casefold():
            return None
        if isinstance(column.this, exp.Star) and output is None:
            projection.append(None)
        elif isinstance(column.this, exp.Identifier):
            projection.append((name(column.this), name(output) if output else name(column.this)))
        else:
            return None
    return parts, tuple(projection)


def _shown(
    table: Table, projection: Projection | None, columns: Sequence[str]
) -> tuple[str | None, ...] | None:
    """For each source position, the table column it shows (``columns`` in table order);
    ``None`` when the source's own column names do not match the query's select list."""
    if projection is None:
        return tuple(table.names)
    shown: list[str | None] = []
    names: list[str] = []
    for item in projection:
        pairs = [(c, c) for c in columns] if item is None else [item]
        shown += [c for c, _ in pairs]
        names += [n for _, n in pairs]
    if len(names) != len(table.names) or any(
        a.casefold() != b.casefold() for a, b in zip(names, table.names, strict=True)
    ):
        return None
    return tuple(shown)


def proves(key: DeclaredKey, nulls: Nulls, rows_with_missing: int | None) -> bool:
    """Whether ``key`` proves its columns unique in every row read under ``nulls``, given how
    many rows have a missing value in one of its columns (an upper bound will do; ``None``:
    not counted)."""
    if key.caveat is not None or key.positions is None:
        return False
    if nulls is Nulls.DISTINCT or not key.nulls_distinct or key.not_null:
        return True
    return rows_with_missing is not None and rows_with_missing <= 1


def proof_modes(key: DeclaredKey, rows_with_missing: int | None) -> tuple[Nulls, ...]:
    """The ``nulls`` modes under which ``key`` proves uniqueness."""
    return tuple(n for n in (Nulls.EQUAL, Nulls.DISTINCT) if proves(key, n, rows_with_missing))


def missing_bound(key: DeclaredKey, missing: Sequence[int | None]) -> int | None:
    """An upper bound on rows with a missing value in ``key``'s columns, from per-position
    missing counts (their sum); ``None`` when a column's count is unknown."""
    if key.not_null:
        return 0
    counts = [missing[p] for p in key.positions or ()]
    if key.positions is None or any(c is None for c in counts):
        return None
    return sum(c or 0 for c in counts)


def unproven_reason(key: DeclaredKey, nulls: Nulls, rows_with_missing: int | None) -> str:
    """Why ``key`` does not prove uniqueness here (``proves`` is false)."""
    described = describe(key)
    if key.caveat is not None:
        return f"{described} is not used as proof: {key.caveat}"
    if key.positions is None:
        return f"{described} is not on columns of the source, so it is not used as proof"
    return (
        f"{described} lets rows with a missing value repeat; {rows_with_missing} rows have one, "
        f"so under nulls={nulls.value} it does not prove uniqueness"
    )


def describe(key: DeclaredKey) -> str:
    """``primary key orders_pkey (order_id, line_no)``."""
    name = f" {key.name}" if key.name else ""
    return f"{key.kind}{name} ({', '.join(key.columns)})"


def likely_unique(estimate: ColumnEstimate, rows: float | None) -> bool:
    """Whether statistics estimate the column's present values to be (nearly) all distinct."""
    if not rows or rows < 2:
        return False
    present = rows * (1.0 - (estimate.null_fraction or 0.0))
    return present >= 1 and estimate.distinct >= LIKELY_UNIQUE * present


def statistics_notes(metadata: TableMetadata, rows: int | None) -> list[str]:
    """Plain statements about what the statistics cover and how far they can be trusted,
    given the counted rows (``None`` when not counted; ignored for a query, which may filter)."""
    statistics = metadata.statistics
    if metadata.through_query:
        rows = None
    if metadata.kind == "view":
        return []
    if statistics is None or all(e is None for e in statistics.columns):
        if statistics is not None and statistics.origin == "sqlite_stat1":
            return ["sqlite_stat1 (ANALYZE) estimates distinct values only of indexed columns"]
        return ["no per-column planner statistics: the table was not analyzed (ANALYZE)"]
    if rows is not None and statistics.rows is not None and stale(statistics, rows):
        return [
            f"the statistics look stale: they estimate {statistics.rows:g} rows but {rows} were "
            "counted (ANALYZE refreshes them); no column is suggested as a likely key from them"
        ]
    return []


def stale(statistics: Statistics, rows: int) -> bool:
    """Whether the estimated row count is far off the counted one."""
    estimated = statistics.rows
    if estimated is None:
        return False
    return abs(estimated - rows) > max(STALE_RATIO * max(rows, estimated), 1.0)


@dataclass(frozen=True, slots=True)
class Claim:
    """What declared keys say about a requested column set before any scan."""

    key: DeclaredKey | None  # a declared key inside the requested columns (the proving one first)
    proven: bool  # the key proves the columns unique under the call's nulls
    proves: tuple[Nulls, ...]  # the nulls modes under which the key proves them unique
    rows: int
    rows_with_missing: int  # rows with a missing value in a requested column
    notes: tuple[str, ...]


def declared_claim(
    table: Table, positions: Sequence[int], nulls: Nulls, *, count: bool = True
) -> Claim | None:
    """A declared key within ``positions`` and whether it proves them unique (a superset of a
    key is a key). Costs catalog queries plus, when a usable key exists and ``count`` is set,
    one counting pass (rows, and rows with missing values) without any grouping; without
    ``count`` nothing is proven. ``None`` when no declared key lies within the columns."""
    metadata = read_metadata(table)
    if metadata is None:
        return None
    wanted = set(positions)
    inside = [k for k in metadata.keys if k.positions is not None and set(k.positions) <= wanted]
    if not inside:
        return None
    trusted = [k for k in inside if k.caveat is None]
    notes = [unproven_reason(k, nulls, 0) for k in inside if k.caveat is not None]
    if not trusted or not count:
        # without counting, prefer a key that proves the columns anyway (NOT NULL, …)
        first = ([k for k in trusted if proves(k, nulls, None)] or trusted or inside)[0]
        return Claim(first, False, proof_modes(first, None), 0, 0, tuple(notes))
    parts = ["COUNT(*)", f"COUNT(CASE WHEN {any_missing(table, positions)} THEN 1 END)"]
    parts += [
        f"COUNT(CASE WHEN {any_missing(table, k.positions or ())} THEN 1 END)" for k in trusted
    ]
    row = table.query(f"SELECT {', '.join(parts)} FROM {table.relation}")[0]
    rows, missing, *per_key = (int(v) for v in row)
    for key, key_missing in zip(trusted, per_key, strict=True):
        if proves(key, nulls, key_missing):
            return Claim(key, True, proof_modes(key, key_missing), rows, missing, tuple(notes))
    notes += [unproven_reason(k, nulls, m) for k, m in zip(trusted, per_key, strict=True)]
    modes = proof_modes(trusted[0], per_key[0])
    return Claim(trusted[0], False, modes, rows, missing, tuple(notes))


def _pg_text(value: str) -> str:
    return f"convert_from(decode('{value.encode().hex()}', 'hex'), 'UTF8')"


def _postgres(
    table: Table, base: tuple[str, ...], projection: Projection | None
) -> TableMetadata | None:
    runner = table.runner
    quoted = ".".join(runner.quote(p) for p in base)
    found = runner.fetchall(
        "SELECT c.oid, n.nspname, c.relname, c.relkind, c.reltuples, "
        "EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhparent = c.oid), "
        "current_setting('server_version_num')::int "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        f"WHERE c.oid = to_regclass({_pg_text(quoted)})"
    )
    if not found:
        return None
    oid, schema, name, relkind, reltuples, inherited, version = found[0]
    oid = int(oid)
    kind = _PG_KINDS.get(str(relkind), "relation")
    relation = f"{schema}.{name}"
    table_columns = (
        []
        if projection is None
        else [
            str(r[0])
            for r in runner.fetchall(
                f"SELECT attname FROM pg_attribute WHERE attrelid = {oid} AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum"
            )
        ]
    )
    shown = _shown(table, projection, table_columns)
    if shown is None:
        return None
    notes = _query_notes(projection, relation)
    if len(base) == 1:
        others = [
            str(r[0])
            for r in runner.fetchall(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                f"WHERE c.relname = {_pg_text(str(name))} AND c.oid <> {oid} "
                "AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1"
            )
        ]
        if others:
            notes.append(
                f"{base[0]} is {relation}, the first match on the search_path; schema "
                f"{', '.join(others)} also holds a relation of that name (give schema.table to "
                "read another)"
            )
    if kind == "view":
        notes.append(
            f"{relation} is a view: a view declares no keys, and the keys of its base tables "
            "are not carried over, so every answer comes from scanning"
        )
    children = (
        "the table has inheriting tables, whose rows the source reads too but the constraint "
        "does not cover"
        if inherited and relkind == "r"
        else None
    )
    nulls_not_distinct = "i.indnullsnotdistinct" if int(version) >= 150000 else "false"
    key_columns = "i.indnkeyatts" if int(version) >= 110000 else "i.indnatts"  # no INCLUDE
    keys: list[DeclaredKey] = []
    current: list[tuple[object, ...]] = []
    rows = runner.fetchall(
        "SELECT ic.relname, con.conname, con.contype, i.indisvalid, "
        "pg_get_expr(i.indpred, i.indrelid), a.attname, "
        f"pg_get_indexdef(i.indexrelid, k.n, true), {nulls_not_distinct}, a.attnotnull "
        "FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
        f"CROSS JOIN LATERAL generate_series(1, {key_columns}) AS k(n) "
        "LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid "
        "AND a.attnum = i.indkey[k.n - 1] AND i.indkey[k.n - 1] > 0 "
        "LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid "
        "AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u') "
        f"WHERE i.indrelid = {oid} AND i.indisunique "
        "ORDER BY i.indisprimary DESC, con.contype IS NULL, ic.relname, k.n"
    )
    for row in [*rows, (None,)]:
        if current and row[0] != current[0][0]:
            keys.append(_pg_key(shown, current, children))
            current = []
        current.append(row)
    return TableMetadata(
        relation=relation,
        kind=kind,
        keys=_unshown(keys),
        statistics=_pg_statistics(shown, runner, oid, (str(schema), str(name)), float(reltuples)),
        notes=tuple(notes),
        through_query=projection is not None,
    )


def _pg_key(
    shown: Sequence[str | None], rows: list[tuple[object, ...]], children: str | None
) -> DeclaredKey:
    index, constraint, contype, valid, predicate, _, _, not_distinct, _ = rows[0]
    columns = tuple(str(r[5]) if r[5] is not None else str(r[6]) for r in rows)
    plain = all(r[5] is not None for r in rows)
    not_null = all(r[8] is True for r in rows)
    caveat = children
    if not valid:
        caveat = "the index is invalid (e.g. a failed CREATE INDEX CONCURRENTLY) and not enforced"
    elif predicate is not None:
        caveat = f"a partial index (WHERE {predicate}): a key only of the rows matching it"
    elif not plain:
        caveat = "an index on an expression, not on columns"
    kind = {"p": "primary key", "u": "unique constraint"}.get(str(contype), "unique index")
    return DeclaredKey(
        kind=kind,
        name=str(constraint if constraint is not None else index),
        columns=columns,
        positions=_positions(shown, columns) if plain else None,
        nulls_distinct=not not_distinct,
        not_null=not_null,
        caveat=caveat,
    )


def _pg_statistics(
    shown: Sequence[str | None],
    runner: Runner,
    oid: int,
    relation: tuple[str, str],
    reltuples: float,
) -> Statistics | None:
    schema, name = relation
    # inherited rows (whole hierarchy, what a SELECT reads) come last and win
    found = runner.fetchall(
        "SELECT s.attname, s.null_frac, s.n_distinct FROM pg_stats s "
        f"WHERE s.schemaname = {_pg_text(schema)} AND s.tablename = {_pg_text(name)} "
        "ORDER BY s.inherited"
    )
    rows = reltuples if reltuples >= 0 else None
    if not found and not rows:
        return None
    by_name = {str(r[0]): (float(r[1]), float(r[2])) for r in found}
    estimates: list[ColumnEstimate | None] = []
    for column in shown:
        if column is None or column not in by_name:
            estimates.append(None)
            continue
        null_fraction, n_distinct = by_name[column]
        if n_distinct < 0:  # a fraction of the rows
            if rows is None:
                estimates.append(None)
                continue
            n_distinct = -n_distinct * rows
        estimates.append(ColumnEstimate(distinct=n_distinct, null_fraction=null_fraction))
    analyzed = runner.fetchall(
        "SELECT to_char(greatest(last_analyze, last_autoanalyze) AT TIME ZONE 'UTC', "
        f'\'YYYY-MM-DD"T"HH24:MI:SS"Z"\') FROM pg_stat_all_tables WHERE relid = {oid}'
    )
    when = str(analyzed[0][0]) if analyzed and analyzed[0][0] is not None else None
    return Statistics(origin="pg_stats", rows=rows, columns=tuple(estimates), analyzed_at=when)


def _sqlite_text(value: str) -> str:
    return f"CAST(X'{value.encode().hex()}' AS TEXT)"


def _sqlite(
    table: Table, base: tuple[str, ...], projection: Projection | None
) -> TableMetadata | None:
    runner = table.runner
    # the search order of an unqualified name: temp, main, then attached databases
    schemas = [str(r[0]) for r in runner.fetchall("SELECT name FROM pragma_database_list")]
    schemas.sort(key=lambda s: {"temp": 0, "main": 1}.get(s, 2))
    if len(base) == 2:
        schemas = [s for s in schemas if s.casefold() == base[0].casefold()]
    elif len(base) != 1:
        return None
    name = base[-1]
    matches: list[tuple[str, str, str]] = []
    for schema in schemas:
        for kind, found in runner.fetchall(
            f"SELECT type, name FROM {runner.quote(schema)}.sqlite_master "
            f"WHERE type IN ('table', 'view') AND name = {_sqlite_text(name)} COLLATE NOCASE"
        ):
            matches.append((schema, str(kind), str(found)))
    if not matches:
        return None
    schema, kind, name = matches[0]
    relation = f"{schema}.{name}"
    quoted_schema, text_schema, text_name = (
        runner.quote(schema),
        _sqlite_text(schema),
        _sqlite_text(name),
    )
    # what SELECT * shows: every column but the hidden ones of virtual tables
    table_columns = (
        []
        if projection is None
        else [
            str(r[0])
            for r in runner.fetchall(
                f"SELECT name FROM pragma_table_xinfo({text_name}, {text_schema}) "
                "WHERE hidden <> 1 ORDER BY cid"
            )
        ]
    )
    shown = _shown(table, projection, table_columns)
    if shown is None:
        return None
    notes = _query_notes(projection, relation)
    if len(matches) > 1:
        others = ", ".join(s for s, _, _ in matches[1:])
        notes.append(
            f"{base[-1]} is {relation}, the first match; {others} also holds a table of that "
            "name (give schema.table to read another)"
        )
    if kind == "view":
        notes.append(
            f"{relation} is a view: a view declares no keys, and the keys of its base tables "
            "are not carried over, so every answer comes from scanning"
        )
        return TableMetadata(relation, kind, (), None, tuple(notes), projection is not None)
    keys: list[DeclaredKey] = []
    primary = runner.fetchall(
        f'SELECT name, "notnull" FROM pragma_table_info({text_name}, {text_schema}) '
        "WHERE pk > 0 ORDER BY pk"
    )
    if primary:
        columns = tuple(str(r[0]) for r in primary)
        keys.append(
            DeclaredKey(
                "primary key",
                None,
                columns,
                _positions(shown, columns),
                not_null=all(r[1] for r in primary),
            )
        )
    current: list[tuple[object, ...]] = []
    rows = runner.fetchall(
        'SELECT il.name, il.origin, il.partial, ix.cid, ix.name, ti."notnull" '
        f"FROM pragma_index_list({text_name}, {text_schema}) AS il "
        f"JOIN pragma_index_xinfo(il.name, {text_schema}) AS ix "
        f"LEFT JOIN pragma_table_info({text_name}, {text_schema}) AS ti ON ti.cid = ix.cid "
        "WHERE il.\"unique\" = 1 AND il.origin <> 'pk' AND ix.key = 1 ORDER BY il.seq, ix.seqno"
    )
    for row in [*rows, (None,)]:
        if current and row[0] != current[0][0]:
            keys.append(_sqlite_key(shown, current))
            current = []
        current.append(row)
    return TableMetadata(
        relation=relation,
        kind=kind,
        keys=_unshown(keys),
        statistics=_sqlite_statistics(shown, runner, quoted_schema, (text_schema, text_name)),
        notes=tuple(notes),
        through_query=projection is not None,
    )


def _sqlite_key(shown: Sequence[str | None], rows: list[tuple[object, ...]]) -> DeclaredKey:
    index, origin, partial = rows[0][:3]
    # cid -2 is an expression, -1 the rowid: neither is a column of the source
    plain = all(int(str(r[3])) >= 0 for r in rows)
    columns = tuple(
        str(r[4]) if int(str(r[3])) >= 0 else ("rowid" if int(str(r[3])) == -1 else "(expression)")
        for r in rows
    )
    not_null = all(r[5] for r in rows)
    caveat = None
    if partial:
        caveat = "a partial index (CREATE INDEX … WHERE): a key only of the rows matching it"
    elif not plain:
        caveat = "an index on an expression (or the rowid), not on columns"
    return DeclaredKey(
        kind="unique constraint" if origin == "u" else "unique index",
        name=str(index),
        columns=columns,
        positions=_positions(shown, columns) if plain else None,
        not_null=not_null,
        caveat=caveat,
    )


def _sqlite_statistics(
    shown: Sequence[str | None], runner: Runner, quoted_schema: str, texts: tuple[str, str]
) -> Statistics | None:
    text_schema, text_name = texts
    if not runner.fetchall(
        f"SELECT 1 FROM {quoted_schema}.sqlite_master WHERE type = 'table' "
        "AND name = 'sqlite_stat1'"
    ):
        return None
    # a partial index counts only the rows matching its condition: its figures are left out
    found = runner.fetchall(
        f"SELECT s.stat, ix.name FROM {quoted_schema}.sqlite_stat1 AS s "
        f"LEFT JOIN pragma_index_list({text_name}, {text_schema}) AS il ON il.name = s.idx "
        f"LEFT JOIN pragma_index_xinfo(s.idx, {text_schema}) AS ix ON ix.seqno = 0 "
        f"WHERE s.tbl = {text_name} COLLATE NOCASE AND COALESCE(il.partial, 0) = 0"
    )
    if not found:
        return None
    rows: float | None = None
    per_row: dict[str, float] = {}  # leading column -> fewest rows per distinct value
    for stat, column in found:
        # "rows, then average rows per distinct value of each index prefix", maybe followed
        # by words such as "unordered" or "sz=…"
        numbers = [int(t) for t in str(stat).split() if t.isdigit()]
        if not numbers:
            continue
        rows = float(numbers[0])
        if column is not None and len(numbers) > 1 and numbers[1] > 0:
            per_row[str(column)] = min(per_row.get(str(column), numbers[1]), numbers[1])
    estimates = tuple(
        ColumnEstimate(distinct=rows / per_row[c], null_fraction=None)
        if rows is not None and c in per_row
        else None
        for c in shown
    )
    return Statistics(origin="sqlite_stat1", rows=rows, columns=estimates)


def _positions(shown: Sequence[str | None], columns: Sequence[str]) -> tuple[int, ...] | None:
    """Source positions showing the catalog columns ``columns`` (the first, if one is shown
    twice); a name differing only in case matches when that is unambiguous (SQLite names are
    case-insensitive). ``None`` when a column is not shown: the key does not apply."""
    positions: list[int] = []
    for column in columns:
        exact = [p for p, name in enumerate(shown) if name == column]
        folded = [
            p
            for p, name in enumerate(shown)
            if name is not None and name.casefold() == column.casefold()
        ]
        if not exact and len(set(map(str.casefold, (shown[p] or "" for p in folded)))) != 1:
            return None
        positions.append((exact or folded)[0])
    return tuple(positions)


def _unshown(keys: Sequence[DeclaredKey]) -> tuple[DeclaredKey, ...]:
    """The keys, those on columns the source does not show (all) labelled as such."""
    return tuple(
        dataclasses.replace(
            k, caveat="not all of its columns are columns of the source (the query leaves some out)"
        )
        if k.caveat is None and k.positions is None
        else k
        for k in keys
    )


def _query_notes(projection: Projection | None, relation: str) -> list[str]:
    if projection is None:
        return []
    return [
        f"the query only filters and selects columns of {relation}, so its rows are rows of "
        f"{relation} and the declared keys among the selected columns hold; the statistics "
        "describe the whole table"
    ]
