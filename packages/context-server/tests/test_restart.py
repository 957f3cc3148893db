"""A restarted server reads its listing back from the index store instead of walking, trusts
a directory only while its stat is the one stored, and sees every change made while no
server ran; a stored listing is untrusted input (issue 26: restart from the store)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from conftest import write_project
from context_server.core.index import IndexCache, ProjectIndex
from context_server.core.languages import LANGUAGES
from context_server.core.store import STORE_SUFFIX, IndexStore
from mcp_common import AllowedPaths

FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; Helper helper; }\n",
    "src/app/Service.java": "package app;\nclass Service { Repository repository; }\n",
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/app/Helper.java": "package app;\nclass Helper {}\n",
    "src/app/model/Item.java": "package app.model;\nclass Item {}\n",
    "src/app/model/Order.java": "package app.model;\nclass Order { Item item; }\n",
    "lib/util.py": "from lib.model import Model\n\ndef make():\n    return Model()\n",
    "lib/model.py": "class Model:\n    pass\n",
    "lib/__init__.py": "",
    "docs/notes.txt": "notes\n",
    ".gitignore": "*.log\n",
}
HOUR = 3600 * 1_000_000_000


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", FILES)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "context-server"


def age(root: Path) -> None:
    """Date every entry an hour back: nothing was modified just before it was listed."""
    past = time.time_ns() - HOUR
    for path in [*root.rglob("*"), root]:
        os.utime(path, ns=(past, past), follow_symlinks=False)


def build(root: Path, store_dir: Path | None) -> ProjectIndex:
    """The first build of a newly started server (a fresh cache over the store)."""
    store = IndexStore(store_dir, outside=[root]) if store_dir is not None else None
    return IndexCache(store).build(root, LANGUAGES, AllowedPaths([root]), boundary=root)


def seen(index: ProjectIndex) -> dict[str, object]:
    """Everything an answer is made of: the tree, every file's stat, the problems, the graph."""
    nodes: list[tuple[str, str]] = []
    stack = [index.listing.root]
    while stack:
        node = stack.pop()
        nodes.append(("dir", node.relative))
        nodes.extend(("file", item.relative) for item in node.files)
        stack.extend(reversed(node.directories))
    return {
        "nodes": nodes,
        "files": [(i.relative, i.real, i.size, i.mtime_ns) for i in index.listing.files],
        "problems": sorted((p.path, p.reason) for p in index.problems),
        "graph": {path: index.resolver.direct(path).files for path in index.sources},
    }


def store_file(store_dir: Path) -> Path:
    (found,) = store_dir.glob("*" + STORE_SUFFIX)
    return found


def test_an_unchanged_tree_is_read_back_not_walked(root: Path, store_dir: Path) -> None:
    age(root)
    first = build(root, store_dir)
    assert first.statistics.walked
    again = build(root, store_dir)
    stats = again.statistics
    assert (stats.walked, stats.listing_restored, stats.relisted) == (False, True, 0)
    assert (stats.parsed, stats.restored, stats.graph_restored) == (0, len(first.sources), True)
    assert seen(again) == seen(first) == seen(build(root, None))


def _edit_in_place(root: Path) -> None:
    # the same size, another name: only the file's own stat shows it
    target = root / "src/app/Helper.java"
    text = target.read_text().replace("class Helper {}", "class Helper { Item i; }")
    target.write_text(text.replace("package app;", "package app; import app.model.Item;"))


def _gitignore_in_place(root: Path) -> None:
    with (root / ".gitignore").open("a") as handle:
        handle.write("docs/\n")


def _directory_renamed(root: Path) -> None:
    (root / "src/app/model").rename(root / "src/app/domain")


def _new_nested_directories(root: Path) -> None:
    write_project(root, {"src/app/deep/er/Deep.java": "package app.deep.er;\nclass Deep {}\n"})


def _file_deleted(root: Path) -> None:
    (root / "src/app/Repository.java").unlink()


def _directory_deleted(root: Path) -> None:
    shutil.rmtree(root / "lib")


def _file_became_directory(root: Path) -> None:
    (root / "docs/notes.txt").unlink()
    write_project(root, {"docs/notes.txt/Inner.java": "class Inner {}\n"})


def _directory_became_symlink_outside(root: Path) -> None:
    outside = write_project(root.parent / "outside", {"Secret.java": "class Secret {}\n"})
    shutil.rmtree(root / "src/app/model")
    (root / "src/app/model").symlink_to(outside, target_is_directory=True)


CHANGES: dict[str, Callable[[Path], None]] = {
    "file edited in place": _edit_in_place,
    ".gitignore edited in place": _gitignore_in_place,
    "directory renamed": _directory_renamed,
    "new nested directories": _new_nested_directories,
    "file deleted": _file_deleted,
    "directory deleted": _directory_deleted,
    "file became a directory": _file_became_directory,
    "directory became a symlink out of the project": _directory_became_symlink_outside,
}


