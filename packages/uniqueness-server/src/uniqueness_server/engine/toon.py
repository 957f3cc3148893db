"""A parser for the TOON subset the anchor reads, producing plain Python values.

Supported: ``key: value``; ``key:`` opening a nested object (deeper lines); tabular arrays
``name[N]{f1,f2}:`` followed by N comma-separated rows; inline primitive arrays
``name[N]: a,b,c``; lists ``name[N]:`` of ``- item`` lines, where an item may open an object
(``- id: 1`` plus deeper fields). A root array may omit its name. Scalars stay text (values
are compared as exact text); ``null`` is a missing value. A declared count that does not
match the rows present is an error, never a silent cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcp_common import ErrorCode, ToolError

_ARRAY = re.compile(
    r"^(?P<key>[\w.]*|\"[^\"]*\")\[(?P<count>\d+)\](?:\{(?P<fields>[^}]*)\})?:(?P<rest>.*)$"
)
_PAIR = re.compile(r"^(?P<key>[\w.]+|\"[^\"]*\"):(?:\s(?P<value>.*)|)$")
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    indent: int
    text: str


def _error(line: _Line, message: str) -> ToolError:
    return ToolError(f"TOON line {line.number}: {message}", ErrorCode.INVALID_ARGUMENT)


def unquote(value: str) -> str | None:
    """A scalar's text: quotes removed and escapes decoded; ``null`` is missing."""
    text = value.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        out: list[str] = []
        body, i = text[1:-1], 0
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body) and body[i + 1] in _ESCAPES:
                out.append(_ESCAPES[body[i + 1]])
                i += 2
            else:
                out.append(ch)
                i += 1
        return "".join(out)
    return None if text == "null" else text


def split_row(text: str, delimiter: str = ",") -> list[str]:
    """Split on ``delimiter`` outside double quotes, honouring backslash escapes in quotes."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == delimiter and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _indent(raw: str) -> int:
    """Leading spaces, a tab counting as two (as the anchor counts them)."""
    lead = raw[: len(raw) - len(raw.lstrip(" \t"))]
    return len(lead) + lead.count("\t")


def _key(raw: str) -> str:
    return raw[1:-1] if raw.startswith('"') else raw


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = [
            _Line(n, _indent(raw), raw.strip())
            for n, raw in enumerate(text.splitlines(), start=1)
            if raw.strip()
        ]
        self.pos = 0

    def peek(self) -> _Line | None:
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def document(self) -> Any:
        first = self.peek()
        if first is None:
            return None
        match = _ARRAY.match(first.text)
        if match and not match["key"]:
            self.pos += 1
            return self.array(first, match)
        return self.object(first.indent)

    def object(self, indent: int, first: _Line | None = None) -> dict[str, Any]:
        """The object whose fields sit at ``indent``; ``first``, when given, is its first
        field, already taken off the lines (a ``- key: value`` list item's)."""
        result: dict[str, Any] = {}
        while (line := first or self.peek()) is not None and line.indent >= indent:
            if line.indent > indent:
                raise _error(line, "unexpected indentation")
            if first is None:
                self.pos += 1
            first = None
            array = _ARRAY.match(line.text)
            if array and array["key"]:
                result[_key(array["key"])] = self.array(line, array)
                continue
            pair = _PAIR.match(line.text)
            if pair is None:
                raise _error(line, f"expected 'key: value', got {line.text[:60]!r}")
            key, value = _key(pair["key"]), pair["value"]
            if value is None or not value.strip():
                child = self.peek()
                result[key] = self.object(child.indent) if child and child.indent > indent else {}
            else:
                result[key] = unquote(value)
        return result

    def array(self, header: _Line, match: re.Match[str]) -> list[Any]:
        count = int(match["count"])
        rest = match["rest"].strip()
        if match["fields"] is not None:
            fields = [_key(f.strip()) for f in split_row(match["fields"])]
            rows = [rest] if rest else []
            while (
                len(rows) < count
                and (line := self.peek()) is not None
                and line.indent > header.indent
            ):
                self.pos += 1
                rows.append(line.text)
            items: list[Any] = []
            for row in rows:
                values = [unquote(v) for v in split_row(row)]
                if len(values) != len(fields):
                    raise _error(
                        header,
                        f"a row of {match['key'] or 'the root array'} has {len(values)} "
                        f"values for {len(fields)} fields",
                    )
                items.append(dict(zip(fields, values, strict=True)))
        elif rest:
            items = [unquote(v) for v in split_row(rest)]
        else:
            items = self.list_items(header)
        if len(items) != count:
            raise _error(
                header,
                f"array {match['key'] or '(root)'} declares {count} items but holds {len(items)}",
            )
        return items

    def list_items(self, header: _Line) -> list[Any]:
        items: list[Any] = []
        while (
            (line := self.peek()) is not None
            and line.indent > header.indent
            and line.text.startswith("-")
        ):
            self.pos += 1
            body = line.text[1:].strip()
            nested = _ARRAY.match(body)
            if _PAIR.match(body) or (nested is not None and nested["key"]):
                # "- key: value" opens an object whose other fields sit deeper than the dash
                # (never inserted into the lines: that made a long list quadratic)
                field = _Line(line.number, line.indent + 2, body)
                items.append(self.object(line.indent + 2, field))
            else:
                items.append(unquote(body))
        return items


def parse_toon(text: str) -> Any:
    """The value a TOON document describes."""
    return _Parser(text).document()
