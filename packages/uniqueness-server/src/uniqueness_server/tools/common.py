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


def names(columns: tuple[str, ...] | list[str]) -> str:
    """Column names as prose: ``a, b``; a name holding a line break or another control
    character is shown quoted with escapes, so a header cannot add lines (a heading, a
    verdict) to the answer."""
    return ", ".join(name if name.isprintable() else repr(name) for name in columns)


def shown(value: str | None) -> str:
    """A key value in a table cell; a missing value is visible as such, and a value with
    spaces around it, a line break or another control character is quoted with escapes (a
    table cell would fold a line break into a space)."""
    return (
        "(missing)"
        if value is None
        else repr(value)
        if value == "" or value != value.strip() or not value.isprintable()
        else value
    )