@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
def test_a_change_made_while_no_server_ran_is_seen(
    root: Path, store_dir: Path, change: str
) -> None:
    age(root)
    before = seen(build(root, store_dir))
    CHANGES[change](root)
    restarted = build(root, store_dir)
    assert restarted.statistics.listing_restored
    # a file edited in place leaves its directory as it was: only the file is read again
    if change == "file edited in place":
        assert (restarted.statistics.relisted, restarted.statistics.parsed) == (0, 1)
    else:
        assert restarted.statistics.relisted > 0
    truth = seen(build(root, None))
    assert seen(restarted) == truth
    assert truth != before
    assert all("outside" not in item.real for item in restarted.listing.files)
    # what the restart found was stored in its turn
    assert seen(build(root, store_dir)) == truth


def test_a_gitignore_above_the_project_changed_means_a_walk(tmp_path: Path) -> None:
    top = write_project(
        tmp_path / "top", {".gitignore": "", **{f"proj/{k}": v for k, v in FILES.items()}}
    )
    store_dir = tmp_path / "cache"
    root = top / "proj"
    age(top)

    def start() -> ProjectIndex:
        store = IndexStore(store_dir, outside=[top])
        return IndexCache(store).build(root, LANGUAGES, AllowedPaths([top]), boundary=top)

    start()
    (top / ".gitignore").write_text("proj/docs/\n")
    restarted = start()
    assert restarted.statistics.walked
    assert "docs/notes.txt" not in {item.relative for item in restarted.listing.files}


def test_directories_changed_just_before_their_listing_are_listed_again(
    root: Path, store_dir: Path
) -> None:
    """A change in the same clock tick as a directory's listing leaves its stat as stored:
    a directory modified within two seconds of its listing is never trusted by its stat,
    nor a file's content by its stat (git's racy-clean entries)."""
    first = build(root, store_dir)  # everything was written just now
    directories = len(first.listing.directories)
    restarted = build(root, store_dir)
    assert restarted.statistics.relisted == directories
    assert seen(restarted) == seen(first)


# A stored listing is untrusted input ------------------------------------------------------


def _tamper(store_dir: Path, edit: Callable[[list[object]], None]) -> None:
    with sqlite3.connect(store_file(store_dir)) as connection:
        (blob,) = connection.execute("SELECT listing FROM listings").fetchone()
        stored = msgspec.msgpack.decode(blob)
        edit(stored)
        connection.execute("UPDATE listings SET listing = ?", (msgspec.msgpack.encode(stored),))


def _directory_entry(stored: list[object], position: int) -> list[object]:
    directories = stored[1]
    assert isinstance(directories, list)
    entry = directories[position]
    assert isinstance(entry, list)
    return entry


@pytest.mark.parametrize(
    ("forged", "names"),
    [
        ("a file that is not there", ["Ghost.java"]),
        ("a path out of the directory", ["../../outside/Secret.java"]),
        ("a line break into an answer", ["Evil.java\n# injected heading"]),
        ("a name twice", ["Main.java", "Main.java"]),
    ],
)
def test_forged_names_never_reach_an_answer(
    root: Path, store_dir: Path, forged: str, names: list[str]
) -> None:
    age(root)
    build(root, store_dir)
    truth = seen(build(root, None))

    def forge(stored: list[object]) -> None:
        # the root comes first; its files are the entry's last field
        files = _directory_entry(stored, 0)[5]
        assert isinstance(files, list)
        files.extend(names)

    _tamper(store_dir, forge)
    restarted = build(root, store_dir)
    assert seen(restarted) == truth


def test_a_forged_subdirectory_is_listed_as_it_is(root: Path, store_dir: Path) -> None:
    age(root)
    build(root, store_dir)
    truth = seen(build(root, None))

    def forge(stored: list[object]) -> None:
        directories = stored[1]
        assert isinstance(directories, list)
        first = _directory_entry(stored, 0)
        first[4] = ["aaa", *first[4]]  # type: ignore[misc]
        # the made-up directory's own entry follows its parent's (pre-order)
        directories.insert(1, [first[0], None, first[2], None, [], ["Made.java"]])

    _tamper(store_dir, forge)
    assert seen(build(root, store_dir)) == truth


@pytest.mark.parametrize("blob", [b"", b"\x93\x90", b"\xdd\xff\xff\xff\xff" + b"\x90" * 32])
def test_a_malformed_listing_means_a_walk(root: Path, store_dir: Path, blob: bytes) -> None:
    age(root)
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute("UPDATE listings SET listing = ?", (blob,))
    restarted = build(root, store_dir)
    assert restarted.statistics.walked
    assert seen(restarted) == seen(build(root, None))


