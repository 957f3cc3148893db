"""The on-disk index store: a new process starts warm, a changed file re-parses alone, and a
store that is corrupt, foreign, symlinked or misplaced is ignored with a warning, never
trusted, never written inside the project."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest
from conftest import write_project
from context_server.core import packed
from context_server.core.index import IndexCache, ProjectIndex
from context_server.core.languages import LANGUAGES
from context_server.core.store import STORE_SUFFIX, IndexStore
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common import AllowedPaths

FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; Helper helper; }\n",
    "src/app/Service.java": "package app;\nclass Service { Repository repository; }\n",
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/app/Helper.java": "package app;\nclass Helper {}\n",
    "lib/util.py": "from lib.model import Model\n\ndef make():\n    return Model()\n",
    "lib/model.py": "class Model:\n    pass\n",
    "lib/__init__.py": "",
}
SOURCES = len(FILES)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", FILES)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "context-server"


def build(root: Path, store_dir: Path | None) -> ProjectIndex:
    """One index build in a fresh cache: what a newly started server does first."""
    store = IndexStore(store_dir, outside=[root]) if store_dir is not None else None
    return IndexCache(store).build(root, LANGUAGES, AllowedPaths([root]))


def graph(index: ProjectIndex) -> dict[str, list[tuple[str, str, int]]]:
    return {
        path: [(e.target, e.rule, e.uses) for e in index.resolver.direct(path).edges]
        for path in index.sources
    }


def snapshot(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def store_file(store_dir: Path) -> Path:
    (found,) = store_dir.glob("*" + STORE_SUFFIX)
    return found


def test_a_new_process_starts_from_the_store(root: Path, store_dir: Path) -> None:
    before = snapshot(root)
    first = build(root, store_dir)
    assert (first.statistics.parsed, first.statistics.restored) == (SOURCES, 0)
    assert not first.statistics.graph_restored
    second = build(root, store_dir)
    assert (second.statistics.parsed, second.statistics.restored) == (0, SOURCES)
    assert second.statistics.graph_restored
    assert graph(second) == graph(first) == graph(build(root, None))
    assert second.resolver.direct("src/app/Main.java").files == (
        "src/app/Service.java",
        "src/app/Helper.java",
    )
    assert second.sources == first.sources
    assert snapshot(root) == before, "the store wrote inside the project"
    assert stat.S_IMODE(os.stat(store_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(store_file(store_dir)).st_mode) == 0o600


def test_a_changed_file_re_parses_alone(root: Path, store_dir: Path) -> None:
    build(root, store_dir)
    (root / "src/app/Helper.java").write_text(
        "package app;\nclass Helper { Repository repository; }\n", encoding="utf-8"
    )
    changed = build(root, store_dir)
    assert (changed.statistics.parsed, changed.statistics.restored) == (1, SOURCES - 1)
    assert not changed.statistics.graph_restored
    assert changed.resolver.direct("src/app/Helper.java").files == ("src/app/Repository.java",)
    # the change itself was stored: the next process parses nothing
    after = build(root, store_dir)
    assert (after.statistics.parsed, after.statistics.restored) == (0, SOURCES)
    assert after.statistics.graph_restored
    assert graph(after) == graph(build(root, None))


def test_a_touched_file_is_recognised_by_its_content(root: Path, store_dir: Path) -> None:
    build(root, store_dir)
    target = root / "src/app/Service.java"
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    touched = build(root, store_dir)
    assert (touched.statistics.parsed, touched.statistics.restored) == (0, SOURCES)
    assert touched.statistics.graph_restored


def test_deleted_and_added_files_are_followed(root: Path, store_dir: Path) -> None:
    build(root, store_dir)
    (root / "src/app/Helper.java").unlink()
    (root / "src/app/Extra.java").write_text("package app;\nclass Extra { Main main; }\n")
    index = build(root, store_dir)
    assert (index.statistics.parsed, index.statistics.restored) == (1, SOURCES - 1)
    assert "src/app/Helper.java" not in index.sources
    assert index.resolver.direct("src/app/Extra.java").files == ("src/app/Main.java",)
    rows = sqlite3.connect(store_file(store_dir)).execute("SELECT path FROM files").fetchall()
    assert ("src/app/Helper.java",) not in rows
    assert ("src/app/Extra.java",) in rows


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty-tables"])
def test_a_corrupt_store_is_rebuilt_with_a_warning(
    root: Path, store_dir: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    expected = graph(build(root, store_dir))
    path = store_file(store_dir)
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    else:
        with sqlite3.connect(path) as connection:
            connection.execute("DROP TABLE graphs")
    with caplog.at_level(logging.WARNING):
        index = build(root, store_dir)
    assert graph(index) == expected
    assert index.statistics.parsed == SOURCES
    assert f"index store file {path} rebuilt" in caplog.text
    again = build(root, store_dir)
    assert (again.statistics.parsed, again.statistics.restored) == (0, SOURCES)


def test_malformed_rows_are_never_trusted(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    expected = graph(build(root, store_dir))
    path = store_file(store_dir)
    with sqlite3.connect(path) as connection:
        # well formed but for one declaration kind the index does not know
        declaration = {"simple_name": "Main", "qualified_name": "app.Main", "kind": "bogus"}
        bogus = {"language": "java", "package": "app", "imports": [], "local_names": []}
        bogus |= {"declarations": [declaration], "references": []}
        connection.execute(
            "UPDATE files SET facts = ? WHERE path = 'src/app/Main.java'",
            (msgspec.msgpack.encode(bogus),),
        )
        connection.execute(
            "UPDATE files SET facts = ? WHERE path = 'lib/model.py'", (b"\xdc\xff\xff" * 9,)
        )
        # an edge to a file number past the end of the graph's file list
        (direct,) = connection.execute("SELECT direct FROM graphs").fetchone()
        row = msgspec.msgpack.decode(direct)
        targets = bytearray(row[3])  # the edges' target file numbers (little-endian int32)
        targets[0:4] = (len(row[0]) + 5).to_bytes(4, "little")
        row[3] = bytes(targets)
        connection.execute("UPDATE graphs SET direct = ?", (msgspec.msgpack.encode(row),))
    with caplog.at_level(logging.WARNING):
        index = build(root, store_dir)
    assert (index.statistics.parsed, index.statistics.restored) == (2, SOURCES - 2)
    assert not index.statistics.graph_restored
    assert graph(index) == expected
    assert "2 malformed rows ignored" in caplog.text


def test_poisoned_facts_behind_a_sound_graph_are_parsed_again_when_first_read(
    root: Path, store_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart answering from the stored graph decodes no file's facts: a poisoned row is
    caught when a question first reads it, and that file is parsed again (never another
    root's facts, never garbage), its sound facts stored for the next process."""
    clean = build(root, None)
    expected = {path: clean.sources[path] for path in clean.sources}
    build(root, store_dir)
    path = store_file(store_dir)
    other = write_project(tmp_path / "other", {"evil/stolen.py": "class Stolen:\n    pass\n"})
    build(other, store_dir)
    other_file = next(p for p in store_dir.glob("*" + STORE_SUFFIX) if p != path)
    with sqlite3.connect(other_file) as connection:
        (stolen,) = connection.execute(
            "SELECT facts FROM files WHERE path = 'evil/stolen.py'"
        ).fetchone()
    with sqlite3.connect(path) as connection:
        # another root's facts (another module) and bytes that are no facts at all
        connection.execute("UPDATE files SET facts = ? WHERE path = 'lib/util.py'", (stolen,))
        connection.execute(
            "UPDATE files SET facts = ? WHERE path = 'src/app/Main.java'", (b"\xdc\xff\xff" * 9,)
        )
    with caplog.at_level(logging.WARNING):
        index = build(root, store_dir)
        assert index.statistics.graph_restored
        assert (index.statistics.parsed, index.statistics.restored) == (0, SOURCES)
        caplog.clear()
        assert {path: index.sources[path] for path in index.sources} == expected
    assert "Stolen" not in repr([index.sources[path] for path in index.sources])
    assert "malformed row of lib/util.py ignored (re-parsed)" in caplog.text
    assert "malformed row of src/app/Main.java ignored (re-parsed)" in caplog.text
    assert (index.statistics.parsed, index.statistics.restored) == (2, SOURCES - 2)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        again = build(root, store_dir)
        assert {path: again.sources[path] for path in again.sources} == expected
    assert "malformed" not in caplog.text


