"""Declared keys and planner statistics, read from real SQLite files and a real PostgreSQL."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from mcp_common import McpTool, ToolError
from uniqueness_server.engine import (
    DatabaseRegistry,
    Nulls,
    TableMetadata,
    approximate_check,
    check_uniqueness,
    find_keys,
    read_metadata,
)
from uniqueness_testkit import call, tools_for

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
COLUMNS = ("order_id", "line_no", "sku", "email", "ref", "note")

# order lines: (order_id, line_no) is the declared primary key and minimal; email is UNIQUE
# with two missing values; ref is UNIQUE with one; sku is unique only where line_no = 1 (a
# partial unique index); note is unique through lower(note) (an expression index)
LINES = [
    (1, 1, "A", "ann@x", "r1", "n1"),
    (1, 2, "B", None, "r2", "n2"),
    (2, 1, "B", "bob@x", None, "n3"),
    (2, 2, "A", None, "r4", "n4"),
    (3, 1, "C", "cid@x", "r5", "n5"),
]
DDL = [
    "CREATE TABLE {s}lines (order_id INTEGER NOT NULL, line_no INTEGER NOT NULL, sku TEXT, "
    "email TEXT UNIQUE, ref TEXT UNIQUE, note TEXT, PRIMARY KEY (order_id, line_no))",
    "CREATE UNIQUE INDEX first_sku ON {s}lines (sku) WHERE line_no = 1",
    "CREATE UNIQUE INDEX note_lower ON {s}lines (lower(note))",
    "CREATE VIEW {s}lines_view AS SELECT * FROM {s}lines",
    'CREATE TABLE {s}"it\'s ""odd""" (code TEXT PRIMARY KEY)',
]


@dataclass
class Db:
    """A database holding the order lines, its registry (connection ``db``) and a writer."""

    registry: DatabaseRegistry
    schema: str  # in SQL: "" for SQLite, '"schema".' for PostgreSQL
    writer: sa.Engine
    url: str
    root: Path

    def name(self, table: str) -> str:
        """``table`` as the tools' ``table`` argument names it (schema.table, unquoted)."""
        return self.schema.replace('"', "") + table

    def execute(self, *statements: str) -> None:
        with self.writer.begin() as connection:
            for statement in statements:
                connection.exec_driver_sql(statement.format(s=self.schema))

    def tools(self) -> dict[str, McpTool]:
        return tools_for(self.root, [f"db={self.url}"])

    def metadata(self, table: str) -> TableMetadata:
        source = self.registry.open("db", table=self.name(table))
        try:
            found = read_metadata(source)
        finally:
            source.close()
        assert found is not None
        return found


def _fill(db: Db) -> None:
    db.execute(*DDL)
    marker = "%s" if db.writer.dialect.name == "postgresql" else "?"
    with db.writer.begin() as connection:
        for row in LINES:
            connection.exec_driver_sql(
                f"INSERT INTO {db.schema}lines VALUES ({', '.join([marker] * 6)})", row
            )


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Db]:
    if request.param == "sqlite":
        path = tmp_path / "shop.db"
        path.touch()  # a configured SQLite file must exist when the server starts
        url = f"sqlite:///{path}"
        writer = sa.create_engine(url)
        found = Db(DatabaseRegistry.from_options([f"db={url}"]), "", writer, url, tmp_path)
        _fill(found)
        yield found
        writer.dispose()
        return
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    base = sa.make_url(POSTGRES_URL).set(drivername="postgresql+psycopg")
    schema = f"m_{uuid.uuid4().hex[:10]}"
    writer = sa.create_engine(base)
    with writer.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = base.render_as_string(hide_password=False)
    registry = DatabaseRegistry.from_options([f"db={url}"])
    found = Db(registry, f'"{schema}".', writer, url, tmp_path)
    try:
        _fill(found)
        yield found
    finally:
        with writer.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        writer.dispose()


def _keys(metadata: TableMetadata) -> dict[tuple[str, ...], Any]:
    return {k.columns: k for k in metadata.keys}


