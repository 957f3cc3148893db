"""The hybrid key search (sampling, induction, position-list checks) is exact and stoppable.

Compared with brute force on random tables in both nulls modes (with the cover held small,
so the last level is walked depth first), with a matrix reference on generated tables of
2,000 columns, paged whole through the tool when its answer is huge (too large for the
search to hold its candidates), and cancelled at every kind of progress it reports.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import uniqueness_server.engine.keys as key_search
import uniqueness_server.engine.keysearch.records as records_module
import uniqueness_server.engine.keysearch.triples as triples
import uniqueness_server.engine.ranking as ranking
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError
from test_uniqueness_keys_oracle import Row, brute_force_keys, csv_text, search_rows
from uniqueness_server.engine import Nulls, find_keys, open_file
from uniqueness_server.engine.keysearch import CodeBlock, Records, minimal_keys
from uniqueness_server.engine.keysearch.triples import walk_to_three
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


def _minimal_keys_up_to_three(codes: np.ndarray) -> set[frozenset[int]]:
    """Every minimal key of at most 3 columns of ``codes`` (columns by rows, no missing
    values), by counting: a matrix reference for the tests of huge answers."""
    width, count = codes.shape
    single = np.array([len(np.unique(c)) == count for c in codes])
    found = {frozenset({p}) for p in np.flatnonzero(single).tolist()}
    pair = np.zeros((width, width), dtype=np.bool_)
    for a in range(width):
        combined = codes[a][None, :] * (count + 1) + codes[a + 1 :]
        ordered = np.sort(combined, axis=1)
        pair[a, a + 1 :] = ~(ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    pair |= pair.T
    a, b = np.triu_indices(width, k=1)
    fresh = pair[a, b] & ~single[a] & ~single[b]
    found |= {frozenset(k) for k in zip(a[fresh].tolist(), b[fresh].tolist(), strict=True)}
    for a, b, c in itertools.combinations(np.flatnonzero(~single).tolist(), 3):
        if pair[a, b] or pair[a, c] or pair[b, c]:
            continue
        key = (codes[a] * (count + 1) + codes[b]) * (count + 1) + codes[c]
        if len(np.unique(key)) == count:
            found.add(frozenset({a, b, c}))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_tables(), st.sampled_from(list(Nulls)), st.integers(2, 4), st.booleans())
def test_a_last_level_too_large_to_hold_is_walked_exactly(
    rows: list[Row], nulls: Nulls, limit: int, to_sink: bool
) -> None:
    # the search may hold as many candidates as the levels below the last can have, never
    # more: a last level with more candidates is walked depth first, to a sink or a list
    columns = list(zip(*rows, strict=True))
    below = sum(math.comb(len(columns), k) for k in range(1, limit))
    sunk: list[tuple[int, ...]] = []
    found = minimal_keys(
        records_of(columns, nulls),
        limit,
        lambda: None,
        capacity=below,
        sink=(lambda keys: sunk.extend(tuple(k) for k in keys.tolist())) if to_sink else None,
    )
    expected = {tuple(sorted(k)) for k in brute_force_keys(rows, range(len(columns)), limit, nulls)}
    if to_sink:
        assert not found.keys
        assert sorted(sunk) == sorted(expected)
    else:
        assert set(found.keys) == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_tables(),
    st.sampled_from(list(Nulls)),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
)
# under nulls=distinct, (a, t, m) is a key only through m's missing values: the counting
# bound must count them (a's group of 5 rows has 2 rows complete on t and m); in the first
# table m is searched after t, in the second before it
@example(
    rows=[
        *(("x", t, m) for t, m in [("0", "7"), ("1", "7"), ("0", None), ("1", None), ("0", None)]),
        *(("p", "0", "7"), ("q", "1", "7"), ("r", "1", "7"), ("s", "2", "7")),
    ],
    nulls=Nulls.DISTINCT,
    limit=3,
    by_indexes=False,
    split=False,
)
@example(
    rows=[
        *(("x", t, m) for t, m in [("0", "7"), ("1", "7"), ("0", None), ("1", None), ("0", None)]),
        *(("p", "0", "7"), ("q", "1", "7"), ("r", "1", "7"), ("s", "0", "7")),
    ],
    nulls=Nulls.DISTINCT,
    limit=3,
    by_indexes=False,
    split=False,
)
def test_keys_decided_one_first_column_at_a_time_match_brute_force(
    rows: list[Row], nulls: Nulls, limit: int, by_indexes: bool, split: bool
) -> None:
    # the walk that holds no candidate of any size (the cover of even the pairs too large),
    # with bit sets of row pairs or, as on tall tables, position-list indexes
    columns = list(zip(*rows, strict=True))
    records = records_of(columns, nulls, split=split)
    found: list[tuple[int, ...]] = []
    with pytest.MonkeyPatch.context() as patch:
        if by_indexes:
            patch.setattr(triples, "_ROW_PAIRS", 0)
        walk_to_three(
            records,
            limit,
            lambda keys: found.extend(tuple(k) for k in keys.tolist()),
            lambda: None,
            lambda _fraction, _message: None,
        )
    expected = brute_force_keys(rows, range(len(columns)), limit, nulls)
    got = [tuple(sorted(records.positions[c] for c in key)) for key in found]
    assert len(got) == len(set(got))
    assert set(got) == {tuple(sorted(k)) for k in expected}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_tables(), st.sampled_from(list(Nulls)))
def test_a_search_holding_no_candidate_of_three_columns_stays_exact(
    rows: list[Row], nulls: Nulls
) -> None:
    # no room for a single candidate: a search of keys up to 3 columns goes to the walk
    columns = list(zip(*rows, strict=True))
    assume(len(columns) >= 3)
    found = minimal_keys(records_of(columns, nulls), 3, lambda: None, capacity=0)
    expected = brute_force_keys(rows, range(len(columns)), 3, nulls)
    assert set(found.keys) == {tuple(sorted(k)) for k in expected}
    assert [len(k) for k in found.keys] == sorted(len(k) for k in found.keys)


def test_ten_thousand_columns_up_to_three_are_searched_whole(tmp_path: Path) -> None:
    # 10,000 columns over 40 rows, keys known by construction: k0 is unique; 30 columns
    # of 4 values hold planted keys of 3 columns (the digits of a permutation of 0..39 in
    # base 4) and whatever triples of them tell the 40 rows apart (counted below); the
    # other 9,969 are two-valued, so a set holding one and at most two others of at most
    # 4 values has at most 2 x 4 x 4 = 32 < 40 combinations: never a key. A cover of the
    # pairs of these columns passes millions of candidates
    width, count, designed = 10_000, 40, 30
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 2, size=(width, count))
    codes[0] = np.arange(count)
    codes[1 : designed + 1] = rng.integers(0, 4, size=(designed, count))
    for first in range(1, designed + 1, 6):  # 5 planted triples
        order = rng.permutation(count)
        codes[first], codes[first + 1], codes[first + 2] = order % 4, order // 4 % 4, order // 16
    rows: list[Row] = [tuple(str(v) for v in codes[:, r]) for r in range(count)]
    path = tmp_path / "ten-thousand.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    expected = {frozenset({0})}
    small = range(1, designed + 1)
    for size in (2, 3):
        for combo in itertools.combinations(small, size):
            if any(k <= set(combo) for k in expected):
                continue
            key = np.zeros(count, dtype=np.int64)
            for p in combo:
                key = key * 4 + codes[p]
            if len(np.unique(key)) == count:
                expected.add(frozenset(combo))
    assert {frozenset({f, f + 1, f + 2}) for f in range(1, designed + 1, 6)} <= expected
    walked: list[str] = []
    context = ToolContext(lambda _p, _t, message: walked.append(message or ""))
    table = open_file(path, label=path.name, context=context)
    try:
        whole = find_keys(table, max_columns=3, context=context)
        page = find_keys(table, max_columns=3, offset=5, limit=5)
    finally:
        table.close()
    assert any("one first column at a time" in m for m in walked), "no walk: the cover held"
    got = {frozenset(int(c[1:]) for c in key.columns) for key in whole.keys}
    assert got == expected, (
        sorted(map(sorted, got - expected)),
        sorted(map(sorted, expected - got)),
    )
    assert page.keys_found == whole.keys_found == len(expected)
    assert list(page.keys) == list(whole.keys[5:10])


def _hundreds_of_keys(tmp_path: Path, width: int) -> np.ndarray:
    # 30 rows, columns of 6 values: a few hundred unique pairs, thousands of minimal triples
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 6, size=(width, 30))
    rows: list[Row] = [tuple(str(v) for v in codes[:, r]) for r in range(30)]
    (tmp_path / "many.csv").write_text(csv_text(width, rows), encoding="utf-8")
    return codes


def test_an_answer_too_large_to_hold_is_paged_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the candidates of 3 columns outnumber what this test lets the search hold (a real
    # file gets there with hundreds of millions: 24 rows of 1,729 ozone columns); the answer
    # is still whole, page after page, in the order of one unpaged search
    codes = _hundreds_of_keys(tmp_path, 60)
    expected = _minimal_keys_up_to_three(codes)
    assert len(expected) > 3_000
    monkeypatch.setattr(key_search, "MOST_CANDIDATES", 2_000)
    # the ranking cuts to the page every 50 keys, so keys arriving after a cut are ranked
    # against the ones kept
    monkeypatch.setattr(ranking, "_PRUNE", 50)
    walked: list[str] = []
    context = ToolContext(lambda _p, _t, message: walked.append(message or ""))
    table = open_file(tmp_path / "many.csv", label="many.csv", context=context)
    try:
        whole = find_keys(table, max_columns=3, context=context)
    finally:
        table.close()
    assert any("one first column at a time" in m for m in walked), "the keys were not walked"
    assert whole.keys_found == len(whole.keys) == len(expected)
    tool = tools_for(tmp_path)["find_keys"]
    paged: list[list[str]] = []
    offset = 0
    while True:
        result = call(tool, {"path": "many.csv", "maxColumns": 3, "limit": 700, "offset": offset})
        page = result.structured["page"]
        assert page["total"] == len(expected)
        paged += [key["columns"] for key in result.structured["keys"]]
        if page["nextOffset"] is None:
            break
        offset = page["nextOffset"]
    assert paged == [list(k.columns) for k in whole.keys]
    assert {frozenset(int(c[1:]) for c in key) for key in paged} == expected


def test_cancelling_the_walked_last_level_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hundreds_of_keys(tmp_path, 60)
    monkeypatch.setattr(key_search, "MOST_CANDIDATES", 2_000)
    context: ToolContext

    def sink(progress: float, total: float | None, message: str | None) -> None:
        if message is not None and "one first column at a time" in message:
            context.cancel()

    context = ToolContext(sink)
    table = open_file(tmp_path / "many.csv", label="many.csv", context=context)
    try:
        with pytest.raises(ToolCancelledError):
            find_keys(table, max_columns=3, context=context)
    finally:
        table.close()


def test_a_page_past_the_ranked_keys_is_refused_with_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the ranking holds the best MOST_RANKED keys: a page within them is served, one beyond
    # is refused with the exact count, never cut silently
    codes = _hundreds_of_keys(tmp_path, 30)
    expected = _minimal_keys_up_to_three(codes)
    assert len(expected) > 300
    monkeypatch.setattr(key_search, "MOST_RANKED", 300)
    tool = tools_for(tmp_path)["find_keys"]
    served = call(tool, {"path": "many.csv", "maxColumns": 3, "limit": 100, "offset": 200})
    assert served.structured["page"]["total"] == len(expected)
    assert served.structured["page"]["returned"] == 100
    with pytest.raises(ToolError) as refused:
        call(tool, {"path": "many.csv", "maxColumns": 3, "limit": 100, "offset": 250})
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert f"found {len(expected):,} keys; pages end within the best 300" in str(refused.value)
    # a page past the end of a smaller answer is an empty page, not an error
    past = call(tool, {"path": "many.csv", "maxColumns": 1, "limit": 100, "offset": 450})
    assert past.structured["page"]["returned"] == 0


def test_an_answer_whose_smaller_keys_do_not_fit_is_refused_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 200 columns of 25 values over 30 rows: the candidates of 2 and 3 columns alone
    # outnumber what this test lets the search hold, so the last level of 4 cannot be walked
    # (keys of up to 3 columns would be walked without a cover)
    monkeypatch.setattr(key_search, "MOST_CANDIDATES", 1_000)
    width = 200
    rng = random.Random(4)
    rows: list[Row] = [tuple(str(rng.randrange(25)) for _ in range(width)) for _ in range(30)]
    (tmp_path / "many.csv").write_text(csv_text(width, rows), encoding="utf-8")
    with pytest.raises(ToolError) as refused:
        call(tools_for(tmp_path)["find_keys"], {"path": "many.csv", "maxColumns": 4})
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "more than 1,000 candidate keys of fewer than 4 columns" in str(refused.value)
    assert "name fewer columns or lower maxColumns" in str(refused.value)
    assert "keys of up to 3 columns over every row are searched without" in str(refused.value)


def test_a_walk_wider_than_its_matrix_of_pairs_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the walk records which pairs are keys in width x width bits (256 MiB: 46,341
    # columns); past that it refuses, saying so, rather than take the memory
    monkeypatch.setattr(key_search, "MOST_CANDIDATES", 1_000)
    monkeypatch.setattr(triples, "MOST_PAIR_BITS", 100 * 100)
    width = 101
    rng = random.Random(4)
    rows: list[Row] = [tuple(str(rng.randrange(25)) for _ in range(width)) for _ in range(30)]
    (tmp_path / "many.csv").write_text(csv_text(width, rows), encoding="utf-8")
    with pytest.raises(ToolError) as refused:
        call(tools_for(tmp_path)["find_keys"], {"path": "many.csv", "maxColumns": 3})
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert "101 columns make more pairs than the 10,000 bits" in str(refused.value)
    assert "name fewer columns or lower maxColumns" in str(refused.value)


def test_ten_thousand_columns_are_searched_and_paged(tmp_path: Path) -> None:
    # 10,000 columns over 40 rows: two-valued columns (no key among them: 2 x 2 and 2 x 8
    # value pairs are fewer than 40 rows), one unique column and 20 pairs of columns of 5
    # and 8 values, each pair a key (other pairs of them may be keys by chance). Read at
    # the default engine memory (DuckDB reads it 2,000 columns a query).
    width, count = 10_000, 40
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(width, count))
    codes[0] = np.arange(count)
    planted = list(range(1, 41))
    for j in planted[::2]:  # columns j and j + 1 together tell every row apart
        order = rng.permutation(count)
        codes[j], codes[j + 1] = order % 5, order // 5
    rows: list[Row] = [tuple(str(v) for v in codes[:, r]) for r in range(count)]
    path = tmp_path / "ten-thousand.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    expected = {frozenset({0})}
    for a, b in itertools.combinations(planted, 2):
        if len(set(zip(codes[a].tolist(), codes[b].tolist(), strict=True))) == count:
            expected.add(frozenset({a, b}))
    assert len(expected) > 20
    table = open_file(path, label=path.name)
    try:
        whole = find_keys(table, max_columns=2)
        page = find_keys(table, max_columns=2, offset=7, limit=7)
    finally:
        table.close()
    got = {frozenset(int(c[1:]) for c in key.columns) for key in whole.keys}
    assert got == expected, (
        sorted(map(sorted, got - expected)),
        sorted(map(sorted, expected - got)),
    )
    assert page.keys_found == whole.keys_found == len(expected)
    assert list(page.keys) == list(whole.keys[7:14])


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
