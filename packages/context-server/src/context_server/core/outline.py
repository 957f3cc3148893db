"""Outlines: a file's declarations as signatures, without bodies, from its syntax tree.

The rules are grammar-neutral on purpose (node kinds ending in ``_declaration``,
``_definition`` or ``_item``, bodies found by the ``body`` field or a ``*_body``/``block``
child), so a language added to :data:`context_server.core.languages.LANGUAGES` gets an
outline without code here. Only types are opened: what a function declares inside its body
is local and never part of the outline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from context_server.core.languages import SourceLanguage

_DECLARATION_SUFFIXES = ("_declaration", "_definition", "_item", "_object", "type_alias")
_NOT_DECLARATIONS = ("import", "package", "local_", "use_", "mod_item_")
_TYPE_WORDS = (
    "class",
    "interface",
    "enum",
    "object",
    "trait",
    "record",
    "struct",
    "impl",
    "namespace",
    "annotation_type",
)
_BODY_SUFFIXES = ("_body", "block", "declaration_list", "field_declaration_list")
_SPACES = re.compile(r"\s+")
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|//+|#+|\"\"\"|''')\s?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
MAX_SIGNATURE_CHARS = 240


@dataclass(frozen=True, slots=True)
class OutlineItem:
    """One declaration: nesting ``depth`` (0 = top level), whether it is a ``type``, its
    signature on one line (no body), the first sentence of its documentation, its line,
    its name (``""`` when the grammar names it nowhere the outline looks) and the byte
    offsets and lines (1-based, inclusive) of its whole definition."""

    depth: int
    type: bool
    signature: str
    doc: str
    line: int
    name: str = ""
    span: tuple[int, int] = (0, 0)
    lines: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Outline:
    """A file's package line, its imports and its declarations in source order."""

    package: str
    imports: tuple[str, ...]
    items: tuple[OutlineItem, ...]


def outline(language: SourceLanguage, text: str) -> Outline:
    """The outline of ``text`` written in ``language``."""
    source = text.encode("utf-8")
    root = language.parser().parse(source).root_node
    package = ""
    imports: list[str] = []
    items: list[OutlineItem] = []
    for child in root.named_children:
        kind = child.type
        if "package" in kind or kind == "file_scoped_namespace_declaration":
            package = package or _one_line(_text(child, source))
        elif "import" in kind or kind in {"using_directive", "use_declaration"}:
            imports.append(_one_line(_text(child, source)))
    _collect(root, source, 0, items)
    return Outline(package, tuple(imports), tuple(items))


def render_signatures(language: SourceLanguage, text: str) -> str:
    """``text`` reduced to its signatures: the package line, a one-line imports summary,
    and every declaration's signature with its documentation's first sentence, indented by
    nesting. Bodies, licence headers and other comments are dropped."""
    facts = outline(language, text)
    note = "#" if language.name == "python" else "//"
    lines: list[str] = []
    if facts.package:
        lines.append(facts.package)
    if facts.imports:
        lines.append(f"{note} {len(facts.imports)} imports")
    for item in facts.items:
        indent = "    " * item.depth
        if item.doc:
            lines.append(f"{indent}{note} {item.doc}")
        lines.append(f"{indent}{item.signature}")
    return "\n".join(lines) + "\n" if lines else ""


def _collect(node: tree_sitter.Node, source: bytes, depth: int, items: list[OutlineItem]) -> None:
    previous: tree_sitter.Node | None = None
    for child in node.named_children:
        definition = child.child_by_field_name("definition") or child
        if _is_declaration(definition.type):
            body = _body(definition)
            end = body.start_byte if body is not None else child.end_byte
            signature = _one_line(source[child.start_byte : end].decode("utf-8", "replace"))
            is_type = any(word in definition.type for word in _TYPE_WORDS)
            items.append(
                OutlineItem(
                    depth,
                    is_type,
                    _shorten(signature.rstrip("{=: ").rstrip()),
                    _doc(previous, body, source),
                    child.start_point[0] + 1,
                    _name(definition, source),
                    (child.start_byte, child.end_byte),
                    (child.start_point[0] + 1, child.end_point[0] + 1),
                )
            )
            if is_type and body is not None:
                _collect(body, source, depth + 1, items)
        previous = child


def _name(node: tree_sitter.Node, source: bytes) -> str:
    """The declared name: the ``name`` field, else (a field or property) the name of its
    first declarator, variable declaration or pattern."""
    named = node.child_by_field_name("name")
    if named is None:
        for child in node.named_children:
            if child.type in {"variable_declarator", "variable_declaration"}:
                named = child.child_by_field_name("name") or next(
                    (c for c in child.named_children if c.type.endswith("identifier")), None
                )
                break
        else:
            named = node.child_by_field_name("pattern")
    return _text(named, source) if named is not None else ""


def _is_declaration(kind: str) -> bool:
    return kind.endswith(_DECLARATION_SUFFIXES) and not kind.startswith(_NOT_DECLARATIONS)


def _body(node: tree_sitter.Node) -> tree_sitter.Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    return next((c for c in node.named_children if c.type.endswith(_BODY_SUFFIXES)), None)


def _doc(previous: tree_sitter.Node | None, body: tree_sitter.Node | None, source: bytes) -> str:
    """The first sentence of a comment right before the declaration or, in Python, of the
    docstring opening its body."""
    text = ""
    if previous is not None and "comment" in previous.type:
        text = _text(previous, source)
    elif body is not None and body.named_children:
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_children:
            string = first.named_children[0]
            if string.type == "string":
                text = _text(string, source)
    if not text:
        return ""
    cleaned = " ".join(
        part
        for line in text.splitlines()
        if (part := _COMMENT_MARKS.sub("", line).strip().rstrip("*/").strip())
        and not part.startswith("@")
    )
    return _shorten(_SENTENCE_END.split(cleaned, maxsplit=1)[0].strip('"').strip())


def _text(node: tree_sitter.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _shorten(text: str) -> str:
    return text if len(text) <= MAX_SIGNATURE_CHARS else text[: MAX_SIGNATURE_CHARS - 1] + "…"
