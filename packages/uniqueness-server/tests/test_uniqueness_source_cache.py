"""Small files kept between calls: a warm call answers from the rows read before, and never
from rows of a file that has changed since (in place, replaced, grown), nor of a file the
call may not read."""

from __future__ import annotations

import csv
import io
import itertools
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import uniqueness_server.engine.backends.embedded as embedded
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_common import McpTool, ToolError
from uniqueness_server.engine import open_file
from uniqueness_server.engine.backends.embedded import SourceCache, source_cache
from uniqueness_server.read_limits import DEFAULT_ENGINE_MEMORY
from uniqueness_testkit import call, household_csv, tools_for, write

UNIQUE = "id,name\n1,Ann\n2,Bob\n3,Cid\n"
REPEATED = "id,name\n1,Ann\n2,Bob\n1,Cid\n"  # the same size as UNIQUE


@pytest.fixture
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep files however recently written (the window has a test of its own): a test
    need not wait for its files to age."""
    monkeypatch.setattr(SourceCache, "RACY_NANOSECONDS", 0)


def cache_of(root: Path) -> SourceCache:
    return source_cache([root], DEFAULT_ENGINE_MEMORY)


def check(tools: dict[str, McpTool], path: str, columns: list[str]) -> dict[str, object]:
    result = call(tools["uniqueness_check"], {"path": path, "columns": columns})
    assert not result.is_error, result.text
    assert result.structured is not None
    return result.structured


def columns_of(tools: dict[str, McpTool], path: str) -> dict[str, object]:
    result = call(tools["list_columns"], {"path": path})
    assert not result.is_error, result.text
    assert result.structured is not None
    return result.structured


@pytest.mark.usefixtures("no_racy_window")
def test_a_warm_call_answers_as_the_first_from_the_kept_rows(tmp_path: Path) -> None:
    root = tmp_path / "data"
    write(root / "household.csv", household_csv())
    tools = tools_for(root)
    calls = [
        ("uniqueness_check", {"path": "household.csv", "columns": ["year1"], "limit": 3}),
        ("uniqueness_check", {"path": "household.csv", "columns": ["year1", "hlpi_name"]}),
        ("uniqueness_check", {"path": "household.csv", "columns": ["year1"], "approximate": True}),
        ("find_keys", {"path": "household.csv", "maxColumns": 2}),
        ("list_columns", {"path": "household.csv"}),
    ]
    first = [call(tools[name], arguments) for name, arguments in calls]
    assert len(cache_of(root)) == 1
    again = [call(tools[name], arguments) for name, arguments in calls]
    for cold, warm in zip(first, again, strict=True):
        assert not warm.is_error, warm.text
        assert warm.structured == cold.structured
        assert warm.text == cold.text
    # the duplicate groups of the warm call still carry their row numbers
    assert first[0].structured is not None
    assert first[0].structured["duplicates"][0]["rows"] == list(range(1, 11))


@pytest.mark.usefixtures("no_racy_window")
def test_a_file_rewritten_in_place_with_the_same_size_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "data"
    data = write(root / "people.csv", UNIQUE)
    tools = tools_for(root)
    assert check(tools, "people.csv", ["id"])["unique"] is True
    assert columns_of(tools, "people.csv")["columns"][0]["distinct"] == 3  # type: ignore[index]
    inode = data.stat().st_ino
    with data.open("r+b") as handle:  # same inode, same size, new content
        handle.write(REPEATED.encode())
    assert data.stat().st_ino == inode
    assert data.stat().st_size == len(UNIQUE)
    answer = check(tools, "people.csv", ["id"])
    assert answer["unique"] is False
    assert answer["duplicates"] == [{"values": ["1"], "count": 2, "rows": [1, 3]}]
    assert columns_of(tools, "people.csv")["columns"][0]["distinct"] == 2  # type: ignore[index]


@pytest.mark.usefixtures("no_racy_window")
def test_a_file_replaced_by_another_or_grown_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "data"
    data = write(root / "people.csv", UNIQUE)
    tools = tools_for(root)
    assert check(tools, "people.csv", ["id"])["rows"] == 3
    replacement = write(root / "next.csv", REPEATED)
    os.replace(replacement, data)  # a new inode at the same name
    assert check(tools, "people.csv", ["id"])["unique"] is False
    with data.open("a") as handle:
        handle.write("4,Dee\n")
    assert check(tools, "people.csv", ["id"])["rows"] == 4
    # an older modification time set back on the grown file changes nothing either
    stamp = data.stat()
    os.utime(data, ns=(stamp.st_atime_ns, stamp.st_mtime_ns - 10**9))
    with data.open("a") as handle:
        handle.write("5,Eve\n")
    os.utime(data, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert check(tools, "people.csv", ["id"])["rows"] == 5


@pytest.mark.usefixtures("no_racy_window")
def test_read_options_are_part_of_what_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "data"
    write(root / "people.csv", UNIQUE)
    tools = tools_for(root)
    assert check(tools, "people.csv", ["id"])["rows"] == 3
    headless = call(
        tools["uniqueness_check"], {"path": "people.csv", "columns": ["column1"], "headerRow": 0}
    )
    assert headless.structured is not None
    assert headless.structured["rows"] == 4  # the header line is a row now
    assert check(tools, "people.csv", ["id"])["rows"] == 3


def test_a_file_changed_within_the_racy_window_is_not_kept(tmp_path: Path) -> None:
    root = tmp_path / "data"
    fresh = write(root / "fresh.csv", UNIQUE)
    old = write(root / "old.csv", UNIQUE)
    stamp = old.stat()
    tools = tools_for(root)
    check(tools, "fresh.csv", ["id"])
    if time.time_ns() - fresh.stat().st_ctime_ns < SourceCache.RACY_NANOSECONDS:
        # read within the window (a loaded machine may take longer to get here)
        assert len(cache_of(root)) == 0  # its timestamps could still hide a second write
    time.sleep(SourceCache.RACY_NANOSECONDS / 1e9 - (time.time_ns() - stamp.st_ctime_ns) / 1e9)
    check(tools, "old.csv", ["id"])
    assert len(cache_of(root)) == 1


@pytest.mark.usefixtures("no_racy_window")
def test_a_file_kept_for_one_server_is_not_read_through_another(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    secret = write(outside / "secret.csv", UNIQUE)
    assert check(tools_for(outside), "secret.csv", ["id"])["unique"] is True
    assert len(cache_of(outside)) == 1
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "link.csv").symlink_to(secret)
    os.link(secret, inside / "hard.csv")
    confined = tools_for(inside)
    for name in ("link.csv", "hard.csv", "../outside/secret.csv"):
        with pytest.raises(ToolError, match=r"access denied|outside|hard link"):
            call(confined["uniqueness_check"], {"path": name, "columns": ["id"]})
    assert len(cache_of(inside)) == 0


@pytest.mark.usefixtures("no_racy_window")
def test_a_source_too_large_to_keep_is_answered_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SourceCache, "MAX_CELLS", 10)  # five cells at most per entry
    root = tmp_path / "data"
    write(root / "people.csv", UNIQUE)  # 3 rows x 2 columns
    write(root / "pair.csv", "id\n1\n2\n")
    tools = tools_for(root)
    assert check(tools, "people.csv", ["id"])["rows"] == 3
    assert len(cache_of(root)) == 0
    assert check(tools, "pair.csv", ["id"])["rows"] == 2
    assert len(cache_of(root)) == 1


@pytest.mark.usefixtures("no_racy_window")
def test_entries_evicted_while_calls_read_them_still_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SourceCache, "MAX_ENTRIES", 2)
    root = tmp_path / "data"
    for index in range(6):
        rows = "".join(f"{i},{'x' * index}\n" for i in range(index + 2))
        write(root / f"f{index}.csv", "id,pad\n" + rows)
    tools = tools_for(root)
    failures: list[str] = []

    def work(index: int) -> None:
        for _ in range(8):
            answer = check(tools, f"f{index}.csv", ["id"])
            if answer["rows"] != index + 2 or answer["unique"] is not True:
                failures.append(f"f{index}.csv: {answer}")

    threads = [threading.Thread(target=work, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(cache_of(root)) <= 2


@pytest.mark.usefixtures("no_racy_window")
def test_a_small_file_of_very_many_columns_is_answered_and_not_kept(tmp_path: Path) -> None:
    # 250 KB of header: keeping it would copy a row of 20,000 columns, past the engine's
    # memory limit (10,000 already are; opening a file this wide costs seconds, so no wider)
    header = ",".join(f"column_{i}" for i in range(20_000))
    path = write(tmp_path / "header.csv", header + "\n")
    for _ in range(2):
        table = open_file(path, label="header.csv")
        try:
            assert len(table.names) == 20_000
        finally:
            table.close()


# values a reader could confuse: numbers written two ways, case, an accent, a missing value
_CELLS = st.sampled_from(["1", "01", "1.0", "a", "A", "é", "e\u0301", ""])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 4).flatmap(
        lambda width: st.lists(st.lists(_CELLS, min_size=width, max_size=width), max_size=12)
    ),
    st.sampled_from(["equal", "distinct"]),
)
def test_a_kept_source_answers_every_check_as_a_source_read_afresh(
    rows: list[list[str]], nulls: str
) -> None:
    # a warm check of a kept source counts from the kept codes, not by a GROUP BY: every
    # column set under both nulls modes must get the answer a fresh read gives
    width = len(rows[0]) if rows else 1
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([[f"c{i}" for i in range(width)], *rows])
    with tempfile.TemporaryDirectory() as scratch:
        fresh_root, kept_root = Path(scratch) / "fresh", Path(scratch) / "kept"
        write(fresh_root / "t.csv", text.getvalue())
        write(kept_root / "t.csv", text.getvalue())
        fresh, kept = tools_for(fresh_root), tools_for(kept_root)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(SourceCache, "RACY_NANOSECONDS", 0)
            call(kept["list_columns"], {"path": "t.csv"})  # kept now; warm calls follow
            for size in range(1, width + 1):
                for columns in itertools.combinations([f"c{i}" for i in range(width)], size):
                    arguments = {"path": "t.csv", "columns": list(columns), "nulls": nulls}
                    warm = call(kept["uniqueness_check"], arguments)
                    patch.setattr(SourceCache, "RACY_NANOSECONDS", 1 << 62)  # never kept
                    cold = call(fresh["uniqueness_check"], arguments)
                    patch.setattr(SourceCache, "RACY_NANOSECONDS", 0)
                    assert not cold.is_error, cold.text
                    assert warm.structured == cold.structured
                    assert warm.text == cold.text
            assert len(cache_of(fresh_root)) == 0
            assert [e.codes is not None for e in cache_of(kept_root)._entries.values()] == [True]


@pytest.mark.usefixtures("no_racy_window")
def test_a_warm_find_keys_judges_its_columns_from_samples_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the values a key's columns are judged by are kept with the source (their query cost
    # a warm call on a small wide file a third of its CPU): a warm call reads none, and a
    # file rewritten since is judged by its new values
    read: list[int] = []
    real = embedded.sample_values

    def counted(table: Any, positions: Sequence[int], rows: int) -> dict[int, list[Any]]:
        read.extend(positions)
        return real(table, positions, rows)

    monkeypatch.setattr(embedded, "sample_values", counted)
    root = tmp_path / "data"
    data = write(root / "people.csv", "id,name\n1,Ann\n2,Bob\n3,Cid\n")
    tools = tools_for(root)
    first = call(tools["find_keys"], {"path": "people.csv", "maxColumns": 1})
    assert sorted(read) == [0, 1]
    read.clear()
    again = call(tools["find_keys"], {"path": "people.csv", "maxColumns": 1})
    assert again.structured == first.structured
    assert read == []
    data.write_text("id,name\n2020-01-01,Ann\n2020-01-02,Bob\n2020-01-03,Cid\n", encoding="utf-8")
    changed = call(tools["find_keys"], {"path": "people.csv", "maxColumns": 1})
    assert sorted(read) == [0, 1]
    assert changed.structured is not None
    assert first.structured is not None
    reasons = {k["columns"][0]: k["reasons"] for k in changed.structured["keys"]}
    assert reasons["id"] == ["id holds dates"]
    assert first.structured["keys"][0]["reasons"] == ["id is an integer named like an identifier"]
