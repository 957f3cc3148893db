"""Pagination: one clamp for limit/offset, one notice format, offsets past the end."""

from __future__ import annotations

from typing import Annotated

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from mcp_common import (
    Arguments,
    Clamp,
    Int,
    Offset,
    PageInfo,
    Pagination,
    limit_reached_notice,
    parse_arguments,
)
from mcp_common.schema import output_schema

PAGE_VALIDATOR = jsonschema.Draft202012Validator(output_schema(PageInfo))


class Paged(Arguments):
    limit: Annotated[Int, Clamp(1, 50)] = Pagination.limit_field(10, 50, "rows")
    offset: Offset = Pagination.offset_field("rows")


def read(raw: dict[str, object]) -> Pagination:
    arguments = parse_arguments(raw, Paged)
    return Pagination(arguments.limit, arguments.offset)


def test_limits_and_offsets_are_clamped_never_rejected() -> None:
    assert read({}) == Pagination(limit=10, offset=0)
    assert read({"limit": 0, "offset": -4}) == Pagination(limit=1, offset=0)
    assert read({"limit": "500", "offset": "3"}) == Pagination(limit=50, offset=3)


def test_limit_and_offset_fields_carry_descriptions_and_defaults() -> None:
    fields = Paged.model_fields
    assert fields["limit"].description == (
        "Maximum rows to return (default 10, max 50; clamped, never rejected)."
    )
    assert fields["limit"].default == 10
    assert fields["offset"].description == (
        "Number of rows to skip before the first returned (default 0)."
    )


def test_pages_and_notices() -> None:
    items = list(range(25))
    first = Pagination(limit=10).apply(items)
    assert list(first.items) == list(range(10))
    assert first.notice == " (showing 1-10 of 25; pass offset=10 for more)"
    last = Pagination(limit=10, offset=20).apply(items)
    assert last.notice == " (showing 21-25 of 25)"
    assert last.info().to_wire() == {
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
def test_structured_page_facts_validate_against_the_generated_schema(
    size: int, limit: int, offset: int
) -> None:
    page = Pagination(limit=limit, offset=offset).apply(list(range(size)))
    PAGE_VALIDATOR.validate(page.info().to_wire())
