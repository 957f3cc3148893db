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

Every statement goes through the source's read-only backend. Names a client gave (and catalog
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
from typing import TYPE_CHECKING, Any, Protocol

from uniqueness_server.engine.model import (
    ColumnEstimate,
    DeclaredKey,
    Nulls,
    Statistics,
    TableMetadata,
)
from uniqueness_server.engine.sql import any_missing
from uniqueness_server.engine.table import Table

if TYPE_CHECKING:
    from sqlglot import exp

LIKELY_UNIQUE = 0.99  # estimated distinct values per present row making a column a likely key
STALE_RATIO = 0.2  # estimated rows this far off the counted rows: statistics look stale


# a query keeps a declared key of its table only if it selects a subset of the table's rows,
# unchanged and each at most once: these clauses of a SELECT (and of its table) allow nothing else
_FILTERS = {"expressions", "from_", "where", "order", "limit", "offset", "distinct"}
_TABLE_PARTS = {"this", "db", "catalog", "alias", "only"}
Projection = tuple[tuple[str, str] | None, ...]
"""A simple query's select list: (table column, output name) per item, ``None`` for ``*``."""


@dataclass(frozen=True, slots=True)
class Relation:
    """A table or view a catalog found for a source's name."""

    schema: str
    name: str
    kind: str  # table, view, materialized view, partitioned table, …
    handle: Any = None  # what the catalog needs to read it again (e.g. an object id)

    @property
    def qualified(self) -> str:
        """``schema.name``."""
        return f"{self.schema}.{self.name}"


class Catalog(Protocol):
    """One database's catalog: where its declared keys and statistics are read.

    Each SQL backend's dialect has one (:mod:`uniqueness_server.engine.backends`); the one
    reader of this module (:func:`read_metadata`) does the rest the same way for all.
    """

    @property
    def dialect(self) -> str:
        """The sqlglot dialect a client query of this database is parsed in."""
        ...

    @property
    def lookup(self) -> str:
        """How an unqualified name is looked up, for notes (``on the search_path``)."""
        ...

    def fold(self, name: str) -> str:
        """An unquoted identifier as the database folds it (PostgreSQL: lower case)."""
        ...

    def relations(self, base: tuple[str, ...]) -> list[Relation]:
        """The relations ``base`` (the name parts given) may mean, the one read first; an
        empty list when there is none."""
        ...

    def columns(self, relation: Relation) -> list[str]:
        """The relation's columns as ``SELECT *`` shows them, in order."""
        ...

    def keys(self, relation: Relation, shown: Sequence[str | None]) -> list[DeclaredKey]:
        """The declared keys of the relation; ``shown`` holds, per source position, the
        relation column it shows (see :func:`positions_of`)."""
        ...

    def statistics(self, relation: Relation, shown: Sequence[str | None]) -> Statistics | None:
        """The planner statistics of the relation by source position, if any."""
        ...


def read_metadata(table: Table) -> TableMetadata | None:
    """Declared keys and statistics of the table a database source reads: one named by
    ``table``, or the one table a ``query`` only filters and selects columns of (see
    :func:`query_shape`); ``None`` for sources without a catalog and any other query."""
    catalog = table.backend.catalog
    if catalog is None:
        return None
    base, projection = table.base, None
    if base is None and table.source_query is not None:
        shape = query_shape(table.source_query, catalog)
        if shape is None:
            return None
        base, projection = shape
    if base is None:
        return None
    found = catalog.relations(base)
    if not found:
        return None
    relation = found[0]
    shown = _shown(table, projection, [] if projection is None else catalog.columns(relation))
    if shown is None:
        return None
    notes = _query_notes(projection, relation.qualified)
    if len(found) > 1:
        others = ", ".join(dict.fromkeys(other.schema for other in found[1:]))
        notes.append(
            f"{base[-1]} is {relation.qualified}, the first match {catalog.lookup}; schema "
            f"{others} also holds a relation of that name (give schema.table to read another)"
        )
    if relation.kind == "view":
        notes.append(
            f"{relation.qualified} is a view: a view declares no keys, and the keys of its base "
            "tables are not carried over, so every answer comes from scanning"
        )
        return TableMetadata(
            relation.qualified, relation.kind, (), None, tuple(notes), projection is not None
        )
    return TableMetadata(
        relation=relation.qualified,
        kind=relation.kind,
        keys=unshown(catalog.keys(relation, shown)),
        statistics=catalog.statistics(relation, shown),
        notes=tuple(notes),
        through_query=projection is not None,
    )


def metadata_scope_note(table: Table) -> str | None:
    """For a database ``query`` source without metadata, why no declared key or statistic
    is used."""
    catalog = table.backend.catalog
    if (
        catalog is not None
        and table.source_query is not None
        and query_shape(table.source_query, catalog) is None
    ):
        return (
            "declared keys and statistics are read for a table, or a query that only filters "
            "one table's rows (WHERE, ORDER BY, LIMIT, DISTINCT) and selects its columns; this "
            "query may join, repeat or reshape rows, so its answer comes from scanning"
        )
    return None


def query_shape(sql: str, catalog: Catalog) -> tuple[tuple[str, ...], Projection] | None:
    """The table name parts and select list of a query that only filters, orders and limits
    the rows of one table and selects its plain columns (so every row it returns is a row of
    the table, at most once, and a declared key among the selected columns still holds);
    ``None`` for anything else. Unquoted names are folded as the database folds them."""
    # imported here: only database query sources need the parser (it takes a second to load)
    import sqlglot
    from sqlglot import exp

    try:
        statement = sqlglot.parse_one(sql, dialect=catalog.dialect)
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
        if isinstance(identifier, exp.Identifier) and not identifier.quoted:
            return catalog.fold(text)
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


def positions_of(shown: Sequence[str | None], columns: Sequence[str]) -> tuple[int, ...] | None:
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


def unshown(keys: Sequence[DeclaredKey]) -> tuple[DeclaredKey, ...]:
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
