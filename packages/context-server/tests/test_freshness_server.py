"""What a client of the real server sees while the tree changes under it (issue 26): every
answer after a change (an edit, a file or directory added, deleted or renamed, a branch
switch, more events than the kernel queues, changes made while a call runs) is the answer a
server started afresh gives, on the very next call, without walking the tree again; two
servers sharing one tree and one index store at once both stay right and leave the store
sound for the next one."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import call, tools_for, write_project
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

COMMAND = Path(sys.executable).with_name("context-server")
# a call never takes this long on a tree of this size: past it, the server hangs
CALL_SECONDS = 60.0

FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; }\n",
    "src/app/Service.java": "package app;\nclass Service { Repository repository; }\n",
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/model/Order.java": "package model;\npublic class Order {}\n",
    "lib/util.py": "from lib.model import Model\n\ndef make():\n    return Model()\n",
    "lib/model.py": "class Model:\n    pass\n",
    "lib/__init__.py": "",
}

# the questions asked after every change: each tool, about the classes the changes touch
QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("project_tree", {"path": ".", "format": "json"}),
    ("find_context", {"path": ".", "className": "Order"}),
    ("find_usages", {"path": ".", "className": "Order"}),
    ("find_context", {"path": ".", "className": "Repository"}),
    ("repo_map", {"path": "."}),
]


def answer_of(is_error: bool, text: str, structured: dict[str, Any] | None) -> object:
    """What a client reads: an error's text, or the structured answer."""
    return ("error", text) if is_error else structured


def fresh_answers(root: Path) -> list[object]:
    """What a server that never saw the tree before answers (in this process, no store)."""
    tools = tools_for(root)
    answers = []
    for name, arguments in QUESTIONS:
        result = call(tools[name], arguments)
        answers.append(answer_of(result.is_error, result.text, result.structured))
    return answers


