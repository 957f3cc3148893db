"""Warm answers are never stale: a change is seen by the next call, which lists again only
the directories the watches named (no walk of the tree), and falls back to a walk, with the
reason logged once, when the watches cannot be trusted (an overflowed queue, no inotify, a
watch limit reached)."""

from __future__ import annotations

import logging
import mmap
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import write_project
from context_server.core.index import (
    IndexCache,
    ProjectIndex,
    SourceChangedError,
    changed_sources_read_empty,
)
from context_server.core.service import ContextService
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common import AllowedPaths, ToolError

FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; }\n",
    "src/app/Service.java": "package app;\nclass Service { Repository repository; }\n",
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/model/Order.java": "package model;\npublic class Order {}\n",
    "lib/util.py": "from lib.model import Model\n\ndef make():\n    return Model()\n",
    "lib/model.py": "class Model:\n    pass\n",
    "lib/__init__.py": "",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", FILES)


class Session:
    """One server's service and cache over ``root``, as calls after calls see it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.service = ContextService(AllowedPaths([root]), IndexCache())

    def index(self) -> ProjectIndex:
        return self.service.index(str(self.root))

    def graph(self) -> dict[str, list[str]]:
        index = self.index()
        return {path: sorted(index.resolver.direct(path).files) for path in index.sources}


def fresh_graph(root: Path) -> dict[str, list[str]]:
    """What a new server (a walk from scratch) answers."""
    return Session(root).graph()


def listed(index: ProjectIndex) -> list[str]:
    return [item.relative for item in index.listing.files]


def test_nothing_changed_means_nothing_walked(root: Path) -> None:
    session = Session(root)
    first = session.index()
    assert first.statistics.walked
    second = session.index()
    assert not second.statistics.walked
    assert (second.statistics.parsed, second.statistics.relisted) == (0, 0)
    assert second.listing is first.listing
    assert second.resolver is first.resolver


def test_an_edit_is_seen_by_the_next_call(root: Path) -> None:
    session = Session(root)
    assert session.graph()["src/app/Repository.java"] == []
    (root / "src/app/Repository.java").write_text(
        "package app;\nclass Repository { model.Order order; }\n", encoding="utf-8"
    )
    index = session.index()
    assert not index.statistics.walked
    assert (index.statistics.parsed, index.statistics.relisted) == (1, 1)
    assert index.resolver.direct("src/app/Repository.java").files == ("src/model/Order.java",)
    assert session.graph() == fresh_graph(root)


def test_an_edit_keeping_size_and_mtime_is_seen(root: Path) -> None:
    """Only the event tells: the stat a cache keys on is the same before and after."""
    session = Session(root)
    session.index()
    target = root / "src/app/Main.java"
    before = target.stat()
    text = target.read_text(encoding="utf-8")
    changed = text.replace("Service service", "Repository serv")
    assert len(changed.encode()) == len(text.encode())
    target.write_text(changed, encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    graph = session.graph()
    assert graph["src/app/Main.java"] == ["src/app/Repository.java"]
    assert graph == fresh_graph(root)


def test_added_files_and_directories_are_seen(root: Path) -> None:
    session = Session(root)
    session.index()
    write_project(
        root,
        {
            "src/app/Audit.java": "package app;\nclass Audit { Main main; }\n",
            "src/billing/deep/er/Invoice.java": (
                "package billing.deep.er;\npublic class Invoice { model.Order order; }\n"
            ),
        },
    )
    index = session.index()
    assert not index.statistics.walked
    assert "src/billing/deep/er/Invoice.java" in index.sources
    assert index.resolver.direct("src/app/Audit.java").files == ("src/app/Main.java",)
    assert session.service.find_target(index, "Invoice").path == (
        "src/billing/deep/er/Invoice.java"
    )
    # a file added to the new directory after it was listed: its watch is in place
    (root / "src/billing/deep/er/Tax.java").write_text(
        "package billing.deep.er;\nclass Tax { Invoice invoice; }\n", encoding="utf-8"
    )
    assert session.graph() == fresh_graph(root)
    assert session.graph()["src/billing/deep/er/Tax.java"] == ["src/billing/deep/er/Invoice.java"]


def test_deleted_files_and_directories_are_gone(root: Path) -> None:
    session = Session(root)
    session.index()
    (root / "src/app/Repository.java").unlink()
    shutil.rmtree(root / "lib")
    index = session.index()
    assert not index.statistics.walked
    assert sorted(index.sources) == [
        "src/app/Main.java",
        "src/app/Service.java",
        "src/model/Order.java",
    ]
    assert index.resolver.direct("src/app/Service.java").files == ()
    with pytest.raises(ToolError, match="class not found"):
        session.service.find_target(index, "Repository")
    assert session.graph() == fresh_graph(root)


def test_renamed_files_and_directories_are_followed(root: Path) -> None:
    session = Session(root)
    session.index()
    (root / "src/app/Repository.java").rename(root / "src/app/Store.java")
    (root / "src/model").rename(root / "src/domain")
    index = session.index()
    assert not index.statistics.walked
    assert "src/app/Store.java" in index.sources
    assert "src/domain/Order.java" in index.sources
    assert not any(path.startswith("src/model/") for path in listed(index))
    assert index.resolver.direct("src/app/Service.java").files == ("src/app/Store.java",)
    # the moved directory is still watched under its new name
    (root / "src/domain/Line.java").write_text(
        "package model;\nclass Line { Order order; }\n", encoding="utf-8"
    )
    assert session.graph()["src/domain/Line.java"] == ["src/domain/Order.java"]
    assert session.graph() == fresh_graph(root)
    # a directory moved out of the project and another moved in under the same name
    outside = root.parent / "elsewhere"
    (root / "src/domain").rename(outside)
    write_project(root.parent / "incoming", {"Other.java": "package model;\nclass Other {}\n"})
    (root.parent / "incoming").rename(root / "src/domain")
    assert sorted(p for p in listed(session.index()) if p.startswith("src/domain/")) == [
        "src/domain/Other.java"
    ]
    (outside / "Order.java").write_text("package model;\nclass Order { int x; }\n")
    assert session.graph() == fresh_graph(root)


def test_a_gitignore_change_is_followed(root: Path) -> None:
    session = Session(root)
    assert "lib/util.py" in listed(session.index())
    (root / ".gitignore").write_text("lib/\n", encoding="utf-8")
    index = session.index()
    assert not any(path.startswith("lib/") for path in listed(index))
    (root / ".gitignore").write_text("", encoding="utf-8")
    assert "lib/util.py" in listed(session.index())
    # a build file appearing beside a `target` folder makes it build output
    write_project(root, {"target/Gen.java": "class Gen {}"})
    assert "target/Gen.java" in listed(session.index())
    write_project(root, {"pom.xml": "<project/>"})
    assert "target/Gen.java" not in listed(session.index())
    assert session.graph() == fresh_graph(root)


def git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_a_branch_switch_is_followed(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src/app/Repository.java").write_text(
        "package app;\nclass Repository { model.Order order; }\n", encoding="utf-8"
    )
    write_project(root, {"src/feature/Flag.java": "package feature;\npublic class Flag {}\n"})
    (root / "lib/model.py").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    session = Session(root)
    on_feature = session.graph()
    assert "src/feature/Flag.java" in on_feature
    git(root, "checkout", "-q", "main")
    on_main = session.graph()
    assert "src/feature/Flag.java" not in on_main
    assert on_main["src/app/Repository.java"] == []
    assert on_main["lib/util.py"] == ["lib/model.py"]
    assert on_main == fresh_graph(root)
    git(root, "checkout", "-q", "feature")
    assert session.graph() == on_feature == fresh_graph(root)


def test_an_overflowed_queue_walks_again_and_says_so_once(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """More events than the kernel queues (fs.inotify.max_queued_events) between calls."""
    queued = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    session = Session(root)
    session.index()
    caplog.set_level(logging.INFO, logger="context_server")
    for round_ in range(2):
        for n in range(queued + 100):
            (root / f"noise{round_}-{n}.txt").touch()
        (root / "src/app/Main.java").write_text(
            f"package app;\nclass Main {{ Repository r{round_}; }}\n", encoding="utf-8"
        )
        index = session.index()
        assert index.statistics.walked
        assert index.resolver.direct("src/app/Main.java").files == ("src/app/Repository.java",)
        assert session.graph() == fresh_graph(root)
        assert not session.index().statistics.walked  # watched again after the walk
    said = [r for r in caplog.records if "event queue overflowed" in r.getMessage()]
    assert len(said) == 1


def test_a_change_without_an_event_is_found_by_the_verification_walk(root: Path) -> None:
    """A write through mmap sends no inotify event; the bounded verification finds it."""
    session = Session(root)
    session.index()
    target = root / "src/app/Main.java"
    before = target.stat().st_mtime_ns
    time.sleep(0.02)
    # (kept open: closing a file opened for writing is an event of its own)
    with target.open("r+b") as handle, mmap.mmap(handle.fileno(), 0) as mapped:
        at = mapped.find(b"Service service")
        mapped[at : at + 15] = b"Repository    r"
        mapped.flush()
        assert target.stat().st_mtime_ns != before
        stale = session.index()
        assert stale.resolver.direct("src/app/Main.java").files == ("src/app/Service.java",)
        assert session.service.cache.verify(root, session.service.allowed) == 1
        index = session.index()
        assert index.resolver.direct("src/app/Main.java").files == ("src/app/Repository.java",)
        assert session.graph() == fresh_graph(root)


def test_a_tree_changing_during_calls_settles_to_the_right_answer(root: Path) -> None:
    session = Session(root)
    session.index()
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            folder = root / "src" / f"churn{n % 3}"
            if folder.exists():
                shutil.rmtree(folder)
            else:
                write_project(
                    folder,
                    {
                        f"C{k}.java": f"package churn;\nclass C{k} {{ C{k + 1} next; }}\n"
                        for k in range(5)
                    },
                )
            (root / "src/app/Main.java").write_text(
                f"package app;\nclass Main {{ Service s{n}; }}\n", encoding="utf-8"
            )
            n += 1

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        deadline = time.monotonic() + 3
        calls = 0
        while time.monotonic() < deadline:
            session.graph()
            calls += 1
    finally:
        stop.set()
        worker.join()
    assert calls > 1
    assert session.graph() == fresh_graph(root)


def test_a_source_gone_after_it_was_listed_is_a_change_never_read_through(root: Path) -> None:
    """What a call meets when the tree changes under it: the file its index listed is gone,
    or is now a symlink to a file outside. Either is a change (the call is answered again,
    see tools/settle.py), and the last answer reads it as empty: never the outside file."""
    session = Session(root)
    index = session.index()
    target = root / "src/app/Repository.java"
    target.unlink()
    with pytest.raises(SourceChangedError, match=r"src/app/Repository\.java: does not exist"):
        session.service.text(index, "src/app/Repository.java")
    with changed_sources_read_empty():
        assert session.service.text(index, "src/app/Repository.java") == ""
    secret = root.parent / "secret.txt"
    secret.write_text("class Repository { String secret = 'SECRET'; }", encoding="utf-8")
    target.symlink_to(secret)
    with pytest.raises(SourceChangedError):
        session.service.text(index, "src/app/Repository.java")
    with changed_sources_read_empty():
        assert session.service.text(index, "src/app/Repository.java") == ""
    # the next index follows the change: the symlink leads out, so it is a problem, not a source
    fresh = session.index()
    assert "src/app/Repository.java" not in fresh.sources
    assert {(p.path, p.reason) for p in fresh.problems} == {
        ("src/app/Repository.java", "symlink leads outside the allowed directories")
    }


# The server as a real process: limits set inside a user namespace of its own (the
# kernel's inotify limits are per user namespace), permissions checked as a plain user.
COMMAND = Path(sys.executable).with_name("context-server")


def _namespaces_work() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run(
        [
            unshare,
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            "echo 1 > /proc/sys/user/max_inotify_watches",
        ],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(
    not _namespaces_work(), reason="user namespaces (unshare --user) are not available here"
)


def _in_namespace(limit: str, value: int) -> list[str]:
    """``unshare`` running the server with the inotify ``limit`` of its namespace set."""
    script = f'echo {value} > /proc/sys/user/{limit} && exec "$0" "$@"'
    return ["unshare", "--user", "--map-root-user", "sh", "-c", script, str(COMMAND)]


async def _session_over_stdio(
    command: list[str], root: Path, log_file: Path, steps: list[Callable[[], None]]
) -> list[tuple[dict[str, list[str]], dict[str, str]]]:
    """Start the server with ``command``, ask for the tree, then after each step again:
    each answer's files with their dependencies, and its problems."""
    params = StdioServerParameters(
        command=command[0],
        args=[
            *command[1:],
            "--allowed-dir",
            str(root),
            "--log-file",
            str(log_file),
            "--no-index-store",
        ],
        cwd=str(root),
    )
    answers = []
    async with Client(params) as client:
        for step in [lambda: None, *steps]:
            step()
            tree = await client.call_tool("project_tree", {"path": ".", "format": "json"})
            assert not tree.is_error, tree
            content = tree.structured_content
            assert content is not None
            files = {n["path"]: n["dependencies"] for n in content["nodes"] if n["type"] == "file"}
            answers.append((files, {p["path"]: p["reason"] for p in content["problems"]}))
    return answers


