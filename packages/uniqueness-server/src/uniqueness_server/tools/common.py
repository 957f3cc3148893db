"""Schema pieces and Markdown helpers shared by the tools."""

from __future__ import annotations

from typing import Any

NULLS_PROPERTY: dict[str, Any] = {
    "type": "string",
    "enum": ["equal", "distinct"],
    "description": "How missing values compare: equal (default; two missing values collide) or "
    "distinct (SQL UNIQUE: a row with a missing key value never collides).",
}

STRING_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def names(columns: tuple[str, ...] | list[str]) -> str:
    """Column names as prose: ``a, b``."""
    return ", ".join(columns)


def shown(value: str | None) -> str:
    """A key value in a table cell; a missing value is visible as such."""
    return (
        "(missing)"
        if value is None
        else repr(value)
        if value == "" or value != value.strip()
        else value
    )
