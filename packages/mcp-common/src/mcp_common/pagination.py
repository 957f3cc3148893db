"""Pagination: the one ``limit``/``offset`` clamp and the one truncation-notice format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mcp_common.arguments import ToolArguments

T = TypeVar("T")

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000

PAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "total": {"type": "integer"},
        "offset": {"type": "integer"},
        "limit": {"type": "integer"},
        "returned": {"type": "integer"},
        "nextOffset": {"type": ["integer", "null"]},
    },
    "required": ["total", "offset", "limit", "returned", "nextOffset"],
}
"""The output-schema fragment describing :meth:`Page.structured`."""


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

    def structured(self) -> dict[str, Any]:
        """Paging facts for structured content (validates against :data:`PAGE_SCHEMA`)."""
        return {
            "total": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "returned": len(self.items),
            "nextOffset": self.next_offset,
        }


@dataclass(frozen=True, slots=True)
class Pagination:
    """A clamped ``limit`` (1..maximum) and a non-negative ``offset``."""

    limit: int = DEFAULT_LIMIT
    offset: int = 0

    @classmethod
    def read(
        cls,
        arguments: ToolArguments,
        default_limit: int = DEFAULT_LIMIT,
        max_limit: int = MAX_LIMIT,
    ) -> Pagination:
        """Read ``limit`` and ``offset``: clamped, never rejected."""
        limit = arguments.clamped_int("limit", default_limit, 1, max_limit)
        offset = arguments.clamped_int("offset", 0, 0, 2**62)
        return cls(limit=limit, offset=offset)

    @staticmethod
    def schema(
        default_limit: int = DEFAULT_LIMIT,
        max_limit: int = MAX_LIMIT,
        what: str = "items",
        with_offset: bool = True,
    ) -> dict[str, dict[str, Any]]:
        """The ``limit``/``offset`` property declarations every paged tool shares."""
        props: dict[str, dict[str, Any]] = {
            "limit": {
                "type": "integer",
                "description": (
                    f"Maximum {what} to return (default {default_limit}, max {max_limit}; "
                    "clamped, never rejected)."
                ),
            }
        }
        if with_offset:
            props["offset"] = {
                "type": "integer",
                "description": f"Number of {what} to skip before the first returned (default 0).",
            }
        return props

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
