"""Poisoning the index store (issue 23 item 8): a crafted store entry never makes the server
answer anything but the project's own content, never hangs it, never blows its memory.

The store directory is the user's own (0700; another user's or a shared one is refused, see
test_store.py), so what is attacked here is a store file holding what the server did not
write: rows of another tree at the same path, triggers, views, oversized or flooding rows,
length bombs, texts meant to reach an answer. Each test fails without its fix.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import anyio
import msgspec
import pytest
from conftest import write_project
from context_server.core.index import IndexCache, ProjectIndex
from context_server.core.service import ContextService
from context_server.core.store import LISTING_BYTES, STORE_SUFFIX, IndexStore
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common import AllowedPaths
from mcp_common.testing import cpu_seconds, process_logging_to, stdio_client

FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; }\n",
    "src/app/Service.java": "package app;\nclass Service { Repository repository; }\n",
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/app/Helper.java": "package app;\nclass Helper {}\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", FILES)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "context-server"


def service(root: Path, store_dir: Path) -> ContextService:
    """A newly started server: a fresh cache over the store."""
    return ContextService(
        AllowedPaths([root]), IndexCache(IndexStore(store_dir, outside=[root]), watch=False)
    )


def build(root: Path, store_dir: Path) -> ProjectIndex:
    return service(root, store_dir).index(str(root))


def graph(index: ProjectIndex) -> dict[str, list[str]]:
    return {path: sorted(index.resolver.direct(path).files) for path in index.sources}


def store_file(store_dir: Path) -> Path:
    (found,) = store_dir.glob("*" + STORE_SUFFIX)
    return found


def expected(root: Path) -> dict[str, list[str]]:
    return graph(ContextService(AllowedPaths([root]), IndexCache(watch=False)).index(str(root)))


def test_another_tree_at_the_same_path_with_the_same_sizes_and_times(
    root: Path, store_dir: Path
) -> None:
    """A release archive or SOURCE_DATE_EPOCH checkout: same paths, sizes and mtimes, other
    content. The store's rows of the old tree must not answer for the new one."""
    build(root, store_dir)
    old = {path: (root / path).stat() for path in FILES}
    shutil.rmtree(root)
    replacement = {
        **FILES,
        "src/app/Main.java": "package app;\nclass Main { Helper   helper; }\n",
        "src/app/Service.java": "package app;\nclass Service { Helper     helper    ; }\n",
    }
    assert all(len(replacement[p]) == len(FILES[p]) for p in FILES)
    write_project(root, replacement)
    for path, stat in old.items():
        os.utime(root / path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert (root / path).stat().st_mtime_ns == stat.st_mtime_ns
    index = build(root, store_dir)
    assert graph(index) == expected(root)
    assert graph(index)["src/app/Main.java"] == ["src/app/Helper.java"]
    assert index.statistics.parsed == 2  # the unchanged files are known by their digest


def _spin_trigger(connection: sqlite3.Connection) -> None:
    """A trigger that never ends once the server writes a row."""
    connection.execute(
        "CREATE TRIGGER spin AFTER INSERT ON files BEGIN INSERT INTO meta SELECT 'k' || x, 'v'"
        " FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c);"
        " END"
    )


@pytest.mark.parametrize(
    ("craft", "reason"),
    [
        (_spin_trigger, "it holds more than an index store's tables"),
        (
            lambda c: c.execute("ALTER TABLE files ADD COLUMN extra TEXT DEFAULT 'x'"),
            "it holds more than an index store's tables",
        ),
        (
            lambda c: c.executescript(
                "DROP TABLE graphs; CREATE VIEW graphs AS WITH RECURSIVE c(x) AS"
                " (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 'java' AS languages,"
                " 'sig' AS signature, x AS direct FROM c;"
            ),
            "its tables are not an index store's",
        ),
    ],
    ids=["endless-trigger", "another-column", "endless-view"],
)
def test_a_store_holding_more_than_its_tables_is_rebuilt_not_run(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture, craft: object, reason: str
) -> None:
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        craft(connection)  # type: ignore[operator]
    (root / "src/app/Helper.java").write_text("package app;\nclass Helper { Main m; }\n")
    finished: list[ProjectIndex] = []
    with caplog.at_level(logging.WARNING):
        worker = threading.Thread(target=lambda: finished.append(build(root, store_dir)))
        worker.daemon = True
        worker.start()
        worker.join(timeout=60)
    assert finished, "the server hung on a crafted store"
    assert graph(finished[0]) == expected(root)
    assert reason in caplog.text
    with sqlite3.connect(store_file(store_dir)) as connection:
        kinds = {row[0] for row in connection.execute("SELECT type FROM sqlite_master")}
    assert kinds == {"table", "index"}


def _peak_bytes_during(action: object) -> int:
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_oversized_row_is_never_read(root: Path, store_dir: Path) -> None:
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute(
            "UPDATE files SET facts = zeroblob(60000000) WHERE path = 'src/app/Main.java'"
        )
    found: list[ProjectIndex] = []
    peak = _peak_bytes_during(lambda: found.append(build(root, store_dir)))
    assert peak < 30_000_000, f"{peak} bytes held while reading the store"
    assert graph(found[0]) == expected(root)
    assert found[0].statistics.parsed == 1


def test_a_flood_of_rows_is_not_read_to_its_end(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute(
            "INSERT INTO files WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c"
            " LIMIT 300000) SELECT 'junk/' || x || '.java', 1, 1, 1, 'd', '', 'java', x'90', NULL"
            " FROM c"
        )
    found: list[ProjectIndex] = []
    with caplog.at_level(logging.WARNING):
        peak = _peak_bytes_during(lambda: found.append(build(root, store_dir)))
    assert peak < 30_000_000, f"{peak} bytes held while reading the store"
    assert graph(found[0]) == expected(root)
    assert "rows for 4 files; the rest is not read" in caplog.text


def test_a_length_bomb_in_a_row_is_refused_without_allocating(root: Path, store_dir: Path) -> None:
    build(root, store_dir)
    bomb = b"\x89\xa8language\xa4java\xaddeclarations\xdd\xff\xff\xff\xff" + b"\x90" * 64
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute("UPDATE files SET facts = ?", (bomb,))
    found: list[ProjectIndex] = []

    def restart_and_read() -> None:
        # the stored graph is sound: the facts are decoded (and refused) when first read
        index = build(root, store_dir)
        found.append(index)
        for path in index.sources:
            assert index.sources[path].language == index.sources.language(path)

    peak = _peak_bytes_during(restart_and_read)
    assert peak < 30_000_000
    assert graph(found[0]) == expected(root)
    assert found[0].statistics.parsed == len(FILES)


def test_no_text_of_the_store_reaches_an_answer(root: Path, store_dir: Path) -> None:
    """A skip reason, an ambiguity's candidate files, a shadowed name: texts the store
    could carry into an answer. None is restored."""
    leak = "LEAKED ../../other-root/Secret.java\n# injected heading"
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute(
            "UPDATE files SET facts = NULL, problem = ? WHERE path = 'src/app/Helper.java'",
            (leak,),
        )
        (direct,) = connection.execute("SELECT direct FROM graphs").fetchone()
        row = msgspec.msgpack.decode(direct)
        # an ambiguity between a file outside the project and one inside; a shadowed name
        # carrying a line break into an answer
        row[6] = [[0, "Service", [len(row[0]) + 5, 1]]]
        row[7] = [[1, leak]]
        connection.execute("UPDATE graphs SET direct = ?", (msgspec.msgpack.encode(row),))
    server = service(root, store_dir)
    index = server.index(str(root))
    selection = server.select(index, "Main", 1)
    assert selection.ambiguous == ()
    assert all(not index.resolver.direct(path).shadowed for path in index.sources)
    assert index.problems == []
    assert graph(index) == expected(root)


# Two real server processes sharing one store -----------------------------------------------
COMMAND = Path(sys.executable).with_name("context-server")


async def _tree(client: Client) -> dict[str, list[str]]:
    tree = await client.call_tool("project_tree", {"path": ".", "format": "json"})
    assert not tree.is_error, tree
    assert tree.structured_content is not None
    nodes = tree.structured_content["nodes"]
    return {node["path"]: node["dependencies"] for node in nodes if node["type"] == "file"}


@pytest.mark.e2e
@pytest.mark.anyio
async def test_two_server_processes_share_one_store(
    root: Path, store_dir: Path, tmp_path: Path
) -> None:
    write_project(
        root,
        {
            f"src/gen/G{n}.java": f"package gen;\nclass G{n} {{ G{n + 1} next; }}\n"
            for n in range(300)
        },
    )
    logs = [tmp_path / f"server{n}.log" for n in range(3)]

    def params(log: Path) -> StdioServerParameters:
        return StdioServerParameters(
            command=str(COMMAND),
            args=[
                "--allowed-dir",
                str(root),
                "--log-file",
                str(log),
                "--index-store-dir",
                str(store_dir),
            ],
            cwd=str(root),
        )

    async with Client(params(logs[0])) as first, Client(params(logs[1])) as second:
        answers: list[dict[str, list[str]]] = []

        async def ask(client: Client) -> None:
            answers.append(await _tree(client))

        async with anyio.create_task_group() as group:
            group.start_soon(ask, first)
            group.start_soon(ask, second)
        (root / "src/app/Helper.java").write_text("package app;\nclass Helper { Main m; }\n")
        async with anyio.create_task_group() as group:
            group.start_soon(ask, first)
            group.start_soon(ask, second)
    truth = expected(root)
    files_only = {path: deps for path, deps in answers[-1].items() if path.endswith(".java")}
    assert files_only == truth
    assert answers[2] == answers[3]
    for log in logs[:2]:
        assert "WARNING" not in log.read_text(), log.read_text()
    async with Client(params(logs[2])) as third:
        assert await _tree(third) == answers[-1]
    restarted = logs[2].read_text()
    assert f": 0 files parsed, 0 reused, {len(truth)} restored from the index store" in restarted


# A listing naming a million entries -------------------------------------------------------
FORGED_FILES = 800_000
FORGED_DIRECTORIES = 150_000
RESTART_CPU_SECONDS = 4.0
"""The restarted server's own CPU time (start-up included) up to its first answer on the
forged store: 1.4 s measured (the honest store: 0.9 s). Before, each forged file was stat-ed
and matched against the ignore patterns (1,500,000 of them: 8.7 s) and each forged directory
listed again with every other (quadratic: 30,000 took 35 s, 60,000 took 118 s)."""


def _forge_huge_listing(root: Path, store_dir: Path) -> int:
    """The root's stored entry names 800,000 files and 150,000 directories that are not
    there, with the root's true stat, so that what it names is taken as it is (14 MB, under
    the 16 MB a stored listing may take); the forged listing's length."""
    info = os.lstat(root)
    with sqlite3.connect(store_file(store_dir)) as connection:
        (blob,) = connection.execute("SELECT listing FROM listings").fetchone()
        inherited, directories = msgspec.msgpack.decode(blob)
        top = directories[0]
        top[0] = [info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
        top[2] = time.time_ns() + 3600 * 10**9  # listed long after its last change
        top[5] = sorted([*top[5], *(f"f{n:07}.java" for n in range(FORGED_FILES))])
        # names after every real one: their own (empty) entries come last in pre-order
        top[4] = [*top[4], *(f"z{n:07}" for n in range(FORGED_DIRECTORIES))]
        directories.extend([None, None, 0, None, [], []] for _ in range(FORGED_DIRECTORIES))
        forged = msgspec.msgpack.encode([inherited, directories])
        connection.execute("UPDATE listings SET listing = ?", (forged,))
    return len(forged)


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_listing_naming_a_million_entries_costs_a_restart_little(
    root: Path, store_dir: Path, tmp_path: Path
) -> None:
    build(root, store_dir)
    assert 12 * 1024 * 1024 < _forge_huge_listing(root, store_dir) < LISTING_BYTES
    log_file = tmp_path / "server.log"
    async with stdio_client(
        COMMAND,
        "--allowed-dir",
        str(root),
        "--index-store-dir",
        str(store_dir),
        "--log-file",
        str(log_file),
        cwd=root,
        drop_prefix="CONTEXT_SERVER_",
    ) as client:
        server = process_logging_to(log_file)
        with anyio.fail_after(120):
            tree = await _tree(client)
        spent = cpu_seconds(server)
    assert tree == expected(root)
    assert spent < RESTART_CPU_SECONDS, f"{spent:.1f} s of CPU for a restart"


def test_a_listing_over_the_limit_is_said_and_the_tree_walked(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute("UPDATE listings SET listing = zeroblob(?)", (LISTING_BYTES + 1,))
    with caplog.at_level(logging.WARNING):
        index = build(root, store_dir)
    assert index.statistics.walked
    assert graph(index) == expected(root)
    assert "the stored listing takes 16 MB, over the 16 MB a listing may take" in caplog.text
