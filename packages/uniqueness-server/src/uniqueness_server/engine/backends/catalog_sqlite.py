"""The SQLite catalog: declared keys from ``pragma_table_info``/``pragma_index_list``,
statistics from ``sqlite_stat1`` (see :mod:`uniqueness_server.engine.metadata` for what they
prove).

Client-given and catalog names reach the SQL only as hexadecimal blobs cast to text, schema
names as identifiers quoted by the connection.
"""

# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from uniqueness_server.engine.metadata import Relation, positions_of
from uniqueness_server.engine.model import ColumnEstimate, DeclaredKey, Statistics


def _text(value: str) -> str:
    return f"CAST(X'{value.encode().hex()}' AS TEXT)"


class SqliteCatalog:
    """Reads SQLite's catalog through the source's read-only connection."""

    dialect = "sqlite"
    lookup = "(temp, then main, then attached databases)"

    def __init__(
        self, fetchall: Callable[[str], list[tuple[Any, ...]]], quote: Callable[[str], str]
    ) -> None:
        self._fetchall = fetchall
        self._quote = quote

    def fold(self, name: str) -> str:
        """SQLite keeps names as written (and compares them case-insensitively)."""
        return name

    def relations(self, base: tuple[str, ...]) -> list[Relation]:
        """Tables and views of that name, in the order an unqualified name is looked up."""
        schemas = [str(r[0]) for r in self._fetchall("SELECT name FROM pragma_database_list")]
        schemas.sort(key=lambda s: {"temp": 0, "main": 1}.get(s, 2))
        if len(base) == 2:
            schemas = [s for s in schemas if s.casefold() == base[0].casefold()]
        elif len(base) != 1:
            return []
        return [
            Relation(schema, str(found), str(kind))
            for schema in schemas
            for kind, found in self._fetchall(
                f"SELECT type, name FROM {self._quote(schema)}.sqlite_master "
                f"WHERE type IN ('table', 'view') AND name = {_text(base[-1])} COLLATE NOCASE"
            )
        ]

    def columns(self, relation: Relation) -> list[str]:
        """Every column but the hidden ones of virtual tables (what ``SELECT *`` shows)."""
        return [
            str(r[0])
            for r in self._fetchall(
                f"SELECT name FROM pragma_table_xinfo({_text(relation.name)}, "
                f"{_text(relation.schema)}) WHERE hidden <> 1 ORDER BY cid"
            )
        ]

    def keys(self, relation: Relation, shown: Sequence[str | None]) -> list[DeclaredKey]:
        """The PRIMARY KEY, then UNIQUE constraints and unique indexes."""
        name, schema = _text(relation.name), _text(relation.schema)
        keys: list[DeclaredKey] = []
        primary = self._fetchall(
            f'SELECT name, "notnull" FROM pragma_table_info({name}, {schema}) '
            "WHERE pk > 0 ORDER BY pk"
        )
        if primary:
            columns = tuple(str(r[0]) for r in primary)
            keys.append(
                DeclaredKey(
                    "primary key",
                    None,
                    columns,
                    positions_of(shown, columns),
                    not_null=all(r[1] for r in primary),
                )
            )
        current: list[tuple[object, ...]] = []
        rows = self._fetchall(
            'SELECT il.name, il.origin, il.partial, ix.cid, ix.name, ti."notnull" '
            f"FROM pragma_index_list({name}, {schema}) AS il "
            f"JOIN pragma_index_xinfo(il.name, {schema}) AS ix "
            f"LEFT JOIN pragma_table_info({name}, {schema}) AS ti ON ti.cid = ix.cid "
            "WHERE il.\"unique\" = 1 AND il.origin <> 'pk' AND ix.key = 1 "
            "ORDER BY il.seq, ix.seqno"
        )
        for row in [*rows, (None,)]:
            if current and row[0] != current[0][0]:
                keys.append(_key(shown, current))
                current = []
            current.append(row)
        return keys

    def statistics(self, relation: Relation, shown: Sequence[str | None]) -> Statistics | None:
        """Distinct-value estimates of indexed leading columns from ``sqlite_stat1``."""
        quoted_schema = self._quote(relation.schema)
        name, schema = _text(relation.name), _text(relation.schema)
        if not self._fetchall(
            f"SELECT 1 FROM {quoted_schema}.sqlite_master WHERE type = 'table' "
            "AND name = 'sqlite_stat1'"
        ):
            return None
        # a partial index counts only the rows matching its condition: its figures are left out
        found = self._fetchall(
            f"SELECT s.stat, ix.name FROM {quoted_schema}.sqlite_stat1 AS s "
            f"LEFT JOIN pragma_index_list({name}, {schema}) AS il ON il.name = s.idx "
            f"LEFT JOIN pragma_index_xinfo(s.idx, {schema}) AS ix ON ix.seqno = 0 "
            f"WHERE s.tbl = {name} COLLATE NOCASE AND COALESCE(il.partial, 0) = 0"
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
            if rows is not None and c is not None and c in per_row
            else None
            for c in shown
        )
        return Statistics(origin="sqlite_stat1", rows=rows, columns=estimates)


def _key(shown: Sequence[str | None], rows: list[tuple[object, ...]]) -> DeclaredKey:
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
        positions=positions_of(shown, columns) if plain else None,
        not_null=not_null,
        caveat=caveat,
    )