def _edit(root: Path) -> Callable[[], None]:
    def step() -> None:
        (root / "src/app/Repository.java").write_text(
            "package app;\nclass Repository { model.Order order; }\n", encoding="utf-8"
        )
        write_project(root, {"src/extra/deeper/Extra.java": "package x;\nclass Extra {}\n"})

    return step


def _tree_graph(root: Path) -> dict[str, list[str]]:
    index = Session(root).index()
    return {
        item.relative: sorted(index.resolver.direct(item.relative).files)
        for item in index.listing.files
    }


@pytest.mark.e2e
@pytest.mark.anyio
@needs_namespaces
@pytest.mark.parametrize(
    ("limit", "value", "reason"),
    [
        ("max_inotify_instances", 0, "no inotify instance left"),
        ("max_inotify_watches", 3, "fs.inotify.max_user_watches) is reached"),
    ],
)
async def test_without_usable_watches_answers_stay_right_and_the_reason_is_logged_once(
    root: Path, tmp_path: Path, limit: str, value: int, reason: str
) -> None:
    log_file = tmp_path / "server.log"
    answers = [
        files
        for files, _ in await _session_over_stdio(
            _in_namespace(limit, value), root, log_file, [_edit(root), lambda: None, _edit(root)]
        )
    ]
    assert answers[1] == answers[2] == answers[3] == _tree_graph(root)
    assert answers[1]["src/app/Repository.java"] == ["src/model/Order.java"]
    assert "src/extra/deeper/Extra.java" in answers[1]
    logged = log_file.read_text()
    assert logged.count(reason) == 1, logged
    assert "the project is walked on every call" in logged
    assert logged.count("(walked)") == 2  # the first call and the one after the edit


