"""Locate elements in a POM and splice new ones in without touching any other byte.

A DOM round trip would re-indent, re-quote and drop comments; reviewers of the adoption's pull
request must see only the lines that were added. So the text is scanned just far enough to know
where each element starts and ends (comments, CDATA, processing instructions and ``>`` inside
attribute values are skipped), and new elements are inserted as text, indented like the file
and ended with its own line terminator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

_NAME = re.compile(r"[^\s/>]+")
_SKIPPED = (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">"))
DEFAULT_UNIT = "  "


class PomError(ValueError):
    """The POM cannot be read or edited safely."""


@dataclass(eq=False)
class Element:
    """One element's position in the text; ``name`` is its local name (prefix dropped)."""

    name: str
    start: int
    start_tag_end: int
    self_closing: bool
    parent: Element | None
    depth: int
    end_tag_start: int = -1
    end: int = -1
    children: list[Element] = field(default_factory=list)

    def child(self, name: str) -> Element | None:
        """The first child element called ``name``."""
        return next((c for c in self.children if c.name == name), None)

    def descendants(self) -> list[Element]:
        """Every element below this one, in document order."""
        found: list[Element] = []
        for child in self.children:
            found += [child, *child.descendants()]
        return found

    def text(self, source: str) -> str:
        """The stripped text content of a leaf element ("" for a self-closing one)."""
        return "" if self.self_closing else source[self.start_tag_end : self.end_tag_start].strip()


@dataclass(frozen=True)
class Node:
    """An element to insert: a leaf with text, or a parent of further nodes."""

    name: str
    text: str = ""
    children: tuple[Node, ...] = ()


def parse(source: str, file: str = "pom.xml") -> Element:
    """The root element of ``source``; raises :class:`PomError` naming ``file`` when the text
    has no root element or leaves one unclosed."""
    stack: list[Element] = []
    root: Element | None = None
    position = 0
    while (opening := source.find("<", position)) >= 0:
        skipped = _skip(source, opening, file)
        if skipped is not None:
            position = skipped
            continue
        closing = _tag_end(source, opening)
        if closing < 0:
            raise PomError(f"Could not read POM: {file} has a tag that never ends")
        if source.startswith("</", opening):
            name = _local(source[opening + 2 : closing].strip())
            if not stack or stack[-1].name != name:
                raise PomError(f"Could not read POM: {file} closes <{name}> that is not open")
            element = stack.pop()
            element.end_tag_start, element.end = opening, closing + 1
        else:
            match = _NAME.match(source, opening + 1)
            if match is None:
                raise PomError(f"Could not read POM: {file} has a tag without a name")
            parent = stack[-1] if stack else None
            if parent is None and root is not None:
                raise PomError(f"Could not read POM: {file} has more than one root element")
            element = Element(
                _local(match.group()),
                opening,
                closing + 1,
                source[closing - 1] == "/",
                parent,
                len(stack),
            )
            if parent is None:
                root = element
            else:
                parent.children.append(element)
            if element.self_closing:
                element.end_tag_start = element.end = closing + 1
            else:
                stack.append(element)
        position = closing + 1
    if stack:
        raise PomError(f"Could not read POM: {file} never closes <{stack[-1].name}>")
    if root is None:
        raise PomError(f"Could not read POM: {file} has no root element")
    return root


def _skip(source: str, opening: int, file: str) -> int | None:
    for start, stop in _SKIPPED:
        if source.startswith(start, opening):
            end = source.find(stop, opening + len(start))
            if end < 0:
                raise PomError(f"Could not read POM: {file} never closes {start}")
            return end + len(stop)
    return None


def _tag_end(source: str, opening: int) -> int:
    quote = ""
    for index in range(opening + 1, len(source)):
        char = source[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ">":
            return index
    return -1


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def indent_unit(source: str, root: Element) -> str:
    """The file's indentation unit: the leading whitespace of the first top-level child that
    starts its own line, or two spaces (a single-line POM)."""
    for child in root.children:
        line_start = source.rfind("\n", 0, child.start) + 1
        lead = source[line_start : child.start]
        if lead and not lead.strip():
            return lead
    return DEFAULT_UNIT


def _line_indent(source: str, element: Element, unit: str) -> str:
    line_start = source.rfind("\n", 0, element.start) + 1
    lead = source[line_start : element.start]
    return lead if not lead.strip() else unit * element.depth


def append_child(source: str, parent: Element, node: Node, unit: str) -> str:
    """``source`` with ``node`` inserted as the last child of ``parent``.

    Inserted after the parent's existing content; an empty or whitespace-only parent gets the
    node plus a line break before its end tag; a self-closing parent is reopened.
    """
    newline = "\r\n" if "\r\n" in source else "\n"
    own = _line_indent(source, parent, unit)
    block = newline + newline.join(_render(node, own + unit, unit))
    if parent.self_closing:
        tag = source[parent.start : parent.end - 2].rstrip() + ">"
        replacement = f"{tag}{block}{newline}{own}</{_tag_name(source, parent)}>"
        return source[: parent.start] + replacement + source[parent.end :]
    content = source[parent.start_tag_end : parent.end_tag_start]
    if not content.strip():
        return (
            source[: parent.start_tag_end] + block + newline + own + source[parent.end_tag_start :]
        )
    insert_at = parent.start_tag_end + len(content.rstrip())
    if "\n" not in source[insert_at : parent.end_tag_start]:
        # The end tag shared a line with the last child: give it a line of its own.
        block += newline + own
    return source[:insert_at] + block + source[insert_at:]


def _tag_name(source: str, element: Element) -> str:
    match = _NAME.match(source, element.start + 1)
    return match.group() if match else element.name


def _render(node: Node, indent: str, unit: str) -> list[str]:
    if not node.children:
        return [f"{indent}<{node.name}>{escape(node.text)}</{node.name}>"]
    lines = [f"{indent}<{node.name}>"]
    for child in node.children:
        lines += _render(child, indent + unit, unit)
    return [*lines, f"{indent}</{node.name}>"]
