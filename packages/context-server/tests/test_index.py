"""The project walk and the index cache."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from context_server.core.index import IndexCache, ProjectIndex
from context_server.core.service import ContextService
from mcp_common import AllowedPaths, ToolCancelledError, ToolContext

Project = Callable[[Mapping[str, str | bytes]], Path]


def build(root: Path, cache: IndexCache | None = None, allowed: Path | None = None) -> ProjectIndex:
    service = ContextService(AllowedPaths([allowed or root]), cache or IndexCache())
    return service.index(str(root))


def listed(index: ProjectIndex) -> list[str]:
    return [item.relative for item in index.listing.files]


def problems(index: ProjectIndex) -> dict[str, str]:
    return {p.path: p.reason for p in index.problems}


def test_gitignore_and_build_folders_are_skipped(project: Project) -> None:
    root = project(
        {
            ".gitignore": "generated/\n*.log\n!keep.log\n",
            "src/A.java": "class A { Gen g; }",
            "src/.gitignore": "Local.java\n",
            "src/Local.java": "class Local {}",
            "generated/Gen.java": "class Gen {}",
            "debug.log": "x",
            "keep.log": "x",
            ".git/config": "x",
            "pom.xml": "<project/>",
            "target/classes/T.java": "class T {}",
            "build/B.java": "class B {}",
            "node_modules/m/M.java": "class M {}",
            ".venv/lib/V.py": "class V: pass",
        }
    )
    index = build(root)
    assert listed(index) == [".gitignore", "keep.log", "pom.xml", "src/.gitignore", "src/A.java"]
    assert index.resolver.direct("src/A.java").files == ()


def test_build_output_is_recognised_by_its_build_file_not_by_its_name(project: Project) -> None:
    root = project(
        {
            "core/build.gradle.kts": "",
            "core/build/classes/Gen.java": "class Gen {}",
            "core/src/main/java/org/acme/aop/target/Pool.java": (
                "package org.acme.aop.target; public class Pool {}"
            ),
            "core/src/main/java/org/acme/aop/Advisor.java": (
                "package org.acme.aop; import org.acme.aop.target.Pool; class Advisor { Pool p; }"
            ),
            "core/src/main/java/org/acme/build/Step.java": "package org.acme.build; class Step {}",
            "app/pyproject.toml": "",
            "app/build/lib/app/x.py": "",
            "app/app/out/render.py": "",
        }
    )
    index = build(root)
    assert sorted(listed(index)) == [
        "app/app/out/render.py",
        "app/pyproject.toml",
        "core/build.gradle.kts",
        "core/src/main/java/org/acme/aop/Advisor.java",
        "core/src/main/java/org/acme/aop/target/Pool.java",
        "core/src/main/java/org/acme/build/Step.java",
    ]
    assert index.resolver.direct("core/src/main/java/org/acme/aop/Advisor.java").files == (
        "core/src/main/java/org/acme/aop/target/Pool.java",
    )


def test_gitignore_files_above_a_scanned_subdirectory_apply(project: Project) -> None:
    root = project(
        {
            ".gitignore": "*.gen.java\nsrc/app/tmp/\n",
            "src/.gitignore": "Scratch.java\n",
            "src/app/A.java": "class A {}",
            "src/app/B.gen.java": "class B {}",
            "src/app/Scratch.java": "class Scratch {}",
            "src/app/tmp/T.java": "class T {}",
        }
    )
    index = build(root / "src" / "app", allowed=root)
    assert listed(index) == ["A.java"]


def test_symlinks_never_leave_the_allowed_root_and_loops_end(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret.java").write_text("class Secret {}", encoding="utf-8")
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "A.java").write_text("class A { Secret s; Inside i; }", encoding="utf-8")
    (root / "inner").mkdir()
    (root / "inner" / "Inside.java").write_text("class Inside {}", encoding="utf-8")
    os.symlink(outside, root / "escape")
    os.symlink(outside / "Secret.java", root / "src" / "Secret.java")
    os.symlink(root, root / "src" / "loop")
    os.symlink(root / "inner", root / "again")
    index = build(root)
    assert "escape" in problems(index)
    assert "src/Secret.java" in problems(index)
    assert "src/loop" in problems(index)
    assert all("Secret" not in path for path in listed(index))
    assert index.resolver.direct("src/A.java").files == ("again/Inside.java",)


def test_unreadable_sources_are_reported_not_fatal(project: Project) -> None:
    root = project(
        {
            "Latin.java": 'class Latin { String s = "caf\xe9"; }'.encode("latin-1"),
            "Binary.java": b"\x00\x01\x02class Binary {}",
            "Big.java": "// generated\n" + "class Big {}\n" * 900_000,
            "Ok.java": "class Ok { Latin l; Big b; }",
        }
    )
    index = build(root)  # the 11 MB file is skipped by size, never parsed
    found = problems(index)
    assert "not UTF-8" in found["Latin.java"]
    assert "binary" in found["Binary.java"]
    assert "MB is over the 2 MB limit" in found["Big.java"]
    assert sorted(index.sources) == ["Ok.java"]


def test_a_repeat_build_reparses_only_what_changed(project: Project) -> None:
    root = project(
        {f"p/C{n}.java": f"package p; class C{n} {{ C{(n + 1) % 5} next; }}" for n in range(5)}
    )
    cache = IndexCache()
    first = build(root, cache)
    assert (first.statistics.parsed, first.statistics.reused) == (5, 0)
    second = build(root, cache)
    assert (second.statistics.parsed, second.statistics.reused) == (0, 5)
    assert second.statistics.graph_reused
    changed = root / "p" / "C2.java"
    changed.write_text("package p; class C2 { C0 first; }", encoding="utf-8")
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    third = build(root, cache)
    assert (third.statistics.parsed, third.statistics.reused) == (1, 4)
    assert not third.statistics.graph_reused
    assert third.resolver.direct("p/C2.java").files == ("p/C0.java",)
    (root / "p" / "C4.java").unlink()
    fourth = build(root, cache)
    assert (fourth.statistics.parsed, fourth.statistics.reused) == (0, 4)
    assert fourth.resolver.direct("p/C3.java").files == ()


def test_empty_project(project: Project) -> None:
    index = build(project({}))
    assert (listed(index), index.sources, index.problems) == ([], {}, [])


def test_cancellation_stops_indexing(project: Project) -> None:
    root = project({f"C{n}.java": f"class C{n} {{}}" for n in range(450)})
    context = ToolContext()
    reports: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        reports.append((done, total))
        if done >= 200:
            context.cancel()

    service = ContextService(AllowedPaths([root]), IndexCache())
    with pytest.raises(ToolCancelledError):
        service.index(str(root), "auto", context.check_cancelled, progress)
    assert reports == [(200, 450)]


def test_worker_processes_parse_what_this_process_would(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many files to parse go to one parse child per core: the same facts, the same skip
    reasons, the same graph as one child gives; a file touched but unchanged is still not
    parsed."""
    from context_server.core import parsing

    files: dict[str, str | bytes] = {
        f"p{n % 3}/C{n}.java": f"package p{n % 3}; class C{n} {{ p{(n + 1) % 3}.C{n + 1} next; }}"
        for n in range(40)
    }
    files |= {
        "lib/__init__.py": "",
        "lib/a.py": "from lib.b import B\n",
        "lib/b.py": "class B: pass\n",
    }
    files |= {
        "p0/Binary.java": b"\x00\x01binary",
        "p0/Latin.java": 'class L { String s = "\xe9"; }'.encode("latin-1"),
    }
    root = project(files)
    serial = build(root)
    monkeypatch.setattr(parsing, "PARALLEL_FROM", 10)
    monkeypatch.setattr(parsing, "BATCH", 7)
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: nothing is parsed in workers")
    cache = IndexCache(watch=False)
    parallel = build(root, cache)
    assert parallel.statistics.workers >= 2
    assert parallel.statistics.parsed == len(files)
    assert problems(parallel) == problems(serial)
    assert {p: parallel.resolver.direct(p) for p in parallel.sources} == {
        p: serial.resolver.direct(p) for p in serial.sources
    }
    assert parallel.sources == serial.sources
    for path in root.rglob("*.java"):
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1000))
    again = build(root, cache)
    assert again.statistics.parsed == 0
    assert again.sources == serial.sources


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is no zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