def test_declared_keys_are_read_with_their_limits(db: Db) -> None:
    keys = _keys(db.metadata("lines"))
    primary = keys[("order_id", "line_no")]
    assert (primary.kind, primary.positions, primary.caveat) == ("primary key", (0, 1), None)
    assert keys[("email",)].caveat is None
    assert keys[("email",)].nulls_distinct
    assert keys[("ref",)].caveat is None
    partial = keys[("sku",)]
    assert partial.kind == "unique index"
    assert partial.caveat is not None
    assert "partial index" in partial.caveat
    expression = next(k for k in keys.values() if k.name == "note_lower")
    assert expression.positions is None
    assert expression.caveat is not None
    assert expression.caveat.startswith("an index on an expression")


def test_a_composite_primary_key_prunes_the_search(db: Db) -> None:
    table = db.registry.open("db", table=db.name("lines"))
    # the same rows through a query that is more than a filter carry no metadata: every
    # candidate is decided by the data
    query = db.registry.open(
        "db", query=f"WITH l AS (SELECT * FROM {db.schema}lines) SELECT * FROM l"
    )
    try:
        declared = find_keys(table, columns=["order_id", "line_no", "sku"], max_columns=3)
        scanned = find_keys(query, columns=["order_id", "line_no", "sku"], max_columns=3)
    finally:
        table.close()
        query.close()
    found = {k.columns: k.basis for k in declared.keys}
    assert found[("order_id", "line_no")] == "declared"
    assert {k.columns for k in scanned.keys} == set(found)
    assert all(k.basis == "scanned" for k in scanned.keys)
    # the declared key and the set of all three columns (which holds it) are never scanned
    assert scanned.full_checks - declared.full_checks == 2
    assert any("this query may join, repeat or reshape rows" in n for n in scanned.notes)


def test_unique_with_missing_values_proves_only_what_it_enforces(db: Db) -> None:
    table = db.registry.open("db", table=db.name("lines"))
    try:
        distinct = check_uniqueness(table, ["email"], nulls=Nulls.DISTINCT)
        equal = check_uniqueness(table, ["email"], nulls=Nulls.EQUAL)
        one_missing = check_uniqueness(table, ["ref"], nulls=Nulls.EQUAL)
        keys_equal = find_keys(table, columns=["email", "ref"], max_columns=1)
        keys_distinct = find_keys(
            table, columns=["email", "ref"], max_columns=1, nulls=Nulls.DISTINCT
        )
    finally:
        table.close()
    assert (distinct.unique, distinct.basis, distinct.rows, distinct.rows_with_missing) == (
        True,
        "declared",
        5,
        2,
    )
    assert distinct.distinct_keys == 5
    # two rows without an email: UNIQUE lets them repeat, so nulls=equal needs the scan
    assert (equal.unique, equal.basis, equal.duplicate_groups) == (False, "scanned", 1)
    assert equal.examples[0].values == (None,)
    assert equal.declared is not None
    assert equal.declared.columns == ("email",)
    assert any("2 rows have one" in note for note in equal.notes)
    # a single row without a ref cannot collide with anything
    assert (one_missing.unique, one_missing.basis) == (True, "declared")
    assert {k.columns: k.basis for k in keys_equal.keys} == {("ref",): "declared"}
    assert {k.columns: k.basis for k in keys_distinct.keys} == {
        ("email",): "declared",
        ("ref",): "declared",
    }


def test_partial_and_expression_indexes_are_never_proof(db: Db) -> None:
    table = db.registry.open("db", table=db.name("lines"))
    try:
        sku = check_uniqueness(table, ["sku"])
        note = check_uniqueness(table, ["note"])
        keys = find_keys(table, columns=["sku", "note"], max_columns=1)
    finally:
        table.close()
    assert (sku.unique, sku.basis) == (False, "scanned")
    assert any("partial index" in n for n in sku.notes)
    assert (note.unique, note.basis) == (True, "scanned")
    assert [(k.columns, k.basis) for k in keys.keys] == [(("note",), "scanned")]


