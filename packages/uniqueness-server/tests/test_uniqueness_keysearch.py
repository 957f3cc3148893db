"""The hybrid key search (sampling, induction, position-list checks) is exact and stoppable.

Compared with brute force on random tables in both nulls modes, with a matrix reference on
generated tables of 2,000 columns, paged whole through the tool when its answer is huge, and
cancelled at every kind of progress it reports.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import uniqueness_server.engine.keys as key_search
import uniqueness_server.engine.keysearch.records as records_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError
from test_uniqueness_keys_oracle import Row, brute_force_keys, csv_text, search_rows
from uniqueness_server.engine import Nulls, find_keys, open_file
from uniqueness_server.engine.keysearch import CodeBlock, Records, minimal_keys
from uniqueness_testkit import call, tools_for


def records_of(
    columns: Sequence[Sequence[str | None]], nulls: Nulls, *, split: bool = False
) -> Records:
    """Records of ``columns`` (values by row, None missing), coded the way the engine codes;
    ``split``: the odd columns in a second block of 32-bit codes (as the engine keeps columns
    of more than 65,535 values)."""
    codes, missing, collisions = [], [], {}
    for p, values in enumerate(columns):
        index: dict[str, int] = {}
        for v in values:
            if v is not None:
                index.setdefault(v, len(index))
        m = len(index)
        coded = np.array([m if v is None else index[v] for v in values], dtype=np.uint16)
        counts = np.bincount(coded, minlength=m + 1)
        collisions[p] = int((counts[:m] * (counts[:m] - 1) // 2).sum())
        if nulls is Nulls.EQUAL:
            collisions[p] += int(counts[m] * (counts[m] - 1) // 2)
        codes.append(coded)
        missing.append(m)
    positions = list(range(len(columns)))
    if not split:
        block = np.stack(codes)
        return Records(
            block.shape[1], [CodeBlock(block, positions, positions, missing)], collisions, nulls
        )
    blocks = []
    for kind, held in ((np.uint16, positions[::2]), (np.uint32, positions[1::2])):
        if held:
            block = np.stack([codes[p] for p in held]).astype(kind)
            blocks.append(
                CodeBlock(block, list(range(len(held))), held, [missing[p] for p in held])
            )
    return Records(len(columns[0]), blocks, collisions, nulls)


@st.composite
def random_tables(draw: st.DrawFn) -> list[Row]:
    width = draw(st.integers(1, 7))
    values = draw(st.sampled_from([["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d", "e"]]))
    cell = st.one_of(st.sampled_from(values), st.none())
    return draw(st.lists(st.tuples(*[cell] * width), min_size=1, max_size=30))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_tables(), st.sampled_from(list(Nulls)), st.integers(1, 6))
def test_the_search_matches_brute_force(rows: list[Row], nulls: Nulls, limit: int) -> None:
    columns = list(zip(*rows, strict=True))
    found = minimal_keys(records_of(columns, nulls), limit, lambda: None)
    expected = brute_force_keys(rows, range(len(columns)), limit, nulls)
    assert set(found.keys) == {tuple(sorted(k)) for k in expected}
    assert [len(k) for k in found.keys] == sorted(len(k) for k in found.keys)


@pytest.mark.parametrize("nulls", list(Nulls))
@pytest.mark.parametrize("by_row", [True, False], ids=["codes-by-row", "codes-by-column"])
def test_agree_sets_from_either_layout_of_codes_stay_exact(
    monkeypatch: pytest.MonkeyPatch, nulls: Nulls, by_row: bool
) -> None:
    # agree sets read from a row-by-row copy of the codes (small records) or column by
    # column (records too large for a second copy), over blocks of two code types
    if not by_row:
        monkeypatch.setattr(records_module, "_ROW_MAJOR_CELLS", 0)
    rng = random.Random(29)
    for _ in range(25):
        width, count = rng.randint(2, 6), rng.randint(2, 30)
        rows: list[Row] = [
            tuple(rng.choice(["a", "b", "c", None]) for _ in range(width)) for _ in range(count)
        ]
        records = records_of(list(zip(*rows, strict=True)), nulls, split=True)
        found = minimal_keys(records, 3, lambda: None)
        expected = brute_force_keys(rows, range(width), 3, nulls)
        assert set(found.keys) == {tuple(sorted(k)) for k in expected}


def _agreeing_pairs(columns: np.ndarray, nulls: Nulls, missing: np.ndarray) -> np.ndarray:
    """[a, b]: some two rows agree on both columns a and b (a matrix reference for pairs)."""
    rows = columns.shape[1]
    first, second = np.triu_indices(rows, k=1)
    agree = columns[:, first] == columns[:, second]
    if nulls is Nulls.DISTINCT:
        agree &= columns[:, first] != missing[:, None]
    counts = agree.astype(np.float32) @ agree.T.astype(np.float32)
    return counts > 0


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_two_thousand_columns_match_a_matrix_reference(tmp_path: Path, nulls: Nulls) -> None:
    # 2,000 columns of 2 to 80 values over 80 rows, some missing: single-column keys, many
    # unique pairs and many more non-unique ones
    width, count = 2_000, 80
    rng = np.random.default_rng(11)
    sizes = rng.choice([2, 3, 5, 8, 13, 40, 80], size=width)
    values = (rng.random((width, count)) * sizes[:, None]).astype(np.int64)
    gaps = rng.random((width, count)) < 0.03
    rows: list[Row] = [
        tuple(None if gaps[p, r] else str(values[p, r]) for p in range(width)) for r in range(count)
    ]
    _, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2, nulls=nulls)
    coded = np.where(gaps, -1, values)
    missing = np.full(width, -1)
    single = np.array(
        [
            len(set(coded[p][coded[p] >= 0] if nulls is Nulls.DISTINCT else coded[p]))
            == (int((coded[p] >= 0).sum()) if nulls is Nulls.DISTINCT else count)
            for p in range(width)
        ]
    )
    pairs = ~_agreeing_pairs(coded, nulls, missing)
    expected = {frozenset({p}) for p in np.flatnonzero(single).tolist()}
    a, b = np.triu_indices(width, k=1)
    minimal = pairs[a, b] & ~single[a] & ~single[b]
    expected |= {frozenset(p) for p in zip(a[minimal].tolist(), b[minimal].tolist(), strict=True)}
    assert got == expected
    assert len(got) > 1_000


def test_a_huge_answer_is_paged_whole(tmp_path: Path) -> None:
    # 30 rows, 200 columns of 25 values: thousands of unique pairs, every one reachable page
    # by page, none cut silently
    width, count = 200, 30
    rng = random.Random(4)
    rows: list[Row] = [tuple(str(rng.randrange(25)) for _ in range(width)) for _ in range(count)]
    (tmp_path / "many.csv").write_text(csv_text(width, rows), encoding="utf-8")
    expected = brute_force_keys(rows, range(width), 1, Nulls.EQUAL)
    columns = [np.array([int(r[p]) for r in rows]) for p in range(width)]
    for a, b in itertools.combinations(range(width), 2):
        if len(set(zip(columns[a].tolist(), columns[b].tolist(), strict=True))) == count:
            expected.add(frozenset({a, b}))
    assert len(expected) > 3_000
    tool = tools_for(tmp_path)["find_keys"]
    got: set[frozenset[int]] = set()
    offset = 0
    while True:
        result = call(tool, {"path": "many.csv", "maxColumns": 2, "limit": 1000, "offset": offset})
        page = result.structured["page"]
        assert page["total"] == len(expected)
        got |= {frozenset(int(c[1:]) for c in key["columns"]) for key in result.structured["keys"]}
        if page["nextOffset"] is None:
            break
        assert f"offset={page['nextOffset']}" in result.text
        offset = page["nextOffset"]
    assert got == expected


def test_an_answer_too_large_to_hold_is_refused_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 200 columns of 25 values over 30 rows: 1,333,500 combinations of up to 3 columns, and
    # thousands of keys, more candidates than this test lets the search hold (a real file
    # gets there with millions: 64 rows of 6,832 gene expression columns)
    monkeypatch.setattr(key_search, "MOST_CANDIDATES", 1_000)
    width = 200
    rng = random.Random(4)
    rows: list[Row] = [tuple(str(rng.randrange(25)) for _ in range(width)) for _ in range(30)]
    (tmp_path / "many.csv").write_text(csv_text(width, rows), encoding="utf-8")
    with pytest.raises(ToolError) as refused:
        call(tools_for(tmp_path)["find_keys"], {"path": "many.csv", "maxColumns": 3})
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "more than 1,000 candidate keys of up to 3 columns" in str(refused.value)
    assert "name fewer columns or lower maxColumns" in str(refused.value)


def _long_search_file(tmp_path: Path) -> Path:
    # 24 columns of 40 values over 3,000 rows: no key of up to 3 columns, thousands of
    # candidates of 4 left to check after sampling, and about 1,800 keys among them
    rng = random.Random(9)
    width = 24
    rows: list[Row] = [tuple(str(rng.randrange(40)) for _ in range(width)) for _ in range(3_000)]
    path = tmp_path / "long.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("when", ["reading", "sampling", "checking"])
def test_cancelling_at_any_stage_stops_the_search(tmp_path: Path, when: str) -> None:
    path = _long_search_file(tmp_path)
    stopped: list[float] = []
    context: ToolContext

    def sink(progress: float, total: float | None, message: str | None) -> None:
        if message is not None and message.startswith(when) and not stopped:
            stopped.append(time.monotonic())
            context.cancel()

    context = ToolContext(sink)
    table = open_file(path, label=path.name, context=context)
    try:
        with pytest.raises(ToolCancelledError):
            find_keys(table, max_columns=4, context=context)
    finally:
        table.close()
    assert stopped, f"the search never reported {when!r}"


def test_cancelling_from_another_thread_stops_a_long_check(tmp_path: Path) -> None:
    path = _long_search_file(tmp_path)
    context = ToolContext()
    table = open_file(path, label=path.name, context=context)
    timer = threading.Timer(0.5, context.cancel)
    timer.start()
    try:
        with pytest.raises(ToolCancelledError):
            find_keys(table, max_columns=6, context=context)
    finally:
        timer.cancel()
        table.close()
