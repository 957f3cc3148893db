"""Pagination: the one ``limit``/``offset`` clamp and the one truncation-notice format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import Field

from mcp_common.arguments import Clamp, Int
from mcp_common.result import StructuredResult

T = TypeVar("T")

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_OFFSET = 2**62

Offset = Annotated[Int, Clamp(0, MAX_OFFSET)]
"""The type of every ``offset`` argument: negative values become 0."""


class PageInfo(StructuredResult):
    """Paging facts in structured content: where this page sits in the whole."""

    total: int
    offset: int
    limit: int
    returned: int
    next_offset: int | None


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a longer sequence."""

    items: Sequence[T]
    total: int
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, or ``None`` on the last page."""
        end = self.offset + len(self.items)
        return end if end < self.total else None

    @property
    def notice(self) -> str:
        """`` (showing a-b of N; pass offset=K for more)``, or empty when nothing was cut."""
        if self.offset == 0 and self.next_offset is None:
            return ""
        if not self.items:
            return f" (showing none of {self.total}: offset {self.offset} is past the end)"
        first, last = self.offset + 1, self.offset + len(self.items)
        more = f"; pass offset={self.next_offset} for more" if self.next_offset is not None else ""
        return f" (showing {first}-{last} of {self.total}{more})"

    def info(self) -> PageInfo:
        """Paging facts for structured content."""
        return PageInfo(
            total=self.total,
            offset=self.offset,
            limit=self.limit,
            returned=len(self.items),
            next_offset=self.next_offset,
        )


@dataclass(frozen=True, slots=True)
class Pagination:
    """A clamped ``limit`` (1..maximum) and a non-negative ``offset``.

    An argument model declares its page fields with :meth:`limit_field` and
    :meth:`offset_field`; the tool then builds ``Pagination(arguments.limit, arguments.offset)``.
    """

    limit: int = DEFAULT_LIMIT
    offset: int = 0

    @staticmethod
    def limit_field(
        default_limit: int = DEFAULT_LIMIT, max_limit: int = MAX_LIMIT, what: str = "items"
    ) -> Any:
        """The ``limit`` field: annotate it ``Annotated[Int, Clamp(1, max_limit)]``."""
        return Field(
            default_limit,
            description=(
                f"Maximum {what} to return (default {default_limit}, max {max_limit}; "
                "clamped, never rejected)."
            ),
        )

    @staticmethod
    def offset_field(what: str = "items") -> Any:
        """The ``offset`` field: annotate it :data:`Offset`."""
        return Field(
            0, description=f"Number of {what} to skip before the first returned (default 0)."
        )

    def apply(self, items: Sequence[T]) -> Page[T]:
        """The page of ``items`` this pagination selects."""
        return Page(
            items=items[self.offset : self.offset + self.limit],
            total=len(items),
            offset=self.offset,
            limit=self.limit,
        )


def limit_reached_notice(count: int, limit: int) -> str:
    """The notice for collections that stopped at the limit without knowing the total."""
    if count < limit:
        return ""
    return f" (showing first {limit}, limit reached; pass a higher limit for more)"