def test_verify_scans_a_declared_key(db: Db) -> None:
    table = db.registry.open("db", table=db.name("lines"))
    try:
        verified = check_uniqueness(table, ["order_id", "line_no", "sku"], verify=True)
        trusted = check_uniqueness(table, ["order_id", "line_no", "sku"])
    finally:
        table.close()
    assert (verified.unique, verified.basis) == (True, "scanned")
    assert (trusted.unique, trusted.basis) == (True, "declared")
    assert trusted.declared is not None
    assert trusted.declared.kind == "primary key"
    assert trusted.rows == verified.rows == 5
    assert trusted.distinct_keys == verified.distinct_keys == 5
    # a superset of a key: the smaller keys inside are still searched, the declared one known
    assert set(trusted.better_options) == set(verified.better_options)
    assert ("order_id", "line_no") in trusted.better_options


def test_a_view_has_no_declared_keys_and_says_so(db: Db) -> None:
    metadata = db.metadata("lines_view")
    assert (metadata.kind, metadata.keys) == ("view", ())
    assert any("is a view" in note for note in metadata.notes)
    table = db.registry.open("db", table=db.name("lines_view"))
    try:
        result = check_uniqueness(table, ["order_id", "line_no"])
    finally:
        table.close()
    assert (result.unique, result.basis, result.declared) == (True, "scanned", None)


def test_names_reach_the_catalog_as_data_not_sql(db: Db) -> None:
    metadata = db.metadata('it\'s "odd"')
    assert [(k.kind, k.columns) for k in metadata.keys] == [("primary key", ("code",))]
    assert db.metadata("lines").keys  # nothing was dropped or changed


def test_statistics_before_and_after_analyze(db: Db) -> None:
    before = db.metadata("lines")
    db.execute("ANALYZE {s}lines")
    after = db.metadata("lines")
    if db.writer.dialect.name == "postgresql":
        assert before.statistics is None
        assert after.statistics is not None
        assert after.statistics.origin == "pg_stats"
        estimates = dict(zip(COLUMNS, after.statistics.columns, strict=True))
        assert estimates["line_no"] is not None
        assert estimates["line_no"].distinct == 2
        assert after.statistics.analyzed_at is not None
    else:
        assert before.statistics is None
        assert after.statistics is not None
        assert after.statistics.origin == "sqlite_stat1"
        # sqlite_stat1 covers indexed columns only: the key's leading column, email, ref
        covered = [
            c for c, e in zip(COLUMNS, after.statistics.columns, strict=True) if e is not None
        ]
        assert "sku" not in covered  # its only index is partial: its figures are left out
        assert {"order_id", "email", "ref"} <= set(covered)
    assert after.statistics.rows == 5


def test_statistics_are_labelled_and_stale_ones_said_to_be(db: Db) -> None:
    tools = db.tools()
    arguments = {"database": "db", "table": db.name("lines")}
    none = call(tools["list_columns"], arguments)
    assert none.structured is not None
    assert none.structured["metadata"]["statistics"] is None
    assert "not analyzed (ANALYZE)" in none.text
    db.execute("ANALYZE {s}lines")
    fresh = call(tools["list_columns"], arguments)
    assert fresh.structured is not None
    statistics = fresh.structured["metadata"]["statistics"]
    assert statistics["basis"] == "statistics"
    assert statistics["stale"] is False
    likely = {c["column"] for c in statistics["columns"] if c["likelyUnique"]}
    assert "ref" in likely or db.writer.dialect.name == "sqlite"
    assert "estimates, not proof" in fresh.text
    marker = "%s" if db.writer.dialect.name == "postgresql" else "?"
    with db.writer.begin() as connection:
        for i in range(10, 40):
            connection.exec_driver_sql(
                f"INSERT INTO {db.schema}lines (order_id, line_no) VALUES ({marker}, 1)", (i,)
            )
    stale = call(tools["list_columns"], arguments)
    assert stale.structured is not None
    statistics = stale.structured["metadata"]["statistics"]
    assert statistics["stale"] is True
    assert not any(c["likelyUnique"] for c in statistics["columns"])
    assert "the statistics look stale: they estimate 5 rows but 35 were counted" in stale.text


