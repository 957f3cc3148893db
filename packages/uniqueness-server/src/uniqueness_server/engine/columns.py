"""Resolving requested column names to positions: case-insensitive, never ambiguous."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_common import ErrorCode, ToolError

_SHOWN = 40


def _listing(header: Sequence[str]) -> str:
    shown = ", ".join(header[:_SHOWN])
    more = f", … ({len(header) - _SHOWN} more)" if len(header) > _SHOWN else ""
    return f"[{shown}{more}]"


def addressable(names: Sequence[str]) -> tuple[str, ...]:
    """Header names as a request can name them: a blank one (requests are trimmed, so ``""``
    and ``" "`` cannot be asked for) becomes ``column<position>``, as in a file without a
    header."""
    return tuple(name if name.strip() else f"column{i}" for i, name in enumerate(names, 1))


def _key(name: str) -> str:
    return name.strip().casefold()


def resolve_columns(requested: Sequence[str], header: Sequence[str]) -> tuple[int, ...]:
    """Positions of ``requested`` in ``header``, in request order.

    Names match case-insensitively and without surrounding whitespace (requests arrive
    trimmed). A name matching no column, or several columns (``id`` and ``ID`` both in the
    header), and a name requested twice are errors naming the problem.
    """
    if not requested:
        raise ToolError("give at least one column", ErrorCode.INVALID_ARGUMENT)
    seen: dict[str, str] = {}
    for name in requested:
        folded = _key(name)
        if folded in seen:
            raise ToolError(
                f"column {name!r} is requested twice (as {seen[folded]!r} and {name!r})",
                ErrorCode.INVALID_ARGUMENT,
            )
        seen[folded] = name
    positions: list[int] = []
    for name in requested:
        matches = [i for i, column in enumerate(header) if _key(column) == _key(name)]
        if not matches:
            raise ToolError(
                f"column {name!r} not found; the columns are {_listing(header)}",
                ErrorCode.INVALID_ARGUMENT,
            )
        if len(matches) > 1:
            found = ", ".join(f"{header[i]!r} (position {i + 1})" for i in matches)
            raise ToolError(
                f"column {name!r} is ambiguous: the header holds {found}; column names are "
                "matched case-insensitively and without surrounding spaces, so rename one, or "
                "read the file with headerRow 0 and use the positional names column1, column2, …",
                ErrorCode.INVALID_ARGUMENT,
            )
        positions.append(matches[0])
    return tuple(positions)