@pytest.mark.e2e
def test_a_server_killed_mid_build_leaves_no_parse_worker(project: Project, tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from context_server.core.parsing import PARALLEL_FROM

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: nothing is parsed in workers")
    root = project(
        {
            f"p{n % 20}/C{n}.java": f"package p{n % 20}; class C{n} {{ int x; }}"
            for n in range(PARALLEL_FROM + 200)
        }
    )
    command = Path(sys.executable).with_name("context-server")
    server = subprocess.Popen(
        [
            str(command),
            "--allowed-dir",
            str(root),
            "--no-index-store",
            "--log-file",
            str(tmp_path / "log"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "project_tree", "arguments": {"path": "."}}},
    ]  # fmt: skip
    import json

    for message in messages:
        server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and server.poll() is None:
        workers = _children(server.pid)
        time.sleep(0.1)
    assert len(workers) >= 2, "the build never started its parse workers"
    server.send_signal(signal.SIGKILL)
    server.wait()
    server.stdin.close()
    assert server.stdout is not None
    server.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(pid) for pid in workers):
        time.sleep(0.1)
    alive = [pid for pid in workers if _running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == [], "parse workers outlived the server"


def _edges(index: ProjectIndex) -> dict[str, list[tuple[str, str, int]]]:
    return {
        path: [(e.target, e.rule, e.uses) for e in index.resolver.direct(path).edges]
        for path in index.sources
    }


RELINKED = {
    "shop/Money.java": "package shop;\npublic class Money { }\n",
    "shop/Order.java": "package shop;\npublic class Order {\n  Money total;\n}\n",
    "shop/Cart.java": "package shop;\npublic class Cart { Order order; }\n",
    "lib/__init__.py": "from lib.model import Model\n",
    "lib/model.py": "class Model:\n    pass\n",
    "lib/util.py": "from lib import Model\n\ndef make():\n    return 1\n",
}


def test_an_edit_links_again_only_the_edited_file_when_it_declares_the_same(
    project: Project,
) -> None:
    """An edit that leaves what other files link against as it was (a body, a new use)
    links that file alone; one that changes a declaration or an import links again the
    files of its family reading the name of an entry it added or removed (the whole family
    where its linker cannot say which, as Python's). Either way the graph is the one a new process
    builds (for every language and kind of edit: ``test_relink.py``)."""
    root = project(RELINKED)
    cache = IndexCache(watch=False)
    build(root, cache)
    order = root / "shop/Order.java"
    order.write_text("package shop;\npublic class Order {\n\n  Cart cart; Money total;\n}\n")
    util = root / "lib/util.py"
    util.write_text("from lib import Model\n\n\ndef make():\n    return Model(Model())\n")
    edited = build(root, cache)
    assert edited.statistics.relinked == 2
    assert _edges(edited) == _edges(build(root, IndexCache(watch=False)))
    assert edited.resolver.files("shop/Order.java") == ("shop/Cart.java", "shop/Money.java")
    assert edited.resolver.files("lib/util.py") == ("lib/model.py",)
    # a new declaration: the edited files are linked again (Cart reads Cents, the entry
    # Money.java adds), not Order (it reads Money, whose entry is as it was) nor the Python
    # files
    (root / "shop/Money.java").write_text("package shop;\npublic class Money { }\nclass Cents {}\n")
    (root / "shop/Cart.java").write_text("package shop;\npublic class Cart { Cents cents; }\n")
    again = build(root, cache)
    assert again.statistics.relinked == 2
    assert again.resolver.files("shop/Cart.java") == ("shop/Money.java",)
    assert _edges(again) == _edges(build(root, IndexCache(watch=False)))
    # an import changed in a package's __init__ (a re-export): the Python files, all of them
    (root / "lib/__init__.py").write_text("")
    reexport = build(root, cache)
    assert reexport.statistics.relinked == 3
    assert _edges(reexport) == _edges(build(root, IndexCache(watch=False)))
