"""The YAML front matter of definition files, read without a YAML library.

The checker has to run as one dependency-free script inside any adopted repository, so it
cannot import a YAML parser. Front matter in Claude Code definitions is a flat block mapping
(``name:``, ``description:``, ``tools:``, ``model:``); this reader accepts that subset —
plain, quoted, block (``|``/``>``) and flow scalars, indented nested values and sequences —
and reports anything else as malformed, with the line, rather than guessing. Like the anchor,
a nested value is folded onto one line (``- Read - Grep``), which is all the rules compare.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FM_DELIMITER = "---"
_FM_PLAIN_START = re.compile(r"""[^\s#'"{}\[\],&*!|>%@`?:-]|-[^\s#]""")
_FM_BLOCK_SCALAR = re.compile(r"[|>][+-]?[1-9]?[+-]?")
_FM_RESERVED = ("@", "`", "%", "*")
_FM_MAX_VALUE = 8192


class FrontMatterError(ValueError):
    """The front matter block is not YAML this reader (or a YAML loader) accepts."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class FrontMatter:
    """The top-level entries of a front matter block, in order, duplicates kept."""

    entries: tuple[tuple[str, str, int], ...]

    def keys(self) -> list[str]:
        """Every key, in order (a duplicated key appears twice)."""
        return [key for key, _, _ in self.entries]

    def has_key(self, key: str) -> bool:
        """Whether ``key`` is declared."""
        return key in self.keys()

    def value(self, key: str) -> str | None:
        """The value of ``key`` folded onto one line (the last declaration wins), or ``None``."""
        found = [value for name, value, _ in self.entries if name == key]
        return found[-1] if found else None

    def line_of(self, key: str) -> int:
        """The file line that declares ``key`` (first declaration), or 1."""
        return next((line for name, _, line in self.entries if name == key), 1)

    def duplicate_keys(self) -> list[str]:
        """Keys declared more than once, each named once, in order."""
        seen: set[str] = set()
        duplicates: list[str] = []
        for key in self.keys():
            if key in seen and key not in duplicates:
                duplicates.append(key)
            seen.add(key)
        return duplicates


def read_front_matter(text: str) -> FrontMatter | None:
    """The front matter of ``text``; ``None`` when it does not open with a ``---`` block.

    Raises :class:`FrontMatterError` (with the file line) when the block is opened but never
    closed, or holds something that is not a flat YAML mapping.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != _FM_DELIMITER:
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == _FM_DELIMITER), None)
    if end is None:
        raise FrontMatterError("front matter opened with '---' is never closed", 1)
    return FrontMatter(tuple(_fm_entries(lines[1:end])))


def _fm_entries(lines: list[str]) -> list[tuple[str, str, int]]:
    entries: list[tuple[str, str, int]] = []
    for number, line in enumerate(lines, start=2):
        if line.strip() and "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
            raise FrontMatterError("front matter indents with a tab, which YAML forbids", number)
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 2
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        if line[0].isspace():
            raise FrontMatterError(
                "front matter has an indented line that belongs to no key", number
            )
        if stripped.startswith("- ") or stripped == "-":
            raise FrontMatterError("front matter is a list, not a mapping of keys", number)
        pair = _fm_key_value(line)
        if pair is None:
            raise FrontMatterError(f"front matter line is not 'key: value': {stripped}", number)
        key, inline = pair
        body, index = _fm_nested(lines, index + 1, not inline)
        value = _fm_scalar(inline, body, number)
        entries.append((key, _fm_folded(value), number))
    return entries