def test_the_tools_label_every_metadata_claim(db: Db) -> None:
    tools = db.tools()
    table = db.name("lines")
    keys = call(tools["find_keys"], {"database": "db", "table": table, "maxColumns": 2})
    assert keys.structured is not None
    by_columns = {tuple(k["columns"]): k["basis"] for k in keys.structured["keys"]}
    assert by_columns[("order_id", "line_no")] == "declared"
    assert by_columns[("note",)] == "scanned"
    declared = {tuple(k["columns"]): k for k in keys.structured["metadata"]["declaredKeys"]}
    assert declared[("email",)]["provesUnique"] == ["distinct"]
    assert declared[("email",)]["notNull"] is False
    assert declared[("ref",)]["provesUnique"] == ["equal", "distinct"]
    assert declared[("sku",)]["provesUnique"] == []
    assert all(k["basis"] == "declared" for k in declared.values())
    assert "## Declared keys of" in keys.text
    assert "| 1 | order_id, line_no | declared |" in keys.text
    assert keys.structured["declaredKeysUsed"] == 2  # the primary key and ref
    assert "2 declared keys were known unique before the search" in keys.text
    check = call(
        tools["uniqueness_check"],
        {"database": "db", "table": table, "columns": ["line_no", "order_id"]},
    )
    assert check.structured is not None
    assert check.structured["basis"] == "declared"
    assert check.structured["declaredKey"]["kind"] == "primary key"
    assert "Declared by the database: primary key" in check.text
    assert "pass verify to scan" in check.text
    verified = call(
        tools["uniqueness_check"],
        {"database": "db", "table": table, "columns": ["line_no", "order_id"], "verify": True},
    )
    assert verified.structured is not None
    assert verified.structured["basis"] == "scanned"
    # NOT NULL columns: the key proves uniqueness under both modes, counted or not
    assert verified.structured["declaredKey"]["provesUnique"] == ["equal", "distinct"]
    assert verified.structured["declaredKey"]["notNull"] is True
    assert "this verdict comes from the rows, not the declaration" in verified.text
    joined = f"SELECT a.* FROM {db.schema}lines a JOIN {db.schema}lines b ON a.sku = b.sku"
    query = call(tools["list_columns"], {"database": "db", "query": joined})
    assert query.structured is not None
    assert query.structured["metadata"] is None
    assert "this query may join, repeat or reshape rows" in query.text


@pytest.mark.parametrize(
    ("select", "key"),
    [
        (
            "SELECT line_no AS n, ORDER_ID FROM {s}lines WHERE sku <> 'Z' ORDER BY 1",
            ("n", "ORDER_ID"),
        ),
        ("SELECT DISTINCT l.* FROM {s}lines AS l LIMIT 10 OFFSET 0", ("order_id", "line_no")),
        ("SELECT *, sku AS again FROM {s}lines WHERE sku IS NOT NULL", ("order_id", "line_no")),
    ],
)
def test_a_query_that_only_filters_keeps_the_tables_keys(
    db: Db, select: str, key: tuple[str, ...]
) -> None:
    table = db.registry.open("db", query=select.format(s=db.schema))
    try:
        metadata = read_metadata(table)
        check = check_uniqueness(table, list(key))
        keys = find_keys(table, columns=list(key))
    finally:
        table.close()
    assert metadata is not None
    assert metadata.through_query
    assert any("only filters and selects columns" in note for note in metadata.notes)
    assert (check.unique, check.basis) == (True, "declared")
    pairs = [(k.columns, k.basis) for k in keys.keys if len(k.columns) == 2]
    # PostgreSQL folds the unquoted ORDER_ID to order_id; names match case-insensitively
    assert [(tuple(map(str.casefold, c)), b) for c, b in pairs] == [
        (tuple(map(str.casefold, key)), "declared")
    ]