def test_a_rebuild_checks_only_stored_facts_never_checked(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit, the indexes of a process check each stored file's facts once, when
    first read (a poisoned one is still caught, by every index holding it), and never facts
    already checked or parsed by the process itself."""
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute(
            "UPDATE files SET facts = ? WHERE path = 'lib/util.py'", (b"\xdc\xff\xff" * 9,)
        )
    checked: list[str] = []
    unpack = packed.unpack

    def counted(data: bytes, languages: frozenset[str], module: str | None = None) -> object:
        checked.append("poisoned" if data.startswith(b"\xdc\xff") else "sound")
        return unpack(data, languages, module)

    monkeypatch.setattr(packed, "unpack", counted)
    cache = IndexCache(IndexStore(store_dir, outside=[root]))
    first = cache.build(root, LANGUAGES, AllowedPaths([root]))
    assert first.sources["src/app/Service.java"].declarations[0].simple_name == "Service"
    assert checked == ["sound"]
    checked.clear()
    (root / "src/app/Helper.java").write_text(
        "package app;\nclass Helper { Service service; }\n", encoding="utf-8"
    )
    with caplog.at_level(logging.WARNING):
        second = cache.build(root, LANGUAGES, AllowedPaths([root]))
        facts = {path: second.sources[path] for path in second.sources}
        assert len([first.sources[path] for path in first.sources]) == SOURCES
    assert second.statistics.parsed >= 1
    # every stored file but Service.java once; the poisoned lib/util.py once more, in the
    # second index (still holding the bytes that failed)
    assert sorted(checked) == ["poisoned"] * 2 + ["sound"] * (SOURCES - 2)
    assert facts["lib/util.py"].declarations[0].simple_name == "make"
    assert "malformed row of lib/util.py ignored (re-parsed)" in caplog.text
    checked.clear()
    assert {path: second.sources[path] for path in second.sources} == facts
    assert checked == []


def test_a_store_of_another_version_or_root_is_rebuilt(
    root: Path, store_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(root, store_dir)
    path = store_file(store_dir)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = 'older' WHERE key = 'fingerprint'")
    with caplog.at_level(logging.INFO):
        assert build(root, store_dir).statistics.parsed == SOURCES
    assert "written for another project or version" in caplog.text
    # a store file copied over another root's name answers for nothing of that root
    other = write_project(
        tmp_path / "other", {"src/app/Main.java": "package app;\nclass Main {}\n"}
    )
    build(other, store_dir)
    other_file = next(p for p in store_dir.glob("*" + STORE_SUFFIX) if p != path)
    other_file.write_bytes(path.read_bytes())
    index = build(other, store_dir)
    assert (index.statistics.parsed, index.statistics.restored) == (1, 0)
    assert list(index.sources) == ["src/app/Main.java"]


def test_an_unsafe_store_directory_is_refused(
    root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    for directory, reason in [
        (shared, "group or others may write to it"),
        (link, "it is a symlink"),
        (root / ".cache", "it lies inside an allowed directory"),
    ]:
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            index = build(root, directory)
        assert index.statistics.parsed == SOURCES
        assert reason in caplog.text, directory
        assert graph(index) == graph(build(root, None))
    assert list(shared.iterdir()) == []
    assert list(elsewhere.iterdir()) == []
    assert not (root / ".cache").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory away needs root")
def test_a_store_directory_of_another_user_is_refused(
    root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o700)
    os.chown(foreign, 65534, 65534)
    with caplog.at_level(logging.WARNING):
        index = build(root, foreign)
    assert index.statistics.parsed == SOURCES
    assert "it is owned by another user" in caplog.text
    assert list(foreign.iterdir()) == []


def test_a_symlinked_store_file_is_never_followed(
    root: Path, store_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(root, store_dir)
    path = store_file(store_dir)
    victim = tmp_path / "victim.sqlite3"
    path.rename(victim)
    before = victim.read_bytes()
    path.symlink_to(victim)
    with caplog.at_level(logging.WARNING):
        index = build(root, store_dir)
    assert index.statistics.parsed == SOURCES
    assert "it is not a regular file" in caplog.text
    assert victim.read_bytes() == before
    assert path.is_symlink()


def test_stores_left_unused_for_a_month_are_removed(
    root: Path, store_dir: Path, tmp_path: Path
) -> None:
    build(root, store_dir)
    used = store_file(store_dir)
    month = 31 * 24 * 3600
    abandoned = store_dir / ("0" * 32 + STORE_SUFFIX)
    abandoned.write_bytes(b"")
    unrelated = store_dir / "notes.txt"
    unrelated.write_text("kept")
    for path in (abandoned, unrelated):
        os.utime(path, (1_000, os.stat(path).st_mtime - month))
    assert build(root, store_dir).statistics.restored == SOURCES
    assert sorted(p.name for p in store_dir.iterdir()) == sorted([used.name, unrelated.name])


def test_two_servers_filling_one_store_at_once(
    root: Path, store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # two caches with their own store connections: two worker processes of one server
    expected = graph(build(root, None))
    with caplog.at_level(logging.WARNING), ThreadPoolExecutor(2) as pool:
        built = list(pool.map(lambda _: build(root, store_dir), range(2)))
    assert [graph(index) for index in built] == [expected, expected]
    assert caplog.text == ""
    after = build(root, store_dir)
    assert (after.statistics.parsed, after.statistics.restored) == (0, SOURCES)
    assert graph(after) == expected


def test_without_a_store_nothing_is_written(root: Path, tmp_path: Path) -> None:
    before = {str(p) for p in tmp_path.rglob("*")}
    assert build(root, None).statistics.parsed == SOURCES
    assert build(root, None).statistics.parsed == SOURCES
    assert {str(p) for p in tmp_path.rglob("*")} == before


COMMAND = Path(sys.executable).with_name("context-server")


async def _serve_once(root: Path, log_file: Path, *flags: str) -> dict[str, list[str]]:
    """Start the real server, ask for the project tree, stop it; each file's dependencies."""
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["--allowed-dir", str(root), "--log-file", str(log_file), *flags],
        cwd=str(root),
    )
    async with Client(params) as client:
        tree = await client.call_tool("project_tree", {"path": ".", "format": "json"})
        assert not tree.is_error
        assert tree.structured_content is not None
        nodes = tree.structured_content["nodes"]
        return {node["path"]: node["dependencies"] for node in nodes if node["type"] == "file"}