def _fm_key_value(line: str) -> tuple[str, str] | None:
    """The key and inline value of a ``key: value`` line, or ``None`` when it is not one.

    YAML's reading of a flat mapping line: a double- or single-quoted key, or a plain key (no
    ``#``, not starting with an indicator character) ending at the first ``:`` followed by a
    blank or the end of the line; the value has its surrounding blanks removed. A scan of the
    line, not a regex: a lazy key before an optional value backtracks on a hostile line.
    """
    if line[:1] in ('"', "'"):
        quote = line[0]
        close = line.find(quote, 1)
        key = line[1:close]
        if close < 0 or (quote == '"' and "\\" in key):
            return None
        rest = line[close + 1 :].lstrip(" \t")
        if not rest.startswith(":") or rest[1:2] not in ("", " ", "\t"):
            return None
        return key, _fm_after_colon(rest[1:])
    start = _FM_PLAIN_START.match(line)
    if start is None:
        return None
    comment = line.find("#")
    colon = line.find(":", start.end())
    while colon >= 0 and (comment < 0 or colon < comment):
        if colon + 1 == len(line) or line[colon + 1] in " \t":
            key = line[:colon].rstrip(" \t")
            return (key, _fm_after_colon(line[colon + 1 :])) if key else None
        colon = line.find(":", colon + 1)
    return None


def _fm_after_colon(rest: str) -> str:
    """The inline value after a key's colon: empty, or what follows the blanks after it."""
    return rest.strip(" \t")


def _fm_nested(lines: list[str], index: int, sequence_allowed: bool) -> tuple[list[str], int]:
    """The lines after a key that belong to its value: blank, indented or comment lines, and
    (for a key with no inline value) a block sequence written in column 0."""
    body: list[str] = []
    while index < len(lines):
        line = lines[index]
        column_zero = bool(line.strip()) and not line[0].isspace()
        item = line.startswith("- ") or line.rstrip() == "-"
        if column_zero and not line.startswith("#") and not (item and sequence_allowed):
            break
        body.append(line)
        index += 1
    return body, index


def _fm_scalar(value: str, body: list[str], number: int) -> str:
    nested = [line.strip() for line in body if line.strip() and not line.lstrip().startswith("#")]
    if not value:
        return " ".join(nested)
    if _FM_BLOCK_SCALAR.fullmatch(value.split(" #")[0].strip()):
        return " ".join(nested)
    if value[0] in "\"'":
        return _fm_quoted(" ".join([value, *nested]), value[0], number)
    if value[0] in "[{":
        return _fm_flow(" ".join([value, *nested]), number)
    if value.startswith(_FM_RESERVED):
        raise FrontMatterError(
            f"front matter value starts with the reserved character {value[0]!r}; quote it",
            number,
        )
    plain = " ".join([_fm_uncommented(value), *(_fm_uncommented(line) for line in nested)])
    if ": " in plain or plain.endswith(":"):
        raise FrontMatterError(
            "front matter value holds ': ', which YAML reads as a nested mapping; quote the value",
            number,
        )
    return plain


def _fm_uncommented(text: str) -> str:
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()


def _fm_quoted(text: str, quote: str, number: int) -> str:
    index = 1
    result: list[str] = []
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\" and index + 1 < len(text):
            result.append({"n": "\n", "t": "\t"}.get(text[index + 1], text[index + 1]))
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                result.append("'")
                index += 2
                continue
            rest = _fm_uncommented(text[index + 1 :])
            if rest:
                raise FrontMatterError(
                    f"front matter has text after a closing quote: {rest}", number
                )
            return "".join(result)
        result.append(char)
        index += 1
    raise FrontMatterError("front matter value opens a quote it never closes", number)


def _fm_flow(text: str, number: int) -> str:
    depth = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth < 0:
                break
            if depth == 0:
                if _fm_uncommented(text[index + 1 :]):
                    raise FrontMatterError(
                        "front matter value is a '[' or '{' collection followed by more text "
                        "(such as 'argument-hint: [a] [b]'), which YAML rejects; quote the value",
                        number,
                    )
                return text[1:index].strip()
    raise FrontMatterError("front matter value opens a '[' or '{' it never closes", number)


def _fm_folded(value: str) -> str:
    return " ".join(part.strip() for part in value[:_FM_MAX_VALUE].splitlines() if part.strip())