@pytest.mark.e2e
@pytest.mark.anyio
@needs_namespaces
async def test_an_unreadable_directory_is_reported_then_followed_once_readable(
    tmp_path: Path,
) -> None:
    """As a plain user (root reads everything): a directory without permissions is a
    problem in the answer, never a hang; made readable, its files appear on the next call."""
    root = write_project(tmp_path / "proj", FILES)
    locked = root / "src" / "model"
    locked.chmod(0)
    log_file = tmp_path / "server.log"
    command = ["unshare", "--user", "--map-user=1000", "--map-group=1000", str(COMMAND)]
    try:
        answers = await _session_over_stdio(
            command, root, log_file, [lambda: None, lambda: locked.chmod(0o755)]
        )
    finally:
        locked.chmod(0o755)
    (locked_files, locked_problems), again, (files, problems) = answers
    assert "src/model/Order.java" not in locked_files
    assert locked_problems == {"src/model": "unreadable directory: Permission denied"}
    assert again == (locked_files, locked_problems)
    assert files["src/model/Order.java"] == []
    assert problems == {}
    assert files == _tree_graph(root)
    logged = log_file.read_text()
    # walked once, on the first call: the permission change came as an event
    assert logged.count("(walked)") == 1
    # the reason logged once, though two answers listed it
    assert logged.count("src/model: unreadable directory: Permission denied") == 1, logged