def _index_line(log_file: Path) -> str:
    (line,) = [line for line in log_file.read_text().splitlines() if "indexed " in line]
    return line.split("indexed ", 1)[1]


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_restarted_server_answers_from_the_store(
    root: Path, store_dir: Path, tmp_path: Path
) -> None:
    assert COMMAND.is_file(), f"{COMMAND} is not installed; run uv sync"
    before = snapshot(root)
    flag = ("--index-store-dir", str(store_dir))
    logs = [tmp_path / f"server{n}.log" for n in range(5)]
    first = await _serve_once(root, logs[0], *flag)
    assert _index_line(logs[0]).endswith(
        f": {SOURCES} files parsed, 0 reused, 0 restored from the index store, graph rebuilt, "
        "0 skipped"
    )
    assert first["src/app/Main.java"] == ["src/app/Helper.java", "src/app/Service.java"]
    second = await _serve_once(root, logs[1], *flag)
    assert second == first
    assert _index_line(logs[1]).endswith(
        f": 0 files parsed, 0 reused, {SOURCES} restored from the index store, graph restored, "
        "0 skipped"
    )
    (root / "src/app/Repository.java").write_text(
        "package app;\nclass Repository { Helper helper; }\n", encoding="utf-8"
    )
    third = await _serve_once(root, logs[2], *flag)
    assert third["src/app/Repository.java"] == ["src/app/Helper.java"]
    assert {k: v for k, v in third.items() if k != "src/app/Repository.java"} == {
        k: v for k, v in first.items() if k != "src/app/Repository.java"
    }
    assert _index_line(logs[2]).endswith(
        f": 1 files parsed, 0 reused, {SOURCES - 1} restored from the index store, "
        "graph rebuilt, 0 skipped"
    )
    assert snapshot(root) == before, "the server wrote inside the project"
    # disabled: nothing read from the store, nothing written to it
    written = store_file(store_dir).stat().st_mtime_ns
    await _serve_once(root, logs[3], *flag, "--no-index-store")
    assert f": {SOURCES} files parsed, 0 reused, 0 restored" in _index_line(logs[3])
    assert store_file(store_dir).stat().st_mtime_ns == written
    # a store made unreadable is ignored with a warning on the log, the answer still right
    store_file(store_dir).write_bytes(b"\0garbage" * 512)
    fifth = await _serve_once(root, logs[4], *flag)
    assert fifth == third
    assert "WARNING context_server.core.store: index store file" in logs[4].read_text()


def test_a_store_directory_inside_an_allowed_directory_is_refused_at_startup(
    tmp_path: Path,
) -> None:
    """As the README says: a usage error (exit status 2) naming the flag, the directory as
    given and the project it lies in; nothing is created there."""
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "context-server"),
            "--allowed-dir",
            "project",
            "--index-store-dir",
            "project/.store",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )

    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("usage: context-server")
    assert lines[-1] == (
        f"context-server: error: --index-store-dir project/.store lies inside the allowed "
        f"directory {project.resolve()}: choose a directory outside every project, or "
        "--no-index-store"
    )
    assert not (project / ".store").exists()
