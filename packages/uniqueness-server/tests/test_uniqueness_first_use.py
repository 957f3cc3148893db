"""What a person trying the commands for the first time sees when a SQLite file is not where
the URL says: the path that was tried, in full, and how relative URLs are read."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_missing_relative_sqlite_file_names_the_path_tried(tmp_path: Path) -> None:
    done = run(
        tmp_path, "uniqueness-check", "--database", "shop=sqlite:///shop.db", "--table", "o", "id"
    )

    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line == (
        f"uniqueness-check: error: --database shop: the SQLite database {tmp_path / 'shop.db'} "
        "does not exist (sqlite:///shop.db is relative to the working directory; "
        "sqlite:////absolute/path names an absolute one)"
    )


def test_a_missing_absolute_sqlite_file_names_it_in_full(tmp_path: Path) -> None:
    missing = tmp_path / "data" / "shop.db"
    done = run(tmp_path, "uniqueness-server", "--database", f"shop=sqlite:///{missing}")

    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"uniqueness-server: error: --database shop: the SQLite database {missing} does not exist"
    )


def test_a_relative_sqlite_url_reads_the_file_in_the_working_directory(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "shop.db") as shop:
        shop.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        shop.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a")])
    shop.close()

    done = run(
        tmp_path,
        "uniqueness-check",
        "--database",
        "shop=sqlite:///shop.db",
        "--table",
        "orders",
        "id",
    )

    assert done.returncode == 0, done.stderr
    assert "unique" in done.stdout