@pytest.mark.parametrize(
    "select",
    [
        "SELECT order_id FROM {s}lines",  # the key's other column is not selected
        "SELECT order_id, line_no + 0 AS line_no FROM {s}lines",  # a computed value
        "SELECT order_id, line_no FROM {s}lines UNION ALL SELECT order_id, line_no FROM {s}lines",
        "SELECT a.order_id, a.line_no FROM {s}lines a, {s}lines b",  # rows repeat
        "SELECT order_id, line_no FROM {s}lines GROUP BY order_id, line_no",
    ],
)
def test_other_queries_never_borrow_a_declared_key(db: Db, select: str) -> None:
    table = db.registry.open("db", query=select.format(s=db.schema))
    try:
        metadata = read_metadata(table)
        keys = find_keys(table)
    finally:
        table.close()
    # where the query keeps the table's metadata, every key says why it does not apply
    assert metadata is None or all(
        k.positions is None and k.caveat is not None for k in metadata.keys
    )
    assert all(k.basis == "scanned" for k in keys.keys)


def _postgres(db: Db) -> None:
    if db.writer.dialect.name != "postgresql":
        pytest.skip("a PostgreSQL feature")


def test_nulls_not_distinct_proves_uniqueness_with_missing_values(db: Db) -> None:
    _postgres(db)
    db.execute(
        "CREATE TABLE {s}pairs (a INTEGER, b INTEGER, UNIQUE NULLS NOT DISTINCT (a, b))",
        "INSERT INTO {s}pairs VALUES (1, NULL), (2, NULL), (NULL, NULL)",
    )
    table = db.registry.open("db", table=db.name("pairs"))
    try:
        result = check_uniqueness(table, ["a", "b"])
    finally:
        table.close()
    assert (result.unique, result.basis, result.rows_with_missing) == (True, "declared", 3)
    assert result.declared_proves == (Nulls.EQUAL, Nulls.DISTINCT)


def test_included_columns_are_not_part_of_the_key(db: Db) -> None:
    _postgres(db)
    db.execute(
        "CREATE TABLE {s}covered (a INTEGER NOT NULL, b INTEGER)",
        "CREATE UNIQUE INDEX covered_a ON {s}covered (a) INCLUDE (b)",
    )
    keys = db.metadata("covered").keys
    assert [(k.name, k.columns, k.not_null) for k in keys] == [("covered_a", ("a",), True)]


def test_inheriting_tables_void_the_parents_keys(db: Db) -> None:
    _postgres(db)
    db.execute(
        "CREATE TABLE {s}parent (id INTEGER PRIMARY KEY)",
        "CREATE TABLE {s}child () INHERITS ({s}parent)",
        "INSERT INTO {s}parent VALUES (1), (2)",
        "INSERT INTO {s}child VALUES (1)",
    )
    table = db.registry.open("db", table=db.name("parent"))
    try:
        result = check_uniqueness(table, ["id"])
        keys = find_keys(table)
    finally:
        table.close()
    assert (result.unique, result.basis, result.rows) == (False, "scanned", 3)
    assert any("inheriting tables" in note for note in result.notes)
    assert keys.keys == ()


def test_an_invalid_index_is_not_proof(db: Db) -> None:
    _postgres(db)
    # CREATE INDEX CONCURRENTLY that fails on duplicates leaves an invalid index behind
    autocommit = db.writer.connect().execution_options(isolation_level="AUTOCOMMIT")
    with autocommit as connection, pytest.raises(sa.exc.IntegrityError):
        connection.exec_driver_sql(
            f"CREATE UNIQUE INDEX CONCURRENTLY bad ON {db.schema}lines (sku)"
        )
    keys = {k.name: k for k in db.metadata("lines").keys}
    assert keys["bad"].columns == ("sku",)
    assert keys["bad"].caveat is not None
    assert "invalid" in keys["bad"].caveat


def test_a_name_in_several_schemas_is_resolved_and_said_to_be(db: Db) -> None:
    _postgres(db)
    schema = db.schema.strip('."')
    other = f"{schema}_b"
    db.execute(f'CREATE SCHEMA "{other}"', f'CREATE TABLE "{other}".lines (x INTEGER)')
    try:
        url = sa.make_url(db.url).update_query_dict({"options": f"-csearch_path={schema},{other}"})
        registry = DatabaseRegistry.from_options(
            [f"db={url.render_as_string(hide_password=False)}"]
        )
        table = registry.open("db", table="lines")
        try:
            metadata = read_metadata(table)
        finally:
            table.close()
        assert metadata is not None
        assert metadata.relation == f"{schema}.lines"
        assert any("also holds" in note and other in note for note in metadata.notes)
    finally:
        db.execute(f'DROP SCHEMA "{other}" CASCADE')