class Served:
    """One real server process over stdio."""

    def __init__(self, client: Client, log_file: Path) -> None:
        self.client = client
        self.log_file = log_file

    async def answers(
        self, questions: list[tuple[str, dict[str, Any]]] = QUESTIONS
    ) -> list[object]:
        found = []
        for name, arguments in questions:
            with anyio.fail_after(CALL_SECONDS):
                result = await self.client.call_tool(name, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            text = text.removeprefix(f"{name} failed: ")  # the adapter names the tool
            found.append(answer_of(result.is_error, text, result.structured_content))
        return found

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8")


@asynccontextmanager
async def serve(root: Path, log_file: Path, *flags: str) -> AsyncIterator[Served]:
    assert COMMAND.is_file(), f"{COMMAND} is not installed; run uv sync"
    params = StdioServerParameters(
        command=str(COMMAND),
        args=["--allowed-dir", str(root), "--log-file", str(log_file), *flags],
        cwd=str(root),
    )
    async with Client(params) as client:
        yield Served(client, log_file)


def tree_of(answers: list[object]) -> dict[str, list[str]]:
    """The project_tree answer's files with their dependencies."""
    tree = answers[0]
    assert isinstance(tree, dict), tree
    return {n["path"]: n["dependencies"] for n in tree["nodes"] if n["type"] == "file"}


def users_of_order(answers: list[object]) -> list[str]:
    usages = answers[2]
    assert isinstance(usages, dict), usages
    return [user["path"] for user in usages["users"]]


def walks(log: str) -> int:
    """How many calls walked the whole tree (the others listed changed directories only)."""
    return sum("indexed " in line and "(walked)" in line for line in log.splitlines())


def git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", FILES)


def _edit(root: Path) -> None:
    (root / "src/app/Repository.java").write_text(
        "package app;\nclass Repository { model.Order order; }\n", encoding="utf-8"
    )


def _add(root: Path) -> None:
    write_project(
        root,
        {
            "src/billing/deep/Invoice.java": (
                "package billing.deep;\npublic class Invoice { model.Order order; }\n"
            ),
            "lib/orders.py": "from lib.model import Model\n",
        },
    )


def _delete(root: Path) -> None:
    (root / "src/app/Repository.java").unlink()
    (root / "lib/orders.py").unlink()


def _rename(root: Path) -> None:
    (root / "src/model").rename(root / "src/domain")
    (root / "src/app/Service.java").rename(root / "src/app/Services.java")


async def test_each_change_is_in_the_next_answer_without_a_walk(root: Path, tmp_path: Path) -> None:
    store = ("--index-store-dir", str(tmp_path / "store"))
    async with serve(root, tmp_path / "server.log", *store) as server:
        first = await server.answers()
        assert first == fresh_answers(root)
        assert users_of_order(first) == []

        _edit(root)
        edited = await server.answers()
        assert users_of_order(edited) == ["src/app/Repository.java"]
        assert edited == fresh_answers(root)

        _add(root)
        added = await server.answers()
        assert tree_of(added)["src/billing/deep/Invoice.java"] == ["src/model/Order.java"]
        assert tree_of(added)["lib/orders.py"] == ["lib/model.py"]
        assert users_of_order(added) == ["src/app/Repository.java", "src/billing/deep/Invoice.java"]
        assert added == fresh_answers(root)

        _delete(root)
        deleted = await server.answers()
        assert "src/app/Repository.java" not in tree_of(deleted)
        assert "lib/orders.py" not in tree_of(deleted)
        assert tree_of(deleted)["src/app/Service.java"] == []
        assert deleted[3] == ("error", "class not found: Repository")
        assert deleted == fresh_answers(root)

        _rename(root)
        renamed = await server.answers()
        files = tree_of(renamed)
        assert not any(path.startswith("src/model/") for path in files)
        assert files["src/billing/deep/Invoice.java"] == ["src/domain/Order.java"]
        assert "src/app/Services.java" in files
        assert "src/app/Service.java" not in files
        assert renamed == fresh_answers(root)

        # a file written in the renamed directory: its watch moved with it
        write_project(root, {"src/domain/Line.java": "package model;\nclass Line { Order o; }\n"})
        assert tree_of(await server.answers())["src/domain/Line.java"] == ["src/domain/Order.java"]
        assert walks(server.log()) == 1, server.log()  # the first call only


async def test_a_branch_switch_is_in_the_next_answer(root: Path, tmp_path: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main")
    git(root, "checkout", "-q", "-b", "feature")
    _edit(root)
    _add(root)
    (root / "lib/model.py").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    async with serve(root, tmp_path / "server.log", "--no-index-store") as server:
        on_feature = await server.answers()
        assert users_of_order(on_feature) == [
            "src/app/Repository.java",
            "src/billing/deep/Invoice.java",
        ]
        assert on_feature == fresh_answers(root)
        git(root, "checkout", "-q", "main")
        on_main = await server.answers()
        assert users_of_order(on_main) == []
        assert "src/billing/deep/Invoice.java" not in tree_of(on_main)
        assert tree_of(on_main)["lib/util.py"] == ["lib/model.py"]
        assert on_main == fresh_answers(root)
        git(root, "checkout", "-q", "feature")
        assert await server.answers() == on_feature == fresh_answers(root)
        assert walks(server.log()) == 1, server.log()


async def test_an_overflowed_watch_queue_means_one_walk_and_one_log_line(
    root: Path, tmp_path: Path
) -> None:
    """More events than the kernel queues (fs.inotify.max_queued_events) between two calls:
    the next answer is still right (the tree is walked), and the reason is logged once."""
    queued = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    # watched directories (listed by the first call), after src/ (kept on the tree's first page)
    write_project(root, {f"z-noise{round_}/.keep": "" for round_ in range(2)})
    async with serve(root, tmp_path / "server.log", "--no-index-store") as server:
        await server.answers()
        for round_ in range(2):
            noise = root / f"z-noise{round_}"
            for n in range(queued + 100):
                (noise / f"{n}.txt").touch()
            (root / "src/app/Main.java").write_text(
                f"package app;\nclass Main {{ model.Order o{round_}; }}\n", encoding="utf-8"
            )
            answers = await server.answers()
            assert tree_of(answers)["src/app/Main.java"] == ["src/model/Order.java"]
            assert users_of_order(answers) == ["src/app/Main.java"]
            assert answers == fresh_answers(root)
        log = server.log()
    assert log.count("event queue overflowed") == 1, log
    assert walks(log) == 3, log  # the first call, and once after each overflow


async def test_a_tree_changing_while_calls_run_never_hangs_and_settles(
    root: Path, tmp_path: Path
) -> None:
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            folder = root / "src" / f"churn{n % 3}"
            if folder.exists():
                for child in folder.iterdir():
                    child.unlink()
                folder.rmdir()
            else:
                write_project(
                    folder,
                    {
                        f"C{k}.java": f"package churn;\nclass C{k} {{ model.Order o; }}\n"
                        for k in range(5)
                    },
                )
            (root / "src/app/Main.java").write_text(
                f"package app;\nclass Main {{ Service s{n}; }}\n", encoding="utf-8"
            )
            n += 1

    async with serve(root, tmp_path / "server.log", "--no-index-store") as server:
        await server.answers()
        worker = threading.Thread(target=churn)
        worker.start()
        rounds = 0
        try:
            with anyio.move_on_after(3):
                while True:
                    answers = await server.answers()  # each call bounded: a hang fails
                    assert not [
                        (QUESTIONS[n], a) for n, a in enumerate(answers) if isinstance(a, tuple)
                    ]
                    rounds += 1
        finally:
            stop.set()
            worker.join()
        settled = await server.answers()
        assert settled == fresh_answers(root)
        log = server.log()
    assert rounds >= 1
    assert log.count("the tree changed during a call") <= 1, log  # said once at most
    assert " WARNING " not in log, log  # no call failed
    assert " ERROR " not in log, log


async def test_two_servers_on_one_tree_and_one_store_at_once(root: Path, tmp_path: Path) -> None:
    """Two processes building, then following edits, at the same time through one store;
    a third started afterwards restores everything from it."""
    write_project(
        root,
        {
            f"src/gen/G{n}.java": f"package gen;\nclass G{n} {{ G{(n + 1) % 120} next; }}\n"
            for n in range(120)
        },
    )
    store = ("--index-store-dir", str(tmp_path / "store"))
    logs = [tmp_path / f"server{n}.log" for n in range(3)]
    async with (
        serve(root, logs[0], *store) as one,
        serve(root, logs[1], *store) as two,
    ):
        both: list[list[object]] = [[], []]

        async def ask(n: int, server: Served) -> None:
            both[n] = await server.answers()

        for change in (lambda: None, lambda: _edit(root), lambda: _add(root)):
            change()
            async with anyio.create_task_group() as group:
                group.start_soon(ask, 0, one)
                group.start_soon(ask, 1, two)
            expected = fresh_answers(root)
            assert both == [expected, expected]
        assert users_of_order(both[0]) == [
            "src/app/Repository.java",
            "src/billing/deep/Invoice.java",
        ]
    async with serve(root, logs[2], *store) as three:
        assert await three.answers() == fresh_answers(root)
    restored = [line for line in logs[2].read_text().splitlines() if "indexed " in line]
    assert restored[0].endswith(
        f": 0 files parsed, 0 reused, {len(tree_of(expected))} restored from the index "
        "store, graph restored, 0 skipped"
    ), restored
    for log_file in logs:
        log = log_file.read_text()
        assert " WARNING " not in log, log
        assert " ERROR " not in log, log


# Questions whose answers come from what the index derives and keeps (the type names, token
# counts, reverse edges, a nested declaration's own dependencies, the lines a member is
# named on, the tree, the map): asked before each edit, so that the next index carries
# those over (only what the edit changed is derived again), and after it.
DERIVED_FILES = {
    "src/app/Main.java": "package app;\nclass Main { Service service; Holder.Inner inner; }\n",
    "src/app/Service.java": (
        "package app;\nimport model.Order;\nclass Service { Order order; Repository r; }\n"
    ),
    "src/app/Repository.java": "package app;\nclass Repository {}\n",
    "src/app/Holder.java": (
        "package app;\nclass Holder {\n  static class Inner { Repository repository; }\n"
        "  static class Other { Service service; }\n}\n"
    ),
    "src/model/Order.java": (
        "package model;\npublic class Order {\n  int total() { return 1; }\n}\n"
    ),
}
DERIVED_QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("find_context", {"path": ".", "className": "Order", "includeSource": True}),
    ("find_context", {"path": ".", "className": "Service", "tokenizer": "heuristic"}),
    ("find_context", {"path": ".", "className": "Holder.Inner", "detail": "signatures"}),
    ("find_context", {"path": ".", "className": "Inside"}),
    ("find_usages", {"path": ".", "className": "Order"}),
    ("find_usages", {"path": ".", "className": "Holder.Inner"}),
    ("find_usages", {"path": ".", "className": "Order#total"}),
    ("find_usages", {"path": ".", "className": "Repository"}),
    ("project_tree", {"path": ".", "format": "json"}),
    ("repo_map", {"path": "."}),
]
EDITS: list[dict[str, str]] = [
    # a body: Service now uses Holder.Inner and grows (its token count changes)
    {
        "src/app/Service.java": (
            "package app;\nimport model.Order;\n"
            "class Service { Order order; Repository r; Holder.Inner inner;\n"
            "  void run() { System.out.println(order); }\n}\n"
        )
    },
    # a declaration: Holder's Inner becomes Inside, which uses Order
    {
        "src/app/Holder.java": (
            "package app;\nclass Holder {\n  static class Inside { model.Order order; }\n"
            "  static class Other { Service service; }\n}\n"
        )
    },
    # the lines: Order#total moves down, Repository names it
    {
        "src/model/Order.java": (
            "package model;\npublic class Order {\n\n  int count;\n  int total() { return 2; }\n}\n"
        ),
        "src/app/Repository.java": (
            "package app;\nclass Repository {\n  int t() { return new model.Order().total(); }\n}\n"
        ),
    },
]


async def test_answers_after_edits_are_a_fresh_servers(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", DERIVED_FILES)
    store = ("--index-store-dir", str(tmp_path / "store"))
    async with serve(root, tmp_path / "server.log", *store) as server:
        answers = [await server.answers(DERIVED_QUESTIONS)]
        for number, edit in enumerate(EDITS):
            write_project(root, edit)
            answers.append(await server.answers(DERIVED_QUESTIONS))
            # the answer of a server that never saw the tree before, in a process of its own
            fresh_log = tmp_path / f"fresh{number}.log"
            async with serve(root, fresh_log, "--no-index-store") as fresh:
                assert answers[-1] == await fresh.answers(DERIVED_QUESTIONS), edit
        log = server.log()
    assert walks(log) == 1, log  # every edit was followed, not walked
    # each edit is in the answers (so the comparisons above compared what changed)
    before, body, declaration, lines = answers
    assert body[5] != before[5]  # Service uses Holder.Inner
    assert body[1] != before[1]  # Service's context and token counts
    assert isinstance(body[3], tuple)  # no Inside yet
    assert isinstance(declaration[2], tuple)  # Holder.Inner is gone...
    assert isinstance(declaration[5], tuple)
    assert not isinstance(declaration[3], tuple)  # ... and Inside is there
    assert lines[6] != declaration[6]  # Repository names Order#total
