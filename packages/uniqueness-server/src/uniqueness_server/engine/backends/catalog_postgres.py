"""The PostgreSQL catalog: declared keys from ``pg_index``/``pg_constraint``, statistics from
``pg_stats`` (see :mod:`uniqueness_server.engine.metadata` for what they prove).

Client-given and catalog names reach the SQL only as hexadecimal text decoded by the database,
object ids as integers.
"""

# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from uniqueness_server.engine.metadata import Relation, positions_of
from uniqueness_server.engine.model import ColumnEstimate, DeclaredKey, Statistics

_KINDS = {
    "r": "table",
    "p": "partitioned table",
    "v": "view",
    "m": "materialized view",
    "f": "foreign table",
}


def _text(value: str) -> str:
    return f"convert_from(decode('{value.encode().hex()}', 'hex'), 'UTF8')"


@dataclass(frozen=True, slots=True)
class _Found:
    oid: int
    relkind: str
    reltuples: float
    inherited: bool
    version: int


class PostgresCatalog:
    """Reads PostgreSQL's catalog through the source's read-only connection."""

    dialect = "postgres"
    lookup = "on the search_path"

    def __init__(
        self, fetchall: Callable[[str], list[tuple[Any, ...]]], quote: Callable[[str], str]
    ) -> None:
        self._fetchall = fetchall
        self._quote = quote

    def fold(self, name: str) -> str:
        """PostgreSQL folds unquoted names to lower case."""
        return name.lower()

    def relations(self, base: tuple[str, ...]) -> list[Relation]:
        """The relation ``to_regclass`` resolves, then (for an unqualified name) those of the
        same name in other schemas."""
        quoted = ".".join(self._quote(p) for p in base)
        found = self._fetchall(
            "SELECT c.oid, n.nspname, c.relname, c.relkind, c.reltuples, "
            "EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhparent = c.oid), "
            "current_setting('server_version_num')::int "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            f"WHERE c.oid = to_regclass({_text(quoted)})"
        )
        if not found:
            return []
        oid, schema, name, relkind, reltuples, inherited, version = found[0]
        handle = _Found(int(oid), str(relkind), float(reltuples), bool(inherited), int(version))
        first = Relation(str(schema), str(name), _KINDS.get(str(relkind), "relation"), handle)
        if len(base) != 1:
            return [first]
        others = self._fetchall(
            "SELECT n.nspname, c.relname, c.relkind FROM pg_class c "
            f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = {_text(str(name))} "
            f"AND c.oid <> {int(oid)} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1"
        )
        return [
            first,
            *(Relation(str(s), str(n), _KINDS.get(str(k), "relation")) for s, n, k in others),
        ]

    def columns(self, relation: Relation) -> list[str]:
        """``pg_attribute``'s live columns, in order."""
        return [
            str(r[0])
            for r in self._fetchall(
                f"SELECT attname FROM pg_attribute WHERE attrelid = {relation.handle.oid} "
                "AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
            )
        ]

    def keys(self, relation: Relation, shown: Sequence[str | None]) -> list[DeclaredKey]:
        """Unique indexes (with their PRIMARY KEY/UNIQUE constraint, if any), key columns
        only (never INCLUDE columns)."""
        found: _Found = relation.handle
        children = (
            "the table has inheriting tables, whose rows the source reads too but the "
            "constraint does not cover"
            if found.inherited and found.relkind == "r"
            else None
        )
        nulls_not_distinct = "i.indnullsnotdistinct" if found.version >= 150000 else "false"
        key_columns = "i.indnkeyatts" if found.version >= 110000 else "i.indnatts"
        keys: list[DeclaredKey] = []
        current: list[tuple[object, ...]] = []
        rows = self._fetchall(
            "SELECT ic.relname, con.conname, con.contype, i.indisvalid, "
            "pg_get_expr(i.indpred, i.indrelid), a.attname, "
            f"pg_get_indexdef(i.indexrelid, k.n, true), {nulls_not_distinct}, a.attnotnull "
            "FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
            f"CROSS JOIN LATERAL generate_series(1, {key_columns}) AS k(n) "
            "LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND a.attnum = i.indkey[k.n - 1] AND i.indkey[k.n - 1] > 0 "
            "LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid "
            "AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u') "
            f"WHERE i.indrelid = {found.oid} AND i.indisunique "
            "ORDER BY i.indisprimary DESC, con.contype IS NULL, ic.relname, k.n"
        )
        for row in [*rows, (None,)]:
            if current and row[0] != current[0][0]:
                keys.append(_key(shown, current, children))
                current = []
            current.append(row)
        return keys

    def statistics(self, relation: Relation, shown: Sequence[str | None]) -> Statistics | None:
        """``pg_stats`` per column (the whole inheritance hierarchy's when there is one, as a
        SELECT reads it), ``reltuples`` rows and the last ANALYZE."""
        found: _Found = relation.handle
        rows_found = self._fetchall(
            "SELECT s.attname, s.null_frac, s.n_distinct FROM pg_stats s "
            f"WHERE s.schemaname = {_text(relation.schema)} "
            f"AND s.tablename = {_text(relation.name)} ORDER BY s.inherited"
        )
        rows = found.reltuples if found.reltuples >= 0 else None
        if not rows_found and not rows:
            return None
        by_name = {str(r[0]): (float(r[1]), float(r[2])) for r in rows_found}
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
        analyzed = self._fetchall(
            "SELECT to_char(greatest(last_analyze, last_autoanalyze) AT TIME ZONE 'UTC', "
            f'\'YYYY-MM-DD"T"HH24:MI:SS"Z"\') FROM pg_stat_all_tables WHERE relid = {found.oid}'
        )
        when = str(analyzed[0][0]) if analyzed and analyzed[0][0] is not None else None
        return Statistics(origin="pg_stats", rows=rows, columns=tuple(estimates), analyzed_at=when)


def _key(
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
        positions=positions_of(shown, columns) if plain else None,
        nulls_distinct=not not_distinct,
        not_null=not_null,
        caveat=caveat,
    )