def test_sqlite_metadata_reads_never_write(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
    before = path.read_bytes()
    registry = DatabaseRegistry.from_options([f"db=sqlite:///{path}"])
    table = registry.open("db", table="t")
    try:
        metadata = read_metadata(table)
        check_uniqueness(table, ["v"], nulls=Nulls.DISTINCT)
    finally:
        table.close()
    assert metadata is not None
    assert len(metadata.keys) == 2
    assert path.read_bytes() == before


def test_a_sqlite_primary_key_may_hold_missing_values(tmp_path: Path) -> None:
    path = tmp_path / "legacy.db"
    with sqlite3.connect(path) as connection:
        # SQLite keeps a legacy quirk: a PRIMARY KEY that is not INTEGER PRIMARY KEY admits NULLs
        connection.execute("CREATE TABLE t (code TEXT PRIMARY KEY)")
        connection.executemany("INSERT INTO t VALUES (?)", [(None,), (None,), ("a",)])
    registry = DatabaseRegistry.from_options([f"db=sqlite:///{path}"])
    table = registry.open("db", table="t")
    try:
        equal = check_uniqueness(table, ["code"])
        distinct = check_uniqueness(table, ["code"], nulls=Nulls.DISTINCT)
    finally:
        table.close()
    assert (equal.unique, equal.basis, equal.duplicate_groups) == (False, "scanned", 1)
    assert equal.declared is not None
    assert not equal.declared.not_null
    assert (distinct.unique, distinct.basis) == (True, "declared")


def test_a_client_query_may_read_sqlite_pragma_functions(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (a INTEGER, b TEXT UNIQUE)")
    registry = DatabaseRegistry.from_options([f"db=sqlite:///{path}"])
    # the read-only check accepts the table-valued pragma functions inside a SELECT (the
    # statement form PRAGMA … stays refused, see test_uniqueness_databases)
    table = registry.open("db", query="SELECT name, cid FROM pragma_table_info('t')")
    try:
        result = check_uniqueness(table, ["name"])
    finally:
        table.close()
    assert (result.unique, result.rows, result.basis) == (True, 2, "scanned")


def test_the_command_says_when_a_declaration_answered(tmp_path: Path) -> None:
    path = tmp_path / "cli.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "a")])
    command = Path(sys.executable).parent / "uniqueness-check"
    base = [str(command), "--database", f"db=sqlite:///{path}", "--table", "t", "id"]
    declared = subprocess.run(base, capture_output=True, text=True, timeout=60, check=False)
    verified = subprocess.run(
        [*base, "--verify"], capture_output=True, text=True, timeout=60, check=False
    )
    assert declared.returncode == verified.returncode == 0, declared.stderr + verified.stderr
    assert declared.stdout.strip() == (
        "id: unique (2 rows; declared by the database: primary key (id), not scanned "
        "(--verify scans))"
    )
    assert verified.stdout.strip() == "id: unique (2 rows)"


def test_approximate_mode_takes_the_exact_answer_a_declared_key_gives(db: Db) -> None:
    table = db.registry.open("db", table=db.name("lines"))
    try:
        declared = approximate_check(table, ["line_no", "order_id"])
        # under nulls=equal a UNIQUE column with missing values proves nothing unless counted:
        # approximate mode goes its own way
        sketched = approximate_check(table, ["email"])
    finally:
        table.close()
    assert (declared.unique, declared.basis) == (True, "declared")
    assert declared.approximation is not None
    assert declared.approximation.exact
    assert "declares" in declared.approximation.method
    assert sketched.basis == "scanned"
    arguments = {"database": "db", "table": db.name("lines"), "columns": ["email"]}
    with pytest.raises(ToolError, match="give one of them"):
        call(db.tools()["uniqueness_check"], {**arguments, "approximate": True, "verify": True})
