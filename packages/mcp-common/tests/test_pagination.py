"""Pagination: one clamp for limit/offset, one notice format, offsets past the end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from mcp_common import (
    Pagination,
    ToolAnnotations,
    ToolArguments,
    ToolDefinition,
    limit_reached_notice,
    object_schema,
)

DEFINITION = ToolDefinition(
    name="paged_tool",
    description="Lists items a page at a time.",
    input_schema=object_schema(Pagination.schema(default_limit=10, max_limit=50)),
    annotations=ToolAnnotations.read_only_tool(),
)


def read(raw: dict[str, object]) -> Pagination:
    return Pagination.read(ToolArguments(raw, DEFINITION), default_limit=10, max_limit=50)


def test_limits_and_offsets_are_clamped_never_rejected() -> None:
    assert read({}) == Pagination(limit=10, offset=0)
    assert read({"limit": 0, "offset": -4}) == Pagination(limit=1, offset=0)
    assert read({"limit": "500", "offset": "3"}) == Pagination(limit=50, offset=3)


def test_schema_declares_limit_and_offset_with_descriptions() -> None:
    schema = Pagination.schema(default_limit=10, max_limit=50, what="rows")
    assert schema["limit"]["description"] == (
        "Maximum rows to return (default 10, max 50; clamped, never rejected)."
    )
    assert schema["offset"]["type"] == "integer"
    assert "offset" not in Pagination.schema(with_offset=False)


def test_pages_and_notices() -> None:
    items = list(range(25))
    first = Pagination(limit=10).apply(items)
    assert list(first.items) == list(range(10))
    assert first.notice == " (showing 1-10 of 25; pass offset=10 for more)"
    last = Pagination(limit=10, offset=20).apply(items)
    assert last.notice == " (showing 21-25 of 25)"
    assert last.structured() == {
        "total": 25,
        "offset": 20,
        "limit": 10,
        "returned": 5,
        "nextOffset": None,
    }
    whole = Pagination(limit=30).apply(items)
    assert whole.notice == ""
    assert whole.next_offset is None


def test_offset_past_the_end_says_so() -> None:
    page = Pagination(limit=10, offset=40).apply(list(range(25)))
    assert list(page.items) == []
    assert page.notice == " (showing none of 25: offset 40 is past the end)"
    assert Pagination().apply([]).notice == ""


def test_limit_reached_notice() -> None:
    assert limit_reached_notice(3, 5) == ""
    assert limit_reached_notice(5, 5) == (
        " (showing first 5, limit reached; pass a higher limit for more)"
    )


@given(st.integers(0, 30), st.integers(1, 10), st.integers(0, 40))
def test_a_page_is_the_slice_and_its_notice_tells_the_truth(
    total: int, limit: int, offset: int
) -> None:
    items = list(range(total))
    page = Pagination(limit=limit, offset=offset).apply(items)
    assert list(page.items) == items[offset : offset + limit]
    if page.next_offset is not None:
        assert f"pass offset={page.next_offset} for more" in page.notice
        assert page.next_offset == offset + len(page.items) < total
    if page.items and page.notice:
        assert f"showing {offset + 1}-{offset + len(page.items)} of {total}" in page.notice
    if not page.notice:
        assert list(page.items) == items


@given(st.integers(0, 30), st.integers(1, 10), st.integers(0, 40))
def test_structured_page_facts_validate_against_the_shared_schema(
    size: int, limit: int, offset: int
) -> None:
    import jsonschema
    from mcp_common import PAGE_SCHEMA

    page = Pagination(limit=limit, offset=offset).apply(list(range(size)))
    jsonschema.validate(page.structured(), PAGE_SCHEMA)
