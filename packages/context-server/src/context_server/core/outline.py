"""Outlines: a file's declarations as signatures, without bodies, from its syntax tree.

The rules are grammar-neutral on purpose (node kinds ending in ``_declaration``,
``_definition``, ``_item`` or ``_signature``, bodies found by the ``body`` field or a
``*_body``/``block`` child), with the few shapes that differ named once: wrappers around a
declaration (``export``, ``declare``, decorators), the function a variable is set to, C#
property accessors and ``#if`` blocks, Go struct and interface types. Only types are
opened: what a function declares inside its body is local and never part of the outline.
A declaration's documentation is the run of comments right before it (attributes may sit
between), never a licence header and never a comment trailing code on its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from context_server.core.languages import SourceLanguage

_DECLARATION_SUFFIXES = (
    "_declaration",
    "_definition",
    "_item",
    "_object",
    "type_alias",
    "_signature",
)
_DECLARATION_KINDS = frozenset(
    {"internal_module", "module", "method_elem", "type_elem", "enum_variant", "enum_constant"}
)
_NOT_DECLARATIONS = ("import", "package", "local_", "use_", "attribute_", "inner_attribute_")
# Nodes around a declaration (``export``, ``declare``, a decorator, TypeScript's namespace
# statement): the outline shows the declaration inside, with the wrapper's words.
_WRAPPERS = frozenset(
    {"export_statement", "ambient_declaration", "decorated_definition", "expression_statement"}
)
# Between a declaration and its documentation: Rust attributes, C# attribute lists.
_ATTACHED = frozenset({"attribute_item", "attribute_list", "decorator"})
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
    "module",
    "mod_item",
    "type_declaration",
)
# Parts of a declaration that carry its name (a Java field's declarator, a Go spec).
_NAMED_PARTS = frozenset(
    {
        "variable_declarator",
        "variable_declaration",
        "type_spec",
        "type_alias",
        "var_spec",
        "const_spec",
    }
)
_FUNCTION_WORDS = ("function", "arrow", "lambda", "closure", "method")
_BODY_SUFFIXES = ("_body", "block", "declaration_list", "field_declaration_list")
_SPACES = re.compile(r"\s+")
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/|\*|//+!?|#+|\"\"\"|''')\s?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_LICENCE = re.compile(r"copyright|spdx-license-identifier|licensed under", re.IGNORECASE)
# C# XML documentation: a reference keeps its name, every other tag goes.
_XML_REFERENCE = re.compile(r'<(?:see|seealso|paramref|typeparamref)\s+\w+="([^"]*)"\s*/>')
_XML_TAG = re.compile(r'</?\w+(?:\s+\w+="[^"]*")*\s*/?>')
MAX_SIGNATURE_CHARS = 240


@dataclass(frozen=True, slots=True)
class OutlineItem:
    """One declaration: nesting ``depth`` (0 = top level), whether it is a ``type``, its
    signature on one line (no body), the first sentence of its documentation, its line,
    its name (``""`` when the grammar names it nowhere the outline looks) and the byte
    offsets and lines (1-based, inclusive) of its whole definition. ``receiver`` names the
    type a method declared outside that type's body belongs to (a Go method's receiver, a
    Rust ``impl``'s type), ``""`` otherwise."""

    depth: int
    type: bool
    signature: str
    doc: str
    line: int
    name: str = ""
    span: tuple[int, int] = (0, 0)
    lines: tuple[int, int] = (0, 0)
    receiver: str = ""


@dataclass(frozen=True, slots=True)
class Outline:
    """A file's package line, its imports and its declarations in source order."""

    package: str
    imports: tuple[str, ...]
    items: tuple[OutlineItem, ...]


def outline(language: SourceLanguage, text: str) -> Outline:
    """The outline of ``text`` written in ``language``."""
    source = text.encode("utf-8")
    root = language.parse(source).root
    package = ""
    imports: list[str] = []
    items: list[OutlineItem] = []
    for child in _top_level(root):
        kind = child.type
        if "package" in kind or kind == "file_scoped_namespace_declaration":
            package = package or _one_line(_text(child, source))
        elif "import" in kind or kind in {"using_directive", "use_declaration"}:
            imports.append(_one_line(_text(child, source)))
    _collect(root, source, 0, items)
    return Outline(package, tuple(imports), tuple(items))


