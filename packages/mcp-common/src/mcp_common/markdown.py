"""Markdown building blocks: the one table builder, code blocks, front matter, inline
escaping, size guard."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

DEFAULT_MAX_OUTPUT_CHARS = 100_000
_RESERVED = frozenset(
    w
    for base in ("true", "false", "null", "yes", "no", "on", "off", "~")
    for w in (base, base.title(), base.upper())
)
_NUMERIC = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
# other scalars a YAML loader would not read back as text: underscored, hex, octal and binary
# numbers, infinities, NaN, dates, one-letter booleans, the merge and value keys
_IMPLICIT = re.compile(
    r"^(?:[-+]?[0-9_.]+(?:[eE][-+]?[0-9]+)?|[-+]?0[xXoObB][0-9a-fA-F_]+|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)|\d{4}-\d\d?-\d\d?(?:[Tt ].*)?|[yYnN]|=|<<)$"
)
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_QUOTES = set(":#[]{},&*?|>@`!%'\"\\")
# a match starts only where a backslash run starts: linear even on a long run of backslashes
_PIPE = re.compile(r"(?<!\\)(\\*)\|")
_INLINE = re.compile(r"([\\*_`\[\]<>])")
_BACKTICKS = re.compile(r"`+")


def escape_cell(value: object) -> str:
    """A table cell: ``None`` -> empty, ``|`` -> ``\\|``, CR dropped, LF -> one space.

    Backslashes right before a ``|`` are doubled, so a cell's own ``\\|`` cannot turn the
    escaping backslash into an escaped one and split the cell.
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = text.replace("\r", "").replace("\n", " ")
    return _PIPE.sub(lambda m: m[1] * 2 + "\\|", text)


def escape_inline(text: str) -> str:
    """Escape Markdown emphasis, code, link and HTML characters in running text."""
    return _INLINE.sub(r"\\\1", text)


def code_block(text: str, info: str = "") -> str:
    """``text`` as a fenced code block tagged ``info`` (a language name): the fence is longer
    than any run of backticks in ``text``, so no line of it can close the block early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}\n"


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(escape_cell(c) for c in cells) + " |\n"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table whose every cell (headers too) is escaped.

    Raises ``ValueError`` for zero columns or a row of the wrong width.
    """
    if not headers:
        raise ValueError("a table needs at least one column")
    out = [_row(headers), "| " + " | ".join("---" for _ in headers) + " |\n"]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"row has {len(row)} cells, the table has {len(headers)} columns")
        out.append(_row(row))
    return "".join(out)


def key_value_table(
    pairs: Mapping[str, object], headers: tuple[str, str] = ("Property", "Value")
) -> str:
    """A two-column table of ``pairs`` in insertion order."""
    return markdown_table(headers, list(pairs.items()))


def _yaml_escape(char: str) -> str:
    code = ord(char)
    if char in _ESCAPES:
        return _ESCAPES[char]
    # YAML's printable set; line separators would be folded inside quotes, so they go too
    if 0x20 <= code <= 0x7E or (0xA0 <= code <= 0xFFFD and code not in (0x2028, 0x2029)):
        return char
    if code >= 0x10000:
        return char
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _front_matter_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if text == "":
        return '""'
    if (
        text != text.strip()
        or any(ch in _NEEDS_QUOTES or not ch.isprintable() for ch in text)
        or text in _RESERVED
        or text.startswith("-")
        or _NUMERIC.match(text)
        or _IMPLICIT.match(text)
    ):
        return '"' + "".join(_yaml_escape(ch) for ch in text) + '"'
    return text


def front_matter(fields: Mapping[str, object]) -> str:
    """A ``---`` delimited ``key: value`` block (YAML-safe quoting), ending with a newline."""
    lines = ["---"]
    for key, value in fields.items():
        if not key:
            raise ValueError("front matter keys must not be empty")
        rendered = _front_matter_value(value)
        lines.append(f"{key}: {rendered}" if rendered else f"{key}:")
    lines.append("---")
    return "\n".join(lines) + "\n"


def guard_output(
    text: str,
    max_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    levers: str = "a smaller limit, an offset, or a narrower selection",
) -> str:
    """Cut Markdown longer than ``max_chars`` and say so, naming how to narrow the request.

    Never applied to structured content, which must stay whole to stay valid.
    """
    if len(text) <= max_chars:
        return text
    footer = (
        f"\n\n---\n[OUTPUT TRUNCATED] showing {max_chars} of {len(text)} characters; "
        f"narrow the request with {levers}."
    )
    return text[:max_chars] + footer