def test_an_oversized_listing_is_never_read(root: Path, store_dir: Path) -> None:
    age(root)
    build(root, store_dir)
    with sqlite3.connect(store_file(store_dir)) as connection:
        connection.execute("UPDATE listings SET listing = zeroblob(80000000)")
    tracemalloc.start()
    try:
        restarted = build(root, store_dir)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30_000_000, f"{peak} bytes held while reading the store"
    assert restarted.statistics.walked
    assert seen(restarted) == seen(build(root, None))


def _add_file(name: str) -> Callable[[Path, list[object]], None]:
    def forge(root: Path, stored: list[object]) -> None:
        files = _directory_entry(stored, 0)[5]
        assert isinstance(files, list)
        files[:] = sorted({*files, name}, key=lambda found: found.encode("utf-16-be"))

    return forge


def _add_directory(name: str, files: list[str]) -> Callable[[Path, list[object]], None]:
    """The root names ``name``, and ``name``'s own entry, with its true stat, follows the
    root's (pre-order) in the place a walk would give it."""

    def forge(root: Path, stored: list[object]) -> None:
        top = _directory_entry(stored, 0)
        names = top[4]
        assert isinstance(names, list)
        names[:] = sorted({*names, name}, key=lambda found: found.encode("utf-16-be"))
        info = os.lstat(root / name)
        entry = [[info.st_mtime_ns, info.st_ctime_ns, info.st_ino], None, top[2], None, [], files]
        directories = stored[1]
        assert isinstance(directories, list)
        # the sub-directories before it in the root's order, with everything below them
        before = names.index(name)
        position = 1
        for _ in range(before):
            depth = 1
            while depth:
                sub = directories[position]
                assert isinstance(sub, list)
                depth += len(sub[4]) - 1
                position += 1
        directories.insert(position, entry)

    return forge


def _drop_ignore_lines(root: Path, stored: list[object]) -> None:
    _directory_entry(stored, 0)[3] = []  # the root's .gitignore said "*.log"
    _add_file("secret.log")(root, stored)


@pytest.mark.parametrize(
    ("forged", "forge"),
    [
        ("an ignored file that is there", _add_file("secret.log")),
        ("the .git directory", _add_directory(".git", ["config"])),
        ("a dependency folder", _add_directory("node_modules", [])),
        ("build output beside a build file", _add_directory("target", ["Generated.java"])),
        ("the root's .gitignore lines emptied", _drop_ignore_lines),
    ],
)
def test_a_forged_listing_never_shows_what_a_walk_leaves_out(
    root: Path, store_dir: Path, forged: str, forge: Callable[[Path, list[object]], None]
) -> None:
    """Entries a walk skips (ignored, version control, dependencies, build output) exist
    in the tree; a store naming them, or holding other ignore lines, changes nothing."""
    write_project(
        root,
        {
            "secret.log": "password=hunter2\n",
            ".git/config": "[remote]\nurl = https://token@example.invalid/x\n",
            ".git/Hooks.java": "class Hooks {}\n",
            "node_modules/dep/Dep.java": "class Dep {}\n",
            "pom.xml": "<project/>\n",
            "target/Generated.java": "class Generated {}\n",
        },
    )
    age(root)
    build(root, store_dir)
    truth = seen(build(root, None))
    _tamper(store_dir, lambda stored: forge(root, stored))
    restarted = build(root, store_dir)
    assert restarted.statistics.listing_restored or restarted.statistics.walked
    assert seen(restarted) == truth
    names = {item.relative for item in restarted.listing.files}
    assert not names & {"secret.log", ".git/config", "node_modules/dep/Dep.java"}
    # what the restart stored in its turn is the truth again
    assert seen(build(root, store_dir)) == truth


def _stored_listing(store_dir: Path) -> bytes:
    with sqlite3.connect(store_file(store_dir)) as connection:
        (blob,) = connection.execute("SELECT listing FROM listings").fetchone()
    assert isinstance(blob, bytes)
    return blob


def test_a_directory_listed_again_to_the_same_names_is_not_stored_again(
    root: Path, store_dir: Path
) -> None:
    """A directory holding a symlink cannot be trusted by its stat, so every restart lists
    it again; finding what was stored, the restart leaves the store as it was (writing
    the whole listing back costs a monorepo's restart seconds)."""
    (root / "src/app/link").symlink_to(root / "lib", target_is_directory=True)
    age(root)
    first = build(root, store_dir)
    stored = _stored_listing(store_dir)
    again = build(root, store_dir)
    assert (again.statistics.listing_restored, again.statistics.relisted) == (True, 1)
    assert seen(again) == seen(first)
    assert _stored_listing(store_dir) == stored
    # a change there is stored
    write_project(root, {"src/app/Added.java": "package app;\nclass Added {}\n"})
    age(root)
    changed = build(root, store_dir)
    assert "src/app/Added.java" in {item.relative for item in changed.listing.files}
    assert _stored_listing(store_dir) != stored
    assert seen(build(root, store_dir)) == seen(changed)