def _top_level(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The children of ``node``, those inside preprocessor blocks included."""
    found = []
    for child in node.named_children:
        if child.type.startswith("preproc_"):
            found.extend(_top_level(child))
        else:
            found.append(child)
    return found


def render_signatures(language: SourceLanguage, text: str) -> str:
    """``text`` reduced to its signatures: the package line, a one-line imports summary,
    and every declaration's signature with its documentation's first sentence, indented by
    nesting. Bodies, licence headers and other comments are dropped."""
    facts = outline(language, text)
    note = language.line_comment
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


def _collect(
    node: tree_sitter.Node,
    source: bytes,
    depth: int,
    items: list[OutlineItem],
    receiver: str = "",
) -> None:
    comments: list[tree_sitter.Node] = []
    last_row = -2  # the last row of the comments and attributes gathered so far
    previous_end = -1  # the last row of the previous code node, for trailing comments
    for child in node.named_children:
        kind = child.type
        if "comment" in kind:
            if child.start_point[0] == previous_end and not comments:
                continue  # a comment after code on its line is about that code
            if child.start_point[0] > last_row + 1:
                comments = []
            comments.append(child)
            last_row = _last_row(child)
            continue
        if kind.startswith("preproc_"):
            # C#'s ``#if``/``#region``: what they enclose is declared at this level.
            _collect(child, source, depth, items, receiver)
            comments = []
            continue
        if kind in _ATTACHED:
            if child.start_point[0] > last_row + 1:
                comments = []
            last_row = _last_row(child)
            continue
        definition = _inner(child)
        if definition is not None:
            adjacent = bool(comments) and child.start_point[0] <= last_row + 1
            found = comments if adjacent else []
            _add(child, definition, source, depth, items, found, receiver)
        comments = []
        last_row = -2
        previous_end = _last_row(child)


def _add(
    child: tree_sitter.Node,
    definition: tree_sitter.Node,
    source: bytes,
    depth: int,
    items: list[OutlineItem],
    comments: list[tree_sitter.Node],
    receiver: str,
) -> None:
    """Append the declaration ``definition`` (``child`` itself or the declaration it wraps)
    and, for a type, its members."""
    body = _body(definition)
    end = body.start_byte if body is not None else child.end_byte
    if body is not None and body.type == "interface_type":
        # A Go interface is its own member list: the head keeps the ``interface`` word.
        end = next((c.start_byte for c in body.children if c.type == "{"), end)
    head = _one_line(source[child.start_byte : end].decode("utf-8", "replace"))
    signature = head.rstrip("{=: ").removesuffix("=>").rstrip()
    if body is not None and body.type == "accessor_list":
        signature += " " + _accessors(body, source)
    is_type = any(word in definition.type for word in _TYPE_WORDS)
    items.append(
        OutlineItem(
            depth,
            is_type,
            _shorten(signature),
            _doc(comments, body, source),
            child.start_point[0] + 1,
            _name(definition, source),
            (child.start_byte, child.end_byte),
            (child.start_point[0] + 1, child.end_point[0] + 1),
            receiver or _type_name(definition.child_by_field_name("receiver"), source),
        )
    )
    if is_type and body is not None:
        owner = definition.child_by_field_name("type") if definition.type == "impl_item" else None
        _collect(body, source, depth + 1, items, _type_name(owner, source))


def _type_name(node: tree_sitter.Node | None, source: bytes) -> str:
    """The name of the type ``node`` (a Go receiver, a Rust ``impl`` type) is about, without
    pointers, paths or type arguments: the last type identifier before any ``<``/``[``."""
    if node is None:
        return ""
    found = ""
    pending = [node]
    while pending:
        current = pending.pop()
        if current.type in {"type_arguments", "type_parameters"}:
            continue
        if current.type == "type_identifier":
            found = _text(current, source)
            if current.parent is not None and current.parent.type == "generic_type":
                break
        pending.extend(reversed(current.named_children))
    return found


def _inner(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The declaration ``node`` is or wraps (``export class``, ``declare module``, a
    decorated function), or None when it declares nothing."""
    if node.type not in _WRAPPERS:
        return node if _is_declaration(node.type) else None
    if node.type == "export_statement" and (
        node.child_by_field_name("source") is not None
        or any(c.type in {"export_clause", "namespace_export"} for c in node.named_children)
    ):
        return node  # a re-export (``export { A } from "./a"``): part of the module's API
    inner = node.child_by_field_name("definition") or node.child_by_field_name("declaration")
    if inner is None:
        value = node.child_by_field_name("value")
        # ``export default class {}``: an anonymous class is still the module's type.
        inner = value if value is not None and value.type == "class" else None
    if inner is None:
        inner = next((c for c in node.named_children if _is_declaration(c.type)), None)
    return inner


def _last_row(node: tree_sitter.Node) -> int:
    """The last row holding text of ``node`` (a Rust line comment ends on the next row)."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _accessors(accessors: tree_sitter.Node, source: bytes) -> str:
    """A C# property's accessors without their bodies: ``{ get; private set; }``."""
    heads = []
    for accessor in accessors.named_children:
        if accessor.type != "accessor_declaration":
            continue
        body = accessor.child_by_field_name("body")
        end = body.start_byte if body is not None else accessor.end_byte
        head = _one_line(source[accessor.start_byte : end].decode("utf-8", "replace"))
        heads.append(head.rstrip(";").rstrip() + ";")
    return "{ " + " ".join(heads) + " }"


def _name(node: tree_sitter.Node, source: bytes) -> str:
    """The declared name: the ``name`` field, else (a field or property) the name of its
    first declarator, variable declaration, Go spec or pattern."""
    named = node.child_by_field_name("name")
    if named is None:
        for child in node.named_children:
            if child.type in _NAMED_PARTS:
                named = child.child_by_field_name("name") or next(
                    (c for c in child.named_children if c.type.endswith("identifier")), None
                )
                break
        else:
            named = node.child_by_field_name("pattern")
    return _text(named, source) if named is not None else ""


def _is_declaration(kind: str) -> bool:
    return (kind.endswith(_DECLARATION_SUFFIXES) or kind in _DECLARATION_KINDS) and not (
        kind.startswith(_NOT_DECLARATIONS)
    )


def _body(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """Where the declaration's signature ends: its body (members, statements or an
    expression), a C# property's accessors, the function a variable or field is set to, or
    the fields and methods of a Go struct or interface type."""
    body = node.child_by_field_name("body") or node.child_by_field_name("accessors")
    if body is None:
        body = next((c for c in node.named_children if c.type.endswith(_BODY_SUFFIXES)), None)
    if body is not None:
        return body
    if node.type == "type_declaration":
        specs = [c for c in node.named_children if c.type == "type_spec"]
        shape = specs[0].child_by_field_name("type") if len(specs) == 1 else None
        if shape is not None and shape.type == "struct_type":
            return next((c for c in shape.named_children if c.type.endswith("_list")), None)
        return shape if shape is not None and shape.type == "interface_type" else None
    value = node.child_by_field_name("value")
    if value is None:
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
    return _function_body(value) if value is not None else None


def _function_body(value: tree_sitter.Node) -> tree_sitter.Node | None:
    """The body of the first function, lambda or closure in ``value``, in source order
    (``(x) => {...}``, ``factory("name", (inst) => {...})``), if any."""
    pending = [value]
    while pending:
        node = pending.pop()
        body = node.child_by_field_name("body")
        if body is not None and any(word in node.type for word in _FUNCTION_WORDS):
            return body
        pending.extend(reversed(node.named_children))
    return None


def _doc(comments: list[tree_sitter.Node], body: tree_sitter.Node | None, source: bytes) -> str:
    """The first sentence of the comments right before the declaration (never a licence
    header) or, in Python, of the docstring opening its body."""
    text = "\n".join(_text(comment, source) for comment in comments)
    if not text and body is not None and body.named_children:
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_children:
            string = first.named_children[0]
            if string.type == "string":
                text = _text(string, source)
    if not text or _LICENCE.search(text):
        return ""
    cleaned = " ".join(
        part
        for line in text.splitlines()
        if (part := _COMMENT_MARKS.sub("", line).strip().rstrip("*/").strip())
        and not part.startswith("@")
    )
    if "<summary>" in cleaned:
        cleaned = cleaned.split("<summary>", 1)[1].split("</summary>", 1)[0]
    cleaned = _SPACES.sub(" ", _XML_TAG.sub(" ", _XML_REFERENCE.sub(r"\1", cleaned))).strip()
    return _shorten(_SENTENCE_END.split(cleaned, maxsplit=1)[0].strip('"').strip())


def _text(node: tree_sitter.Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _shorten(text: str) -> str:
    return text if len(text) <= MAX_SIGNATURE_CHARS else text[: MAX_SIGNATURE_CHARS - 1] + "…"
