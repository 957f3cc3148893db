"""Schema pieces and Markdown helpers shared by the tools."""

from __future__ import annotations

from typing import Annotated

from mcp_common import OneOf, Str
from pydantic import Field

from uniqueness_server.engine import Nulls

NullsChoice = Annotated[Str, OneOf(Nulls)]
"""How missing values compare: ``equal`` or ``distinct``."""


def nulls_field() -> Str:
    """The ``nulls`` argument both key tools share."""
    result: Str = Field(
        Nulls.EQUAL.value,
        description="How missing values compare: equal (default; two missing values collide) "
        "or distinct (SQL UNIQUE: a row with a missing key value never collides).",
    )
    return result


def one_line(name: str) -> str:
    """A name (a column, a file) in prose: as it is, or quoted with escapes when it holds a
    line break or another control character, so a name cannot add lines (a heading, a
    verdict) to the answer."""
    return name if name.isprintable() else repr(name)


def names(columns: tuple[str, ...] | list[str]) -> str:
    """Column names as prose: ``a, b`` (each by :func:`one_line`)."""
    return ", ".join(map(one_line, columns))


def shown(value: str | None) -> str:
    """A key value in a table cell; a missing value is visible as such, and a value with
    spaces around it, a line break or another control character is quoted with escapes (a
    table cell would fold a line break into a space)."""
    if value is None:
        return "(missing)"
    return repr(value) if value == "" or value != value.strip() else one_line(value)
